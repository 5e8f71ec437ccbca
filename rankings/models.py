"""The yearly Elo ledger: one row per player per rated dominó game (seed 002, SCORING.md §2).

Rows are derived data: ``rankings.ledger`` writes them by replaying the rated games in order;
nothing else may. They are read-only in the Django admin.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.errors import DomainError


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

    #: The derived values compared between a stored ledger and a rebuild, at full precision
    #: (``as_tuple``; ``rebuild_ledger`` compares them in SQL): the key (table, player) first.
    COMPARED_FIELDS = (
        "table_id",
        "player_id",
        "order_key",
        "year",
        "side",
        "ng_before",
        "rating_before",
        "team_rating",
        "opponent_rating",
        "expected_score",
        "score",
        "k_factor",
        "rating_after",
        "tantos_own",
        "tantos_other",
    )

    def as_tuple(self) -> tuple:
        """The row's ``COMPARED_FIELDS`` values, for comparing a replay with a rebuild."""
        return tuple(getattr(self, name) for name in self.COMPARED_FIELDS)


class LedgerStatus(models.Model):
    """Whether the ledger is current: one row (``pk`` 1), written by ``rankings.health`` only.

    ``state`` is "current" when the last replay covered every game and applied them all;
    "attention" when a replay failed (its transaction rolled back, so the ledger still shows
    the ratings from before the change) or had to skip a game it could not rate (a bad row:
    see ``rankings.ledger``). ``since``: when it stopped being current; ``from_key``: the ledger
    may be wrong from this game key on ("" = from the first game), so the next replay starts
    there at the latest, and one that succeeds makes the ledger current again. ``problems``:
    the causes, ``[{"code": <tournaments.errors code>, "params": {...}}, ...]``, shown in the
    active language by ``causes()``. No row at all means current.
    """

    class State(models.TextChoices):
        CURRENT = "current", _("Al día")
        ATTENTION = "attention", _("Necesita atención")

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    state = models.CharField(_("estado"), max_length=10, choices=State, default=State.CURRENT)
    since = models.DateTimeField(_("desde"), null=True, blank=True)
    from_key = models.CharField(_("desde la partida"), max_length=64, blank=True, default="")
    problems = models.JSONField(_("causas"), default=list, blank=True)
    #: When the last replay committed: the ranking was current then (the pages show it while
    #: a newer change waits for its replay).
    replayed_at = models.DateTimeField(_("último recálculo"), null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("estado del ranking")
        verbose_name_plural = _("estado del ranking")

    def __str__(self) -> str:
        return str(self.get_state_display())

    @property
    def is_current(self) -> bool:
        return self.state == self.State.CURRENT

    def causes(self) -> list[str]:
        """The problems as sentences in the active language (``tournaments.errors`` messages)."""

        return [
            DomainError(p.get("code") or "ledger_replay_failed", **(p.get("params") or {})).message
            for p in self.problems
        ]


class ReplayRequest(models.Model):
    """A ledger replay asked for and not yet done (SCORING.md §2: a change replays the ledger
    from the earliest game it touched).

    Written by ``rankings.signals`` inside the transaction that changed the games, so it
    commits with them or not at all; the replay task (``rankings.tasks.replay_ledger``) reads
    every request, replays once from the earliest game they name and deletes them in the
    replay's own transaction. So many saves make one replay (they coalesce), a replay that
    fails or a worker killed mid-replay leaves the requests in place (the ledger unchanged),
    and the next replay covers them. ``from_key``: a game key to start from (a deleted table's
    first row; "" = from the first game); ``table_ids``: tables whose earliest game is worked
    out when the replay runs. ``created_at``: when the ranking stopped being current.
    """

    from_key = models.CharField(max_length=64, null=True, blank=True)
    table_ids = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("recálculo pendiente")
        verbose_name_plural = _("recálculos pendientes")

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S}"


class YearRating(models.Model):
    """A player's figures in one year's ranking, kept by the replay from the ledger rows
    (derived data, like ``LedgerRow``): the rating after the player's last rated game of the
    year, the games played that year (NG of the last game + 1), the rating the year began
    from (before its first game) and the last game's time. The ranking page, the home page's
    top ten and each player's current rating read these rows (one indexed query) instead of
    walking the ledger."""

    player = models.ForeignKey(
        "tournaments.Player",
        on_delete=models.CASCADE,
        related_name="year_ratings",
        db_constraint=False,
    )
    year = models.PositiveSmallIntegerField()
    rating = models.FloatField()
    games = models.PositiveIntegerField()
    start_rating = models.FloatField()
    last_played = models.DateTimeField()
    last_key = models.CharField(max_length=64)

    class Meta:
        verbose_name = _("cifras del año")
        verbose_name_plural = _("cifras del año")
        constraints = [
            models.UniqueConstraint(fields=["player", "year"], name="year_rating_one_per_year"),
        ]
        indexes = [
            models.Index(fields=["year", "-rating"], name="year_rating_order"),
        ]

    def __str__(self) -> str:
        return f"{self.year} {self.player_id}: {self.rating:.1f}"

    @property
    def change(self) -> float:
        return self.rating - self.start_rating


class PlayerStory(models.Model):
    """A player's story figures (``rankings.stories``), kept by the background worker
    (derived data): computing them reads every game of the player, so the player page reads
    this row instead. ``figures``: ``{"partners": [[player_id, name, games, wins, draws,
    losses, figures_for, figures_against], ...]`` (the best ``stories.BEST_PARTNERS``, in
    ``stories._ranked``'s order), ``"rivals": [...]`` (the ``stories.FREQUENT_RIVALS`` most
    frequent, same shape), ``"zapatos_given": n, "zapatos_received": n}``. ``as_of``: the
    id of the last ``StoryRequest`` of the player the figures cover (0: filled by a reader,
    ``stories.player_stories``, which only inserts a missing row); the task
    (``rankings.tasks.refresh_stories``) computes and writes under the player's lock, so its
    runs for one player follow one another and the last written is the newest."""

    player = models.OneToOneField(
        "tournaments.Player",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="story",
        db_constraint=False,
    )
    figures = models.JSONField(default=dict)
    as_of = models.BigIntegerField(default=0)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("trayectoria calculada")
        verbose_name_plural = _("trayectorias calculadas")

    def __str__(self) -> str:
        return f"{self.player_id} ({self.as_of})"


class StoryRequest(models.Model):
    """A player's story to compute again: written by ``rankings.signals`` in the transaction
    that changed one of the player's tournaments (``tournaments.events.games_changed``), so
    it commits with the change or not at all; ``rankings.tasks.refresh_stories`` computes the
    player's figures, stores them (``PlayerStory``) and deletes the requests it covered (ids
    up to the largest it read). Many changes of one player make many rows, one computation.
    Operational: while one waits, the player page says its story is being updated."""

    id = models.BigAutoField(primary_key=True)
    player = models.ForeignKey(
        "tournaments.Player",
        on_delete=models.CASCADE,
        related_name="story_requests",
        db_constraint=False,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("trayectoria pendiente")
        verbose_name_plural = _("trayectorias pendientes")

    def __str__(self) -> str:
        return f"{self.player_id} {self.created_at:%Y-%m-%d %H:%M:%S}"
