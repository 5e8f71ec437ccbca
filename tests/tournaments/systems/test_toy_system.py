"""A fifth scoring system registered by this test alone gets every page and path of the site
from the registry: result capture on the round page, standings, CSV import and export, the
public round page and the admin. Nothing outside this module knows about it: it registers its
three parts, each through its own narrow interface: the rules (``ScoringSystem``), how it looks
(``Presentation``) and its results file (``imports.formats``, a seat-per-line ``SeatFile``).

The toy, "Diana": 3–4 players throw at a target, each scores 0–50; the best score of the
table takes 2 points (a shared best, 1 each), the others 0; standings by points, then total
score, then sorteo. It stores its results where the table games do (``TableResult`` and
``Seat.victory_points``), with rules of its own.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.translation import gettext_lazy

from tournaments import exports, imports, services, systems
from tournaments.errors import ResultError
from tournaments.imports.generic import SeatFile
from tournaments.models import Seat, Table, TableResult
from tournaments.scoring.ordering import by_figure, rank
from tournaments.systems.base import SORTEO, Card, Column, RowField, Tiebreak
from tournaments.systems.presentation import Presentation
from tournaments.systems.rules import ScoringSystem

pytestmark = pytest.mark.django_db

MAX_DIANA = 50


def diana_points(scores: list[int]) -> list[int]:
    """2 for the table's best score, 1 each when the best is shared, else 0."""
    best = max(scores)
    winners = scores.count(best)
    return [(2 if winners == 1 else 1) if s == best else 0 for s in scores]


class DianaPresentation(Presentation):
    """How Diana looks: its standings' columns, a box per seat, the table card."""

    order_hint = "Orden: puntos, total de diana, sorteo."
    score_quantity = "dianas"

    def columns(self, lines):
        return [
            Column("played", "PJ", "Mesas jugadas", lambda line: line.row.figures["played"]),
            Column(
                "points", "Ptos", "Puntos", lambda line: line.row.figures["points"], strong=True
            ),
            Column("total", "Tot.", "Total de diana", lambda line: line.row.figures["total"]),
        ]

    def values_from_post(self, post, table):
        return {
            "scores": {
                int(k[3:]): v for k, v in post.items() if k.startswith("vp_") and k[3:].isdigit()
            }
        }

    def row_fields(self, table, tournament, typed):
        fields = []
        for seat in table.seats.all():
            stored = "" if seat.victory_points is None else seat.victory_points
            value = (typed or {}).get(f"vp_{seat.entry_id}", stored)
            fields.append(
                RowField(
                    f"vp_{seat.entry_id}",
                    "Diana",
                    value,
                    who=seat.entry.name,
                    dom_id=f"diana-{table.pk}-{seat.entry_id}",
                )
            )
        return fields

    def card(self, table):
        result = self.system.result_of(table)
        seats = [
            (s.entry.name, "" if result is None else f"{s.victory_points} en la diana", "")
            for s in table.seats.all()
        ]
        return Card(has_result=result is not None, score="" if result else "vs", seats=seats)


class Diana(ScoringSystem):
    """Diana's rules: its settings, standings and how a table's result is stored."""

    key = "diana"
    label = gettext_lazy("Diana")
    result_relation = "table_result"
    result_model = TableResult
    modes = ("single",)
    settings_fields = ()
    tiebreaks = (Tiebreak("total", "por total de diana", "Tot."), SORTEO)
    has_sides = False
    presentation_class = DianaPresentation

    def gather(self, tournament, *, entries):
        scores: dict[int, list[tuple[int, int, int]]] = {}
        for table_id, entry_id, position, score in Seat.objects.filter(
            round__tournament=tournament, table__table_result__isnull=False
        ).values_list("table_id", "entry_id", "position", "victory_points"):
            scores.setdefault(table_id, []).append((position, entry_id, score))
        return {"entry_ids": list(entries), "tables": [sorted(s) for s in scores.values()]}

    def rank(self, tournament, inputs):
        figures = {e: {"points": 0, "total": 0, "played": 0} for e in inputs["entry_ids"]}
        for seats in inputs["tables"]:
            values = [score for _, _, score in seats]
            for (_, entry_id, score), pts in zip(seats, diana_points(values), strict=True):
                figures[entry_id]["points"] += pts
                figures[entry_id]["total"] += score
                figures[entry_id]["played"] += 1
        return rank(
            inputs["entry_ids"],
            figures,
            first="points",
            tiebreaks=[by_figure("total", figures)],
            sorteo={},
        )

    def first_figure(self):
        return "points"

    def value_names(self):
        return ("scores",)

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        scores = values["scores"]
        seats = list(table.seats.order_by("position"))
        numbers = []
        for seat in seats:
            text = str(scores.get(seat.entry_id, "")).strip()
            if not text.isdigit() or int(text) > MAX_DIANA:
                raise ResultError(
                    "diana_score",
                    message="Cada diana va de 0 a 50; se anotó «{value}».",
                    value=text,
                )
            numbers.append(int(text))
        for seat, value in zip(seats, numbers, strict=True):
            seat.victory_points = value
            services.audit(seat, acting_user).save(update_fields=["victory_points"])
        result = self.result_of(table) or TableResult(table=table)
        result.entered_by = services.entered_by(acting_user)
        services.audit(result, acting_user).save()
        return result


#: Diana's results file: one line per seated player, its score in the fourth column.
DIANA_FILE = SeatFile(header=("round", "table", "player", "diana"))


NAMES = ["Ana Diana", "Beto Diana", "Caro Diana", "Dani Diana"]


@pytest.fixture
def diana():
    system = systems.register(Diana())
    imports.formats.register("diana", DIANA_FILE)
    yield system
    systems.unregister("diana")
    imports.formats.unregister("diana")


@pytest.fixture
def superuser(db):
    return User.objects.create_superuser("jefa", password="clave-de-prueba-2")


@pytest.fixture
def seated(diana, director):
    """A Diana tournament of four players, round 1 seated at one table (positions 1–4)."""
    t = services.create_tournament(
        acting_user=director,
        name="Copa Diana",
        date=dt.date(2026, 11, 20),
        system="diana",
        rounds_planned=3,
        status="running",
    )
    entries = [
        services.register_entry(
            acting_user=director,
            tournament=t,
            players=[services.create_player(acting_user=director, full_name=name)],
        )
        for name in NAMES
    ]
    services.set_seating(
        acting_user=director, tournament=t, round_number=1, tables=[entries], seed=None
    )
    return t, entries


def test_the_toy_is_a_choice_and_takes_its_only_mode(seated):
    t, _ = seated
    assert ("diana", "Diana") in systems.choices()
    assert (t.system, t.mode) == ("diana", "single")


def test_round_page_captures_a_result_with_the_toys_boxes_and_rules(seated, director_client):
    t, entries = seated
    table = Table.objects.get(round__tournament=t)
    page = director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    for e in entries:
        assert f'name="vp_{e.pk}"' in page
        assert f'id="diana-{table.pk}-{e.pk}"' in page
    assert "Castigos" not in page  # the toy offers no castigos

    url = reverse("manage:result_save", args=[t.slug, table.pk])
    scores = {f"vp_{e.pk}": v for e, v in zip(entries, ["30", "51", "10", "0"], strict=True)}
    refused = director_client.post(url, {**scores, "version": "0"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400
    assert "Cada diana va de 0 a 50; se anotó «51»." in refused.content.decode()
    assert not TableResult.objects.filter(table=table).exists()

    scores[f"vp_{entries[1].pk}"] = "45"
    saved = director_client.post(url, {**scores, "version": "0"}, HTTP_HX_REQUEST="true")
    assert saved.status_code == 200
    assert list(
        Seat.objects.filter(table=table)
        .order_by("position")
        .values_list("victory_points", flat=True)
    ) == [
        30,
        45,
        10,
        0,
    ]
    table.refresh_from_db()
    assert table.version == 1


def _save(t, entries, values, director):
    table = Table.objects.get(round__tournament=t, round__number=1)
    services.record_result(
        acting_user=director,
        table=table,
        version=None,
        scores={e.pk: v for e, v in zip(entries, values, strict=True)},
    )


def test_standings_page_and_csv_come_from_the_toy(seated, director, client):
    t, entries = seated
    _save(t, entries, [30, 45, 45, 0], director)  # Beto and Caro share the best: 1 point each
    lines = t.standings()
    assert [(line.entry.name, line.row.position, line.row.figures["points"]) for line in lines] == [
        ("Beto Diana", 1, 1),
        ("Caro Diana", 1, 1),
        ("Ana Diana", 3, 0),
        ("Dani Diana", 4, 0),
    ]
    assert lines[2].row.decided_by == "total"
    page = client.get(reverse("public:standings", args=[t.slug])).content.decode()
    assert "Tot." in page and "por total de diana" in page
    assert "Orden: puntos, total de diana, sorteo." in page
    assert exports.standings_csv(t).splitlines() == [
        "position,entry,played,points,total",
        "1,Beto Diana,1,1,45",
        "1,Caro Diana,1,1,45",
        "3,Ana Diana,1,0,30",
        "4,Dani Diana,1,0,0",
    ]


def test_public_round_page_shows_the_toys_card(seated, director, client):
    t, entries = seated
    page = client.get(reverse("public:round", args=[t.slug, 1])).content.decode()
    assert "vs" in page
    _save(t, entries, [30, 45, 10, 0], director)
    page = client.get(reverse("public:round", args=[t.slug, 1])).content.decode()
    assert "45 en la diana" in page
    assert re.search(r"Ana Diana</span>\s*<span class=\"score\">30 en la diana", page)


def test_csv_import_goes_through_the_toys_record(seated, director):
    t, entries = seated
    _save(t, entries, [30, 45, 10, 0], director)  # round 1 complete: round 2 may come
    rows = ["round,table,player,diana"] + [
        f"2,1,{name},{v}" for name, v in zip(NAMES, [5, 6, 7, 8], strict=True)
    ]
    report = imports.import_results(
        acting_user=director, tournament=t, data="\n".join(rows).encode()
    )
    assert report.created == 1
    table = Table.objects.get(round__tournament=t, round__number=2)
    assert [
        (s.entry.player1.full_name, s.victory_points) for s in table.seats.order_by("position")
    ] == list(zip(NAMES, [5, 6, 7, 8], strict=True))
    bad = ["round,table,player,diana"] + [
        f"3,1,{name},{v}" for name, v in zip(NAMES, [5, 60, 7, 8], strict=True)
    ]
    with pytest.raises(Exception) as refused:
        imports.import_results(acting_user=director, tournament=t, data="\n".join(bad).encode())
    assert "Cada diana va de 0 a 50" in str(refused.value.message)
    assert not Table.objects.filter(round__tournament=t, round__number=3).exists()


def test_admin_edits_the_toys_result_through_the_registry(seated, superuser, client):
    t, entries = seated
    client.force_login(superuser)
    table = Table.objects.get(round__tournament=t)
    add_url = reverse("admin:tournaments_tableresult_add") + f"?table={table.pk}"
    form = client.get(add_url).content.decode()
    for e in entries:
        assert f'name="vp_{e.pk}"' in form
    data = {"table": table.pk, **{f"vp_{e.pk}": "60" for e in entries}}
    refused = client.post(add_url, data)
    assert refused.status_code == 200
    assert "Cada diana va de 0 a 50" in refused.content.decode()
    assert not TableResult.objects.filter(table=table).exists()
    data.update({f"vp_{e.pk}": str(10 + i) for i, e in enumerate(entries)})
    saved = client.post(add_url, data)
    assert saved.status_code == 302
    assert list(
        Seat.objects.filter(table=table)
        .order_by("position")
        .values_list("victory_points", flat=True)
    ) == [
        10,
        11,
        12,
        13,
    ]
