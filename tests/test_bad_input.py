"""Bad input catalogue (issue "reliability and security", point 3).

Malformed input of every kind, posted through the real directors' pages (Django test client,
logged in as a director of the tournament) and given to the management commands. Each one
gets a 4xx answer or an inline message in words (a Spanish fragment is asserted), never a
500, and leaves the database exactly as it was: every table of every app (history and ledger
included; sessions and admin log excepted) is dumped row by row, ordered by primary key,
before and after each case and the dumps must be equal.

The club the cases run against is built once per module (inside a transaction that is rolled
back at the end); every case runs in its own savepoint on top of it.
"""

from __future__ import annotations

import datetime as dt
import html
import io
import time
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.imports import CASTIGOS_HEADER, RESULTS_HEADER
from tournaments.models import Table

HTMX = {"HTTP_HX_REQUEST": "true"}
SKIPPED_APPS = {"sessions", "admin", "axes", "django_tasks_db"}
#: Rows that record an attempt, not club data: a refused upload leaves its import job (with
#: the refusal the job page shows) and nothing else.
SKIPPED_MODELS = {"tournaments.importjob"}


# --- the club ----------------------------------------------------------------------------------


def _build():
    """Tournament "Copa Catálogo" (pairs to 100, time limit 30, five pairs) directed by
    "directora": round 1 closed (two results, a castigo, a bye), round 2 open with table 1
    saved (version 1) and table 2 empty (version 0), a castigo. Tournament "Liga Ajena" of
    another director, with one table and a castigo. A spare player, an inactive one, and a
    player holding member number S-77."""
    d, other = builders.director("directora"), builders.director("otra")
    t = builders.tournament(
        acting_user=d,
        name="Copa Catálogo",
        date=dt.date(2026, 9, 19),
        mode="pairs",
        target=100,
        time_limit=30,
        status="running",
    )
    players = builders.players([f"Catálogo {i:02d}" for i in range(10)], acting_user=d)
    e = builders.entries(t, players, acting_user=d)
    r1 = builders.play(
        t,
        1,
        [(e[0], e[1]), (e[2], e[3])],
        [builders.tantos(100, 50), builders.tantos(100, 70)],
        acting_user=d,
        version=0,
    )
    castigo_closed = services.add_castigo(
        acting_user=d, tournament=t, player=players[0], tantos=5, reason="Tarde", round=r1
    )
    builders.close(r1, acting_user=d)
    r2 = builders.pair(t, 2, [(e[0], e[2]), (e[1], e[3])], acting_user=d)
    saved, empty = builders.tables_of(r2)
    builders.record(saved, acting_user=d, version=0, tantos_a=100, tantos_b=20)
    castigo_open = services.add_castigo(
        acting_user=d, tournament=t, player=players[2], tantos=10, reason="Hablar", round=r2
    )

    t2 = builders.tournament(
        acting_user=other,
        name="Liga Ajena",
        date=dt.date(2026, 9, 20),
        mode="pairs",
        target=100,
        status="running",
    )
    p2 = builders.players([f"Ajeno {i}" for i in range(4)], acting_user=other)
    e2 = builders.entries(t2, p2, acting_user=other)
    r21 = builders.pair(t2, 1, [(e2[0], e2[1])], acting_user=other)
    castigo_foreign = services.add_castigo(
        acting_user=other, tournament=t2, player=p2[0], tantos=5, reason="Ajeno", round=r21
    )

    spare = services.create_player(acting_user=d, full_name="Tadeo Tovar")
    inactive = services.create_player(acting_user=d, full_name="Inés Inactiva")
    services.set_player_active(acting_user=d, player=inactive, active=False)
    member = services.create_player(acting_user=d, full_name="Socia Setenta", member_number="S-77")
    player_user = User.objects.create_user("jugadora", password="clave-de-prueba-2")  # not staff
    return SimpleNamespace(
        director=d,
        t=t.slug,
        t2=t2.slug,
        e=[x.pk for x in e],
        e2=[x.pk for x in e2],
        p=[x.pk for x in players],
        p2=[x.pk for x in p2],
        closed_table=r1.tables.get(number=1).pk,
        saved_table=saved.pk,
        empty_table=empty.pk,
        foreign_table=r21.tables.get().pk,
        castigo_closed=castigo_closed.pk,
        castigo_open=castigo_open.pk,
        castigo_foreign=castigo_foreign.pk,
        spare=spare.pk,
        inactive=inactive.pk,
        member=member.pk,
        player_user=player_user.pk,
    )


@pytest.fixture(scope="module")
def club(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        with transaction.atomic():
            data = _build()
            yield data
            transaction.set_rollback(True)


def dump() -> list[tuple[str, str]]:
    """Every row of every table (history, ledger, users, m2m links...), ordered by pk."""
    out = []
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.app_label in SKIPPED_APPS or meta.label_lower in SKIPPED_MODELS:
            continue
        if meta.proxy or not meta.managed:
            continue
        rows = list(model._base_manager.order_by("pk").values_list())
        out.append((meta.db_table, repr(rows)))
    return out


# --- the cases ---------------------------------------------------------------------------------


@dataclass
class Ctx:
    club: SimpleNamespace
    client: object
    tmp_path: object

    def post(self, name, args, data, *, htmx=True, follow=False, **extra):
        headers = HTMX if htmx else {}
        return self.client.post(
            reverse(f"manage:{name}", args=args), data, follow=follow, **headers, **extra
        )

    def result(self, data, table=None, **kw):
        c = self.club
        return self.post("result_save", [c.t, table or c.empty_table], data, **kw)

    def castigo(self, data, number=2, **kw):
        return self.post("castigo_add", [self.club.t, number], data, **kw)

    def pairings(self, number, data):
        # "pair anyway": these cases are about the tables typed, not the order of play
        data = {**data, "anyway": "1"}
        return self.post("pairings", [self.club.t, number], data, htmx=False, follow=True)

    def player(self, data, pk=None):
        base = {
            "full_name": "Nuevo Jugador",
            "nickname": "",
            "member_number": "",
            "email": "",
            "phone": "",
            "active": "on",
        }
        base.update(data)
        return self.post(
            "player_edit" if pk else "player_add", [pk] if pk else [], base, htmx=False
        )

    def settings(self, data):
        base = {
            "name": "Copa Catálogo",
            "date": "2026-09-19",
            "venue": "",
            "system": "domino",
            "mode": "pairs",
            "target": "100",
            "time_limit": "30",
            "bye_rule": "rest",
            "forfeit_winner_tantos": "",
            "forfeit_loser_tantos": "0",
            "rounds_planned": "5",
            "rated": "on",
            "status": "running",
            "best_of": "3",
            "directors": [str(self.club.director.pk)],
        }
        base.update(data)
        if base["directors"] == ["NOT_STAFF"]:
            base["directors"] = [str(self.club.director.pk), str(self.club.player_user)]
        return self.post("tournament_edit", [self.club.t], base, htmx=False)

    def upload(self, content: bytes, kind="results", name="resultados.csv"):
        f = io.BytesIO(content)
        f.name = name
        # A file that passes the first checks becomes a background job (run here at the commit,
        # as the immediate backend does): its page shows the outcome.
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            response = self.post("import", [self.club.t], {"kind": kind, "file": f}, htmx=False)
        if response.status_code != 302:
            return response
        return self.client.get(response.url, follow=True)

    def sorteo(self, ids):
        return self.post(
            "sorteo", [self.club.t], {"entry": [str(x) for x in ids]}, htmx=False, follow=True
        )

    def command(self, *args):
        """Run a management command; return (CommandError, stderr) — the command must refuse."""
        err = io.StringIO()
        with pytest.raises(CommandError) as info:
            call_command(*args, stdout=io.StringIO(), stderr=err)
        return info.value, err.getvalue()

    def file(self, content: bytes, name="archivo.csv") -> str:
        path = self.tmp_path / name
        path.write_bytes(content)
        return str(path)


def csv_bytes(*lines, header=RESULTS_HEADER) -> bytes:
    return ("\n".join([",".join(header), *lines]) + "\n").encode()


PAIR = "Catálogo 00 & Catálogo 01,Catálogo 02 & Catálogo 03"
GOOD_LINE = f"3,1,{PAIR},100,40,no,no,"


def huge_csv() -> bytes:
    line = b"4,1,A & B,C & D,100,0,no,no,\n"
    return b",".join(h.encode() for h in RESULTS_HEADER) + b"\n" + line * 100_000


def pair_t(ctx, i):
    return str(ctx.club.e[i])


# Each case: name -> (function(ctx) -> response | (CommandError, stderr), Spanish fragment).
CASES: dict = {}


def case(name, fragment):
    def register(fn):
        assert name not in CASES
        CASES[name] = (fn, fragment)
        return fn

    return register


# Results typed on the round page (HTMX row; the open table is at version 0).
for _name, _a, _b, _frag in [
    ("tantos_negative", "-5", "100", "no pueden ser negativos"),
    ("tantos_both_negative", "-100", "-1", "no pueden ser negativos"),
    ("tantos_huge", "1000000", "0", "demasiado grande"),
    ("tantos_huge_99999_plus_1", "100000", "3", "demasiado grande"),
    ("tantos_longer_than_the_field", "9" * 60, "0", "Revisa los datos de la mesa"),
    ("tantos_text", "cien", "20", "número entero"),
    ("tantos_nan", "NaN", "100", "número entero"),
    ("tantos_infinity", "100", "inf", "número entero"),
    ("tantos_exponent", "1e3", "0", "número entero"),
    ("tantos_decimal", "99.5", "100", "número entero"),
    ("tantos_double_minus", "--5", "100", "número entero"),
    ("tantos_fullwidth_digits", "１００", "0", "número entero"),
    ("tantos_arabic_indic_digits", "١٠٠", "0", "número entero"),
    ("tantos_superscript", "100", "²", "número entero"),
    ("tantos_null_character", "10\x00", "100", "Revisa los datos de la mesa"),
    ("tantos_empty_a", "", "100", "Faltan los tantos del lado A"),
    ("tantos_empty_both", "", "", "Faltan los tantos"),
    ("tantos_blank_spaces", "   ", "100", "Faltan los tantos del lado A"),
    ("both_sides_over_target", "100", "105", "Los dos lados llegaron a la meta"),
    ("tie_at_target", "100", "100", "Los dos lados llegaron a la meta"),
    ("tie_below_target", "50", "50", "Ningún lado llegó"),
    ("nobody_reached_target", "99", "98", "Ningún lado llegó"),
]:
    case(f"result_{_name}", _frag)(
        lambda ctx, a=_a, b=_b: ctx.result({"tantos_a": a, "tantos_b": b, "version": "0"})
    )


@case("result_tie_by_time", "Empate")
def _(ctx):
    return ctx.result({"tantos_a": "60", "tantos_b": "60", "ended_by_time": "on", "version": "0"})


@case("result_by_time_but_target_reached", "quita la marca de tiempo")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "40", "ended_by_time": "on", "version": "0"})


@case("result_forfeit_of_side_c", "Revisa los datos de la mesa")
def _(ctx):
    return ctx.result({"tantos_a": "", "tantos_b": "", "forfeit": "C", "version": "0"})


@case("result_forfeit_and_by_time", "no puede terminar por tiempo")
def _(ctx):
    return ctx.result({"forfeit": "A", "ended_by_time": "on", "version": "0"})


@case("result_forged_version", "cambió mientras la editabas")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "10", "version": "7"})


@case("result_stale_version", "cambió mientras la editabas")
def _(ctx):
    return ctx.result(
        {"tantos_a": "100", "tantos_b": "10", "version": "0"}, table=ctx.club.saved_table
    )


@case("result_version_not_a_number", "Revisa los datos de la mesa")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "10", "version": "abc"})


@case("result_version_missing", "Revisa los datos de la mesa")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "10"})


@case("result_version_negative", "Revisa los datos de la mesa")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "10", "version": "-1"})


@case("result_version_huge", "Revisa los datos de la mesa")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "10", "version": str(2**40)})


@case("result_in_a_closed_round", "está cerrada")
def _(ctx):
    return ctx.result(
        {"tantos_a": "100", "tantos_b": "10", "version": "1"}, table=ctx.club.closed_table
    )


@case("result_delete_in_a_closed_round", "está cerrada")
def _(ctx):
    return ctx.result({"action": "delete", "version": "1"}, table=ctx.club.closed_table)


@case("result_delete_when_there_is_none", "no tiene resultado que borrar")
def _(ctx):
    return ctx.result({"action": "delete", "version": "0"})


@case("result_on_another_tournaments_table", "No encontramos esa página")
def _(ctx):
    return ctx.result(
        {"tantos_a": "100", "tantos_b": "10", "version": "0"}, table=ctx.club.foreign_table
    )


@case("result_on_a_table_that_does_not_exist", "No encontramos esa página")
def _(ctx):
    return ctx.result({"tantos_a": "100", "tantos_b": "10", "version": "0"}, table=99_999_999)


@case("result_through_another_tournaments_page", "No tienes permiso")
def _(ctx):
    c = ctx.club
    return ctx.post(
        "result_save", [c.t2, c.foreign_table], {"tantos_a": "100", "tantos_b": "1", "version": "0"}
    )


@case("result_without_htmx_negative", "no pueden ser negativos")
def _(ctx):
    return ctx.result(
        {"tantos_a": "-1", "tantos_b": "100", "version": "0"}, htmx=False, follow=True
    )


# Pairings (round 3 is new; round 1 is closed; round 2 has results).
@case("pairings_same_pair_on_both_sides", "sentado dos veces")
def _(ctx):
    return ctx.pairings(3, {"t0_a1": pair_t(ctx, 0), "t0_b1": pair_t(ctx, 0)})


@case("pairings_a_pair_at_two_tables", "sentado dos veces")
def _(ctx):
    return ctx.pairings(
        3,
        {
            "t0_a1": pair_t(ctx, 0),
            "t0_b1": pair_t(ctx, 1),
            "t1_a1": pair_t(ctx, 2),
            "t1_b1": pair_t(ctx, 0),
        },
    )


@case("pairings_with_another_tournaments_pair", "no es de este torneo")
def _(ctx):
    return ctx.pairings(3, {"t0_a1": pair_t(ctx, 0), "t0_b1": str(ctx.club.e2[0])})


@case("pairings_with_text_for_a_pair", "no es de este torneo")
def _(ctx):
    return ctx.pairings(3, {"t0_a1": "uno", "t0_b1": pair_t(ctx, 1)})


@case("pairings_incomplete_table", "está incompleta")
def _(ctx):
    return ctx.pairings(3, {"t0_a1": pair_t(ctx, 0)})


@case("pairings_no_table_at_all", "No hay ninguna mesa completa")
def _(ctx):
    return ctx.pairings(3, {})


@case("pairings_of_a_closed_round", "está cerrada")
def _(ctx):
    return ctx.pairings(1, {"t0_a1": pair_t(ctx, 0), "t0_b1": pair_t(ctx, 4)})


@case("pairings_of_a_round_with_results", "ya tiene resultados")
def _(ctx):
    return ctx.pairings(2, {"t0_a1": pair_t(ctx, 0), "t0_b1": pair_t(ctx, 4)})


@case("pairings_of_round_100", "entre 1 y 99")
def _(ctx):
    return ctx.pairings(100, {"t0_a1": pair_t(ctx, 0), "t0_b1": pair_t(ctx, 4)})


# Castigos on the round page (HTMX panel).
for _name, _tantos, _frag in [
    ("zero", "0", "mayor que 0"),
    ("text", "diez", "mayor que 0"),
    ("negative", "-3", "mayor que 0"),
    ("above_100000", "100001", "mayor que 0"),
    ("nan", "NaN", "mayor que 0"),
    ("decimal", "2.5", "mayor que 0"),
    ("empty", "", "obligatorio"),
]:
    case(f"castigo_tantos_{_name}", _frag)(
        lambda ctx, n=_tantos: ctx.castigo(
            {"player": ctx.club.p[0], "tantos": n, "reason": "Hablar"}
        )
    )


@case("castigo_without_reason", "obligatorio")
def _(ctx):
    return ctx.castigo({"player": ctx.club.p[0], "tantos": "5", "reason": "   "})


# Control and invisible characters are cleaned, not refused (tournaments.names.clean; the
# cleaned text is checked in tests/tournaments/test_names.py): a text of nothing else is empty.
@case("castigo_reason_of_invisible_characters_only", "obligatorio")
def _(ctx):
    return ctx.castigo({"player": ctx.club.p[0], "tantos": "5", "reason": "\u200b\x1b\u2066\u2069"})


@case("castigo_reason_too_long", "200 caracteres")
def _(ctx):
    return ctx.castigo({"player": ctx.club.p[0], "tantos": "5", "reason": "x" * 201})


@case("castigo_player_not_in_tournament", "Elige una opción válida")
def _(ctx):
    return ctx.castigo({"player": ctx.club.spare, "tantos": "5", "reason": "Hablar"})


@case("castigo_player_of_another_tournament", "Elige una opción válida")
def _(ctx):
    return ctx.castigo({"player": ctx.club.p2[0], "tantos": "5", "reason": "Hablar"})


@case("castigo_in_a_closed_round", "está cerrada")
def _(ctx):
    return ctx.castigo({"player": ctx.club.p[0], "tantos": "5", "reason": "Hablar"}, number=1)


@case("castigo_remove_in_a_closed_round", "está cerrada")
def _(ctx):
    c = ctx.club
    return ctx.post("castigo_remove", [c.t, 1, c.castigo_closed], {})


@case("castigo_remove_of_another_tournament", "No encontramos esa página")
def _(ctx):
    c = ctx.club
    return ctx.post("castigo_remove", [c.t, 2, c.castigo_foreign], {})


# Sorteos (the tournament page's form; answers with a redirect and a message).
@case("sorteo_with_a_foreign_entry", "no son de este torneo")
def _(ctx):
    return ctx.sorteo([ctx.club.e[0], ctx.club.e2[0]])


@case("sorteo_with_an_entry_that_does_not_exist", "no son de este torneo")
def _(ctx):
    return ctx.sorteo([ctx.club.e[0], 99_999_999])


@case("sorteo_with_an_entry_twice", "una sola vez")
def _(ctx):
    return ctx.sorteo([ctx.club.e[0], ctx.club.e[0]])


@case("sorteo_with_text", "no válido")
def _(ctx):
    return ctx.sorteo([ctx.club.e[0], "primero"])


@case("sorteo_with_one_entry", "al menos dos")
def _(ctx):
    return ctx.sorteo([ctx.club.e[0]])


# Entries.
@case("entry_player_already_entered", "Elige una opción válida")
def _(ctx):
    return ctx.post(
        "entry_add", [ctx.club.t], {"player1": ctx.club.p[0], "player2": ctx.club.spare}, htmx=False
    )


@case("entry_same_player_twice", "distintos")
def _(ctx):
    return ctx.post(
        "entry_add",
        [ctx.club.t],
        {"player1": ctx.club.spare, "player2": ctx.club.spare},
        htmx=False,
    )


@case("entry_inactive_player", "Elige una opción válida")
def _(ctx):
    return ctx.post(
        "entry_add",
        [ctx.club.t],
        {"player1": ctx.club.inactive, "player2": ctx.club.spare},
        htmx=False,
    )


@case("entry_without_partner", "obligatorio")
def _(ctx):
    return ctx.post("entry_add", [ctx.club.t], {"player1": ctx.club.spare}, htmx=False)


# Players.
for _name, _data, _frag in [
    ("name_too_long", {"full_name": "N" * 121}, "120"),
    ("name_too_long_after_cleaning", {"full_name": "N\u200b" * 60 + "N" * 61}, "120"),
    ("name_of_zero_width_spaces", {"full_name": "\u200b\u200b\ufeff"}, "obligatorio"),
    ("name_of_bidi_marks_and_nbsp", {"full_name": "\u200e\u00a0\u2066\u2069\u3000"}, "obligatorio"),
    ("name_of_control_characters", {"full_name": "\x00\x07\x1b\x85"}, "obligatorio"),
    ("name_blank", {"full_name": "    "}, "obligatorio"),
    ("nickname_too_long", {"nickname": "x" * 61}, "60"),
    ("nickname_too_long_after_cleaning", {"nickname": "x\u200b" * 61}, "60"),
    ("member_number_too_long", {"member_number": "S" * 21}, "20"),
    ("member_number_taken_other_case", {"member_number": "s-77"}, "ya es de otro jugador"),
    ("email_invalid", {"email": "ana@@club"}, "correo electrónico"),
]:
    case(f"player_{_name}", _frag)(lambda ctx, data=_data: ctx.player(data))


@case("player_edit_name_too_long", "120")
def _(ctx):
    return ctx.player({"full_name": "Ñ" * 500}, pk=ctx.club.spare)


# Tournament settings.
for _name, _data, _frag in [
    ("target_150", {"target": "150"}, "Elige una opción válida"),
    ("rounds_zero", {"rounds_planned": "0"}, "entre 1 y 99"),
    ("rounds_100", {"rounds_planned": "100"}, "entre 1 y 99"),
    # PostgreSQL's smallint range is checked by the form; SQLite has none, the service refuses.
    ("rounds_huge", {"rounds_planned": "70000"}, ("menor o igual que 32767", "entre 1 y 99")),
    (
        "mode_changed_with_entries",
        {"mode": "single"},
        "no se puede cambiar su sistema ni su modalidad",
    ),
    ("target_changed_with_results", {"target": "200"}, "no se puede cambiar su meta"),
    ("date_30_february", {"date": "2026-02-30"}, "fecha válida"),
    ("date_year_1", {"date": "0001-01-01"}, "debe estar entre 1900-01-01 y 2199-12-31"),
    ("date_end_of_calendar", {"date": "9999-12-31"}, "debe estar entre 1900-01-01 y 2199-12-31"),
    ("end_date_before_date", {"end_date": "2026-09-18"}, "no puede ser anterior"),
    ("end_date_two_months_on", {"end_date": "2026-11-30"}, "como mucho 31 días"),
    ("name_empty", {"name": ""}, "obligatorio"),
    ("name_of_invisible_characters", {"name": "\ufeff\u200b\u00ad"}, "obligatorio"),
    ("time_limit_601", {"time_limit": "601"}, "entre 1 y 600"),
    ("forfeit_score_below_target", {"forfeit_winner_tantos": "50"}, "no es un resultado válido"),
    (
        "forfeit_score_huge",
        {"forfeit_winner_tantos": "9223372036854775807"},
        "menor o igual que 99999",
    ),
    ("forfeit_loser_huge", {"forfeit_loser_tantos": "100000"}, "menor o igual que 99999"),
    ("status_unknown", {"status": "borrado"}, "Elige una opción válida"),
    ("director_removes_herself", {"directors": []}, "No puedes quitarte de los directores"),
    ("director_not_staff", {"directors": ["NOT_STAFF"]}, "Elige una opción válida"),
]:
    case(f"settings_{_name}", _frag)(lambda ctx, data=_data: ctx.settings(data))


# Numbers in URLs beyond their range: no page matches (404), whatever the method.
for _name, _path in [
    ("result_table_id_huge", "mesa/99999999999999999999/resultado/"),
    ("result_table_id_zero", "mesa/0/resultado/"),
    ("castigo_round_32768", "ronda/32768/castigos/"),
    ("close_round_minus_one", "ronda/-1/cerrar/"),
    ("pairings_round_leading_zero", "ronda/01/emparejamientos/"),
]:
    case(f"url_{_name}", "No encontramos esa página")(
        lambda ctx, path=_path: ctx.client.post(
            f"/gestion/torneos/{ctx.club.t}/{path}",
            {"tantos_a": "100", "tantos_b": "0", "version": "0", "tantos": "5", "reason": "x"},
        )
    )


# CSV uploads on the tournament page.
@case("upload_wrong_header", "La primera línea debe ser")
def _(ctx):
    return ctx.upload(csv_bytes(GOOD_LINE, header=("ronda", "mesa", "a", "b")))


@case("upload_undecodable_bytes", "no está en UTF-8 ni en Windows-1252")
def _(ctx):
    # 0x81 is neither UTF-8 nor Windows-1252 (a latin-1 file is read as Windows-1252).
    return ctx.upload(
        csv_bytes(GOOD_LINE, f"3,2,Pe\x81alosa & Iñaki,{PAIR.split(',')[1]},100,0,no,no,")
        .decode()
        .encode("latin-1")
    )


@case("upload_utf16", "no está en UTF-8")
def _(ctx):
    return ctx.upload(csv_bytes(GOOD_LINE).decode().encode("utf-16-le"))


@case("upload_bad_line_in_the_middle", "Línea 3")
def _(ctx):
    return ctx.upload(
        csv_bytes(
            GOOD_LINE,
            "3,2,Catálogo 04 & Catálogo 05,Catálogo 06 & Catálogo 07,cien,40,no,no,",
            "3,3,Catálogo 08 & Catálogo 09,Nuevo A & Nuevo B,100,0,no,no,",
        )
    )


for _name, _moment in [
    ("year_1", "0001-01-01 10:00"),
    ("year_9999", "9999-12-31 23:30"),
    ("decades_away", "2066-09-19 18:00"),
    ("the_day_before", "2026-09-18 23:00"),
]:
    case(f"upload_played_at_{_name}", "no cae en los días del torneo")(
        lambda ctx, moment=_moment: ctx.upload(
            csv_bytes(
                GOOD_LINE,
                f"3,2,Catálogo 04 & Catálogo 05,Catálogo 06 & Catálogo 07,100,40,no,no,{moment}",
            )
        )
    )


@case("upload_100000_lines", "líneas")
def _(ctx):
    return ctx.upload(huge_csv())


@case("upload_empty_file", "vacío")
def _(ctx):
    return ctx.upload(b"")


@case("upload_unterminated_quote", "comillas")
def _(ctx):
    return ctx.upload(csv_bytes(GOOD_LINE, '3,2,"Catálogo 04 & Catálogo 05,x,100,0,no,no,'))


@case("upload_into_a_closed_round", "está cerrada")
def _(ctx):
    return ctx.upload(csv_bytes(f"1,1,{PAIR},100,40,no,no,"))


@case("upload_castigo_zero", "mayor que 0")
def _(ctx):
    return ctx.upload(csv_bytes("2,Catálogo 00,0,Hablar", header=CASTIGOS_HEADER), kind="castigos")


@case("upload_castigo_player_of_invisible_characters", "Falta el jugador")
def _(ctx):
    return ctx.upload(csv_bytes("2,\u200b\u2060,5,Hablar", header=CASTIGOS_HEADER), kind="castigos")


@case("upload_castigo_text", "mayor que 0")
def _(ctx):
    return ctx.upload(
        csv_bytes("2,Catálogo 00,diez,Hablar", header=CASTIGOS_HEADER), kind="castigos"
    )


@case("upload_unknown_kind", "Elige una opción válida")
def _(ctx):
    return ctx.upload(csv_bytes(GOOD_LINE), kind="todo")


# Management commands.
@case("command_import_wrong_header", "La primera línea debe ser")
def _(ctx):
    return ctx.command("import_domino_results", ctx.club.t, ctx.file(b"ronda;mesa\n1;1\n"))


@case("command_import_undecodable", "no está en UTF-8 ni en Windows-1252")
def _(ctx):
    return ctx.command(
        "import_domino_results",
        ctx.club.t,
        ctx.file(
            csv_bytes("3,1,Pe\x81alosa & Núñez,Ibáñez & Muñoz,100,0,no,no,")
            .decode()
            .encode("latin-1")
        ),
    )


@case("command_import_bad_line_in_the_middle", "No se importó nada")
def _(ctx):
    return ctx.command(
        "import_domino_results",
        ctx.club.t,
        ctx.file(
            csv_bytes(
                GOOD_LINE,
                "3,2,Catálogo 04 & Catálogo 05,Catálogo 06 & Catálogo 07,100,100,no,no,",
                "3,3,Catálogo 08 & Catálogo 09,Nuevo A & Nuevo B,100,0,no,no,",
            )
        ),
    )


@case("command_import_100000_lines", "líneas")
def _(ctx):
    return ctx.command("import_domino_results", ctx.club.t, ctx.file(huge_csv()))


@case("command_import_castigo_zero", "mayor que 0")
def _(ctx):
    return ctx.command(
        "import_castigos",
        ctx.club.t,
        ctx.file(csv_bytes("2,Catálogo 00,0,Hablar", header=CASTIGOS_HEADER)),
    )


@case("command_import_castigo_text", "mayor que 0")
def _(ctx):
    return ctx.command(
        "import_castigos",
        ctx.club.t,
        ctx.file(csv_bytes(",Catálogo 00,mucho,Hablar", header=CASTIGOS_HEADER)),
    )


@case("command_import_unknown_tournament", "No existe ningún torneo")
def _(ctx):
    return ctx.command("import_domino_results", "no-existe", ctx.file(csv_bytes(GOOD_LINE)))


@case("command_import_missing_file", "No se puede leer")
def _(ctx):
    return ctx.command("import_domino_results", ctx.club.t, str(ctx.tmp_path / "no-esta.csv"))


@case("command_import_match_results_into_domino", "no es suizo")
def _(ctx):
    return ctx.command(
        "import_match_results",
        ctx.club.t,
        ctx.file(
            b"round,table,player_a,player_b,games_a,games_b,games_drawn,drop\n1,1,A,B,2,0,,\n"
        ),
    )


@case("command_create_tournament_bad_date", "AAAA-MM-DD")
def _(ctx):
    return ctx.command(
        "create_tournament",
        "--name",
        "Copa",
        "--date",
        "19/09/2026",
        "--mode",
        "pairs",
        "--target",
        "100",
    )


@case("command_create_tournament_blank_name", "no puede estar vacío")
def _(ctx):
    return ctx.command(
        "create_tournament",
        "--name",
        "   ",
        "--date",
        "2026-09-19",
        "--mode",
        "pairs",
        "--target",
        "100",
    )


@case("command_create_tournament_bad_forfeit_score", "GANADOR-PERDEDOR")
def _(ctx):
    return ctx.command(
        "create_tournament",
        "--name",
        "Copa",
        "--date",
        "2026-09-19",
        "--mode",
        "pairs",
        "--target",
        "100",
        "--forfeit-score",
        "cien-0",
    )


@case("command_import_club_into_a_club", "ya tiene datos del club (players, tournaments")
def _(ctx):
    return ctx.command(
        "import_club", ctx.file(b'{"format": "clubsite-club", "version": 1}', "club.json")
    )


@case("command_import_club_not_json", "no es JSON válido")
def _(ctx):
    return ctx.command("import_club", ctx.file(b"round,table\n", "club.json"))


@case("command_export_club_to_a_missing_folder", "No se puede escribir")
def _(ctx):
    return ctx.command("export_club", str(ctx.tmp_path / "no" / "existe" / "club.json"))


# --- the tests ---------------------------------------------------------------------------------


def test_the_catalogue_has_at_least_forty_cases():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_refused_in_words_and_changes_nothing(name, club, db, client, tmp_path):
    client.force_login(club.director)
    ctx = Ctx(club=club, client=client, tmp_path=tmp_path)
    fn, fragment = CASES[name]
    before = dump()
    started = time.monotonic()
    outcome = fn(ctx)
    elapsed = time.monotonic() - started
    if isinstance(outcome, tuple):  # a management command: it raised CommandError
        error, stderr = outcome
        text = f"{error}\n{stderr}"
    else:
        response = outcome
        assert response.status_code < 500, (name, response.status_code)
        text = html.unescape(response.content.decode())
        if response.status_code < 400:
            # Only a redirect to a page that carries the message, or a page with the message.
            assert getattr(response, "redirect_chain", None) or response.status_code == 200, (
                response.status_code
            )
            assert (
                'role="alert"' in text or 'class="messages"' in text or 'class="errorlist' in text
            ), text[:500]
    fragments = fragment if isinstance(fragment, tuple) else (fragment,)
    assert any(f in text for f in fragments), (name, text[-3000:])
    assert not ("Traceback" in text or "Server Error" in text)
    assert dump() == before, f"{name} changed the database"
    assert elapsed < 30, f"{name} took {elapsed:.1f} s"


def test_the_refusals_are_fast_for_a_100000_line_file(club, db, client, tmp_path):
    client.force_login(club.director)
    ctx = Ctx(club=club, client=client, tmp_path=tmp_path)
    data = huge_csv()
    started = time.monotonic()
    response = ctx.upload(data)
    assert response.status_code == 400
    assert time.monotonic() - started < 5


def test_the_dump_notices_a_valid_change(club, db, client, tmp_path):
    """Control: the same harness, with good input, does change the database."""
    client.force_login(club.director)
    ctx = Ctx(club=club, client=client, tmp_path=tmp_path)
    before = dump()
    response = ctx.result({"tantos_a": "100", "tantos_b": "10", "version": "0"})
    assert response.status_code == 200
    assert Table.objects.get(pk=club.empty_table).version == 1
    assert dump() != before
