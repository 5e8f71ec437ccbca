"""Template filters: a tournament's system in words; exact fractions as percentages."""

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from django import template
from django.utils.formats import number_format

register = template.Library()


@register.filter
def system_summary(tournament) -> str:
    """The tournament's system (and mode, target, best-of where they apply) in a few words:
    ``ScoringSystem.summary``."""
    from tournaments import systems

    return systems.of(tournament).summary(tournament)


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
