"""CSV rows of the ranking and the ledger at full precision (issue: export_ranking, export_ledger).

Names (players, tournaments) go through ``tournaments.exports.safe_text`` so no spreadsheet runs
them as formulas; figures stay numbers. The commands and the download links write these rows.
"""

from __future__ import annotations

from rankings import queries
from rankings.models import LedgerRow
from tournaments.exports import safe_text

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


def ranking_rows(year: int) -> list[list]:
    """``[position, player, rating, games, change]`` per player of ``year`` (repr precision)."""
    return [
        [ln.position, safe_text(ln.name), repr(ln.rating), ln.games, repr(ln.change)]
        for ln in queries.year_ranking(year)
    ]


def ledger_rows(
    *, year: int | None = None, player=None, published_only: bool = False
) -> list[list]:
    """Every ledger row (optionally one year, one player) in game order, full precision.
    ``published_only`` (the public download) leaves out any row of a draft tournament (there
    are none once the ledger is current: a draft's games are unrated)."""
    qs = LedgerRow.objects.select_related("tournament", "table__round", "player").order_by(
        "order_key", "side", "player_id"
    )
    if published_only:
        from tournaments.models import Tournament

        qs = qs.exclude(tournament__status=Tournament.Status.DRAFT)
    if year is not None:
        qs = qs.filter(year=year)
    if player is not None:
        qs = qs.filter(player=player)
    from rankings.ledger import local_zone

    zone = local_zone()
    return [
        [
            r.played_at.astimezone(zone).isoformat(),
            safe_text(r.tournament.name),
            r.table.round.number,
            r.table.number,
            safe_text(r.player.full_name),
            r.ng_before,
            repr(r.rating_before),
            repr(r.team_rating),
            repr(r.opponent_rating),
            repr(r.expected_score),
            repr(r.score),
            repr(r.k_factor),
            repr(r.rating_after),
        ]
        for r in qs.iterator(chunk_size=2000)
    ]
