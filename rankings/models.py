"""The yearly Elo ledger: one row per player per rated dominó game (seed 002, SCORING.md §2).

Rows are derived data: ``rankings.ledger`` writes them by replaying the rated games in order;
nothing else may. They are read-only in the Django admin.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class LedgerRow(models.Model):
    """One player's rating update for one rated game.

    ``order_key`` sorts games as §2 says: local date-time played, then round, then table
    (then the table's id, for a total order). ``year`` is the calendar year of the game in the
    club's time zone; ``ng_before`` counts the player's rated games earlier that year.
    """

    # Derived rows, written only by ``rankings.ledger`` in bulk (COPY): the foreign keys have no
    # database constraint (a deferred FK check per row per key tripled the cost of a rebuild,
    # docs/performance.md); CASCADE and PROTECT are Django's, as for every ORM delete. No
    # single-column index on table or player: the unique (table, player) constraint and the
    # (player, order_key) index lead with them.
    table = models.ForeignKey(
        "tournaments.Table",
        on_delete=models.CASCADE,
        related_name="ledger_rows",
        db_constraint=False,
        db_index=False,
    )
    player = models.ForeignKey(
        "tournaments.Player",
        on_delete=models.PROTECT,
        related_name="ledger_rows",
        db_constraint=False,
        db_index=False,
    )
    tournament = models.ForeignKey(
        "tournaments.Tournament",
        on_delete=models.CASCADE,
        related_name="ledger_rows",
        db_constraint=False,
    )
    order_key = models.CharField(max_length=64)
    played_at = models.DateTimeField()
    year = models.PositiveSmallIntegerField()
    side = models.CharField(max_length=1)
    ng_before = models.PositiveIntegerField()
    rating_before = models.FloatField()
    team_rating = models.FloatField()
    opponent_rating = models.FloatField()
    expected_score = models.FloatField()
    score = models.FloatField()
    k_factor = models.FloatField()
    rating_after = models.FloatField()
    tantos_own = models.PositiveIntegerField()
    tantos_other = models.PositiveIntegerField()

    class Meta:
        ordering = ["order_key", "side", "player_id"]
        verbose_name = _("fila del ranking")
        verbose_name_plural = _("filas del ranking")
        constraints = [
            models.UniqueConstraint(
                fields=["table", "player"], name="ledger_one_row_per_player_game"
            ),
        ]
        indexes = [
            models.Index(fields=["order_key"], name="ledger_order"),
            models.Index(fields=["player", "order_key"], name="ledger_player_order"),
            models.Index(fields=["year", "player", "order_key"], name="ledger_year_player"),
        ]

    def __str__(self) -> str:
        return f"{self.played_at:%Y-%m-%d} {self.player_id}: {self.rating_before:.1f} → {self.rating_after:.1f}"

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before

    def as_tuple(self) -> tuple:
        """The row's derived values, for comparing a replay with a rebuild (full precision)."""
        return (
            self.table_id,
            self.player_id,
            self.order_key,
            self.year,
            self.side,
            self.ng_before,
            self.rating_before,
            self.team_rating,
            self.opponent_rating,
            self.expected_score,
            self.score,
            self.k_factor,
            self.rating_after,
            self.tantos_own,
            self.tantos_other,
        )
