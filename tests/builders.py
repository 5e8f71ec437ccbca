"""Builders of the tests' data: directors, tournaments, players, entries, rounds and results,
made through the project's services (``tournaments.services``), as a director or a script
would make them, never by writing rows.

Plain functions with keyword arguments. ``acting_user`` is who makes the change (None: a
script, as the services take it). Each builder passes on only what it is given, so the model's
and the services' defaults apply to the rest, and it creates its rows in the order its
arguments list them: tests assert ids, query counts and the order of rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence

from django.contrib.auth.models import Group, User
from django.utils import timezone

from tournaments import services
from tournaments.models import Entry, Player, Round, Table, Tournament
from tournaments.permissions import DIRECTORS_GROUP

#: Invented players' names: the players of ``running_tournament``.
NAMES = [
    "Anacleta Alba",
    "Bonifacio Borja",
    "Casilda Cerda",
    "Dimas Duarte",
    "Edelmira Elizondo",
    "Fortunato Frías",
    "Gertrudis Galván",
    "Hipólito Hurtado",
    "Inocencia Ibarra",
    "Jacinto Jaramillo",
    "Leocadia Lucio",
    "Melquiades Mora",
    "Nemesia Nieto",
    "Onésimo Ocaña",
    "Petronila Peralta",
    "Quintín Quezada",
]

#: A rated, running dominó tournament of pairs to 100 (``tournament``'s ``base``; the ledger's
#: tests).
RATED = {"system": "domino", "mode": "pairs", "target": 100, "rated": True, "status": "running"}

#: The settings of a league's tournaments in ``winter_league``: an unrated mano a mano to 100,
#: running.
LEAGUE_CUP = {"mode": "single", "target": 100, "rated": False, "status": "running"}


# --- people ------------------------------------------------------------------------------------


def director(username: str = "directora", *, password: str = "clave-de-prueba-1") -> User:
    """A staff user in the "Directores" group (the ``director`` fixture's user by default)."""
    user = User.objects.create_user(username, password=password, is_staff=True)
    user.groups.add(Group.objects.get_or_create(name=DIRECTORS_GROUP)[0])
    return user


def player(name: str, *, acting_user=None, **fields) -> Player:
    """``services.create_player`` named ``name`` with ``fields`` (``email``, ``nickname``,
    ``notices_consent`` ...)."""
    return services.create_player(acting_user=acting_user, full_name=name, **fields)


def players(names: Iterable[str], *, acting_user=None) -> list[Player]:
    """A player for each of ``names``, in that order (``services.create_player``)."""
    return [player(name, acting_user=acting_user) for name in names]


# --- tournaments and entries -------------------------------------------------------------------


def tournament(base: Mapping | None = None, /, *, acting_user=None, **settings) -> Tournament:
    """``services.create_tournament`` with the settings of ``base`` (a module's usual ones, a
    dict) updated by ``settings``: ``name`` and ``date`` are needed, a setting given by neither
    has the model's and the scoring system's default."""
    return services.create_tournament(acting_user=acting_user, **{**(base or {}), **settings})


def entry_size(t: Tournament) -> int:
    """Players in one entry of ``t``: two in a pairs tournament, one otherwise."""
    return 2 if t.mode == Tournament.Mode.PAIRS else 1


def entries(
    t: Tournament, players: Sequence[Player], *, n: int | None = None, acting_user=None
) -> list[Entry]:
    """Register ``players`` in order, two by two in a pairs tournament (one by one otherwise):
    ``n`` entries of the first ones, or all of them."""
    size = entry_size(t)
    count = len(players) // size if n is None else n
    return [
        services.register_entry(
            acting_user=acting_user, tournament=t, players=players[i * size : (i + 1) * size]
        )
        for i in range(count)
    ]


def new_entries(
    t: Tournament, names: Iterable[str], *, n: int | None = None, acting_user=None
) -> list[Entry]:
    """A player for each of ``names`` first, then the entries of ``entries``."""
    return entries(t, players(names, acting_user=acting_user), n=n, acting_user=acting_user)


def entry(t: Tournament, players: Sequence[Player], *, acting_user=None) -> Entry:
    """One entry of ``players`` (``services.register_entry``)."""
    return services.register_entry(acting_user=acting_user, tournament=t, players=players)


def new_entry(t: Tournament, names: Iterable[str], *, acting_user=None) -> Entry:
    """One entry of new players named ``names`` (created just before it)."""
    return entry(t, players(names, acting_user=acting_user), acting_user=acting_user)


def field(
    base: Mapping | None = None,
    /,
    *,
    names: Iterable[str],
    n: int | None = None,
    acting_user=None,
    **settings,
) -> tuple[Tournament, list[Entry]]:
    """A tournament (``tournament``), then a player for each of ``names``, then ``n`` entries
    of them (all by default). Returns (tournament, entries in registration order)."""
    t = tournament(base, acting_user=acting_user, **settings)
    return t, new_entries(t, names, n=n, acting_user=acting_user)


def running_tournament(
    *, system: str = "domino", mode: str = "pairs", n: int = 6, acting_user=None, **settings
) -> tuple[Tournament, list[Entry]]:
    """A running tournament of ``system``/``mode`` on 9 May 2026, "Retiradas <system> <mode>
    <n>" (a dominó one to 100 unless ``target`` says otherwise), as the withdrawal and
    check-in tests use: the players of ``NAMES`` (or "Jugador 00" ... when more are needed),
    all created, and ``n`` entries of the first ones. Returns (tournament, entries in
    registration order)."""
    if system == "domino":
        settings.setdefault("target", 100)
    size = 2 if mode == "pairs" else 1
    names = NAMES if n * size <= len(NAMES) else [f"Jugador {i:02d}" for i in range(n * size)]
    return field(
        acting_user=acting_user,
        name=f"Retiradas {system} {mode} {n}",
        date=dt.date(2026, 5, 9),
        system=system,
        mode=mode,
        status="running",
        names=names,
        n=n,
        **settings,
    )


def signup_tournament(
    *,
    acting_user=None,
    mode: str = "single",
    name: str = "Copa Abierta",
    max_entries: int | None = None,
    closes: dt.datetime | None = None,
    approval: bool = False,
) -> Tournament:
    """A dominó tournament to 100 a week ahead taking sign-ups (``max_entries``, closing at
    ``closes``, each sign-up approved by a director with ``approval``)."""
    t = services.create_tournament(
        acting_user=acting_user,
        name=name,
        date=timezone.localdate() + dt.timedelta(days=7),
        system="domino",
        mode=mode,
        target=100,
        status="registration",
    )
    return services.update_signup_settings(
        acting_user=acting_user,
        tournament=t,
        signup_open=True,
        max_entries=max_entries,
        signup_closes_at=closes,
        signup_needs_approval=approval,
    )


def finish(t: Tournament, *, acting_user=None, open_rounds_ok: bool = False) -> Tournament:
    """The tournament finished (``services.update_tournament``)."""
    return services.update_tournament(
        acting_user=acting_user, tournament=t, status="finished", open_rounds_ok=open_rounds_ok
    )


# --- rounds and results ------------------------------------------------------------------------


def _side(side, entries: Sequence[Entry] | None) -> list[Entry]:
    items = [side] if isinstance(side, (Entry, int)) else list(side)
    return [entries[x] if isinstance(x, int) else x for x in items]


def pair(
    t: Tournament,
    number: int,
    tables: Iterable[tuple],
    *,
    entries: Sequence[Entry] | None = None,
    acting_user=None,
    anyway: bool = False,
) -> Round:
    """Round ``number`` paired (``services.set_pairings``): ``tables`` is (side A, side B) for
    each table in order, a side an entry or a list of entries, or their indexes in
    ``entries``. The entries left out rest. ``anyway``: the director's "pair anyway" (the
    round before may still miss results)."""
    return services.set_pairings(
        acting_user=acting_user,
        tournament=t,
        round_number=number,
        tables=[(_side(a, entries), _side(b, entries)) for a, b in tables],
        anyway=anyway,
    )


def seat(
    t: Tournament,
    number: int,
    tables: Iterable[Sequence[Entry]],
    *,
    acting_user=None,
    anyway: bool = False,
) -> Round:
    """Round ``number`` seated (``services.set_seating``): the entries of each table in order;
    ``anyway`` as ``pair``'s."""
    return services.set_seating(
        acting_user=acting_user, tournament=t, round_number=number, tables=[*tables], anyway=anyway
    )


def tables_of(rnd: Round) -> list[Table]:
    """The round's tables, table 1 first."""
    return list(rnd.tables.order_by("number"))


def record(table: Table, *, acting_user=None, version: int | None = None, played_at=None, **values):
    """``services.record_result`` of ``values`` (the system's: dominó ``tantos_a``, ``tantos_b``,
    ``ended_by_time``, ``forfeiting_side``; Swiss ``games_a`` ...; table games ``scores``),
    checked against ``version`` when given (the table's version the user saw)."""
    return services.record_result(
        acting_user=acting_user, table=table, version=version, played_at=played_at, **values
    )


def tantos(a, b, **more) -> dict:
    """A dominó result's values: side A's tantos, side B's, and any ``more``."""
    return {"tantos_a": a, "tantos_b": b, **more}


def play(
    t: Tournament,
    number: int,
    tables: Iterable[tuple],
    results: Iterable[Mapping],
    *,
    entries: Sequence[Entry] | None = None,
    acting_user=None,
    version: int | None = None,
    close: bool = False,
    anyway: bool = False,
) -> Round:
    """Round ``number`` paired (``pair``; ``anyway`` as its), then each of ``results``
    recorded at its table, table 1 first (fewer results than tables leave the last tables
    open), then the round closed if ``close``."""
    rnd = pair(t, number, tables, entries=entries, acting_user=acting_user, anyway=anyway)
    for table, values in zip(tables_of(rnd), results, strict=False):
        record(table, acting_user=acting_user, version=version, **values)
    if close:
        rnd = services.close_round(acting_user=acting_user, round=rnd)
    return rnd


def record_round(t: Tournament, number: int, *, acting_user=None, **values) -> None:
    """The same ``values`` recorded at every table of round ``number``, table 1 first, each
    against its current version."""
    for table in Table.objects.filter(round__tournament=t, round__number=number).order_by("number"):
        record(table, acting_user=acting_user, version=table.version, **values)


def close(rnd: Round, *, acting_user=None) -> Round:
    """The round closed (``services.close_round``)."""
    return services.close_round(acting_user=acting_user, round=rnd)


# --- whole clubs -------------------------------------------------------------------------------


def club_tournament(*, acting_user=None, n_entries=4, rounds=1, name="Copa Federal") -> Tournament:
    """A rated, running pairs tournament: ``n_entries`` pairs, ``rounds`` round-robin rounds
    (circle method), every table with a result. Returns the tournament."""
    t, e = field(
        acting_user=acting_user,
        name=name,
        date=dt.date(2026, 5, 16),
        system="domino",
        mode="pairs",
        target=100,
        rated=True,
        status="running",
        rounds_planned=max(rounds, 5),
        names=[f"{name} {i:02d} Pérez" for i in range(2 * n_entries)],
    )
    others = e[1:]
    for r in range(rounds):
        ring = [e[0]] + others[r:] + others[:r]
        rnd = pair(
            t,
            r + 1,
            [(ring[i], ring[-1 - i]) for i in range(n_entries // 2)],
            acting_user=acting_user,
        )
        for i, table in enumerate(tables_of(rnd)):
            loser = (r * 13 + i * 29) % 100
            a, b = (100, loser) if (r + i) % 2 == 0 else (loser, 100)
            record(table, acting_user=acting_user, tantos_a=a, tantos_b=b)
    return t


def winter_league(director) -> dict:
    """ "Liga de Invierno" 2026, by ``director``: points 10,6,4,3, 1 for taking part, the best
    2 results, 6 tournaments planned.

    - T1 "Copa Enero" (pairs, finished): Ana & Beto beat Carla & Dani 100–30.
    - T2 "Copa Febrero" (mano a mano, finished): Ana–Carla 100–0, Beto–Dani 100–40; Elena is
      entered but never seated (she rests): the standings put her 3rd (efectividad 0), but she
      takes no place, and Dani is 3rd, Carla 4th.
    - T3 "Copa Marzo" (finished): Carla–Beto 100–0, Dani–Ana 100–40.
    - T4 "Copa Abril" (running): Ana–Dani 100–50; Beto–Carla not played yet.
    - T5 "Copa Mayo" (a draft): never shown.

    Returns {"league", "players" (by first name), "tournaments", "open_table"}.
    """
    by = {"acting_user": director}
    cup = LEAGUE_CUP
    names = ["Ana Alba", "Beto Bravo", "Carla Cid", "Dani Duarte", "Elena Esteve"]
    p = {n.split()[0]: player for n, player in zip(names, players(names, **by), strict=True)}

    def enter(t, groups):
        return {g[0]: entry(t, [p[n] for n in g], **by) for g in groups}

    t1 = tournament(cup, name="Copa Enero", date=dt.date(2026, 1, 10), mode="pairs", **by)
    e = enter(t1, [("Ana", "Beto"), ("Carla", "Dani")])
    play(t1, 1, [(e["Ana"], e["Carla"])], [tantos(100, 30)], version=0, close=True, **by)
    t1 = finish(t1, **by)

    t2 = tournament(cup, name="Copa Febrero", date=dt.date(2026, 2, 14), **by)
    e = enter(t2, [("Ana",), ("Beto",), ("Carla",), ("Dani",), ("Elena",)])
    tables = [(e["Ana"], e["Carla"]), (e["Beto"], e["Dani"])]
    play(t2, 1, tables, [tantos(100, 0), tantos(100, 40)], version=0, close=True, **by)
    t2 = finish(t2, **by)

    t3 = tournament(cup, name="Copa Marzo", date=dt.date(2026, 3, 14), **by)
    e = enter(t3, [("Ana",), ("Beto",), ("Carla",), ("Dani",)])
    tables = [(e["Carla"], e["Beto"]), (e["Dani"], e["Ana"])]
    play(t3, 1, tables, [tantos(100, 0), tantos(100, 40)], version=0, close=True, **by)
    t3 = finish(t3, **by)

    t4 = tournament(cup, name="Copa Abril", date=dt.date(2026, 4, 11), **by)
    e = enter(t4, [("Ana",), ("Beto",), ("Carla",), ("Dani",)])
    tables = [(e["Ana"], e["Dani"]), (e["Beto"], e["Carla"])]
    r4 = play(t4, 1, tables, [tantos(100, 50)], version=0, **by)
    t5 = tournament(cup, name="Copa Mayo", date=dt.date(2026, 5, 9), status="draft", **by)
    league = services.create_league(
        acting_user=director,
        name="Liga de Invierno",
        season=2026,
        points_scale="10,6,4,3",
        participation_points=1,
        best_results=2,
        planned_tournaments=6,
        tournaments=[t1, t2, t3, t4, t5],
    )
    return {
        "league": league,
        "players": p,
        "tournaments": [t1, t2, t3, t4, t5],
        "open_table": r4.tables.get(number=2),
    }


def stories_club() -> dict[str, Player]:
    """Six players and five published tournaments of March 2025, plus a draft, made by a
    script; the ledger rebuilt. Returns the players by lower-case first name.

    - 1st, pairs to 100 (finished): Ana & Beto 100–0 Carla & Dani (a zapato), Ana & Beto
      60–100 Eva & Fede, Carla & Dani 100–80 Ana & Beto. Ana & Beto first (3 puntos).
    - 8th, individual with rotating partners (finished): Ana & Carla 100–50 Beto & Dani.
      Ana and Carla share the first place.
    - 15th, mano a mano (running): Ana 100–99 Beto, Beto 100–0 Ana (a zapato), Ana beats Beto
      by a no-show (100–0: neither a game nor a zapato).
    - 22nd, Swiss best of 3 (finished): Beto 2–1 Ana, then 1–1 with one game drawn. Ana 2nd.
    - 29th, table game (finished): Ana 10, Beto 8, Carla 7, Dani 5 VP. Ana first.
    - 30th, a draft mano a mano: Beto 100–0 Ana (never counted).
    """
    from rankings import ledger

    names = ["Ana Arenas", "Beto Bravo", "Carla Cano", "Dani Duque", "Eva Esteve", "Fede Fuentes"]
    p = {n.split()[0].lower(): player for n, player in zip(names, players(names), strict=True)}
    ana, beto, carla, dani, eva, fede = p.values()

    def march(day, name, status="running", **settings):
        return tournament(name=name, date=dt.date(2025, 3, day), status=status, **settings)

    def enter(t, groups):
        return [entry(t, g) for g in groups]

    pairs = march(1, "Parejas de Marzo", mode="pairs", target=100)
    ab, cd, ef = enter(pairs, [[ana, beto], [carla, dani], [eva, fede]])
    play(pairs, 1, [(ab, cd)], [tantos(100, 0)])
    play(pairs, 2, [(ab, ef)], [tantos(60, 100)])
    play(pairs, 3, [(cd, ab)], [tantos(100, 80)])
    finish(pairs, open_rounds_ok=True)

    individual = march(8, "Individual de Marzo", mode="individual", target=100)
    a, b, c, d = enter(individual, [[ana], [beto], [carla], [dani]])
    play(individual, 1, [([a, c], [b, d])], [tantos(100, 50)])
    finish(individual, open_rounds_ok=True)

    single = march(15, "Mano a Mano de Marzo", mode="single", target=100)
    a, b = enter(single, [[ana], [beto]])
    play(single, 1, [(a, b)], [tantos(100, 99)])
    play(single, 2, [(b, a)], [tantos(100, 0)])
    play(single, 3, [(a, b)], [{"forfeiting_side": "B"}])

    swiss = march(22, "Suizo de Marzo", system="swiss", mode="single", best_of=3)
    a, b = enter(swiss, [[ana], [beto]])
    play(swiss, 1, [(b, a)], [{"games_a": 2, "games_b": 1, "games_drawn": 0}])
    play(swiss, 2, [(a, b)], [{"games_a": 1, "games_b": 1, "games_drawn": 1}])
    finish(swiss, open_rounds_ok=True)

    table_game = march(29, "Mesa de Marzo", system="table", rounds_planned=1)
    seated = enter(table_game, [[ana], [beto], [carla], [dani]])
    table = seat(table_game, 1, [seated]).tables.get()
    vp = dict(zip([e.pk for e in seated], (10, 8, 7, 5), strict=True))
    record(table, version=table.version, scores=vp)
    finish(table_game, open_rounds_ok=True)

    draft = march(30, "Borrador de Marzo", status="draft", mode="single", target=100)
    a, b = enter(draft, [[ana], [beto]])
    play(draft, 1, [(b, a)], [tantos(100, 0)])
    Tournament.objects.filter(pk=draft.pk).update(status="draft")  # pairing it published it

    ledger.rebuild()
    return p
