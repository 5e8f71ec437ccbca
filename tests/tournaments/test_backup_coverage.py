"""What a club backup holds, by construction (issue 25, point 1; docs/backup.md): every model
of every installed app is in the file or excluded with its reason, and a new one placed
nowhere fails here with its name; every value is written by its field's type and read back
the same, for every type the models use and the ones they may use next (times, durations,
decimals, JSON ...), through the database too."""

import datetime as dt
import decimal
import json
import re
import uuid
import zoneinfo
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, models
from django.test.utils import isolate_apps

from tournaments import backup

DOCS = Path(__file__).resolve().parents[2] / "docs" / "backup.md"


def every_model():
    return apps.get_models(include_auto_created=True)


# --- every model is placed ----------------------------------------------------------------------


def test_every_model_of_every_installed_app_is_in_the_file_or_excluded():
    assert backup.unplaced(every_model()) == []
    placed = {m._meta.label: backup.placement(m) for m in every_model()}
    assert placed["tournaments.Notice"] == "section «notices»"
    assert placed["tournaments.HistoricalSignUp"] == "history of «signups»"
    assert placed["tournaments.League_tournaments"] == "«tournaments» of each record of «leagues»"
    assert placed["tournaments.Tournament_directors"] == (
        "«directors» of each record of «tournaments»"
    )
    assert placed["rankings.LedgerRow"].startswith("excluded: derived: rebuilt by the import")
    assert placed["auth.User"].startswith("excluded: user accounts and their rights")


def test_a_model_added_and_placed_nowhere_is_named_by_the_enumeration(monkeypatch):
    """The function the test above relies on, against a model list with new models: a model,
    its many-to-many table; placed as a section (its table follows) or excluded, it passes."""
    with isolate_apps("tournaments"):

        class Trophy(models.Model):
            name = models.CharField(max_length=40)

            class Meta:
                app_label = "tournaments"

        class Prize(models.Model):
            trophies = models.ManyToManyField(Trophy)

            class Meta:
                app_label = "tournaments"

        models_now = [*every_model(), Trophy, Prize, Prize.trophies.through]
        assert backup.unplaced(models_now) == [
            "tournaments.Prize",
            "tournaments.Prize_trophies",
            "tournaments.Trophy",
        ]
        monkeypatch.setattr(backup, "SECTIONS", (*backup.SECTIONS, ("prizes", Prize)))
        assert backup.unplaced(models_now) == ["tournaments.Trophy"]
        assert backup.placement(Prize.trophies.through) == "«trophies» of each record of «prizes»"
        monkeypatch.setitem(backup.EXCLUDED, "tournaments.Trophy", "a test's model")
        assert backup.unplaced(models_now) == []


def test_every_exclusion_names_a_model_of_this_site_and_says_why_here_and_in_the_docs():
    labels = {m._meta.label for m in every_model()}
    assert sorted(set(backup.EXCLUDED) - labels) == []  # no stale entry
    docs = DOCS.read_text(encoding="utf-8")
    for label, reason in backup.EXCLUDED.items():
        assert len(reason) > 20, label
        assert f"`{label}`" in docs, f"docs/backup.md does not name {label}"
    sections = {m._meta.label for m in backup.file_models()}
    assert sections.isdisjoint(backup.EXCLUDED)
    # What the issue names: accounts out; sign-ups, leagues, sent notices in.
    assert {"auth.User", "tournaments.ImportJob", "rankings.ReplayRequest"} <= set(backup.EXCLUDED)
    assert {"signups", "leagues", "notices"} <= {key for key, _m in backup.SECTIONS}


def test_every_reference_of_the_file_points_back_into_it_or_at_an_account():
    """Restored in ``SECTIONS`` order, a record's references point at sections restored
    before it (or itself), or at an account (by username); many-to-many lists at a section or
    an account. A reference to an excluded model would be a broken file."""
    User = get_user_model()
    order = {model: i for i, (_k, model) in enumerate(backup.SECTIONS)}
    for model, i in order.items():
        for field in model._meta.concrete_fields:
            if field.is_relation and field.related_model is not User:
                assert order.get(field.related_model, i + 1) <= i, f"{model.__name__}.{field.name}"
        for field in model._meta.many_to_many:
            assert field.related_model is User or field.related_model in order, field


def test_each_section_has_its_history_when_the_model_keeps_one():
    keys = [key for key, model in backup.SECTIONS if backup.has_history(model)]
    assert keys == [key for key, _m in backup.SECTIONS if key != "notices"]
    assert [key for key, _m in backup.sections_of(3)] == keys[:-2]  # no signups, leagues
    assert backup.SINCE == {"signups": 4, "leagues": 4, "notices": 4}


# --- every field type ---------------------------------------------------------------------------


def test_every_stored_field_of_the_file_has_a_writer():
    assert backup.unsupported_fields() == []
    used = {
        backup._value_field(f).get_internal_type()
        for m in backup.file_models()
        for f in m._meta.concrete_fields
    }
    assert {"TimeField", "DateField", "DateTimeField", "FloatField", "TextField"} <= used
    assert used <= set(backup.WRITERS)


MADRID = zoneinfo.ZoneInfo("Europe/Madrid")

CASES = [
    # (field, stored value, its form in the file)
    (
        models.DateTimeField(),
        dt.datetime(2026, 3, 29, 2, 30, 5, 123456, tzinfo=dt.UTC),
        "2026-03-29T02:30:05.123456+00:00",
    ),
    (
        models.DateTimeField(),
        dt.datetime(2026, 7, 1, 21, 0, tzinfo=MADRID),
        "2026-07-01T19:00:00+00:00",
    ),
    (models.DateField(), dt.date(1999, 12, 31), "1999-12-31"),
    (models.TimeField(), dt.time(19, 30), "19:30:00"),
    (models.TimeField(), dt.time(0, 0, 0, 250), "00:00:00.000250"),
    (
        models.DurationField(),
        dt.timedelta(days=1, hours=2, seconds=4, microseconds=5),
        "P1DT02H00M04.000005S",
    ),
    (models.DurationField(), -dt.timedelta(seconds=1), "-P0DT00H00M01S"),
    (models.DurationField(), dt.timedelta(0), "P0DT00H00M00S"),
    (models.DecimalField(max_digits=8, decimal_places=2), decimal.Decimal("12.50"), "12.50"),
    (
        models.DecimalField(max_digits=30, decimal_places=20),
        decimal.Decimal("0.10000000000000000001"),
        "0.10000000000000000001",
    ),
    (
        models.JSONField(),
        {"a": [1, 2.5, None, "ñ"], "b": {"c": True}},
        {"a": [1, 2.5, None, "ñ"], "b": {"c": True}},
    ),
    (models.JSONField(), ["x", 1], ["x", 1]),
    (models.JSONField(), "solo texto", "solo texto"),
    (
        models.UUIDField(),
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "12345678-1234-5678-1234-567812345678",
    ),
    (models.BinaryField(), b"\x00\xffclub", "AP9jbHVi"),
    (models.FloatField(), 0.1, 0.1),
    (models.BigIntegerField(), -(2**63), -(2**63)),
    (models.PositiveSmallIntegerField(), 32767, 32767),
    (models.BooleanField(), False, False),
    (models.CharField(max_length=20), "Peña «El Doble»\n", "Peña «El Doble»\n"),
    (models.GenericIPAddressField(), "2001:db8::1", "2001:db8::1"),
    (models.EmailField(), "ana@example.org", "ana@example.org"),
    (models.TimeField(null=True), None, None),
]


@pytest.mark.parametrize(("field", "value", "written"), CASES)
def test_each_field_type_is_written_by_its_type_and_read_back_the_same(field, value, written):
    encoded = backup.encode(field, value)
    assert encoded == written
    through_text = json.loads(json.dumps(encoded, ensure_ascii=False))
    assert backup.decode(field, through_text) == value
    assert backup.encode(field, backup.decode(field, through_text)) == written  # stable


def test_a_field_of_an_unknown_type_stops_the_export_with_its_name(monkeypatch, db, tmp_path):
    with isolate_apps("tournaments"):

        class PointField(models.Field):
            def get_internal_type(self):
                return "PointField"

        class Place(models.Model):
            where = PointField()

            class Meta:
                app_label = "tournaments"

        assert backup.unsupported_fields([Place]) == ["tournaments.Place.where (PointField)"]
        message = (
            "tournaments.Place.where: la copia no sabe escribir un PointField; añada su forma a "
            "tournaments.backup.WRITERS."
        )
        with pytest.raises(backup.UnsupportedField, match=re.escape(message)):
            backup.records(Place, {})
        monkeypatch.setattr(backup, "SECTIONS", (*backup.SECTIONS, ("places", Place)))
        target = tmp_path / "club.json"
        with pytest.raises(CommandError, match="^No se hizo la copia: " + re.escape(message)):
            call_command("export_club", str(target), stdout=StringIO(), stderr=StringIO())
        assert not target.exists()


@pytest.mark.django_db(transaction=True)
def test_a_model_of_every_field_type_goes_through_the_database_and_back():
    """A model nobody wrote backup code for, with a field of every type ``WRITERS`` knows:
    its rows, exported, deleted and restored by the same functions as the club's, are the
    same values, and export again to the same text."""
    with isolate_apps("tournaments"):

        class EveryType(models.Model):
            big = models.BigIntegerField(null=True)
            small = models.SmallIntegerField(null=True)
            positive = models.PositiveIntegerField(null=True)
            flag = models.BooleanField(null=True)
            ratio = models.FloatField(null=True)
            money = models.DecimalField(max_digits=10, decimal_places=3, null=True)
            name = models.CharField(max_length=30, blank=True)
            text = models.TextField(blank=True)
            slug = models.SlugField(blank=True)
            email = models.EmailField(blank=True)
            url = models.URLField(blank=True)
            address = models.GenericIPAddressField(null=True)
            day = models.DateField(null=True)
            moment = models.DateTimeField(null=True)
            hour = models.TimeField(null=True)
            length = models.DurationField(null=True)
            key = models.UUIDField(null=True)
            blob = models.BinaryField(null=True)
            data = models.JSONField(null=True)

            class Meta:
                app_label = "tournaments"

        full = {
            "big": 2**62,
            "small": -7,
            "positive": 0,
            "flag": True,
            "ratio": 1 / 3,
            "money": decimal.Decimal("-1234.500"),
            "name": "Dominó «Ñ»",
            "text": "línea 1\nlínea 2\t\u200b",
            "slug": "copa-2026",
            "email": "jugadora@example.org",
            "url": "https://club.example.org/torneos/?a=1",
            "address": "192.0.2.7",
            "day": dt.date(2026, 2, 28),
            "moment": dt.datetime(2026, 10, 25, 2, 30, 0, 1, tzinfo=MADRID),
            "hour": dt.time(23, 59, 59, 999999),
            "length": dt.timedelta(days=-2, seconds=3, microseconds=7),
            "key": uuid.UUID("00000000-0000-4000-8000-000000000001"),
            "blob": b"\x00\x01\xfe\xff",
            "data": {"rondas": [1, 2], "nota": None, "ok": False, "x": 1.5},
        }
        with connection.schema_editor() as editor:
            editor.create_model(EveryType)
        try:
            EveryType.objects.create(**full)
            EveryType.objects.create()  # every nullable value empty
            before = list(EveryType.objects.order_by("pk").values())
            text = backup.dumps({"rows": backup.records(EveryType, {})})
            EveryType.objects.all().delete()
            rows = json.loads(text)["rows"]
            assert rows[0]["hour"] == "23:59:59.999999"
            assert rows[0]["length"] == "-P1DT23H59M56.999993S"
            assert rows[0]["money"] == "-1234.500"
            assert rows[1]["data"] is None and rows[1]["hour"] is None
            missing: set = set()
            EveryType.objects.bulk_create(
                [backup.instance(EveryType, "every", r, {}, missing) for r in rows]
            )
            after = list(EveryType.objects.order_by("pk").values())
            for row in (*before, *after):
                row["blob"] = None if row["blob"] is None else bytes(row["blob"])
            assert after == before
            # 02:30 on the night the clocks go back happens twice in Madrid (PEP 495: such a
            # time never compares equal across zones): the instant is what must survive.
            assert after[0]["moment"].timestamp() == full["moment"].timestamp()
            assert after[0]["data"] == full["data"]
            assert backup.dumps({"rows": backup.records(EveryType, {})}) == text
            assert missing == set()
        finally:
            with connection.schema_editor() as editor:
                editor.delete_model(EveryType)


def test_export_club_names_a_model_placed_nowhere_and_still_writes_the_backup(
    monkeypatch, db, tmp_path
):
    monkeypatch.delitem(backup.EXCLUDED, "tournaments.ImportJob")
    err = StringIO()
    call_command("export_club", str(tmp_path / "club.json"), stdout=StringIO(), stderr=err)
    assert err.getvalue().startswith(
        "Aviso: estos modelos no están en la copia ni en su lista de exclusiones "
        "(tournaments.backup.EXCLUDED): tournaments.ImportJob.\n"
        "Copia escrita en "
    )
    assert json.loads((tmp_path / "club.json").read_text())["version"] == 4
