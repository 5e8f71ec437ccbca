"""Template filters for the standings: exact fractions shown as percentages with 2 decimals."""

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from django import template
from django.utils.formats import number_format

register = template.Library()


@register.filter
def pct(value) -> str:
    """A fraction (0..1) as a percentage with 2 decimals, rounded half up, in the page's
    locale: Fraction(1233, 2000) → "61,65" in Spanish. Empty for None."""
    if value is None:
        return ""
    exact = Fraction(value) * 100
    rounded = (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )
    return number_format(rounded, decimal_pos=2)
