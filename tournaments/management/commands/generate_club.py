"""``manage.py generate_club``: a large invented club, for benchmarks and load tests.

    manage.py generate_club --players 5000 --tournaments 1000 --seed 1
    manage.py generate_club --players 1100 --tournaments 0 --single-tournament-size 512 --rounds 9

N players (names made from syllable lists), T finished tournaments spread over the ``--days``
before ``--end`` (default: about two years up to today):

- dominó of every mode: fixed pairs, individual with rotating partners (tables of four, two
  single-player entries a side), mano a mano; 8 to 512 entries (mostly 8–64), 5 to 11 rounds,
  targets 100 and 200; some with a time limit (then a few games end by time), a few forfeits,
  castigos in about a third of them, byes for odd counts; most rated, a few friendly;
- a few Swiss match-play tournaments (best of 3) and table games of 3–4 players.

Results follow plausible distributions from hidden player strengths: the dominó winner reaches
the target (raw tallies may pass it), the loser 0 to target−1 skewed high, about 5 % zapatos;
games ended by time have both sides below the target. Every random choice comes from one
``random.Random(seed)`` and never from database ids, so a seed always gives the same club.

Speed over ceremony: rows are written with ``bulk_create`` in large batches, so no model
``save()``, no signals, **no django-simple-history rows** (this is generated data, nobody
typed it) and no per-game ledger replay; ``played_at`` is set explicitly (tournament date,
10:00 local, plus one hour per round). The ledger is rebuilt once at the end
(``rankings.ledger.rebuild()``), unless ``--skip-ledger``.

``--single-tournament-size N --rounds R`` adds one more tournament of exactly N entries and R
rounds (``--system``, ``--mode``, ``--target``, ``--slug``), dated ``--end``: the benchmark
tournaments (a 512-entry, 9-round dominó one; a 512-entry Swiss one).
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from clubsite import pagecache
from rankings import ledger
from tournaments import systems
from tournaments.errors import DomainError
from tournaments.management import synthetic
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    FinalPlace,
    Player,
    Round,
    Seat,
    Table,
    Tournament,
    name_key,
)
from tournaments.pairing.seating import seating_plan
from tournaments.systems.rules import ScoringSystem

BATCH = 5000
CHUNK = 60  # tournaments planned and written together

# --- names -------------------------------------------------------------------------------------

_ONSETS = [
    "",
    "b",
    "c",
    "d",
    "f",
    "g",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "cl",
    "gr",
    "tr",
    "ch",
    "ll",
    "j",
    "qu",
]
_VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "ia", "ue"]
_CODAS = ["", "", "", "n", "r", "l", "s"]
_MALE_ENDS = ["o", "io", "el", "an", "ardo", "ino", "ancio", "esto", "ián", "ón"]
_FEMALE_ENDS = ["a", "ia", "ela", "ina", "encia", "ita", "ía", "ana", "eda", "iz"]
_SURNAME_ENDS = [
    "ez",
    "eda",
    "ales",
    "ano",
    "ero",
    "uga",
    "arte",
    "illo",
    "ón",
    "aga",
    "ueta",
    "oza",
    "ado",
    "iega",
    "uén",
    "ibar",
    "orri",
    "ín",
]
_VENUES = [
    "Casino del Puerto",
    "Centro Social La Ceiba",
    "Club Náutico",
    "Salón Los Portales",
    "Casa de Cultura",
    "Ateneo del Barrio Alto",
    "Hotel Miramar",
    "Peña El Doble Seis",
]
_EVENTS = [
    "Torneo",
    "Abierto",
    "Copa",
    "Festival",
    "Campeonato",
    "Memorial",
    "Gran Premio",
    "Encuentro",
]
_THEMES = [
    "de Primavera",
    "de Verano",
    "de Otoño",
    "de Invierno",
    "de la Ceiba",
    "del Puerto",
    "de los Lunes",
    "Relámpago",
    "de Aniversario",
    "de la Amistad",
    "Navideño",
    "de Fin de Mes",
    "de Socios",
    "Interclubes",
    "de Veteranos",
    "Nocturno",
]
_CASTIGO_REASONS = [
    "Hablar durante la partida",
    "Mostrar fichas",
    "Llegar tarde a la mesa",
    "Señas al compañero",
    "Anotación incorrecta",
    "Levantar fichas antes de tiempo",
    "Conducta antideportiva",
]


def _syllables(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(n))


def _first_name(rng: random.Random) -> str:
    root = _syllables(rng, rng.choice((1, 1, 2)))
    end = rng.choice(_FEMALE_ENDS if rng.random() < 0.45 else _MALE_ENDS)
    if root[-1:] in "aeiou" and end[:1] in "aeiouáéíóú":
        root = root[:-1] or rng.choice(_ONSETS[1:])
    return (root + end).capitalize()


def _surname(rng: random.Random) -> str:
    root = _syllables(rng, rng.choice((1, 2, 2)))
    end = rng.choice(_SURNAME_ENDS)
    if root[-1:] in "aeiou" and end[:1] in "aeiouáéíóú":
        root = root[:-1] or "b"
    return (root + end).capitalize()


def invented_name(rng: random.Random) -> str:
    """A plausible Spanish-looking name from syllables, e.g. "Telardo Brizuega Monarte"."""
    parts = [_first_name(rng), _surname(rng)]
    if rng.random() < 0.6:
        parts.append(_surname(rng))
    return " ".join(parts)


# --- plans (plain data, indices only) ----------------------------------------------------------


@dataclass
class TablePlan:
    seats: list[tuple[int, str, int, int | None]]  # (entry index, side, position, victory_points)
    result: tuple  # drawn by the system's ``Synthetic.table``, read by its ``Synthetic.row``


@dataclass
class RoundPlan:
    number: int
    played_at: dt.datetime
    tables: list[TablePlan] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)


@dataclass
class TournamentPlan:
    fields: dict
    entries: list[tuple[int, int | None]]  # player indices
    rounds: list[RoundPlan] = field(default_factory=list)
    castigos: list[tuple[int, int, int, str]] = field(
        default_factory=list
    )  # (player, round, tantos, reason)
    drops: dict[int, int] = field(default_factory=dict)  # entry index -> dropped after round


@dataclass
class Counts:
    players: int = 0
    tournaments: dict = field(default_factory=dict)
    entries: int = 0
    rounds: int = 0
    tables: int = 0
    seats: int = 0
    byes: int = 0
    castigos: int = 0
    results: dict = field(default_factory=dict)  # system key -> Counter (``Synthetic.row``)

    @property
    def rated_games(self) -> int:
        return sum(tally["rated_games"] for tally in self.results.values())


# Entries per tournament: (low, high, weight); the mean gives about 100 rated games per
# tournament with the systems' mix of modes (``Synthetic.mix``).
SIZES = [(8, 16, 30), (17, 32, 32), (33, 64, 23), (65, 128, 10), (129, 256, 4), (257, 512, 1)]


def kinds() -> list[tuple[str, str, int]]:
    """(system key, mode, weight) of the random tournaments, from every registered system."""
    return [(s.key, mode, w) for s in systems.all_systems() for mode, w in synthetic.of(s).mix()]


def system_of(key: str) -> ScoringSystem:
    try:
        return systems.get(key)
    except systems.UnknownSystem:
        raise CommandError(f"Unknown system «{key}»: {', '.join(systems.keys())}.") from None


class Generator:
    """Plans and writes the club. ``rng`` drives every choice; nothing depends on database ids."""

    def __init__(self, *, seed: int, n_players: int, end: dt.date, days: int, stdout=None):
        self.rng = random.Random(seed)
        self.seed = seed
        self.n_players = n_players
        self.end = end
        self.days = days
        self.zone = ledger.local_zone()
        self.counts = Counts()
        self.player_ids: list[int] = []
        self.skill: list[float] = []
        self.weight: list[float] = []
        self.slugs: set[str] = set()

    # -- players ---------------------------------------------------------------------------------

    def make_players(self) -> None:
        rng = self.rng
        taken = {
            m.upper()
            for m in Player.objects.exclude(member_number=None).values_list(
                "member_number", flat=True
            )
        }
        objs = []
        for i in range(self.n_players):
            name = invented_name(rng)
            number = f"G{self.seed % 1000:03d}-{i + 1:05d}" if rng.random() < 0.7 else None
            if number and number.upper() in taken:
                number = None
            nickname = rng.choice(
                ["", "", "", "", "El Profe", "Chino", "Güero", "La Jefa", "Tito", "Nena"]
            )
            email = f"{slugify(name).replace('-', '.')}@example.org" if rng.random() < 0.5 else ""
            objs.append(
                Player(
                    full_name=name,
                    name_key=name_key(name),
                    nickname=nickname,
                    member_number=number,
                    email=email,
                    active=rng.random() > 0.03,
                )
            )
            # Hidden strength (Elo-like) and how often the player turns up (log-normal).
            self.skill.append(rng.gauss(1500, 110))
            self.weight.append(math.exp(rng.gauss(0, 0.7)))
        created = Player.objects.bulk_create(objs, batch_size=BATCH)
        self.player_ids = [p.pk for p in created]
        self.counts.players = len(created)

    def _choose_players(self, k: int) -> list[int]:
        """``k`` distinct player indices, more active players more often (weighted sampling
        without replacement: Efraimidis–Spirakis keys)."""
        rng = self.rng
        keys = ((rng.random() ** (1.0 / w), i) for i, w in enumerate(self.weight))
        chosen = [i for _, i in heapq.nlargest(k, keys)]
        rng.shuffle(chosen)
        return chosen

    # -- tournaments -----------------------------------------------------------------------------

    def _slug(self, name: str, date: dt.date) -> str:
        base = slugify(f"{name}-{date:%Y-%m-%d}")[:120]
        slug, n = base, 1
        while slug in self.slugs:
            n += 1
            slug = f"{base}-{n}"
        self.slugs.add(slug)
        return slug

    def random_tournament(self, date: dt.date) -> TournamentPlan:
        rng = self.rng
        mix = kinds()
        system, mode = rng.choices([(s, m) for s, m, _ in mix], [w for *_, w in mix])[0]
        low, high = rng.choices([(lo, hi) for lo, hi, _ in SIZES], [w for *_, w in SIZES])[0]
        size = rng.randint(low, high)
        per_entry = 2 if mode == "pairs" else 1
        size = max(8, min(size, self.n_players // per_entry))
        rounds = synthetic.of(system_of(system)).rounds(rng, size)
        return self.plan(system=system, mode=mode, size=size, rounds=rounds, date=date)

    def plan(
        self,
        *,
        system: str,
        mode: str,
        size: int,
        rounds: int,
        date: dt.date,
        target: int | None = None,
        slug: str | None = None,
        name: str | None = None,
    ) -> TournamentPlan:
        """The whole tournament as plain data: entries, pairings round by round from the running
        standings, results, byes, castigos."""
        rng = self.rng
        adapter = system_of(system)
        per_entry = 2 if mode == "pairs" else 1
        if size * per_entry > self.n_players:
            raise CommandError(
                f"{size} entries need {size * per_entry} players; there are {self.n_players}."
            )
        if mode not in adapter.modes:
            raise CommandError(
                f"{adapter.label} is played in the modes {', '.join(adapter.modes)} (--mode)."
            )
        grouping = synthetic.of(adapter).grouping(mode)
        try:
            if size < 2:
                raise DomainError("too_few_players")
            if grouping is not None:
                seating_plan(size, grouping)  # refuses too few for a table
        except DomainError:
            raise CommandError("Too few entries for that mode.") from None
        name = name or f"{rng.choice(_EVENTS)} {rng.choice(_THEMES)}"
        if target is None:
            target = 200 if rng.random() < 0.3 else 100
        time_limit = rng.choice([30, 40, 45, 60]) if rng.random() < 0.4 else None
        fields = dict(
            name=name,
            slug=slug or self._slug(name, date),
            date=date,
            venue=rng.choice(_VENUES),
            system=system,
            mode=mode,
            target=target,
            time_limit=time_limit,
            bye_rule="win" if rng.random() < 0.2 else "rest",
            rounds_planned=rounds,
            best_of=3,
            rated=synthetic.of(adapter).rated(rng),
            forfeits_rated=rng.random() < 0.1,
            status="finished",
        )
        if slug:
            self.slugs.add(slug)
        players = self._choose_players(size * per_entry)
        entries = [
            (players[2 * i], players[2 * i + 1]) if per_entry == 2 else (players[i], None)
            for i in range(size)
        ]
        tp = TournamentPlan(fields=fields, entries=entries)
        strength = [
            (self.skill[a] + self.skill[b]) / 2 if b is not None else self.skill[a]
            for a, b in entries
        ]
        tp.drops.update(synthetic.of(adapter).drops(rng, size, rounds))
        score = [0.0] * size  # puntos / match points / tournament points, for pairing
        byes = [0] * size
        met: list[set[int]] = [set() for _ in range(size)]
        start = dt.datetime.combine(date, dt.time(10, 0), tzinfo=self.zone)
        for number in range(1, rounds + 1):
            rp = RoundPlan(number=number, played_at=start + dt.timedelta(hours=number - 1))
            active = [e for e in range(size) if tp.drops.get(e, 99) >= number]
            if grouping is not None:
                self._seat_groups(rp, active, byes, adapter, grouping, strength, score, fields)
            else:
                self._pair(rp, active, byes, met, score, strength, adapter, fields)
            tp.rounds.append(rp)
            for e in rp.byes:
                byes[e] += 1
                score[e] += synthetic.of(adapter).bye_points(fields)
        castigo_rate = synthetic.of(adapter).castigo_rate()
        if castigo_rate and rng.random() < castigo_rate:
            for _ in range(rng.randint(1, 4)):
                a, b = rng.choice(entries)
                who = b if b is not None and rng.random() < 0.5 else a
                tp.castigos.append(
                    (
                        who,
                        rng.randint(1, rounds),
                        rng.choice([5, 10, 10, 15, 20, 25, 50]),
                        rng.choice(_CASTIGO_REASONS),
                    )
                )
        return tp

    def _pair(self, rp, active, byes, met, score, strength, adapter, fields):
        """Head to head (pairs, mano a mano, Swiss): round 1 at random, then down the standings,
        each entry with the next one it has not met (Swiss-style "rondas"); an odd count gives
        the lowest placed entry among those with the fewest byes a rest. The system draws each
        table's result (``Synthetic.table``)."""
        rng = self.rng
        if rp.number == 1:
            order = active[:]
            rng.shuffle(order)
        else:
            noise = {e: rng.random() for e in active}
            order = sorted(active, key=lambda e: (-score[e], noise[e]))
        if len(order) % 2:
            fewest = min(byes[e] for e in order)
            rest = next(e for e in reversed(order) if byes[e] == fewest)
            order.remove(rest)
            rp.byes.append(rest)
        pool = order
        while pool:
            a = pool[0]
            j = next((k for k in range(1, len(pool)) if pool[k] not in met[a]), 1)
            b = pool[j]
            pool = pool[1:j] + pool[j + 1 :]
            met[a].add(b)
            met[b].add(a)
            if rng.random() < 0.5:
                a, b = b, a
            self._table(rp, [a, b], strength, score, adapter, fields)

    def _seat_groups(self, rp, active, byes, adapter, grouping, strength, score, fields):
        """Tables of a ``seating_plan`` (``grouping``: "partners", individual dominó, partners
        rotating at random; "table", table games of 3–4): a fresh random seating each round;
        the rests go to those with the fewest byes."""
        rng = self.rng
        order = active[:]
        rng.shuffle(order)
        sizes, n_byes = seating_plan(len(order), grouping)
        if n_byes:
            order.sort(key=lambda e: byes[e])  # stable: random among equals
            rp.byes.extend(order[-n_byes:])
            order = order[:-n_byes]
        i = 0
        for size in sizes:
            self._table(rp, order[i : i + size], strength, score, adapter, fields)
            i += size

    def _table(self, rp, group, strength, score, adapter, fields):
        """One table of ``group`` (entry indices, in seat order): the system draws the result
        and the points each entry adds to its running score."""
        drawn = synthetic.of(adapter).table(self.rng, [strength[e] for e in group], fields)
        seats = [(group[k], side, pos, v) for k, side, pos, v in drawn.seats]
        for e, points in zip(group, drawn.points, strict=True):
            score[e] += points
        rp.tables.append(TablePlan(seats=seats, result=drawn.result))

    # -- writing ---------------------------------------------------------------------------------

    def write(self, plans: list[TournamentPlan]) -> list[Tournament]:
        """Write planned tournaments with one ``bulk_create`` per model (batched)."""
        c = self.counts
        pid = self.player_ids
        ts = Tournament.objects.bulk_create(
            [Tournament(**p.fields) for p in plans], batch_size=BATCH
        )
        entries = Entry.objects.bulk_create(
            [
                Entry(
                    tournament_id=t.pk,
                    player1_id=pid[a],
                    player2_id=pid[b] if b is not None else None,
                    dropped_after_round=p.drops.get(i),
                )
                for t, p in zip(ts, plans, strict=False)
                for i, (a, b) in enumerate(p.entries)
            ],
            batch_size=BATCH,
        )
        rounds = Round.objects.bulk_create(
            [
                Round(tournament_id=t.pk, number=r.number, closed=True, played_at=r.played_at)
                for t, p in zip(ts, plans, strict=False)
                for r in p.rounds
            ],
            batch_size=BATCH,
        )
        tables = Table.objects.bulk_create(
            [
                Table(round_id=rnd.pk, number=n, version=1)
                for rnd, rp in zip(rounds, (r for p in plans for r in p.rounds), strict=False)
                for n in range(1, len(rp.tables) + 1)
            ],
            batch_size=BATCH,
        )
        seats, byes, castigos = [], [], []
        results: dict = {}  # result model -> rows (two systems may share a model)
        e_off = r_off = tb_off = 0
        for t, p in zip(ts, plans, strict=False):
            entry_id = [e.pk for e in entries[e_off : e_off + len(p.entries)]]
            e_off += len(p.entries)
            round_id = {}
            system = p.fields["system"]
            adapter = system_of(system)
            rows = results.setdefault(adapter.result_model, [])
            tally = c.results.setdefault(system, Counter())
            c.tournaments[(system, p.fields["mode"])] = (
                c.tournaments.get((system, p.fields["mode"]), 0) + 1
            )
            for rp in p.rounds:
                rnd = rounds[r_off]
                r_off += 1
                round_id[rp.number] = rnd.pk
                byes += [Bye(round_id=rnd.pk, entry_id=entry_id[e]) for e in rp.byes]
                for tplan in rp.tables:
                    table = tables[tb_off]
                    tb_off += 1
                    seats += [
                        Seat(
                            table_id=table.pk,
                            round_id=rnd.pk,
                            entry_id=entry_id[e],
                            side=side,
                            position=pos,
                            victory_points=victory_points,
                        )
                        for e, side, pos, victory_points in tplan.seats
                    ]
                    rows.append(
                        synthetic.of(adapter).row(
                            table.pk,
                            tplan.result,
                            played_at=rp.played_at,
                            settings=p.fields,
                            tally=tally,
                        )
                    )
            castigos += [
                Castigo(
                    tournament_id=t.pk,
                    round_id=round_id[r],
                    player_id=pid[who],
                    tantos=tantos,
                    reason=reason,
                )
                for who, r, tantos, reason in p.castigos
            ]
        for model, objs in ((Seat, seats), *results.items(), (Bye, byes), (Castigo, castigos)):
            model.objects.bulk_create(objs, batch_size=BATCH)
        c.entries += len(entries)
        c.rounds += len(rounds)
        c.tables += len(tables)
        c.seats += len(seats)
        c.byes += len(byes)
        c.castigos += len(castigos)
        return ts


def generate(
    *,
    players: int,
    tournaments: int,
    seed: int,
    end: dt.date | None = None,
    days: int = 730,
    single_size: int | None = None,
    single_rounds: int = 9,
    single_system: str = "domino",
    single_mode: str = "pairs",
    single_target: int = 100,
    single_slug: str | None = None,
    rebuild: bool = True,
    stdout=None,
) -> dict:
    """Generate a club (see the module docstring); returns a summary dict with the counts, the
    single tournament's slug (if any) and the seconds taken. One transaction for the data; the
    ledger rebuild is its own."""
    end = end or timezone.localdate()
    gen = Generator(seed=seed, n_players=players, end=end, days=days)
    t0 = time.perf_counter()
    gen.slugs = set(Tournament.objects.values_list("slug", flat=True))
    rng = gen.rng
    dates = []
    for _ in range(tournaments):
        d = end - dt.timedelta(days=rng.randrange(max(1, days)))
        if d.weekday() < 5 and rng.random() < 0.6:  # mostly weekends
            d += dt.timedelta(days=5 - d.weekday())
            if d > end:
                d -= dt.timedelta(days=7)
        dates.append(d)
    dates.sort()
    single = None
    with transaction.atomic():
        pagecache.changed()  # bulk inserts send no signal
        gen.make_players()
        for start in range(0, tournaments, CHUNK):
            plans = [gen.random_tournament(d) for d in dates[start : start + CHUNK]]
            gen.write(plans)
            if stdout is not None:
                stdout.write(
                    f"  {min(start + CHUNK, tournaments)}/{tournaments} torneos "
                    f"({time.perf_counter() - t0:.1f} s)"
                )
        if single_size:
            plan = gen.plan(
                system=single_system,
                mode=single_mode,
                size=single_size,
                rounds=single_rounds,
                date=end,
                target=single_target,
                slug=single_slug,
                name=f"Gran Abierto {single_size} ({single_system}, {single_mode})",
            )
            single = gen.write([plan])[0].slug
        FinalPlace.objects.store_all(missing_only=True)  # bulk inserts send no signal
    data_seconds = time.perf_counter() - t0
    report = None
    t1 = time.perf_counter()
    if rebuild:
        report = ledger.rebuild()
    ledger_seconds = time.perf_counter() - t1
    return {
        "counts": gen.counts,
        "single_slug": single,
        "data_seconds": data_seconds,
        "ledger_seconds": ledger_seconds,
        "ledger_rows": report.written if report else None,
    }


class Command(BaseCommand):
    help = (
        "Generate an invented club for benchmarks: N players, T finished tournaments over about two "
        "years (dominó pairs / individual / mano a mano, a few Swiss and table games), plausible "
        "results, deterministic for a --seed. Written with bulk_create: NO history rows "
        "(generated data), no signals; the ranking ledger is rebuilt once at the end. "
        "--single-tournament-size N --rounds R adds one tournament of exactly that size."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--players", type=int, default=5000, help="players to create (default 5000)"
        )
        parser.add_argument(
            "--tournaments", type=int, default=1000, help="random tournaments (default 1000)"
        )
        parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        parser.add_argument(
            "--end",
            type=dt.date.fromisoformat,
            default=None,
            help="date of the last tournament, YYYY-MM-DD (default today)",
        )
        parser.add_argument(
            "--days", type=int, default=730, help="span of the tournament dates (default 730)"
        )
        parser.add_argument(
            "--single-tournament-size",
            type=int,
            default=None,
            help="also make one tournament with exactly this many entries, dated --end",
        )
        parser.add_argument(
            "--rounds", type=int, default=9, help="rounds of that tournament (default 9)"
        )
        parser.add_argument("--system", choices=systems.keys(), default="domino")
        parser.add_argument(
            "--mode",
            choices=list(dict.fromkeys(m for s in systems.all_systems() for m in s.modes)),
            default=None,
            help="default: the system's first mode (pairs for dominó, single otherwise)",
        )
        parser.add_argument("--target", type=int, choices=[100, 200], default=100)
        parser.add_argument("--slug", default=None, help="slug of that tournament")
        parser.add_argument("--skip-ledger", action="store_true", help="do not rebuild the ledger")

    def handle(self, *args, **o):
        if o["players"] < 8 and (o["tournaments"] or o["single_tournament_size"]):
            raise CommandError("At least 8 players are needed.")
        if o["tournaments"] < 0 or o["days"] < 1:
            raise CommandError("--tournaments ≥ 0 and --days ≥ 1.")
        if o["slug"] and Tournament.objects.filter(slug=o["slug"]).exists():
            raise CommandError(f"A tournament «{o['slug']}» already exists.")
        mode = o["mode"] or system_of(o["system"]).modes[0]
        t0 = time.perf_counter()
        out = generate(
            players=o["players"],
            tournaments=o["tournaments"],
            seed=o["seed"],
            end=o["end"],
            days=o["days"],
            single_size=o["single_tournament_size"],
            single_rounds=o["rounds"],
            single_system=o["system"],
            single_mode=mode,
            single_target=o["target"],
            single_slug=o["slug"],
            rebuild=not o["skip_ledger"],
            stdout=self.stdout if o["verbosity"] > 1 else None,
        )
        if o["verbosity"] < 1:
            return
        c = out["counts"]
        kinds = ", ".join(f"{s}/{m}: {n}" for (s, m), n in sorted(c.tournaments.items()))
        w = self.stdout.write
        w(f"Jugadores: {c.players}")
        w(f"Torneos: {sum(c.tournaments.values())} ({kinds})")
        w(
            f"Inscripciones: {c.entries}; rondas: {c.rounds}; mesas: {c.tables}; asientos: {c.seats}; "
            f"descansos: {c.byes}; castigos: {c.castigos}"
        )
        w(
            "; ".join(
                synthetic.of(s).summary(c.results.get(s.key, Counter()))
                for s in systems.all_systems()
            )
        )
        w(f"Partidas puntuables: {c.rated_games}")
        if out["single_slug"]:
            w(f"Torneo único: {out['single_slug']}")
        w(f"Datos escritos en {out['data_seconds']:.1f} s (sin historial: datos generados).")
        if out["ledger_rows"] is not None:
            w(f"Ranking reconstruido: {out['ledger_rows']} filas en {out['ledger_seconds']:.1f} s.")
        w(f"Total: {time.perf_counter() - t0:.1f} s.")
