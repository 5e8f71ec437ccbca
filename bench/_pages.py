"""Every public page of the site, walked from the URL resolver, with concrete arguments chosen in
the club at hand: shared by bench/page_scale.py, bench/throughput_writes.sh and
tests/test_page_queries.py.

Public = what an anonymous reader may GET: the patterns of ``tournaments/urls_public.py``
(namespace ``public``), ``rankings/urls.py`` (``rankings``) and the glossary. Every other
pattern of ``get_resolver()`` is left out by a stated reason (``EXCLUDED_NAMESPACES``,
``EXCLUDED``): the directors' pages, the admin, the accounts, the login and password pages,
the language switch. A pattern that is neither left out nor has a rule in ``RULES`` (a new
URL) makes ``public_pages`` raise ``NoRule``, so no page is skipped by forgetting it; a rule
whose pattern no longer exists raises too.

Each rule gives one or more variants of its page, with the arguments chosen in the club
(``Club``): the largest tournament (most entries), the latest finished tournament, the
largest tournament's round with most tables, the player with most rated games, the two
players who met most often on opposite sides, the league with most tournaments (``ensure_league``
makes one when the club has none), the year of the latest rated game, the calculator empty
and with a game between those two players. ``HEAVY`` lists the heavy outputs
(``public_page(heavy=True)``: PDFs, workbooks, the whole-data CSVs: the year's ledger, the
ranking, a league, a player's games), which the benchmarks
measure once or skip, saying why; ``Page.computed`` marks the variants computed for every
request and limited per network (the calculator's answers), which no load test can hammer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urlencode

#: Namespaces no anonymous reader may GET, with why.
EXCLUDED_NAMESPACES = {
    "manage": "the directors' pages (login required)",
    "admin": "the Django admin (login required)",
    "account": "a player's own pages and personal links (login or a mailed token)",
}
#: Patterns outside those namespaces left out, with why.
EXCLUDED = {
    "login": "the login form",
    "logout": "logging out (POST)",
    "password_reset": "the password reset form",
    "password_reset_done": "a step of the password reset",
    "password_reset_confirm": "a personal link of the password reset (mailed token)",
    "password_reset_complete": "a step of the password reset",
    "set_language": "sets the language cookie and redirects: not a page",
    "bench_trivial": "the benchmarks' trivial view (CLUB_BENCH_VIEWS=1)",
    "public:partner": "a personal link mailed to one player (its signed token is the proof)",
}
#: Heavy outputs (``public_page(heavy=True)``): made once per change of their data, at most
#: ``DJANGO_HEAVY_AT_ONCE`` at a time on the site (docs/performance.md).
HEAVY = {
    "public:standings_pdf": "a PDF (WeasyPrint: seconds of CPU)",
    "public:round_by_name_pdf": "a PDF (WeasyPrint: seconds of CPU)",
    "public:standings_xlsx": "a workbook (openpyxl)",
    "public:league_xlsx": "a workbook (openpyxl)",
    "rankings:ranking_xlsx": "a workbook (openpyxl)",
    "rankings:ledger_xlsx": "a workbook of the year's every rated game (openpyxl)",
    "rankings:ledger_csv": "the year's every rated game",
    "rankings:ranking_csv": "every player of the year's ranking (a whole-data download)",
    "rankings:player_csv": "every rated game of a player's career (a whole-data download)",
    "public:league_csv": "every player of a league's every tournament (a whole-data download)",
}


class NoRule(Exception):
    """A public URL pattern without a rule choosing its arguments (or a rule without its
    pattern): give it one in ``RULES`` (or a reason in ``EXCLUDED``)."""


@dataclass(frozen=True)
class Page:
    """One public page to request: ``name`` its pattern's namespaced name, ``label`` the name
    and the variant, the same at any size ("public:standings (largest tournament)"; the
    arguments are in ``path``), ``path`` with its query
    string, ``heavy`` (``HEAVY``), ``computed`` (answered afresh each time, limited per
    network)."""

    name: str
    label: str
    path: str
    heavy: bool = False
    computed: bool = False


def every_pattern() -> list[tuple[str, object]]:
    """(namespaced name, URLPattern) of every pattern of the site, through every include
    ("<unnamed> route" for a pattern without a name)."""
    from django.urls import URLResolver, get_resolver

    found = []

    def walk(resolver, namespaces, route):
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                ns = (*namespaces, p.namespace) if p.namespace else namespaces
                walk(p, ns, route + str(p.pattern))
            elif p.name:
                found.append((":".join((*namespaces, p.name)), p))
            else:
                found.append((":".join((*namespaces, f"<unnamed> {route}{p.pattern}")), p))

    walk(get_resolver(), (), "")
    return found


class Club:
    """The objects the rules choose, looked up once each in the current database.

    ``entries``: choose the tournament of about that many entries instead of the largest
    (``BENCH_TOURNAMENT_ENTRIES`` in the environment when not given): a tournament's pages grow
    with its own field, not with the club, so bench/page_scale.py compares the federation's
    tournament of the demo's size with the demo's (the 512-entry tournament's pages are
    bench/standings.py's and the throughput scripts')."""

    def __init__(self, entries: int | None = None):
        import os

        if entries is None and os.environ.get("BENCH_TOURNAMENT_ENTRIES"):
            entries = int(os.environ["BENCH_TOURNAMENT_ENTRIES"])
        self.entries = entries

    @staticmethod
    def _tournaments():
        """The public tournaments of the club's commonest kind, dominó in pairs (every club
        has them, the demo too), so that the pages compared at two sizes show the same kind
        of tournament; every public tournament when there is none."""
        from tournaments.models import Tournament

        public = Tournament.objects.public()
        pairs = public.filter(system="domino", mode="pairs")
        return pairs if pairs.exists() else public

    @cached_property
    def largest(self):
        """The public dominó pairs tournament (``_tournaments``) with most entries, or nearest
        ``entries`` when it is set (the newest first among equals)."""
        from django.db.models import Count, F
        from django.db.models.functions import Abs

        counted = self._tournaments().annotate(n=Count("entries"))
        if self.entries:  # the tournament nearest that size (see the class)
            counted = counted.annotate(off=Abs(F("n") - self.entries)).order_by(
                "off", "-date", "-pk"
            )
        else:
            counted = counted.order_by("-n", "-date", "-pk")
        found = counted.first()
        assert found is not None, "the club has no public tournament"
        return found

    @cached_property
    def finished(self):
        """The latest finished public dominó pairs tournament (``_tournaments``; the largest
        among equals), of at most twice ``entries`` when it is set (a tournament's pages grow
        with its own field: a club that holds the 512-entry tournament, finished last, is
        compared on one of the demo's size)."""
        from django.db.models import Count

        counted = self._tournaments().filter(status="finished").annotate(n=Count("entries"))
        if self.entries:
            counted = counted.filter(n__lte=2 * self.entries)
        found = counted.order_by("-date", "-n", "-pk").first()
        assert found is not None, "the club has no finished tournament"
        return found

    @cached_property
    def round_number(self) -> int:
        """The largest tournament's round with most tables (the latest among equals)."""
        from django.db.models import Count

        found = (
            self.largest.rounds.annotate(n=Count("tables"))
            .order_by("-n", "-number")
            .values_list("number", flat=True)
            .first()
        )
        assert found is not None, f"{self.largest} has no round"
        return found

    @cached_property
    def busiest(self) -> int:
        """The player with most rated games (ledger rows; the lowest id among equals)."""
        from django.db.models import Count

        from rankings.models import LedgerRow

        found = (
            LedgerRow.objects.values("player")
            .annotate(n=Count("id"))
            .order_by("-n", "player")
            .values_list("player", flat=True)
            .first()
        )
        assert found is not None, "the club has no rated game"
        return found

    @cached_property
    def rivals(self) -> tuple[int, int]:
        """The two players who met most often on opposite sides of a rated game (ledger rows;
        the lowest ids among equals)."""
        from rankings.models import LedgerRow

        tables: dict[int, dict[str, list[int]]] = {}
        for table_id, side, player in LedgerRow.objects.values_list("table_id", "side", "player"):
            tables.setdefault(table_id, {}).setdefault(side, []).append(player)
        met = Counter(
            (min(a, b), max(a, b))
            for sides in tables.values()
            for a in sides.get("A", ())
            for b in sides.get("B", ())
        )
        assert met, "no two players met"
        return min(met, key=lambda pair: (-met[pair], pair))

    @cached_property
    def league(self) -> str:
        """The slug of the league with most tournaments (the newest among equals)."""
        from django.db.models import Count

        from tournaments.models import League

        found = (
            League.objects.annotate(n=Count("tournaments"))
            .order_by("-n", "-season", "-pk")
            .values_list("slug", flat=True)
            .first()
        )
        assert found is not None, "the club has no league: ensure_league() first"
        return found

    @cached_property
    def year(self) -> int:
        """The year of the latest rated game."""
        from rankings.models import LedgerRow

        return LedgerRow.objects.order_by("-order_key").values_list("year", flat=True).first()


#: ``LEAGUE_SIZE`` tournaments at most in the league ``ensure_league`` makes (a season's).
LEAGUE_SIZE = 40


def ensure_league() -> str | None:
    """Make a league when the club has none: "Liga de la escala" of the season of the latest
    finished public tournament, with that season's ``LEAGUE_SIZE`` latest finished public
    tournaments (``services.create_league``). Returns its slug, None when there was one."""
    from tournaments import services
    from tournaments.models import League, Tournament

    if League.objects.exists():
        return None
    latest = Club().finished
    season = latest.date.year
    tournaments = list(
        Tournament.objects.public()
        .filter(status="finished", date__year=season)
        .order_by("-date", "-pk")[:LEAGUE_SIZE]
    )
    league = services.create_league(
        acting_user=None, name="Liga de la escala", season=season, tournaments=tournaments
    )
    return league.slug


Variant = tuple[str, dict, dict]  # (what it is, URL arguments, query string)


def _tournament(which: str) -> Callable[[Club], list[Variant]]:
    def rule(club: Club) -> list[Variant]:
        variants = [("largest tournament", {"slug": club.largest.slug}, {})]
        if which == "both":  # the same one when the largest is the latest finished
            variants.append(("latest finished tournament", {"slug": club.finished.slug}, {}))
        return variants

    return rule


def _round(club: Club) -> list[Variant]:
    return [
        (
            "largest tournament, its round with most tables",
            {"slug": club.largest.slug, "number": club.round_number},
            {},
        )
    ]


def _none(what: str) -> Callable[[Club], list[Variant]]:
    return lambda club: [(what, {}, {})]


def _year(club: Club) -> list[Variant]:
    return [("year of the latest rated game", {"year": club.year}, {})]


def _busiest(club: Club) -> list[Variant]:
    return [("player with most rated games", {"pk": club.busiest}, {})]


def _rivals(club: Club) -> list[Variant]:
    a, b = club.rivals
    return [("the two players who met most often", {"pk": a, "other": b}, {})]


def _league(club: Club) -> list[Variant]:
    return [("league with most tournaments", {"league": club.league}, {})]


def _calculator(club: Club) -> list[Variant]:
    a, b = club.rivals
    game = {"a1": a, "b1": b, "tantos_a": 100, "tantos_b": 60}
    return [("empty", {}, {}), ("with a game", {}, game)]


def _player_search(club: Club) -> list[Variant]:
    from tournaments.models import Player

    name = Player.objects.filter(pk=club.busiest).values_list("full_name", flat=True).first()
    return [("empty", {}, {}), ("a name's first letters", {}, {"q": (name or "a")[:4]})]


#: Pattern name → the variants of its page in a club.
RULES: dict[str, Callable[[Club], list[Variant]]] = {
    "public:home": _none("home"),
    "public:tournaments": _none("tournament list"),
    "public:calendar": _none("calendar"),
    "public:calendar_ics": _none("calendar feed"),
    "public:tournament": _tournament("both"),
    "public:find_table": _tournament("largest"),
    "public:check_in": _tournament("largest"),
    "public:signup": _tournament("largest"),
    "public:standings": _tournament("both"),
    "public:clock": _tournament("largest"),
    "public:clock_state": _tournament("largest"),
    "public:standings_csv": _tournament("largest"),
    "public:standings_xlsx": _tournament("largest"),
    "public:round": _round,
    "public:round_print": _round,
    "public:qr": _tournament("largest"),
    "public:poster": _tournament("largest"),
    "public:standings_pdf": _tournament("largest"),
    "public:round_by_name": _round,
    "public:round_by_name_pdf": _round,
    "public:leagues": _none("leagues"),
    "public:league": _league,
    "public:league_csv": _league,
    "public:league_xlsx": _league,
    "rankings:ranking": _none("ranking, this year"),
    "rankings:ranking_csv": _year,
    "rankings:ranking_xlsx": _year,
    "rankings:ledger_csv": _year,
    "rankings:ledger_xlsx": _year,
    "rankings:player": _busiest,
    "rankings:player_csv": _busiest,
    "rankings:head_to_head": _rivals,
    "rankings:calculator": _calculator,
    "rankings:player_search": _player_search,
    "glossary": _none("glossary"),
}
#: Variants answered afresh for every request and limited per network (never stored).
COMPUTED = {
    ("rankings:calculator", "with a game"),
    ("rankings:player_search", "a name's first letters"),
}


def public_names() -> list[str]:
    """The namespaced names of the public patterns, in the URLconf's order. Raises
    ``NoRule`` for a pattern neither left out nor with a rule, and for a rule whose pattern
    is gone."""
    names, missing = [], []
    for name, _ in every_pattern():
        namespace = name.split(":")[0] if ":" in name else None
        if namespace in EXCLUDED_NAMESPACES or name in EXCLUDED:
            continue
        if name not in RULES:
            missing.append(name)
        names.append(name)
    stale = sorted(set(RULES) - set(names))
    if missing or stale:
        raise NoRule(
            "public URL patterns without a rule choosing their arguments (bench/_pages.py "
            f"RULES): {missing}; rules without a pattern: {stale}"
        )
    return names


def public_pages(club: Club | None = None) -> list[Page]:
    """Every variant of every public page in the current database (``public_names``, each
    with ``RULES``'s arguments), in the URLconf's order."""
    from django.urls import reverse

    club = club or Club()
    pages = []
    for name in public_names():
        for what, kwargs, query in RULES[name](club):
            path = reverse(name, kwargs=kwargs) + (f"?{urlencode(query)}" if query else "")
            pages.append(
                Page(
                    name=name,
                    label=f"{name} ({what})",
                    path=path,
                    heavy=name in HEAVY,
                    computed=(name, what) in COMPUTED,
                )
            )
    return pages
