"""Players, tournaments, entries, rounds, tables, results, castigos and sorteos.

Models hold data and thin query methods; every write goes through ``tournaments.services``
(DESIGN.md, Conventions). The rules live in the pure modules of ``tournaments.scoring``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models, router, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Value
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from clubsite.routers import use_replica
from tournaments import names, systems, timing
from tournaments.errors import DomainError
from tournaments.pairing import seating as seating_engine
from tournaments.pairing import swiss as swiss_pairing
from tournaments.scoring import places as places_rule

#: Length of the stored ``Player.name_key`` column.
NAME_KEY_LENGTH = 120


def name_key(name: str) -> str:
    """The stored comparison key of a person's name: ``tournaments.names.key`` (case, accents,
    spacing and invisible characters ignored), cut to ``NAME_KEY_LENGTH`` characters to fit
    its column (case folding may lengthen a name: "ß" → "ss").

    It finds the players that may be the same person ("José Pérez", "JOSE  PEREZ" and
    "Jose Perez" with a zero-width space share a key); the exact comparison is ``names.key``
    of the full names.
    """
    return names.key(name)[:NAME_KEY_LENGTH]


def table_title(tournament: str, round_number: int, table_number: int) -> str:
    """ "Copa · ronda 2 · mesa 3": a table named by its tournament's name, round and number,
    in the active language."""
    return gettext("{tournament} · ronda {round} · mesa {table}").format(
        tournament=tournament, round=round_number, table=table_number
    )


#: Largest number a score sheet can hold (tantos, VP, games, forfeit scores): anything above is
#: a typing error (services refuse it in words; the model fields, so the admin too, validate it).
MAX_SCORE = 99_999


class PlayerQuerySet(models.QuerySet):
    def public(self):
        """The players any visitor may see (the ranking's player pages, the calculator's list):
        everyone but those whose every entry is in a draft tournament (a draft is private until
        it is published: ``Tournament.public_q``). A player with no entry at all is a club
        member and is listed. A queryset (``EXISTS`` subqueries, one per seat of an entry so that
        each descends its own index: no query of its own)."""
        seats = [Entry.objects.filter(**{f: models.OuterRef("pk")}) for f in ("player1", "player2")]
        shown = Tournament.public_q("tournament__")
        return self.filter(
            models.Exists(seats[0].filter(shown))
            | models.Exists(seats[1].filter(shown))
            | ~(models.Exists(seats[0]) | models.Exists(seats[1]))
        )


class Player(models.Model):
    """A club member or guest who plays. Never deleted once they have results, only deactivated."""

    objects = PlayerQuerySet.as_manager()

    full_name = models.CharField(_("nombre completo"), max_length=120)
    name_key = models.CharField(
        _("clave de búsqueda del nombre"), max_length=120, db_index=True, editable=False
    )
    nickname = models.CharField(_("apodo"), max_length=60, blank=True)
    member_number = models.CharField(
        _("número de socio"), max_length=20, blank=True, null=True, unique=True
    )
    email = models.EmailField(_("correo (privado)"), blank=True)
    phone = models.CharField(_("teléfono (privado)"), max_length=40, blank=True)
    active = models.BooleanField(_("activo"), default=True)
    #: The site account that claimed this player record (through a link sent to ``email``).
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="player",
        verbose_name=_("cuenta"),
    )
    #: Agreed to receive notices by email (pairings, reminders); each has an unsubscribe link.
    notices_consent = models.BooleanField(_("acepta avisos por correo"), default=False)
    #: When a director anonymised the record on request (name replaced, contact erased).
    anonymised_at = models.DateTimeField(_("anonimizado el"), null=True, blank=True)
    created_at = models.DateTimeField(_("alta"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["full_name", "id"]
        verbose_name = _("jugador")
        verbose_name_plural = _("jugadores")
        constraints = [
            models.UniqueConstraint(
                models.functions.Upper("member_number"),
                name="player_member_number_ci_unique",
                violation_error_message=_("Ese número de socio ya es de otro jugador."),
            ),
        ]

    def __str__(self) -> str:
        return self.full_name

    def save(self, *args, **kwargs):
        # Whatever the writer (services, admin, shell), names are stored cleaned (names.clean).
        self.full_name = names.clean(self.full_name)
        self.nickname = names.clean(self.nickname)
        self.name_key = name_key(self.full_name)
        if self.member_number == "":
            self.member_number = None
        super().save(*args, **kwargs)

    def has_results(self) -> bool:
        """True when the player sat at any table or holds a castigo (then it cannot be deleted)."""
        return (
            Seat.objects.filter(Q(entry__player1=self) | Q(entry__player2=self)).exists()
            or Castigo.objects.filter(player=self).exists()
        )


def pick_current_round(rounds, complete_ids):
    """The round being played among ``rounds`` (ordered by number): the lowest-numbered open
    round still missing results (a round robin made in advance has every round open); if every
    open round has all its results, the highest-numbered open one (waiting to be closed); with
    every round closed, the last one; None without rounds. ``complete_ids``: pks of the rounds
    with tables and a result at each."""
    open_rounds = [r for r in rounds if not r.closed]
    for r in open_rounds:
        if r.pk not in complete_ids:
            return r
    if open_rounds:
        return open_rounds[-1]
    return rounds[-1] if rounds else None


#: A tournament's settings, in the order its forms show them: what the tournaments service
#: accepts and the settings forms (page and admin) edit. Which apply to a tournament is its
#: scoring system's business (``ScoringSystem.fields``).
TOURNAMENT_SETTINGS = (
    "name",
    "date",
    "end_date",
    "venue",
    "system",
    "mode",
    "target",
    "time_limit",
    "bye_rule",
    "forfeit_winner_tantos",
    "forfeit_loser_tantos",
    "rounds_planned",
    "rated",
    "forfeits_rated",
    "status",
    "best_of",
)


class TournamentQuerySet(models.QuerySet):
    def public(self):
        """The tournaments any visitor may see: every one but the drafts. The one rule of a
        tournament's visibility (issue 25, point 6): a draft is private until it is published,
        only its directors and superusers see it (``permissions.can_see``, which the public
        pages ask through ``views.visibility.tournament_or_404``); every public list, feed,
        count and table of several tournaments starts here (or, through a relation, from
        ``Tournament.public_q``). A queryset."""
        return self.filter(Tournament.public_q())


class Tournament(models.Model):
    """A tournament: its scoring system, mode, target and rules (SCORING.md §1 for dominó)."""

    objects = TournamentQuerySet.as_manager()

    class Mode(models.TextChoices):
        PAIRS = "pairs", _("Parejas fijas")
        INDIVIDUAL = "individual", _("Individual (parejas rotativas)")
        SINGLE = "single", _("Mano a mano")

    class ByeRule(models.TextChoices):
        REST = "rest", _("Descanso sin puntos")
        WIN = "win", _("Descanso como partida ganada (1 punto)")

    class Status(models.TextChoices):
        DRAFT = "draft", _("Borrador")
        REGISTRATION = "registration", _("Inscripción")
        READY = "ready", _("Listo para empezar")
        RUNNING = "running", _("En curso")
        FINISHED = "finished", _("Terminado")

    #: Published and not begun: taking sign-ups, or ready (sign-up closed, check-in under way).
    #: The lists show them as upcoming (tournaments/services/lifecycle.py).
    UPCOMING = (Status.REGISTRATION, Status.READY)

    name = models.CharField(_("nombre"), max_length=120)
    slug = models.SlugField(_("Dirección (slug)"), max_length=140, unique=True)
    date = models.DateField(_("fecha"))
    #: The last day of a tournament played over several days; None: one day (``date``).
    end_date = models.DateField(
        _("último día"),
        null=True,
        blank=True,
        help_text=_("Solo si el torneo dura más de un día."),
    )
    venue = models.CharField(_("lugar"), max_length=120, blank=True)
    #: The hour play starts on ``date`` (the club's time zone); None: not announced.
    start_time = models.TimeField(_("hora de inicio"), null=True, blank=True)
    #: The scoring system's key; the registry (``tournaments.systems``) lists the choices.
    system = models.CharField(
        _("sistema"), max_length=10, choices=systems.choices, default="domino"
    )
    mode = models.CharField(_("modalidad"), max_length=12, choices=Mode, default=Mode.PAIRS)
    target = models.PositiveSmallIntegerField(
        _("meta (tantos)"), choices=[(100, "100"), (200, "200")], default=100
    )
    time_limit = models.PositiveSmallIntegerField(
        _("tiempo límite (minutos)"), null=True, blank=True
    )
    bye_rule = models.CharField(_("descanso"), max_length=4, choices=ByeRule, default=ByeRule.REST)
    forfeit_winner_tantos = models.PositiveSmallIntegerField(
        _("tantos del ganador por no presentación"),
        null=True,
        blank=True,
        help_text=_("Vacío: la meta del torneo."),
        validators=[MaxValueValidator(MAX_SCORE)],
    )
    forfeit_loser_tantos = models.PositiveSmallIntegerField(
        _("tantos del perdedor por no presentación"),
        default=0,
        validators=[MaxValueValidator(MAX_SCORE)],
    )
    rounds_planned = models.PositiveSmallIntegerField(_("número de rondas"), default=5)
    best_of = models.PositiveSmallIntegerField(
        _("partidas por encuentro (al mejor de)"),
        choices=[(1, "1"), (3, "3"), (5, "5")],
        default=3,
        help_text=_("Solo torneos suizos (match play)."),
    )
    rated = models.BooleanField(_("cuenta para el ranking"), default=True)
    forfeits_rated = models.BooleanField(
        _("las no presentaciones cuentan para el ranking"), default=False
    )
    status = models.CharField(_("estado"), max_length=12, choices=Status, default=Status.DRAFT)
    # Public sign-up (/torneos/<slug>/inscribirse/) and check-in on the day.
    signup_open = models.BooleanField(
        _("inscripción pública abierta"),
        default=False,
        help_text=_("Los jugadores se inscriben solos desde la página del torneo."),
    )
    max_entries = models.PositiveSmallIntegerField(
        _("máximo de inscripciones"),
        null=True,
        blank=True,
        help_text=_(
            "Vacío: sin límite. Con el cupo lleno, las solicitudes van a la lista de espera."
        ),
    )
    signup_closes_at = models.DateTimeField(
        _("cierre de la inscripción"),
        null=True,
        blank=True,
        help_text=_("Vacío: hasta que el torneo empiece."),
    )
    signup_needs_approval = models.BooleanField(
        _("el director aprueba cada inscripción"), default=False
    )
    self_check_in = models.BooleanField(
        _("los jugadores se marcan presentes con el código del día"), default=False
    )
    check_in_code = models.CharField(
        _("código del día"),
        max_length=8,
        blank=True,
        help_text=_("Se muestra en el local; sin él nadie se marca presente desde su teléfono."),
    )
    directors = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="directed_tournaments",
        verbose_name=_("directores"),
    )
    created_at = models.DateTimeField(_("alta"), auto_now_add=True)
    updated_at = models.DateTimeField(_("modificado"), auto_now=True)
    history = HistoricalRecords(m2m_fields=[])

    class Meta:
        ordering = ["-date", "name"]
        verbose_name = _("torneo")
        verbose_name_plural = _("torneos")
        constraints = [
            models.CheckConstraint(
                condition=Q(target__in=[100, 200]),
                name="tournament_target_100_200",
                violation_error_message=_("La meta debe ser 100 o 200 tantos."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.date:%Y-%m-%d})"

    def get_absolute_url(self) -> str:
        return reverse("public:tournament", args=[self.slug])

    @staticmethod
    def public_q(through: str = "") -> Q:
        """``Tournament.objects.public()``'s condition (not a draft) for a query that reaches
        the tournament through the relation ``through``: ``Entry.objects.filter(
        Tournament.public_q("tournament__"))``, ``Table.objects.filter(Tournament.public_q(
        "round__tournament__"))``. A ``Q``."""
        return ~Q(**{f"{through}status": Tournament.Status.DRAFT})

    @property
    def is_public(self) -> bool:
        """Whether any visitor may see this tournament (``Tournament.objects.public``): it is
        not a draft."""
        return self.status != self.Status.DRAFT

    @property
    def forfeit_score(self) -> tuple[int, int]:
        """(winner's tantos, loser's tantos) recorded for a forfeit; default (target, 0). SCORING.md §1."""
        winner = (
            self.forfeit_winner_tantos if self.forfeit_winner_tantos is not None else self.target
        )
        return winner, self.forfeit_loser_tantos

    @property
    def players_per_entry(self) -> int:
        """Players in one entry: 2 in a pairs tournament (a fixed pair), else 1 (rotating
        partners and mano a mano enter each player alone). The one place this rule lives:
        sign-up, registration, the admin and the imports ask it."""
        return 2 if self.mode == self.Mode.PAIRS else 1

    def started_rounds(self):
        """Rounds that have begun: closed, or with at least one result. A bye counts in the
        standings only from then on (a round robin records every round's byes in advance).
        A queryset, used as a subquery (no query of its own)."""
        return (
            Round.objects.filter(tournament=self)
            .filter(Q(closed=True) | systems.has_result_q("tables__"))
            .values("pk")
        )

    def entries_playing(self, round_number: int):
        """The entries in the tournament in round ``round_number``: arrived by then, and not
        withdrawn before it (docs/SCORING.md §5, "Withdrawals" and "Late arrivals"). A
        queryset (no query of its own).

        - Withdrawn: ``dropped_after_round`` < ``round_number`` (the last round the entry
          played) leaves it out.
        - Late: an entry takes part from its **first round**, the first round where it sits at
          a table or rests (a ``Seat`` or a ``Bye``, whichever path wrote it: the pairings
          pages or an import). One whose seats and byes are all in later rounds arrived after
          ``round_number``: it is left out, so it is never paired nor given a bye there, nor
          missing from it (a table game's "everyone plays"). An entry with no seat and no bye
          yet counts in every round: it arrives at the next round paired (a round that has
          begun cannot be paired again, so it gets nothing for a round played before it came).
        """
        placed_by = Exists(
            Seat.objects.filter(entry=OuterRef("pk"), round__number__lte=round_number)
        ) | Exists(Bye.objects.filter(entry=OuterRef("pk"), round__number__lte=round_number))
        placed_after = Exists(
            Seat.objects.filter(entry=OuterRef("pk"), round__number__gt=round_number)
        ) | Exists(Bye.objects.filter(entry=OuterRef("pk"), round__number__gt=round_number))
        return self.entries.filter(
            Q(dropped_after_round__isnull=True) | Q(dropped_after_round__gte=round_number)
        ).exclude(placed_after & ~placed_by)

    def entries_in_places(self):
        """The entries that fill places of ``max_entries``: those not withdrawn (an entry
        withdrawn before the tournament starts gives its place back). A queryset."""
        return self.entries.filter(dropped_after_round__isnull=True)

    def places_left(self, *, but: int | None = None) -> int | None:
        """How many more requests ``max_entries`` lets in now, never below 0; None without a
        maximum. The one count of free places (the sign-up page's "Quedan N plazas", where a
        request goes, the waiting list moving up: ``services.signups``): the maximum less the
        entries in places (``entries_in_places``) and, in a tournament whose director approves
        each sign-up (``signup_needs_approval``), less the requests waiting for that approval
        (``SignUp.Status.PENDING``: each holds its place), but the request of pk ``but``.
        Without approval a pending request (someone new to add, a name to choose) holds no
        place: it is entered only if a place is left when a director accepts it. One query,
        two with approval."""
        if self.max_entries is None:
            return None
        taken = self.entries_in_places().count()
        if self.signup_needs_approval:
            pending = self.signups.filter(status=SignUp.Status.PENDING)
            taken += pending.exclude(pk=but).count() if but else pending.count()
        return max(0, self.max_entries - taken)

    def checking_in(self) -> bool:
        """Whether check-in is under way: some entry is marked present. One query."""
        return self.entries.filter(present=True).exists()

    def entries_to_pair(self, round_number: int):
        """The entries a pairing of round ``round_number`` uses (proposals, round robin, the
        byes of the entries left unseated, an import's "everyone plays" check): those in the
        tournament then (``entries_playing``: arrived, not withdrawn) and, once check-in is
        under way (``checking_in``), present. An absent entry, or one that arrived in a later
        round, is never paired nor given a bye; the director may still seat it by hand. A
        queryset."""
        playing = self.entries_playing(round_number)
        if self.checking_in():
            playing = playing.filter(present=True)
        return playing

    def open_rounds(self) -> list[Round]:
        """The rounds not closed, by number, each with ``n_tables`` and ``n_results``
        (``Round.completion_counts``). One query."""
        return list(
            self.rounds.filter(closed=False)
            .annotate(**Round.completion_counts())
            .order_by("number")
        )

    def current_round(self) -> Round | None:
        """The round being played (``pick_current_round``): the first open round still missing
        results, else the last open round, else the last round; None before round 1. Two
        queries: the rounds, then the tables and results of the open ones only (a finished
        512-entry tournament counts none; a running one, its current round's)."""
        rounds = list(self.rounds.order_by("number"))
        open_ids = [r.pk for r in rounds if not r.closed]
        complete = set()
        if open_ids:
            counts = (
                Round.objects.filter(pk__in=open_ids)
                .annotate(**Round.completion_counts())
                .values_list("pk", "n_tables", "n_results")
            )
            complete = {pk for pk, tables, results in counts if tables and tables == results}
        return pick_current_round(rounds, complete)

    def standings(self) -> list[StandingLine]:
        """The standings, best first, as ``StandingLine`` (row + entry): the scoring
        system's (``systems.of(self).standings``), in a fixed number of queries. A
        ``systems.base.Standings`` list: its ``needs_correction`` names the stored results
        left out because they no longer hold under the settings."""
        return systems.of(self).standings(self)

    def final_places(self) -> FinalPlaces:
        """The tournament's final places (SCORING.md §9, "A tournament's final place"; the
        pure rule: ``scoring.places.final_places``), the one answer every page, download,
        podium, "tournaments won", league and story asks. A ``FinalPlaces`` list of the
        ``standings()`` lines, each with ``place`` (1-based, None: no place) and
        ``place_shared`` (another entry holds the same place, shown "=").

        Who takes no place is ``scoring.places.without_place``: an entry that played no game
        (never seated at a table with a result; a bye is not a game) when it is withdrawn,
        or the tournament is finished (absent, or only rested: docs/SCORING.md §6), or it
        has not even rested a round that counts; while the tournament runs, an entry still
        in it that has only rested keeps its standings position. The placed ones come first,
        in standings order, their places closed up over the others; then those, unnumbered,
        in standings order. A withdrawn entry that played keeps its position among the
        placed. Before the first result (``FinalPlaces.started`` false) nobody has a place
        and the lines are in the order of the entries' names (player 1's, then player 2's;
        SCORING.md §9, "Standings before any game").

        The queries of ``standings()`` plus one (``games_and_rests``). Raises
        ``systems.UnknownSystem`` for a system no longer registered."""
        lines = self.standings()
        return _final_places(self, lines, games_and_rests([self.pk]).get(self.pk, NO_GAMES))

    @staticmethod
    def final_places_of(tournaments) -> dict[int, FinalPlaces]:
        """``final_places()`` of each of ``tournaments``, ``{pk: FinalPlaces}``, in a fixed
        number of queries whatever their number: one for who played and rested
        (``games_and_rests``), then, per scoring system among them, its ``standings_many``
        (its entries and its gather). A tournament whose system is no longer registered has
        none (it is left out)."""
        tournaments = list(tournaments)
        if not tournaments:
            return {}
        games = games_and_rests([t.pk for t in tournaments])
        by_system: dict[str, list[Tournament]] = {}
        for t in tournaments:
            by_system.setdefault(t.system, []).append(t)
        out: dict[int, FinalPlaces] = {}
        for key, group in by_system.items():
            try:
                system = systems.get(key)
            except systems.UnknownSystem:
                continue
            standings = system.standings_many(group)
            for t in group:
                out[t.pk] = _final_places(t, standings[t.pk], games.get(t.pk, NO_GAMES))
        return out

    def order_is_final(self) -> bool:
        """Whether the standings' order is final, so that a tie it leaves may be drawn by lots
        (a sorteo; SCORING.md §9, "Standings before any game"): the tournament is finished, or
        each of its planned rounds (1 to ``rounds_planned``) exists and every table of every
        round has a result. The one test of "may a sorteo be made": the directors' page offers
        one only then, ``services.record_sorteo`` refuses it before ("sorteo_too_early"). No
        query for a finished tournament, else one."""
        if self.status == self.Status.FINISHED:
            return True
        rounds = list(
            self.rounds.annotate(**Round.completion_counts()).values_list(
                "number", "n_tables", "n_results"
            )
        )
        numbers = {number for number, _tables, _results in rounds}
        return all(n in numbers for n in range(1, self.rounds_planned + 1)) and all(
            n_tables == n_results for _number, n_tables, n_results in rounds
        )

    def propose_pairings(self, round_number: int, *, seed: int):
        """Propose the tables of ``round_number`` by Swiss pairing (``pairing.swiss.pair_round``)
        from the current standings: swiss match points, or dominó puntos for dominó "rondas"
        with fixed pairs or mano a mano. Only ``entries_to_pair`` are paired (not withdrawn;
        present, once check-in is under way); opponents met and byes had come from the earlier
        rounds. Four queries plus those of ``standings()``.

        Returns ``(pairing, lines_by_entry)``: the pure ``Pairing`` and each entry's standings
        line (for showing scores). Raises DomainError "swiss_proposal_mode" (a system or mode without Swiss proposals),
        "too_few_entries".
        """

        system = systems.of(self)
        if systems.SWISS_PROPOSAL not in system.actions(self):
            raise DomainError("swiss_proposal_mode", system=system.presentation.summary(self))
        lines = self.standings()
        opponents: dict[int, set[int]] = {}
        sides: dict[int, dict[str, list[int]]] = {}
        for table_id, entry_id, side in Seat.objects.filter(
            round__tournament=self, round__number__lt=round_number
        ).values_list("table_id", "entry_id", "side"):
            sides.setdefault(table_id, {"A": [], "B": []})[side].append(entry_id)
        for table in sides.values():
            for a in table["A"]:
                for b in table["B"]:
                    opponents.setdefault(a, set()).add(b)
                    opponents.setdefault(b, set()).add(a)
        byes: dict[int, int] = {}
        for entry_id in Bye.objects.filter(
            round__tournament=self, round__number__lt=round_number
        ).values_list("entry_id", flat=True):
            byes[entry_id] = byes.get(entry_id, 0) + 1
        score_key = systems.of(self).first_figure()
        pairable = set(self.entries_to_pair(round_number).values_list("pk", flat=True))
        pool = [
            swiss_pairing.PairingEntry(
                entry_id=line.entry.pk,
                score=line.row.figures[score_key],
                rank=rank,
                opponents=frozenset(opponents.get(line.entry.pk, ())),
                byes=byes.get(line.entry.pk, 0),
            )
            for rank, line in enumerate(lines, start=1)
            if line.entry.pk in pairable
        ]
        first = not Seat.objects.filter(
            round__tournament=self, round__number__lt=round_number
        ).exists()
        pairing = swiss_pairing.pair_round(pool, seed=seed, first_round=first)
        return pairing, {line.entry.pk: line for line in lines}

    def propose_seating(self, round_number: int, *, seed: int):
        """Propose the tables of ``round_number`` for 4-at-a-table play: the table-game system
        (tables of 3–4, ``pairing.seating.seat_table_game``) or individual dominó with rotating
        partners (tables of exactly 4, seats 1 & 3 against 2 & 4,
        ``pairing.seating.seat_rotating_partners``). Competitors are single-player entries,
        ranked by the current standings, ``entries_to_pair`` only; who met whom and who
        partnered whom come from the earlier rounds. Returns ``(seating, lines_by_entry)``.
        """

        system = systems.of(self)
        with_partners = system.partners_at_table(self)
        lines = self.standings()
        met: dict[int, set[int]] = {}
        partners: dict[int, set[int]] = {}
        tables: dict[int, list[tuple[str, int]]] = {}
        for table_id, entry_id, side in Seat.objects.filter(
            round__tournament=self, round__number__lt=round_number
        ).values_list("table_id", "entry_id", "side"):
            tables.setdefault(table_id, []).append((side, entry_id))
        for seats in tables.values():
            for side, e in seats:
                for other_side, o in seats:
                    if o != e:
                        met.setdefault(e, set()).add(o)
                        if other_side == side and with_partners:
                            partners.setdefault(e, set()).add(o)
        byes: dict[int, int] = {}
        for entry_id in Bye.objects.filter(
            round__tournament=self, round__number__lt=round_number
        ).values_list("entry_id", flat=True):
            byes[entry_id] = byes.get(entry_id, 0) + 1
        pairable = set(self.entries_to_pair(round_number).values_list("pk", flat=True))
        pool = [
            seating_engine.SeatingPlayer(
                entry_id=line.entry.pk,
                rank=rank,
                met=frozenset(met.get(line.entry.pk, ())),
                partners=frozenset(partners.get(line.entry.pk, ())),
                byes=byes.get(line.entry.pk, 0),
            )
            for rank, line in enumerate(lines, start=1)
            if line.entry.pk in pairable
        ]
        first = not tables
        if not system.has_sides:
            result = seating_engine.seat_table_game(pool, seed=seed, first_round=first)
        else:
            result = seating_engine.seat_rotating_partners(pool, seed=seed, first_round=first)
        return result, {line.entry.pk: line for line in lines}


class StandingLine:
    """One line of a standings table: the pure ``StandingRow`` and its ``Entry``; ``cells``:
    the formatted figures the standings page shows (``views.public.standings_context``);
    ``place`` and ``place_shared``: its final place, set by ``Tournament.final_places``
    (None and False until then, and for an entry that takes no place)."""

    __slots__ = ("cells", "entry", "place", "place_shared", "row")

    def __init__(self, row, entry):
        self.row = row
        self.entry = entry
        self.cells = []
        self.place = None
        self.place_shared = False

    def __getattr__(self, name):
        return getattr(self.row, name)

    @property
    def f(self) -> dict:
        return self.row.figures


#: ``games_and_rests`` of a tournament without a game or a counted bye.
NO_GAMES: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())


class FinalPlaces(list):
    """A tournament's final places (``Tournament.final_places``): its ``StandingLine`` items
    with ``place`` set, the placed first; ``started``: whether any result exists (before it,
    nobody has a place: SCORING.md §9, "Standings before any game"); ``needs_correction``:
    the standings' own (``systems.base.Standings``)."""

    def __init__(self, lines=(), *, started: bool, needs_correction=None):
        super().__init__(lines)
        self.started = started
        self.needs_correction: dict[int, str] = dict(needs_correction or {})


def counted_byes_of(tournament_ids):
    """The byes the standings count in each of ``tournament_ids`` (a ``Bye`` queryset, no
    query of its own): the byes of rounds that have begun (closed, or with a result: as
    ``Tournament.started_rounds``) of entries still in the tournament in that round (not
    withdrawn before it: SCORING.md §5). The systems' gathers read them
    (``systems.base.counted_byes_of``), and so does ``games_and_rests``."""
    started = (
        Round.objects.filter(tournament__in=list(tournament_ids))
        .filter(Q(closed=True) | systems.has_result_q("tables__"))
        .values("pk")
    )
    return Bye.objects.filter(round__in=started).filter(
        Q(entry__dropped_after_round__isnull=True)
        | Q(entry__dropped_after_round__gte=F("round__number"))
    )


def games_and_rests(tournament_ids) -> dict[int, tuple[set[int], set[int]]]:
    """Who has played and who has rested in each of ``tournament_ids``: ``{tournament id:
    (played, rested)}``, the entry ids seated at a table with a result (a game; a bye is not
    one: SCORING.md §9) and those with a bye the standings count (``counted_byes_of``). A
    tournament missing from the answer has no result and no counted bye. One query."""
    ids = list(tournament_ids)
    games = (
        Seat.objects.filter(round__tournament__in=ids)
        .filter(systems.has_result_q("table__"))
        .annotate(game=Value(True))
        .order_by()
        .values_list("round__tournament_id", "entry_id", "game")
    )
    rests = (
        counted_byes_of(ids)
        .annotate(game=Value(False))
        .order_by()
        .values_list("round__tournament_id", "entry_id", "game")
    )
    out: dict[int, tuple[set[int], set[int]]] = {}
    for tournament_id, entry_id, game in games.union(rests).order_by():
        played, rested = out.setdefault(tournament_id, (set(), set()))
        (played if game else rested).add(entry_id)
    return out


def _by_name(line) -> tuple:
    entry = line.entry
    second = entry.player2.name_key if entry.player2_id else ""
    return (entry.player1.name_key, second, entry.pk)


def _final_places(t: Tournament, lines, games: tuple[set[int], set[int]]) -> FinalPlaces:
    """``lines`` (``t``'s standings, best first) with their final places (``scoring.places``)
    from ``games`` (who played, who rested: ``games_and_rests``). Without any entry that
    played: every line unplaced, by name."""
    played, rested = games
    needs_correction = getattr(lines, "needs_correction", None)
    if not played:
        return FinalPlaces(
            sorted(lines, key=_by_name), started=False, needs_correction=needs_correction
        )
    by_entry = {line.entry.pk: line for line in lines}
    unplaced = places_rule.without_place(
        by_entry,
        played=played,
        rested=rested,
        withdrawn={
            pk for pk, line in by_entry.items() if line.entry.dropped_after_round is not None
        },
        finished=t.status == Tournament.Status.FINISHED,
    )
    out = []
    for p in places_rule.final_places([line.row for line in lines], unplaced=unplaced):
        line = by_entry[p.entry_id]
        line.place, line.place_shared = p.place, p.shared
        out.append(line)
    return FinalPlaces(out, started=True, needs_correction=needs_correction)


class Entry(models.Model):
    """A competitor of one tournament: a fixed pair (two players) or one player."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("torneo")
    )
    player1 = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("Jugador 1")
    )
    player2 = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
        verbose_name=_("Jugador 2"),
    )
    dropped_after_round = models.PositiveSmallIntegerField(
        _("Se retiró después de la ronda"), null=True, blank=True
    )
    #: Checked in on the day. Once any entry of a tournament is present, pairings use the
    #: present entries only (``Tournament.pairable_entries``).
    present = models.BooleanField(_("presente"), default=False)
    created_at = models.DateTimeField(_("alta"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["id"]
        verbose_name = _("inscripción")
        verbose_name_plural = _("inscripciones")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player1"], name="entry_unique_player1"),
            models.CheckConstraint(
                condition=Q(player2__isnull=True) | ~Q(player2=models.F("player1")),
                name="entry_two_different_players",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        if self.player2_id:
            return f"{self.player1.full_name} & {self.player2.full_name}"
        return self.player1.full_name

    def player_ids(self) -> list[int]:
        return [pid for pid in (self.player1_id, self.player2_id) if pid]


class Round(models.Model):
    """A round ("ronda") of a tournament. Results can be entered while it is open."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("torneo")
    )
    number = models.PositiveSmallIntegerField(_("ronda"))
    closed = models.BooleanField(_("cerrada"), default=False)
    seed = models.BigIntegerField(_("Semilla del sorteo de parejas"), null=True, blank=True)
    played_at = models.DateTimeField(_("jugada el"), null=True, blank=True)
    # The round clock (the tournament's time limit): running since ``clock_running_since``
    # (None: stopped), after ``clock_elapsed`` seconds run before; ``clock_added`` seconds
    # given by the director. Not started: both empty; paused: not running, some time run.
    clock_running_since = models.DateTimeField(_("reloj en marcha desde"), null=True, blank=True)
    clock_elapsed = models.FloatField(_("segundos corridos antes"), default=0)
    clock_added = models.IntegerField(_("segundos añadidos"), default=0)
    history = HistoricalRecords()

    class Meta:
        ordering = ["tournament", "number"]
        verbose_name = _("ronda")
        verbose_name_plural = _("rondas")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number"),
        ]

    def __str__(self) -> str:
        return gettext("{tournament} · ronda {number}").format(
            tournament=self.tournament.name, number=self.number
        )

    def clean(self):
        """Model validation (the Django admin's forms call it): the round's time, when given,
        lies within its tournament's days (``timing.check_played_at``). Raises
        ValidationError on ``played_at``."""

        super().clean()
        if self.played_at is not None and self.tournament_id is not None:
            t = self.tournament
            try:
                timing.check_played_at(self.played_at, t.date, t.end_date)
            except DomainError as exc:
                raise ValidationError({"played_at": exc.message}) from exc

    @staticmethod
    def completion_counts() -> dict:
        """Annotations for a Round queryset: ``n_tables`` and ``n_results`` (tables with a
        result of any system); a round is complete when they are equal and not zero."""

        with_result = systems.has_result_q("tables__")
        return {
            "n_tables": Count("tables", distinct=True),
            "n_results": Count("tables", filter=with_result, distinct=True),
        }

    def missing_results(self) -> int:
        """How many of this round's tables have no result yet (one query)."""
        counts = (
            Round.objects.filter(pk=self.pk)
            .annotate(**Round.completion_counts())
            .values_list("n_tables", "n_results")
            .get()
        )
        return counts[0] - counts[1]

    def tables_with_results(self) -> list[Table]:
        """The round's tables by number, each with its seats (entries and players) and result.

        Three queries whatever the number of tables.
        """
        return list(Table.with_results().filter(round=self))

    def bye_entries(self) -> list[Entry]:
        """Entries that rest this round (recorded byes), in entry order."""
        return [
            b.entry
            for b in self.byes.select_related("entry__player1", "entry__player2").order_by(
                "entry_id"
            )
        ]


class TableQuerySet(models.QuerySet):
    def loaded(self):
        """These tables with the result of every registered system (and who entered it) and
        their seats, entries and players, in seat order: no query per table."""
        return self.select_related(
            *(
                name
                for relation in systems.result_relations()
                for name in (relation, f"{relation}__entered_by")
            )
        ).prefetch_related(
            models.Prefetch(
                "seats",
                queryset=Seat.objects.select_related("entry__player1", "entry__player2").order_by(
                    "side", "position"
                ),
            )
        )


class Table(models.Model):
    """A table ("mesa") of a round. ``version`` grows with every change of its result (DESIGN.md, Concurrency)."""

    objects = TableQuerySet.as_manager()

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="tables", verbose_name=_("ronda")
    )
    number = models.PositiveSmallIntegerField(_("mesa"))
    version = models.PositiveIntegerField(_("versión"), default=0)
    history = HistoricalRecords()

    class Meta:
        ordering = ["round", "number"]
        verbose_name = _("mesa")
        verbose_name_plural = _("mesas")
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_unique_number"),
        ]

    def __str__(self) -> str:
        """ "Copa · ronda 2 · mesa 3": the table named by its tournament, round and number
        (admin titles, history, messages)."""
        return table_title(self.round.tournament.name, self.round.number, self.number)

    @classmethod
    def with_results(cls):
        """Tables ordered by round and number with result, entering user, seats and players
        loaded (``TableQuerySet.loaded``): three queries whatever the number of tables."""
        return cls.objects.loaded().order_by("round__number", "number")

    def side(self, side: str) -> list[Entry]:
        """Entries on side "A" or "B", in seat order (uses prefetched seats when present)."""
        return [s.entry for s in self.seats.all() if s.side == side]

    def side_name(self, side: str) -> str:
        """The names of side "A" or "B" joined by " & " ("Ana & Beto"); "" without seats."""
        entries = self.side(side)
        return " & ".join(e.name for e in entries)

    def scored_title(self, score: str) -> str:
        """ "Copa · ronda 2 · mesa 1: Ana & Beto 100–30 Carla & Dani": the table, its side A,
        ``score`` (side A's figure first), its side B; the sides are left out when the table
        has no seats."""
        parts = [self.side_name("A"), score, self.side_name("B")]
        return f"{self}: {' '.join(part for part in parts if part)}"

    @property
    def any_result(self):
        """The table's result whatever its system's storage model, or None
        (``systems.any_result``)."""
        return systems.any_result(self)


class Seat(models.Model):
    """An entry seated at a table, on side A or B. One seat per entry per round (database constraint)."""

    class Side(models.TextChoices):
        A = "A", "A"
        B = "B", "B"

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("mesa")
    )
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="seats", verbose_name=_("ronda")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.RESTRICT, related_name="seats", verbose_name=_("inscripción")
    )
    side = models.CharField(_("lado"), max_length=1, choices=Side)
    #: The seat's number within its side (1, 2), or at a table game (1–4).
    position = models.PositiveSmallIntegerField(_("número de asiento"), default=1)
    victory_points = models.PositiveIntegerField(
        _("puntos de victoria (VP)"),
        null=True,
        blank=True,
        help_text=_(
            "Solo juegos de mesa de 3–4 jugadores: la puntuación del jugador en la partida."
        ),
        validators=[MaxValueValidator(MAX_SCORE)],
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["table", "side", "position"]
        verbose_name = _("asiento")
        verbose_name_plural = _("asientos")
        constraints = [
            models.UniqueConstraint(fields=["round", "entry"], name="seat_entry_once_per_round"),
        ]

    def __str__(self) -> str:
        """ "Copa · ronda 2 · mesa 1 · A2: Beto" (side and number of the seat)."""
        title = table_title(self.round.tournament.name, self.round.number, self.table.number)
        return f"{title} · {self.side}{self.position}: {self.entry}"


class Bye(models.Model):
    """An entry that rests in a round ("descanso"); scored by the tournament's bye rule."""

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="byes", verbose_name=_("ronda")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.RESTRICT, related_name="byes", verbose_name=_("inscripción")
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("descanso")
        verbose_name_plural = _("descansos")
        constraints = [
            models.UniqueConstraint(fields=["round", "entry"], name="bye_once_per_round"),
        ]

    def __str__(self) -> str:
        return gettext("{round}: descansa {entry}").format(round=self.round, entry=self.entry)


class Result(models.Model):
    """The score sheet of a dominó table: tantos as written, ended by time, forfeit (SCORING.md §1)."""

    table = models.OneToOneField(
        Table, on_delete=models.CASCADE, related_name="result", verbose_name=_("mesa")
    )
    tantos_a = models.PositiveIntegerField(_("tantos A"), validators=[MaxValueValidator(MAX_SCORE)])
    tantos_b = models.PositiveIntegerField(_("tantos B"), validators=[MaxValueValidator(MAX_SCORE)])
    ended_by_time = models.BooleanField(_("terminó por tiempo"), default=False)
    forfeit = models.BooleanField(_("no presentación"), default=False)
    played_at = models.DateTimeField(_("jugada el"), null=True, blank=True)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("anotado por"),
    )
    updated_at = models.DateTimeField(_("modificado"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("resultado")
        verbose_name_plural = _("resultados")
        indexes = [models.Index(fields=["played_at"], name="result_played_at")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(tantos_a=models.F("tantos_b")),
                name="result_no_tie",
                violation_error_message=_("Un empate no es un resultado: alguien tiene que ganar."),
            ),
        ]

    def __str__(self) -> str:
        """ "Copa · ronda 2 · mesa 1: Ana & Beto 100–30 Carla & Dani"."""
        return self.table.scored_title(f"{self.tantos_a}–{self.tantos_b}")


class MatchResult(models.Model):
    """The result of a match-play table (system "swiss"): games won by each side and drawn
    games, for a best-of-N match (seed 000, SCORING.md §3)."""

    table = models.OneToOneField(
        Table, on_delete=models.CASCADE, related_name="match_result", verbose_name=_("mesa")
    )
    games_a = models.PositiveSmallIntegerField(
        _("partidas ganadas por A"), validators=[MaxValueValidator(MAX_SCORE)]
    )
    games_b = models.PositiveSmallIntegerField(
        _("partidas ganadas por B"), validators=[MaxValueValidator(MAX_SCORE)]
    )
    games_drawn = models.PositiveSmallIntegerField(
        _("partidas empatadas"), default=0, validators=[MaxValueValidator(MAX_SCORE)]
    )
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("anotado por"),
    )
    updated_at = models.DateTimeField(_("modificado"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("resultado de encuentro")
        verbose_name_plural = _("resultados de encuentros")
        constraints = [
            models.CheckConstraint(
                condition=Q(games_a__gt=0) | Q(games_b__gt=0) | Q(games_drawn__gt=0),
                name="match_result_not_empty",
                violation_error_message=_("Un encuentro sin partidas no es un resultado."),
            ),
        ]

    def __str__(self) -> str:
        """ "Copa · ronda 2 · mesa 1: Ana 2–1 Carla", with "(1 emp.)" after drawn games."""
        title = self.table.scored_title(f"{self.games_a}–{self.games_b}")
        if self.games_drawn:
            title += " " + gettext("({n} emp.)").format(n=self.games_drawn)
        return title


class TableResult(models.Model):
    """The end of a 3–4 player table game (system "table"): whether it ended by time; each
    player's in-game score (VP) is on their ``Seat.victory_points`` (seed 004, SCORING.md §4)."""

    table = models.OneToOneField(
        Table, on_delete=models.CASCADE, related_name="table_result", verbose_name=_("mesa")
    )
    ended_by_time = models.BooleanField(_("terminó por tiempo"), default=False)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("anotado por"),
    )
    updated_at = models.DateTimeField(_("modificado"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("resultado de mesa (3–4 jugadores)")
        verbose_name_plural = _("resultados de mesa (3–4 jugadores)")

    def __str__(self) -> str:
        """ "Copa · ronda 1 · mesa 2: Ana 45 · Beto 30 · Carla 30", with "(tiempo)" when the
        game ended by time (each seat's VP, seat order)."""
        seats = sorted(self.table.seats.all(), key=lambda seat: seat.position)
        scores = " · ".join(
            f"{seat.entry.name} {'—' if seat.victory_points is None else seat.victory_points}"
            for seat in seats
        )
        title = f"{self.table}: {scores}" if scores else str(self.table)
        if self.ended_by_time:
            return gettext("{table} (tiempo)").format(table=title)
        return title


class Castigo(models.Model):
    """A penalty in tantos charged to one player; subtracted from their entry's efectividad (SCORING.md §1)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="castigos", verbose_name=_("torneo")
    )
    round = models.ForeignKey(
        Round,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="castigos",
        verbose_name=_("ronda"),
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="castigos", verbose_name=_("jugador")
    )
    tantos = models.PositiveIntegerField(_("tantos"))
    reason = models.CharField(_("motivo"), max_length=200)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("anotado por"),
    )
    created_at = models.DateTimeField(_("fecha"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("castigo")
        verbose_name_plural = _("castigos")
        constraints = [
            models.CheckConstraint(
                condition=Q(tantos__gt=0),
                name="castigo_positive",
                violation_error_message=_("El castigo debe ser de al menos 1 tanto."),
            ),
        ]

    def __str__(self) -> str:
        """ "Copa · ronda 2 · Ana: −20 (Hablar durante la partida)"; the round is left out when
        the castigo has none."""
        where = str(self.round) if self.round_id else self.tournament.name
        return f"{where} · {self.player}: −{self.tantos} ({self.reason})"


class Sorteo(models.Model):
    """A draw of lots for entries still tied after every tiebreak: lower ``lot`` ranks higher."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="sorteos", verbose_name=_("torneo")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="sorteos", verbose_name=_("inscripción")
    )
    lot = models.PositiveSmallIntegerField(_("número sorteado"))
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("registrado por"),
    )
    created_at = models.DateTimeField(_("fecha"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("sorteo")
        verbose_name_plural = _("sorteos")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "entry"], name="sorteo_once_per_entry"),
        ]

    def __str__(self) -> str:
        return f"{self.entry}: {self.lot}"


class FinalPlaceQuerySet(models.QuerySet):
    def store(self, tournaments) -> int:
        """Store the final places of the finished ones among ``tournaments`` (Tournament
        instances or ids), replacing what was stored for them: one row per player of each of
        their entries, ``place`` None for an entry that takes none (``Tournament.final_places_of``,
        SCORING.md §9: the rule is computed there, never here). Derived data, kept by
        ``tournaments.services.places`` (the model signals of every path) and filled here by
        the readers for a finished tournament without rows (``stored_places``,
        ``rankings.stories.podiums``), by ``manage.py store_final_places`` and by the data
        generator. Written to the primary database in one transaction: a DELETE, the
        queries of ``final_places_of`` and one INSERT. Returns the number of rows written."""
        ids = [getattr(t, "pk", t) for t in tournaments]
        with use_replica(False):  # what is stored is computed from the primary
            return self._store(ids)

    def store_all(self, *, missing_only: bool = False, chunk: int = 100) -> tuple[int, int]:
        """``store`` for every finished tournament (``missing_only``: those without a row),
        ``chunk`` tournaments at a time (each chunk its own transaction). Returns (tournaments,
        rows written). ``manage.py store_final_places``, the data generator and the club
        restore call it."""
        ids = Tournament.objects.filter(status=Tournament.Status.FINISHED).order_by("pk")
        if missing_only:
            ids = ids.exclude(Exists(FinalPlace.objects.filter(tournament=OuterRef("pk"))))
        ids = list(ids.values_list("pk", flat=True))
        written = sum(self.store(ids[i : i + chunk]) for i in range(0, len(ids), chunk))
        return len(ids), written

    def _store(self, ids) -> int:
        finished = list(Tournament.objects.filter(pk__in=ids, status=Tournament.Status.FINISHED))
        if not finished:
            return 0
        rows = [
            FinalPlace(
                tournament_id=pk,
                entry_id=line.entry.pk,
                player_id=player_id,
                place=line.place,
                shared=line.place_shared,
            )
            for pk, lines in Tournament.final_places_of(finished).items()
            for line in lines
            for player_id in line.entry.player_ids()
        ]
        db = router.db_for_write(FinalPlace)
        with transaction.atomic(using=db):
            FinalPlace.objects.using(db).filter(tournament__in=[t.pk for t in finished]).delete()
            FinalPlace.objects.using(db).bulk_create(rows, batch_size=1000, ignore_conflicts=True)
        return len(rows)


class FinalPlace(models.Model):
    """A finished tournament's final place of one player (SCORING.md §9,
    ``Tournament.final_places``), stored so that podiums, "tournaments won" and league tables
    read rows instead of computing the standings of every tournament: one row per player of
    each entry of a finished tournament (both players of a pair), ``place`` None for an entry
    that takes no place, ``shared`` when another entry holds the same place.

    Derived data: written only by ``FinalPlace.objects.store`` when a tournament finishes or
    a finished tournament's data changes (``tournaments.services.places``, from the model
    signals, whatever the path), removed when it is reopened or taken back to draft. Not in
    the backup (rebuilt on restore); read-only in the admin."""

    objects = FinalPlaceQuerySet.as_manager()

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="stored_places", verbose_name=_("torneo")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="stored_places", verbose_name=_("inscripción")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="stored_places", verbose_name=_("jugador")
    )
    place = models.PositiveSmallIntegerField(_("puesto"), null=True, blank=True)
    shared = models.BooleanField(_("compartido"), default=False)

    class Meta:
        verbose_name = _("puesto final")
        verbose_name_plural = _("puestos finales")
        constraints = [
            models.UniqueConstraint(fields=["entry", "player"], name="final_place_once"),
        ]
        indexes = [
            models.Index(fields=["player", "tournament"], name="final_place_player"),
            models.Index(fields=["tournament", "place"], name="final_place_tournament"),
        ]

    def __str__(self) -> str:
        where = "—" if self.place is None else f"{self.place}{'=' if self.shared else ''}"
        return f"{self.tournament_id} · {self.player_id}: {where}"


def stored_places(tournaments) -> dict[int, list[FinalPlace]]:
    """The stored final places (``FinalPlace``) of the finished ones among ``tournaments``,
    ``{tournament id: [rows]}`` (each row's ``entry_id``, ``player_id``, ``place``,
    ``shared``; the placed first by place, then the unplaced; an empty list for one without
    entries). A finished tournament with no row yet (a database from before the table, a change whose refresh failed) has its rows
    stored first (``FinalPlace.objects.store``). One query when every row is there; else
    that, ``store``'s and one more."""
    finished = [t for t in tournaments if t.status == Tournament.Status.FINISHED]
    if not finished:
        return {}
    ids = [t.pk for t in finished]

    def read(using=None):
        out: dict[int, list[FinalPlace]] = {}
        rows = FinalPlace.objects.using(using) if using else FinalPlace.objects
        for row in rows.filter(tournament_id__in=ids).order_by(
            "tournament_id", F("place").asc(nulls_last=True), "entry_id", "player_id"
        ):
            out.setdefault(row.tournament_id, []).append(row)
        return out

    out = read()
    missing = [t for t in finished if t.pk not in out]
    if missing and FinalPlace.objects.store(missing):
        out = read(router.db_for_write(FinalPlace))  # what was just written, not a replica
    for t in finished:  # without entries: no row, no place
        out.setdefault(t.pk, [])
    return out


class ImportJob(models.Model):
    """One file sent through the import page, imported in the background
    (``tournaments.imports.jobs.import_results_task``, all or nothing, as ``tournaments.imports``):
    a results file (``kind`` "results"), or a castigos workbook ("castigos"; a castigos CSV is
    imported in the request).

    The file waits in ``data`` (CSV text, decoded by the page) or ``workbook`` (an .xlsx as
    uploaded, at most 5 MB, unread: a workbook is parsed by the job, never in a request) until
    the job ends, then both are emptied; a job whose worker stopped keeps its file, so the page
    can run it again. ``done``/``total`` count the tables written: on PostgreSQL the worker
    writes them here while the import runs (through a connection of its own,
    ``tournaments.progress``), on SQLite only at the end (the running count is in a small file
    then). ``report`` is the success report (the ``services.ImportReport`` fields, plus
    ``published``; of castigos: ``created``, ``notes``, ``warnings``), ``refusal`` the refusal
    (``{"summary": sentence, "errors": [[line, message], ...]}``), both in ``language``, the
    language of the page that sent the file."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("en cola")
        RUNNING = "running", _("importando")
        DONE = "done", _("terminada")
        FAILED = "failed", _("rechazada")

    class Kind(models.TextChoices):
        RESULTS = "results", _("resultados")
        CASTIGOS = "castigos", _("castigos")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="import_jobs")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    file_name = models.CharField(_("archivo"), max_length=255)
    kind = models.CharField(max_length=8, choices=Kind, default=Kind.RESULTS)
    data = models.TextField(blank=True)
    workbook = models.BinaryField(blank=True, default=b"")
    language = models.CharField(max_length=10, blank=True)
    status = models.CharField(
        _("estado"), max_length=8, choices=Status, default=Status.QUEUED, db_index=True
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    progress_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    report = models.JSONField(null=True, blank=True)
    refusal = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("importación")
        verbose_name_plural = _("importaciones")

    def __str__(self) -> str:
        return f"{self.file_name} ({self.get_status_display()})"

    @property
    def finished(self) -> bool:
        """Whether the job ended (imported, or refused / failed: nothing stored)."""
        return self.status in (self.Status.DONE, self.Status.FAILED)


class SignUp(models.Model):
    """A request to play a tournament, sent from its public sign-up page
    (``/torneos/<slug>/inscribirse/``, ``services.signups``): one player, or a pair (the
    partner named by the one who signs up). A known player is recognised by name plus member
    number or email; someone new leaves a name and a contact, kept here only (no ``Player``)
    until a club director accepts the request. A partner who is the club's player waits
    for their consent (``UNCONFIRMED``, ``partner_confirmed_at``), or says no (``DECLINED``).
    Accepted, it becomes an ``Entry`` (``entry``); with the tournament full it waits
    (``WAITING``), first come first served; with approval on, or new people to add, or a name
    the club has twice, it waits for a director (``PENDING``). Email and phone are never
    shown on a public page."""

    class Status(models.TextChoices):
        UNCONFIRMED = "unconfirmed", _("espera al compañero")
        PENDING = "pending", _("por aprobar")
        WAITING = "waiting", _("en lista de espera")
        ACCEPTED = "accepted", _("aceptada")
        REFUSED = "refused", _("rechazada")
        DECLINED = "declined", _("rechazada por el compañero")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="signups", verbose_name=_("torneo")
    )
    name = models.CharField(_("nombre"), max_length=120)
    partner_name = models.CharField(_("compañero"), max_length=120, blank=True)
    member_number = models.CharField(_("número de socio"), max_length=20, blank=True)
    email = models.EmailField(_("correo (privado)"), blank=True)
    phone = models.CharField(_("teléfono (privado)"), max_length=40, blank=True)
    player = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("jugador"),
    )
    partner = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("compañero (jugador)"),
    )
    partner_confirmed_at = models.DateTimeField(
        _("el compañero confirmó el"),
        null=True,
        blank=True,
        help_text=_("Cuándo el compañero (o un director por él) confirmó que juega."),
    )
    status = models.CharField(
        _("estado"), max_length=12, choices=Status, default=Status.PENDING, db_index=True
    )
    entry = models.ForeignKey(
        Entry,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("inscripción"),
    )
    created_at = models.DateTimeField(_("fecha"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decidida el"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decidida por"),
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("solicitud de inscripción")
        verbose_name_plural = _("solicitudes de inscripción")

    def __str__(self) -> str:
        who = f"{self.name} & {self.partner_name}" if self.partner_name else self.name
        return gettext("{who} en «{tournament}» ({status})").format(
            who=who, tournament=self.tournament.name, status=self.get_status_display()
        )

    @classmethod
    def asking(cls, player: Player, tournament: Tournament | None = None):
        """The requests that name ``player`` as partner and still wait for their word: on their
        way to an entry (unconfirmed, pending or waiting) and not confirmed; of ``tournament``
        only when given. A queryset, oldest first, with their tournaments."""
        waiting = (cls.Status.UNCONFIRMED, cls.Status.PENDING, cls.Status.WAITING)
        qs = cls.objects.filter(
            partner=player, partner_confirmed_at__isnull=True, status__in=waiting
        ).select_related("tournament")
        return qs.filter(tournament=tournament) if tournament is not None else qs


class League(models.Model):
    """A league ("liga"): the tournaments of a season, any system, scored by final position
    (``points_scale``: points for 1st, 2nd, …; ``participation_points`` to everyone who took
    part), the best ``best_results`` of each player's results counting (None: all).
    ``planned_tournaments``: how many the season will have (None: unknown), for "how many are
    left". The rule is docs/SCORING.md, "Leagues"."""

    name = models.CharField(_("nombre"), max_length=120)
    slug = models.SlugField(_("Dirección (slug)"), max_length=140, unique=True)
    season = models.PositiveSmallIntegerField(_("temporada"))
    description = models.TextField(_("descripción"), blank=True)
    points_scale = models.CharField(
        _("puntos por puesto"),
        max_length=200,
        default="25,18,15,12,10,8,6,4,2,1",
        help_text=_("Puntos del 1.º, 2.º, 3.º…, separados por comas."),
    )
    participation_points = models.PositiveSmallIntegerField(_("puntos por participar"), default=0)
    best_results = models.PositiveSmallIntegerField(
        _("resultados que cuentan"),
        null=True,
        blank=True,
        help_text=_("Los N mejores de cada jugador. Vacío: todos."),
    )
    planned_tournaments = models.PositiveSmallIntegerField(
        _("torneos previstos"), null=True, blank=True
    )
    tournaments = models.ManyToManyField(
        Tournament, blank=True, related_name="leagues", verbose_name=_("torneos")
    )
    created_at = models.DateTimeField(_("alta"), auto_now_add=True)
    history = HistoricalRecords(m2m_fields=[])

    class Meta:
        ordering = ["-season", "name"]
        verbose_name = _("liga")
        verbose_name_plural = _("ligas")

    def __str__(self) -> str:
        return f"{self.name} ({self.season})"


class Notice(models.Model):
    """One message sent to a player (``tournaments.notices``): a round's pairings
    (``PAIRINGS``, once per player and round, however often the round is published), the
    reminder the day before a tournament (``REMINDER``, once per player and tournament) or
    the question of a sign-up that names them as partner (``PARTNER``, once per player and
    tournament, however many requests name them).
    The unique constraints make "once" hold under concurrent workers."""

    class Kind(models.TextChoices):
        PAIRINGS = "pairings", _("emparejamientos")
        REMINDER = "reminder", _("recordatorio")
        PARTNER = "partner", _("confirmar compañero")

    kind = models.CharField(_("tipo"), max_length=10, choices=Kind)
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="notices", verbose_name=_("jugador")
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="notices", verbose_name=_("torneo")
    )
    round = models.ForeignKey(
        Round,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="notices",
        verbose_name=_("ronda"),
    )
    sent_at = models.DateTimeField(_("enviado el"), auto_now_add=True)

    class Meta:
        ordering = ["-sent_at", "-id"]
        verbose_name = _("aviso enviado")
        verbose_name_plural = _("avisos enviados")
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "player", "round"],
                condition=Q(round__isnull=False),
                name="notice_once_per_round",
            ),
            models.UniqueConstraint(
                fields=["kind", "player", "tournament"],
                condition=Q(round__isnull=True),
                name="notice_once_per_tournament",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.player} · {self.tournament.name}"
