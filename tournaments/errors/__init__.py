"""Domain errors: one base class with a stable machine code (DESIGN.md, Conventions).

A pure module: it never imports Django. The messages are Spanish templates (the msgids of the
site's translations), marked with the local ``gettext_noop`` so ``makemessages`` extracts them.
They are translated when shown: ``DomainError.message`` formats ``translate(template)``, and
the tournaments app sets ``translate`` to Django's ``gettext`` when it starts
(``tournaments.apps.TournamentsConfig.ready``), so a message reads in the language active where
it is displayed. Outside Django, ``translate`` leaves the Spanish text as it is.

The messages live by area, each module beside the others here: ``results`` (the scoring
rules), ``pairing``, ``writes`` (the services), ``accounts``, ``ranking``, ``imports``,
``lifecycle`` (a tournament's steps);
``MESSAGES`` is all of them (a code is defined once).
"""

from tournaments.errors import accounts, imports, lifecycle, pairing, ranking, results, writes
from tournaments.errors.noop import gettext_noop

AREAS = (results, pairing, writes, accounts, ranking, imports, lifecycle)


def translate(text: str) -> str:
    """Hook: the message catalogue lookup. Identity here; Django's gettext once the app is ready."""
    return text


#: Parameters whose values are words (marked with gettext_noop where they are passed, e.g.
#: field=gettext_noop("nombre")), translated with the message; the others are shown as given.
TRANSLATED_PARAMS = ("field",)


class _SafeParams(dict):
    """Format parameters that never fail: a missing name shows as "?" instead of raising."""

    def __missing__(self, key):
        return "?"


class DomainError(Exception):
    """Base of every domain error. ``code`` is stable (tests assert on it); ``message`` is the
    text for people, in the active language (Spanish by default): ``template`` (a Spanish msgid,
    by default ``MESSAGES[code]``) translated, then formatted with ``params``."""

    code = "domain_error"

    def __init__(self, code=None, message=None, **params):
        self.code = code or self.code
        self.params = params
        self.template = message or MESSAGES.get(self.code, self.code)
        super().__init__(self.template.format_map(_SafeParams(params)))

    @property
    def message(self) -> str:
        params = _SafeParams(self.params)
        for key in TRANSLATED_PARAMS:
            if isinstance(params.get(key), str):
                params[key] = translate(params[key])
        return translate(self.template).format_map(params)

    def __str__(self) -> str:
        return self.message


class ResultError(DomainError):
    code = "invalid_result"


def _catalogue() -> dict[str, str]:
    """Every area's messages in one dict; a code defined in two areas is a mistake."""
    merged: dict[str, str] = {}
    for area in AREAS:
        twice = merged.keys() & area.MESSAGES.keys()
        if twice:
            raise ValueError(f"error codes defined twice: {sorted(twice)}")
        merged.update(area.MESSAGES)
    return merged


#: Every message template by code (Spanish msgids), from the areas' catalogues.
MESSAGES: dict[str, str] = _catalogue()

__all__ = ["MESSAGES", "DomainError", "ResultError", "gettext_noop", "translate"]
