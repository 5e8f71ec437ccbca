"""``manage.py load_demo``: a demo club with two dominó tournaments and two accounts.

Dated relative to the day it is loaded (``_dates``), so the demo never ages: the pairs
tournament finished three weeks before, the Swiss event started a week before and runs a
week more, the individual tournament and the table-game evening run today; the current
year's ranking therefore always holds today's games.

- "Copa de Parejas": pairs to 100, 16 pairs, 5 rounds (circle-method rotation, no repeated
  pairing), rated, time limit 30 min, finished. Its results contain zapatos, games ended by time,
  exactly one forfeit (``services.record_result(forfeiting_side=...)``) and a few castigos; and
  two pairs end level on puntos, juegos ganados, efectividad and tantos a favor, separated by
  their head-to-head diferencial (SCORING.md §1, Standings step 5). The results of every pair
  except those two are drawn with a seeded ``random.Random``; the seed is the first one whose
  simulated standings (the pure ``scoring.domino.standings``) give exactly that tie and no
  shared position. The command checks the stored standings at the end and fails if not.
- "Individual del Club": individual with rotating partners, to 200, 16 players, tables of
  four (two single-player entries a side); round 1 complete and closed, round 2 paired with two
  of its four results entered; running.
- ``director`` / ``domino-demo``: staff user in the "Directores" group; every write is made
  through ``tournaments.services`` with it as the acting user, so history is recorded.
- ``admin`` / ``admin-demo``: superuser.

Idempotent: when "Copa de Parejas" exists it prints "La demo ya está cargada." and stops.
"""

from __future__ import annotations

import datetime as dt
import random

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from rankings import ledger
from tournaments import services
from tournaments.models import League, Tournament
from tournaments.pairing.round_robin import round_robin
from tournaments.permissions import DIRECTORS_GROUP
from tournaments.scoring import domino

PAIRS_NAME = "Copa de Parejas"
INDIVIDUAL_NAME = "Individual del Club"
SWISS_NAME = "Suizo a dos semanas"
TABLE_NAME = "Noche de juegos de mesa"
SIGNUP_NAME = "Copa de Primavera"
LEAGUE_NAME = "Liga del Club"
DIRECTOR = ("director", "domino-demo")
SUPERUSER = ("admin", "admin-demo")

# Invented people; a few names show that names are kept exactly as typed.
PLAYERS = [
    # (full name, nickname, member number)
    ("Aurelio Baeza", "El Profe", "S-001"),
    ("Remedios Quintanar", "", "S-002"),
    ("Celestino Ugarte", "", "S-003"),
    ("Maribel Oyarzún", "Mari", "S-004"),
    ("Teodoro Villaseñor", "", "S-005"),
    ("Guadalupe Estrada Lizcano", "Lupita", "S-006"),
    ("Ezequiel Montalvo", "", "S-007"),
    ("Rosalía Ferrán", "", "S-008"),
    ("Baltasar Iturbe", "", "S-009"),
    ("Consuelo Arredondo", "", "S-010"),
    ("Fermín Zabaleta", "", "S-011"),
    ("Inmaculada Roldán", "Inma", "S-012"),
    ("Leopoldo Carvajal", "", "S-013"),
    ("Dolores «Lola» Echeverri", "", "S-014"),
    ("Nicanor Bustamante", "", "S-015"),
    ("Araceli Peñalosa", "", "S-016"),
    ("Octavio Larrañaga", "", "S-017"),
    ("Pilar Sandoval Ibarra", "", "S-018"),
    ("Дмитрий Вершинин", "Dima", ""),
    ("Marisol Urquidi", "", "S-020"),
    ("Hermenegildo Paz", "Don Herme", "S-021"),
    ("Yolanda Cárdenas", "", "S-022"),
    ("Isidro Maldonado", "", "S-023"),
    ("Σταύρος Μαυρίδης", "", ""),
    ("Florencio Gaitán", "", "S-025"),
    ("Nieves Olabarría", "", "S-026"),
    ("Chucho+1 Robles", "", ""),
    ("Itziar Goñi", "", "S-028"),
    ("王秀兰", "", ""),
    ("Ramiro Covarrubias", "", "S-030"),
    ("Begoña Altamirano", "", "S-031"),
    ("J.+M. Ortiz", "", ""),
    # Only in the individual tournament
    ("Zoë Ní Bhriain-Núñez", "", ""),
    ("Saúl D'Alessandro", "", "S-034"),
    ("Åsa Lindqvist-Peña", "", ""),
    ("Ñoño Müller", "", "S-036"),
    ("Tomasa O'Keeffe Ruiz", "", "S-037"),
    ("Eusebio Cienfuegos", "", "S-038"),
]

N_PAIRS = 16
N_ROUNDS = 5
TARGET = 100
# The two pairs that end level (pair indices): they meet at table 1 of round 1, where the first
# beats the second 100–70; their other games are fixed so that both finish with 4 puntos,
# 3 juegos ganados, 385 a favor, 390 en contra (efectividad −5): only the diferencial
# (+30 / −30) separates them.
TIE_HIGH, TIE_LOW = 0, 15
TIE_GAMES = {  # round index → (own tantos, opponent's tantos, ended by time)
    TIE_HIGH: {
        0: (100, 70, False),
        1: (100, 40, False),
        2: (55, 100, False),
        3: (100, 80, False),
        4: (30, 100, False),
    },
    TIE_LOW: {
        0: (70, 100, False),
        1: (100, 45, False),
        2: (100, 70, False),
        3: (85, 75, True),
        4: (30, 100, False),
    },
}
FORFEIT_ROUND = 2  # round index (round 3); the first table without the tied pairs; side B no-show
# (pair index, 0/1 = first/second player, round index, tantos, reason)
CASTIGOS = [
    (3, 1, 1, 10, "Hablar durante la partida"),
    (6, 0, 3, 25, "Mostrar fichas"),
    (10, 1, 4, 15, "Llegar tarde a la mesa"),
]


def _random_result(rng: random.Random) -> tuple[int, int, bool]:
    """(winner's tantos, loser's tantos, ended by time) of an invented valid game to 100."""
    k = rng.random()
    if k < 0.12:  # zapato; the sheet may show the winner past 100
        return rng.choice([100, 100, 104, 112, 121]), 0, False
    if k < 0.32:  # time ran out: both below 100
        winner = rng.randint(45, 99)
        return winner, rng.randint(max(0, winner - 55), winner - 1), True
    return rng.choice([100, 100, 100, *range(101, 130)]), rng.randint(1, 99), False


def plan_pairs_tournament(seed: int) -> list[list[tuple[int, int, int, int, bool, bool]]]:
    """Every game of the pairs tournament: per round, (pair A, pair B, tantos A, tantos B,
    ended by time, forfeit) with pair indices 0..15. Pure: depends only on ``seed``."""
    rng = random.Random(seed)
    schedule = round_robin(list(range(N_PAIRS)))[:N_ROUNDS]
    assert set(schedule[0][0]) == {TIE_HIGH, TIE_LOW}
    rounds = []
    for r, pairs in enumerate(schedule):
        games = []
        forfeit_done = False
        for a, b in pairs:
            forfeit = by_time = False
            if a in TIE_GAMES:
                ta, tb, by_time = TIE_GAMES[a][r]
            elif b in TIE_GAMES:
                tb, ta, by_time = TIE_GAMES[b][r]
            elif r == FORFEIT_ROUND and not forfeit_done:
                ta, tb, forfeit, forfeit_done = TARGET, 0, True, True
            else:
                winner, loser, by_time = _random_result(rng)
                ta, tb = (winner, loser) if rng.random() < 0.5 else (loser, winner)
            games.append((a, b, ta, tb, by_time, forfeit))
        rounds.append(games)
    return rounds


def _simulate(rounds) -> list:
    games = [
        domino.Game(side_a=(a,), side_b=(b,), tantos_a=ta, tantos_b=tb, ended_by_time=bt)
        for games in rounds
        for a, b, ta, tb, bt, _f in games
    ]
    castigos: dict[int, int] = {}
    for pair, _who, _r, tantos, _reason in CASTIGOS:
        castigos[pair] = castigos.get(pair, 0) + tantos
    return domino.standings(list(range(N_PAIRS)), games, target=TARGET, castigos=castigos)


def _plan_is_good(rounds) -> bool:
    rows = _simulate(rounds)
    by_entry = {row.entry_id: row for row in rows}
    high, low = by_entry[TIE_HIGH], by_entry[TIE_LOW]
    if high.decided_by != "diferencial" or low.decided_by != "diferencial":
        return False
    if low.position != high.position + 1 or any(row.shared for row in rows):
        return False
    # nobody else level with the two on every figure before the diferencial
    key = ("puntos", "won", "efectividad", "tantos_a_favor")
    level = [r for r in rows if all(r.figures[k] == high.figures[k] for k in key)]
    games = [g for rnd in rounds for g in rnd]
    zapatos = sum(1 for g in games if not g[4] and not g[5] and min(g[2], g[3]) == 0)
    by_time = sum(1 for g in games if g[4])
    return len(level) == 2 and zapatos >= 2 and by_time >= 3


def find_plan() -> tuple[int, list]:
    for seed in range(1, 500):
        rounds = plan_pairs_tournament(seed)
        if _plan_is_good(rounds):
            return seed, rounds
    raise CommandError(
        "No se encontró una combinación de resultados con el desempate por diferencial."
    )


class Command(BaseCommand):
    help = (
        "Carga un club de demostración: un torneo por parejas terminado, uno individual en curso, "
        "un suizo y una noche de juegos de mesa en curso, y dos cuentas."
    )

    def handle(self, *args, **options):
        if Tournament.objects.filter(name=PAIRS_NAME).exists():
            self.stdout.write("La demo ya está cargada.")
            return
        with transaction.atomic():
            director = self._accounts()
            players = [
                services.create_player(
                    acting_user=director,
                    full_name=name,
                    nickname=nick,
                    member_number=number or None,
                )
                for name, nick, number in PLAYERS
            ]
            dates = self._dates(timezone.localdate())
            pairs_t, tie = self._pairs_tournament(director, players, dates["pairs"])
            individual_t = self._individual_tournament(director, players, dates["individual"])
            swiss_t = self._swiss_tournament(director, players, *dates["swiss"])
            table_t = self._table_tournament(director, players, dates["table"])
            signup_t = self._signup_tournament(director, players, dates["signup"])
            league = self._league(director, [pairs_t, individual_t, signup_t])
        # The ranking at once: the demo's replay requests, taken here rather than left to the
        # background worker (which then finds nothing to do).

        ledger.replay_from(None, requests=True)
        self.stdout.write(self.style.SUCCESS("Demo cargada."))
        self.stdout.write(f"  {pairs_t.name}: terminado, {N_PAIRS} parejas, {N_ROUNDS} rondas.")
        self.stdout.write(
            f"    Empate resuelto por diferencial: {tie[0].name} por delante de {tie[1].name}."
        )
        self.stdout.write(f"  {individual_t.name}: en curso, meta {individual_t.target}.")
        self.stdout.write(f"  {swiss_t.name}: suizo al mejor de {swiss_t.best_of}, en curso.")
        self.stdout.write(
            f"  {table_t.name}: juegos de mesa de 3–4 jugadores, en curso; código del día "
            f"{table_t.check_in_code}."
        )
        self.stdout.write(
            f"  {signup_t.name}: inscripción abierta en /torneos/{signup_t.slug}/inscribirse/."
        )
        self.stdout.write(
            f"  {league.name}: {league.tournaments.count()} torneos de dominó, en /ligas/{league.slug}/."
        )
        self.stdout.write(
            f"  Director: {DIRECTOR[0]} / {DIRECTOR[1]}   "
            f"Superusuario: {SUPERUSER[0]} / {SUPERUSER[1]}"
        )

    @staticmethod
    def _league(director, tournaments) -> League:
        """ "Liga del Club" of the finished pairs tournament's season: the demo's dominó
        tournaments of that year (a finished one, one running, one taking sign-ups), four
        planned, so a player opens a league with places, provisional points and tournaments
        still to come."""
        season = tournaments[0].date.year
        return services.create_league(
            acting_user=director,
            name=LEAGUE_NAME,
            season=season,
            description="La liga de la temporada: cuentan los torneos de dominó del club.",
            planned_tournaments=4,
            tournaments=[t for t in tournaments if t.date.year == season],
        )

    @staticmethod
    def _dates(today: dt.date) -> dict:
        """The demo's dates, relative to ``today`` (the club's local date when it is loaded):
        ``{"pairs": date, "individual": date, "swiss": (date, end_date), "table": date}``.
        The pairs tournament finished 21 days before, the Swiss event runs from 7 days before
        to 7 days after, the individual tournament and the table-game evening are today (so the
        current year's ranking holds today's rated games, whatever the day); the next
        tournament, open for sign-up, is two weeks ahead (``"signup"``)."""
        week = dt.timedelta(days=7)
        return {
            "pairs": today - 3 * week,
            "individual": today,
            "swiss": (today - week, today + week),
            "table": today,
            "signup": today + 2 * week,
        }

    def _accounts(self):
        User = get_user_model()
        group, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)
        director = User.objects.filter(username=DIRECTOR[0]).first()
        if director is None:
            director = User.objects.create_user(DIRECTOR[0], password=DIRECTOR[1], is_staff=True)
        else:
            self.stdout.write(f"El usuario «{DIRECTOR[0]}» ya existía: no se cambia su contraseña.")
            if not director.is_staff:
                director.is_staff = True
                director.save(update_fields=["is_staff"])
        director.groups.add(group)
        if not User.objects.filter(username=SUPERUSER[0]).exists():
            User.objects.create_superuser(SUPERUSER[0], email="", password=SUPERUSER[1])
        else:
            self.stdout.write(f"El usuario «{SUPERUSER[0]}» ya existía: no se cambia.")
        return director

    def _pairs_tournament(self, director, players, date):
        seed, plan = find_plan()
        t = services.create_tournament(
            acting_user=director,
            name=PAIRS_NAME,
            date=date,
            venue="Casa del Pueblo, salón 2",
            system="domino",
            mode="pairs",
            target=TARGET,
            time_limit=30,
            bye_rule="rest",
            rounds_planned=N_ROUNDS,
            rated=True,
            status="registration",
        )
        entries = [
            services.register_entry(
                acting_user=director, tournament=t, players=players[2 * i : 2 * i + 2]
            )
            for i in range(N_PAIRS)
        ]
        for r, games in enumerate(plan):
            rnd = services.set_pairings(
                acting_user=director,
                tournament=t,
                round_number=r + 1,
                tables=[([entries[a]], [entries[b]]) for a, b, *_ in games],
            )
            tables = list(rnd.tables.order_by("number"))
            for table, (_a, _b, ta, tb, by_time, forfeit) in zip(tables, games, strict=True):
                if forfeit:
                    services.record_result(
                        acting_user=director,
                        table=table,
                        tantos_a=None,
                        tantos_b=None,
                        forfeiting_side="B",
                        version=table.version,
                    )
                else:
                    services.record_result(
                        acting_user=director,
                        table=table,
                        tantos_a=ta,
                        tantos_b=tb,
                        ended_by_time=by_time,
                        version=table.version,
                    )
            for pair, who, castigo_round, tantos, reason in CASTIGOS:
                if castigo_round == r:
                    services.add_castigo(
                        acting_user=director,
                        tournament=t,
                        player=players[2 * pair + who],
                        tantos=tantos,
                        reason=reason,
                        round=rnd,
                    )
            services.close_round(acting_user=director, round=rnd)
        t = services.update_tournament(acting_user=director, tournament=t, status="finished")

        # The promise of the demo, checked on the stored data (fails loudly, nothing is kept).
        lines = {line.entry.pk: line for line in t.standings()}
        high, low = lines[entries[TIE_HIGH].pk], lines[entries[TIE_LOW].pk]
        if not (
            high.row.decided_by == "diferencial" == low.row.decided_by
            and low.row.position == high.row.position + 1
        ):
            raise CommandError(
                f"La demo no quedó como se esperaba (semilla {seed}): el empate de "
                f"{high.entry.name} y {low.entry.name} no se decide por diferencial."
            )
        return t, (high.entry, low.entry)

    def _individual_tournament(self, director, players, date):
        t = services.create_tournament(
            acting_user=director,
            name=INDIVIDUAL_NAME,
            date=date,
            venue="Club de dominó, sala grande",
            system="domino",
            mode="individual",
            target=200,
            time_limit=45,
            bye_rule="rest",
            rounds_planned=4,
            rated=True,
            status="registration",
        )
        # Six players of its own and ten who also played the autumn tournament.
        chosen = players[32:38] + players[0:20:2]
        entries = [
            services.register_entry(acting_user=director, tournament=t, players=[p]) for p in chosen
        ]
        # Round 1: tables of consecutive players; round 2: every player meets three new people.
        round1 = [
            ([entries[4 * k], entries[4 * k + 1]], [entries[4 * k + 2], entries[4 * k + 3]])
            for k in range(4)
        ]
        round2 = [
            ([entries[k], entries[k + 8]], [entries[k + 4], entries[k + 12]]) for k in range(4)
        ]
        results1 = [(200, 135, False), (0, 212, False), (150, 172, True), (200, 101, False)]
        results2 = [(88, 200, False), (205, 190, False)]  # tables 3 and 4 still playing
        for number, tables, results in ((1, round1, results1), (2, round2, results2)):
            rnd = services.set_pairings(
                acting_user=director, tournament=t, round_number=number, tables=tables
            )
            for table, (ta, tb, by_time) in zip(
                rnd.tables.order_by("number"), results, strict=False
            ):
                services.record_result(
                    acting_user=director,
                    table=table,
                    tantos_a=ta,
                    tantos_b=tb,
                    ended_by_time=by_time,
                    version=table.version,
                )
            if number == 1:
                services.add_castigo(
                    acting_user=director,
                    tournament=t,
                    player=chosen[5],
                    tantos=20,
                    reason="Anotar mal en la plantilla",
                    round=rnd,
                )
                services.close_round(acting_user=director, round=rnd)
        t.refresh_from_db()
        if t.status != Tournament.Status.RUNNING:
            t = services.update_tournament(acting_user=director, tournament=t, status="running")
        return t

    def _swiss_tournament(self, director, players, date, end_date):
        """A Swiss match-play event of eight players over two weeks, best of 3: round 1
        played, round 2 paired with one match still on."""
        t = services.create_tournament(
            acting_user=director,
            name=SWISS_NAME,
            date=date,
            end_date=end_date,
            venue="Club de dominó, sala pequeña",
            system="swiss",
            mode="single",
            best_of=3,
            rounds_planned=3,
            status="registration",
        )
        entries = [
            services.register_entry(acting_user=director, tournament=t, players=[p])
            for p in players[1:17:2]
        ]
        round1 = [([entries[k]], [entries[k + 4]]) for k in range(4)]
        results1 = [(2, 1, 0), (0, 2, 0), (2, 0, 0), (1, 1, 1)]
        rnd = services.set_pairings(
            acting_user=director, tournament=t, round_number=1, tables=round1
        )
        for table, (a, b, d) in zip(rnd.tables.order_by("number"), results1, strict=True):
            services.record_result(
                acting_user=director,
                table=table,
                version=table.version,
                games_a=a,
                games_b=b,
                games_drawn=d,
            )
        services.close_round(acting_user=director, round=rnd)
        pairing, _ = t.propose_pairings(2, seed=7)
        by_id = {e.pk: e for e in entries}
        rnd = services.set_pairings(
            acting_user=director,
            tournament=t,
            round_number=2,
            seed=7,
            tables=[([by_id[a]], [by_id[b]]) for a, b in pairing.tables],
        )
        three_played = [(2, 0), (1, 2), (2, 1)]  # table 4 still playing
        for table, (a, b) in zip(rnd.tables.order_by("number")[:3], three_played, strict=True):
            services.record_result(
                acting_user=director, table=table, version=table.version, games_a=a, games_b=b
            )
        return Tournament.objects.get(pk=t.pk)

    def _table_tournament(self, director, players, date):
        """A table-game evening of seven players (a table of 4 and one of 3): round 1 played."""
        t = services.create_tournament(
            acting_user=director,
            name=TABLE_NAME,
            date=date,
            venue="Club de dominó, sala de juegos",
            system="table",
            time_limit=90,
            rounds_planned=3,
            status="registration",
        )
        entries = [
            services.register_entry(acting_user=director, tournament=t, players=[p])
            for p in players[20:27]
        ]
        rnd = services.set_seating(
            acting_user=director, tournament=t, round_number=1, tables=[entries[:4], entries[4:]]
        )
        scores = [(10, 8, 7, 5), (9, 9, 6)]
        for table, vps in zip(rnd.tables.order_by("number"), scores, strict=True):
            seated = list(table.seats.order_by("position"))
            services.record_result(
                acting_user=director,
                table=table,
                version=table.version,
                scores={s.entry_id: vp for s, vp in zip(seated, vps, strict=True)},
            )
        services.close_round(acting_user=director, round=rnd)
        services.new_check_in_code(acting_user=director, tournament=t)  # players check in
        return Tournament.objects.get(pk=t.pk)

    def _signup_tournament(self, director, players, date):
        """The next pairs tournament, open for sign-up on the web: at most 12 pairs, three
        already in (club members recognised by their member number, each partner having said
        yes to the request that names them)."""
        t = services.create_tournament(
            acting_user=director,
            name=SIGNUP_NAME,
            date=date,
            venue="Club de dominó, salón principal",
            system="domino",
            mode="pairs",
            target=100,
            time_limit=30,
            status="registration",
        )
        services.update_signup_settings(
            acting_user=director,
            tournament=t,
            signup_open=True,
            max_entries=12,
            signup_closes_at=None,
            signup_needs_approval=False,
        )
        members = [p for p in players if p.member_number][:6]
        for first, second in zip(members[::2], members[1::2], strict=True):
            asked = services.sign_up(
                tournament=t,
                name=first.full_name,
                member_number=first.member_number,
                partner_name=second.full_name,
            )
            services.answer_partner(acting_user=None, signup=asked, player=second, confirm=True)
        return Tournament.objects.get(pk=t.pk)
