"""Leagues: create and change a league (name, season, points by place, points for taking
part, the results that count, the tournaments planned) and choose its tournaments
(docs/SCORING.md, "Leagues").

A league only groups tournaments: choosing them changes no tournament, so no tournament is
locked; the league's own row is (``_lock_league``), so two directors editing one league queue.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from django.db import transaction
from django.utils.text import slugify

from tournaments import names
from tournaments.errors import DomainError, gettext_noop
from tournaments.models import League, Tournament
from tournaments.scoring import league as rules
from tournaments.writing import audit, clean_name

#: The keyword arguments of ``create_league`` / ``update_league`` besides ``tournaments``.
LEAGUE_FIELDS = (
    "name",
    "season",
    "description",
    "points_scale",
    "participation_points",
    "best_results",
    "planned_tournaments",
)
#: The seasons a league may have (the years the ranking knows).
SEASON_FIRST, SEASON_LAST = 1900, 2999
#: The most results that may count, and the most tournaments a season may plan.
MAX_TOURNAMENTS = 99
MAX_DESCRIPTION = 2000

#: The field of the league form (the directors' page, the admin) each refusal is about.
LEAGUE_ERROR_FIELDS = {
    "name_required": "name",
    "name_too_long": "name",
    "name_control_chars": "name",
    "league_season": "season",
    "league_description_too_long": "description",
    "league_scale_empty": "points_scale",
    "league_scale_value": "points_scale",
    "league_scale_too_long": "points_scale",
    "league_scale_order": "points_scale",
    "league_participation": "participation_points",
    "league_best_results": "best_results",
    "league_planned": "planned_tournaments",
    "league_planned_below": "planned_tournaments",
}


def _whole(value, *, low: int, high: int, optional: bool, code: str, **params) -> int | None:
    """A whole number from ``low`` to ``high`` typed or given (" 6 ", 6); None for an empty
    one when ``optional``. Raises DomainError ``code`` (with ``value`` and ``params``)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if optional:
            return None
        raise DomainError(code, value="", **params)
    if isinstance(value, bool):
        raise DomainError(code, value=value, **params)
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        if not (text.isascii() and text.isdigit()) or len(text) > 6:
            raise DomainError(code, value=text[:20], **params)
        number = int(text)
    if not low <= number <= high:
        raise DomainError(code, value=number, **params)
    return number


def _description(value) -> str:
    """A league's description as stored: each line cleaned as names are
    (``tournaments.names.clean``), blank lines at either end dropped, at most
    ``MAX_DESCRIPTION`` characters. Raises DomainError "league_description_too_long"."""
    text = "\n".join(names.clean(line) for line in str(value or "").splitlines()).strip()
    if len(text) > MAX_DESCRIPTION:
        raise DomainError("league_description_too_long", max=MAX_DESCRIPTION)
    return text


def _checks(league: League, fields: dict, skip: Collection[str]) -> list[DomainError]:
    """Apply ``fields`` to ``league`` (unsaved), each checked; the refusals, in field order.
    A field in ``skip`` (refused already by the form's own check) is left as it is."""
    problems: list[DomainError] = []

    def check(name: str, clean) -> None:
        if name not in fields or name in skip:
            return
        try:
            setattr(league, name, clean(fields[name]))
        except DomainError as exc:
            problems.append(exc)

    check("name", lambda v: clean_name(v or "", field=gettext_noop("nombre")))
    check(
        "season",
        lambda v: _whole(
            v,
            low=SEASON_FIRST,
            high=SEASON_LAST,
            optional=False,
            code="league_season",
            first=SEASON_FIRST,
            last=SEASON_LAST,
        ),
    )
    check("description", _description)
    check("points_scale", lambda v: rules.scale_text(rules.parse_scale(v)))
    check(
        "participation_points",
        lambda v: _whole(
            0 if v is None or v == "" else v,
            low=0,
            high=rules.MAX_POINTS,
            optional=False,
            code="league_participation",
            max=rules.MAX_POINTS,
        ),
    )
    check(
        "best_results",
        lambda v: _whole(
            v,
            low=1,
            high=MAX_TOURNAMENTS,
            optional=True,
            code="league_best_results",
            max=MAX_TOURNAMENTS,
        ),
    )
    check(
        "planned_tournaments",
        lambda v: _whole(
            v,
            low=1,
            high=MAX_TOURNAMENTS,
            optional=True,
            code="league_planned",
            max=MAX_TOURNAMENTS,
        ),
    )
    return problems


def _planned_problem(league: League, count: int) -> DomainError | None:
    if league.planned_tournaments is not None and count > league.planned_tournaments:
        return DomainError("league_planned_below", count=count, planned=league.planned_tournaments)
    return None


def league_problems(
    *,
    league: League | None = None,
    tournaments: Iterable[Tournament] | None = None,
    skip: Collection[str] = (),
    **fields,
) -> list[DomainError]:
    """Every refusal ``create_league`` (``league`` None) or ``update_league`` would give for
    these values, at once, without storing anything (the forms show each beside its field:
    ``LEAGUE_ERROR_FIELDS``). ``skip``: fields the form already refused."""
    unknown = set(fields) - set(LEAGUE_FIELDS)
    if unknown:
        raise TypeError(f"unknown league fields: {sorted(unknown)}")
    draft = League() if league is None else League.objects.get(pk=league.pk)
    problems = _checks(draft, fields, skip)
    if "planned_tournaments" not in skip and not any(p.code == "league_planned" for p in problems):
        if tournaments is not None:
            count = len({t.pk for t in tournaments})
        else:
            count = draft.tournaments.count() if draft.pk else 0
        planned = _planned_problem(draft, count)
        if planned is not None:
            problems.append(planned)
    return problems


def _unique_slug(name: str, season: int, exclude_pk=None) -> str:
    """``liga-de-invierno-2026`` (``-2``, ``-3``… when taken): the name cut to 110 characters,
    then the season unless the name already ends with it."""
    base = slugify(name)[:110].strip("-") or "liga"
    if not base.endswith(str(season)):
        base = f"{base}-{season}"
    slug, n = base, 2
    taken = League.objects.exclude(pk=exclude_pk) if exclude_pk else League.objects.all()
    while taken.filter(slug=slug).exists():
        slug = f"{base}-{n}"
        n += 1
    return slug


def _lock_league(league) -> League:
    pk = getattr(league, "pk", league)
    return League.objects.select_for_update(no_key=True).get(pk=pk)


def _set_tournaments(league: League, tournaments: Iterable[Tournament]) -> bool:
    """Make ``tournaments`` the league's; True when that changed anything."""
    wanted = {t.pk for t in tournaments}
    current = set(league.tournaments.values_list("pk", flat=True))
    if wanted == current:
        return False
    league.tournaments.set(sorted(wanted))
    return True


@transaction.atomic
def create_league(*, acting_user, tournaments: Iterable[Tournament] = (), **fields) -> League:
    """Create a league from ``LEAGUE_FIELDS`` keyword values (``name`` and ``season``
    required; the others default as the model says) with ``tournaments``; returns it with a
    unique slug (``liga-de-invierno-2026``).

    Raises DomainError "name_required", "name_too_long", "league_season", "league_scale_*"
    (``rules.parse_scale``), "league_participation", "league_best_results", "league_planned",
    "league_planned_below" (more tournaments than planned): the first refusal of
    ``league_problems``."""
    tournaments = list(tournaments)
    fields.setdefault("name", "")
    fields.setdefault("season", None)
    problems = league_problems(tournaments=tournaments, **fields)
    if problems:
        raise problems[0]
    league = League()
    _checks(league, fields, ())
    league.slug = _unique_slug(league.name, league.season)
    audit(league, acting_user).save()
    _set_tournaments(league, tournaments)
    return league


@transaction.atomic
def update_league(
    *,
    acting_user,
    league: League,
    tournaments: Iterable[Tournament] | None = None,
    **fields,
) -> League:
    """Change a league's ``LEAGUE_FIELDS`` given, and its tournaments when ``tournaments`` is
    not None (the change is recorded in the league's history, with who made it). The slug
    stays (the league's address does not move with its name). Raises what ``create_league``
    raises."""
    locked = _lock_league(league)
    tournaments = None if tournaments is None else list(tournaments)
    problems = league_problems(league=locked, tournaments=tournaments, **fields)
    if problems:
        raise problems[0]
    _checks(locked, fields, ())
    linked = tournaments is not None and _set_tournaments(locked, tournaments)
    if fields or linked:
        audit(locked, acting_user).save()
    return locked


def set_league_tournaments(
    *, acting_user, league: League, tournaments: Iterable[Tournament]
) -> League:
    """Make ``tournaments`` (any system, any status) the league's, replacing those it had.
    Raises DomainError "league_planned_below"."""
    return update_league(acting_user=acting_user, league=league, tournaments=tournaments)
