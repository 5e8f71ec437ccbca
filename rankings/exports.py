"""The ranking and the ledger as spreadsheet rows (the download links and the commands
export_ranking, export_ledger), in the two forms of every export (``tournaments.exports``):

- **for people** (the default): figures rounded as the pages show them
  (``clubsite.numbers.DECIMALS``): rating, team and opponent rating, rating change 1 decimal
  (1553.9); expected and obtained score 3; K 2;
- **exact** (``full_precision=True``): every float at full precision (its ``repr``,
  1553.9296108350397), for checking.

Rows are typed (names text, figures numbers, the date a local date-time): ``tournaments
.exports.csv_text`` writes them as CSV (names through ``safe_text``: no spreadsheet runs them as
formulas), ``xlsx_bytes`` as a workbook.
"""

from __future__ import annotations

from django.utils import timezone

from clubsite.numbers import DECIMALS, rounded
from rankings import health, queries
from rankings.ledger import local_zone
from rankings.models import LedgerRow
from tournaments.models import Tournament

RANKING_HEADER = ["position", "player", "rating", "games", "change"]
LEDGER_HEADER = [
    "date",
    "tournament",
    "round",
    "table",
    "player",
    "ng_before",
    "rating_before",
    "team_rating",
    "opponent_rating",
    "expected_score",
    "score",
    "k_factor",
    "rating_after",
]


def _shown(value: float, quantity: str, full_precision: bool):
    """``value`` as exported: the float itself when exact, else a ``Decimal`` rounded as the
    pages show ``quantity`` (``clubsite.numbers.DECIMALS``)."""
    return value if full_precision else rounded(value, DECIMALS[quantity])


def ranking_rows(year: int, *, full_precision: bool = False) -> list[list]:
    """``[position, player, rating, games, change]`` per player of ``year``, best first:
    rating and change rounded to 1 decimal for people (1553.9, -2.3), floats at full
    precision with ``full_precision``."""
    return [
        [
            ln.position,
            ln.name,
            _shown(ln.rating, "rating", full_precision),
            ln.games,
            _shown(ln.change, "change", full_precision),
        ]
        for ln in queries.year_ranking(year)
    ]


def ledger_rows(
    *,
    year: int | None = None,
    player=None,
    published_only: bool = False,
    full_precision: bool = False,
) -> list[list]:
    """Every ledger row (optionally one year, one player) in game order, under
    ``LEDGER_HEADER``: the date (an aware date-time in the club's time zone), names, round,
    table, ``ng_before``, then the figures, rounded as the pages show them for people, at
    full precision with ``full_precision``. ``published_only`` (the public downloads) leaves
    out any row of a draft tournament (there are none once the ledger is current: a draft's
    games are unrated)."""
    qs = LedgerRow.objects.select_related("tournament", "table__round", "player").order_by(
        "order_key", "side", "player_id"
    )
    if published_only:
        qs = qs.filter(Tournament.public_q("tournament__"))
    if year is not None:
        qs = qs.filter(year=year)
    if player is not None:
        qs = qs.filter(player=player)

    zone = local_zone()
    exact = full_precision
    return [
        [
            r.played_at.astimezone(zone),
            r.tournament.name,
            r.table.round.number,
            r.table.number,
            r.player.full_name,
            r.ng_before,
            _shown(r.rating_before, "rating", exact),
            _shown(r.team_rating, "rating", exact),
            _shown(r.opponent_rating, "rating", exact),
            _shown(r.expected_score, "expected_score", exact),
            _shown(r.score, "score", exact),
            _shown(r.k_factor, "k_factor", exact),
            _shown(r.rating_after, "rating", exact),
        ]
        for r in qs.iterator(chunk_size=2000)
    ]


def not_current_warning() -> str | None:
    """What an export command writes on stderr when its figures may not be the ranking's
    current ones (the CSV on stdout stays clean): the ledger needs attention
    (``health.attention``), or changes wait for their replay (``health.pending``: the pages'
    "actualizando" notice), with how many and since when; None when the ranking is current.
    Two queries at most."""
    if health.attention():
        return (
            "Aviso: el ranking necesita atención (manage.py check_ledger); estas cifras "
            "pueden no estar al día."
        )
    waiting = health.pending()
    if waiting is not None:
        since = timezone.localtime(waiting.since).strftime("%d/%m/%Y %H:%M:%S")
        return (
            f"Aviso: el ranking se está actualizando ({waiting.count} cambio(s) esperando "
            f"desde {since}; lo hace el proceso de fondo, manage.py db_worker): estas cifras "
            "aún no los incluyen."
        )
    return None
