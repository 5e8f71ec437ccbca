"""One way to show a number on a page: ratings, rating changes, Elo figures, percentages.

Every figure a person reads (tables, the rating chart's labels, the standings' percentages)
goes through ``format_number``, through the template filters ``num`` and ``signed`` of
``tournaments/templatetags/club.py``, or through Django's ``floatformat``, which rounds the
same way:

- **rounding**: half away from zero at the shown decimals (1531.25 → 1531.3,
  −0.05 → −0.1), applied to the number's digits as Python shows them (``repr``): 1531.249999
  → 1531.2, 1512.345 → 1512.35. A result of zero has no sign (−0.04 → 0.0);
- **decimals**: fixed per quantity, the same on every page: rating 1, rating change 1,
  expected and obtained score 3, K 2, percentages 2 (``DECIMALS``);
- **separator**: the page's language (1531,3 in Spanish and Russian, 1531.3 in English), no
  thousands grouping.

The downloads (CSV and .xlsx; ``tournaments/exports.py``, ``rankings/exports.py``) round the
same way for people (``rounded``, with a dot); their exact form (``?precision=full``,
``--full-precision``) keeps the machine format: full ``repr`` precision for the ledger and the
ranking, fixed decimals for the standings.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from django.utils.formats import number_format

#: Decimals shown for each quantity, on every page.
DECIMALS = {
    "rating": 1,
    "change": 1,
    "expected_score": 3,
    "score": 3,
    "k_factor": 2,
    "percent": 2,
}


#: ``Decimal(1).scaleb(-decimals)`` for every ``decimals`` ``rounded`` takes the quick way for.
_UNITS = {d: Decimal(1).scaleb(-d) for d in range(-19, 20)}


def rounded(value, decimals: int) -> Decimal:
    """``value`` rounded half away from zero to ``decimals`` places, as a ``Decimal`` with
    exactly that many places; never a negative zero.

    A float is read from its ``repr`` (the shortest digits that give it back), like Django's
    ``floatformat``: 1531.25 → 1531.3, 1531.249999 → 1531.2, -0.05 → -0.1. An int, a
    ``Decimal`` or a ``Fraction`` is rounded exactly (Fraction(1, 8), 2 → 0.13).

    Raises ``ValueError`` for NaN or infinity and ``TypeError`` for a non-number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal, Fraction)):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value!r}")
        value = Decimal(repr(value))
    elif isinstance(value, Decimal) and not value.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    if isinstance(value, Decimal) and value.adjusted() < 20 and -20 < decimals < 20:
        # The common case (a float's repr, a Decimal): quantize's ROUND_HALF_UP is half away
        # from zero on the exact decimal, with room to spare in the context's precision; the
        # pages format thousands of figures (~3 µs each this way, ~30 µs through Fraction).
        with localcontext() as context:
            context.prec = 50
            result = value.quantize(_UNITS[decimals], rounding=ROUND_HALF_UP)
        return result.copy_abs() if result.is_zero() else result
    exact = Fraction(value) * 10**decimals
    whole = math.floor(abs(exact) + Fraction(1, 2))  # half away from zero, exactly
    if exact < 0:
        whole = -whole
    with localcontext() as context:
        context.prec = max(28, len(str(abs(whole))) + 2)
        result = Decimal(whole).scaleb(-decimals)
        return result.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def format_number(value, decimals: int, *, signed: bool = False, use_l10n=None) -> str:
    """``value`` for a page: ``rounded(value, decimals)`` with exactly ``decimals`` places, in
    the active language's number format (``use_l10n=False``: always a dot, for attributes).
    ``signed``: a leading "+" when the rounded value is above zero (a rating change: "+12,5",
    "-3,0", "0,0"). ``None`` or "" gives "".

    Examples (Spanish): 1531.25, 1 → "1531,3"; 1531.249999, 1 → "1531,2"; -0.05, 1 → "-0,1";
    -0.04, 1 → "0,0"; 12.46, 1, signed → "+12,5"."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = Decimal(value.strip())
    number = rounded(value, decimals)
    text = str(number_format(number, decimal_pos=decimals, use_l10n=use_l10n))
    return "+" + text if signed and number > 0 else text


def format_percentage(value) -> str:
    """A fraction (0..1) as a percentage with 2 decimals, rounded half up, in the page's
    locale: Fraction(1233, 2000) → "61,65" in Spanish. Empty for None (the ``pct`` filter,
    the Swiss standings' OMW, GWP and OGW)."""
    if value is None:
        return ""
    return format_number(Fraction(value) * 100, 2)
