"""Template filters: a tournament's system in words; numbers as every page shows them
(``num``, ``signed``, ``pct``: one rounding, ``clubsite.numbers``)."""

from decimal import InvalidOperation

from django import template

from clubsite.numbers import format_number, format_percentage
from tournaments import systems

register = template.Library()


@register.filter
def system_summary(tournament) -> str:
    """The tournament's system (and mode, target, best-of where they apply) in a few words:
    ``Presentation.summary``."""
    return systems.of(tournament).presentation.summary(tournament)


@register.filter
def marks_legend(tables) -> list[tuple[str, str]]:
    """The shorthand of the table cards' marks ("T", "NP", "(1 emp.)"), once each, for the
    line under the tables that says it in words: an ``<abbr title>`` does not reach a phone."""
    seen = {}
    for table in tables:
        card = getattr(table, "card", None)
        for abbr, words in card.marks if card else ():
            seen.setdefault(str(words), str(abbr))
    return [(abbr, words) for words, abbr in seen.items()]


@register.filter
def pct(value) -> str:
    """A fraction (0..1) as a percentage with 2 decimals, rounded half up, in the page's
    locale: Fraction(1233, 2000) → "61,65" in Spanish. Empty for None."""
    return format_percentage(value)


def _shown(value, decimals, *, signed: bool) -> str:
    try:
        return format_number(value, int(decimals), signed=signed)
    except (TypeError, ValueError, InvalidOperation):
        return ""


@register.filter
def num(value, decimals=1) -> str:
    """A figure with ``decimals`` places, rounded half away from zero, in the page's language
    (``clubsite.numbers.format_number``): ``{{ rating|num:1 }}`` → "1531,3" for 1531.25.
    Empty for None or anything that is not a number."""
    return _shown(value, decimals, signed=False)


@register.filter
def signed(value, decimals=1) -> str:
    """A change: like ``num`` with a "+" above zero: ``{{ change|signed:1 }}`` → "+12,5",
    "-0,1", "0,0"."""
    return _shown(value, decimals, signed=True)


@register.filter
def takes_signups(tournament) -> bool:
    """Whether ``tournament`` takes sign-ups now (``services.signups.signup_closed_reason`` is
    None): its cards on the home page and the calendar then offer "Inscribirse"."""
    from tournaments.services.signups import signup_closed_reason

    return signup_closed_reason(tournament) is None


@register.filter
def email(address) -> str:
    """An e-mail address for a narrow column: escaped, in ``<span class="email">``, with a
    possible line break (``<wbr>``) before the "@" and before each dot, so a long address
    wraps there instead of in the middle of a word."""
    from django.utils.html import escape
    from django.utils.safestring import mark_safe

    text = escape(str(address or ""))
    text = text.replace("@", "<wbr>@").replace(".", "<wbr>.")
    return mark_safe(f'<span class="email">{text}</span>')
