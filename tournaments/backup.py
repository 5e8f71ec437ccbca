"""Backup and restore of the whole club, with its change history (docs/backup.md).

``export_club()`` returns one versioned JSON document holding every row of every model listed
in ``SECTIONS`` (players, tournaments, entries, rounds, tables, seats, byes, results of every
system, castigos, sorteos, sign-up requests, leagues, sent notices), their many-to-many links
(a tournament's directors, a league's tournaments) and every row of their change history
(django-simple-history); ``import_club(document)`` restores such a document into a database
that holds none of them, keeping every id and every history row as it was, then rebuilds the
Elo ledger (derived data, never exported: ``rankings.ledger``).

By construction, not by list of fields:

- a record holds **every stored column** of its model (``Model._meta.concrete_fields``), and
  each value is written by the **type of its field** (``WRITERS``, keyed by
  ``Field.get_internal_type()``: dates, times, date-times in UTC, durations, decimals as exact
  text, JSON as it is, ...) and read back by that field's own ``to_python``; a reference is
  written as its target's key, and a reference to a user account as the username. A new field
  of any of these types is in the file the day it is added; a field of a type ``WRITERS`` does
  not know stops the export with its name (``UnsupportedField``), never a bad file;
- every model of every installed app is either in ``SECTIONS`` (with its history model and
  its many-to-many tables) or in ``EXCLUDED`` with the reason; ``unplaced(models)`` names
  those in neither, and ``tests/tournaments/test_backup_coverage.py`` fails on any.

Document (``FORMAT``, ``VERSION`` 4)::

    {"format": "clubsite-club", "version": 4,
     "players": [{"id": 1, "full_name": "Ana Ruiz", ...}, ...],      # by id
     "tournaments": [{"id": 1, ..., "start_time": "19:30:00", "directors": ["director"]}, ...],
     "entries": [...], ..., "signups": [...],
     "leagues": [{"id": 1, ..., "tournaments": [1, 4]}, ...], "notices": [...],
     "history": {"players": [{"history_id": 1, "history_date": "2026-02-07T18:00:00+00:00",
                              "history_type": "+", "history_change_reason": null,
                              "history_user": "director", "id": 1, "full_name": ...}, ...],
                 "tournaments": [...], ...}}         # one list per section that has history

Each record holds the model's stored fields under their column names (``tournament_id``),
except references to user accounts, which hold the username (``entered_by``,
``recorded_by``, ``decided_by``, ``user``, ``history_user``): accounts and passwords are not
part of a backup. A many-to-many field is a sorted list under its name (ids; usernames for
accounts). Lists are ordered by id (history: by ``history_id``) and keys sorted, so the same
club always gives the same bytes. ``Player.name_key`` is derived and recomputed on import for
the live players; a history row keeps every tracked field as it was stored then.

History: a history record is the historical model's row, column for column: ``history_id``,
``history_date``, ``history_type`` ("+", "~", "-"), ``history_change_reason``,
``history_user`` and the tracked fields, references by id as in the live records (a history
row may name an object deleted since, as in the source database). Import writes those rows as
they are (same ``history_id``) and adds none of its own. A username the target database does
not know leaves that reference empty (the change stays, without its author) and is reported.

The import checks each value as the database and the pages need it (its type, empty where
the column allows it, its length, one of its choices) but not the club's rules that a form or
a service applies (``MAX_SCORE``, a non-empty reason...): a row stored before a rule existed,
or by hand, comes back as it was and is shown "needs correction" as before.

Versions (``SINCE``, ``UPGRADES``): the version changes whenever a record's keys do or a
section is added. ``import_club`` reads every earlier version: version 1 named a seat's
``victory_points`` ``vp``; versions 1 and 2 carry no history (restoring them writes one
history row per object with the reason ``CHANGE_REASON``); versions 1 to 3 have no sign-up
requests, leagues or sent notices (restored without them, and the import says so).
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import json

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction
from django.db.models import Max
from django.utils.duration import duration_iso_string
from django.utils.translation import gettext, ngettext
from simple_history.utils import bulk_create_with_history

from clubsite import pagecache
from rankings import ledger
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    FinalPlace,
    League,
    MatchResult,
    Notice,
    Player,
    Result,
    Round,
    Seat,
    SignUp,
    Sorteo,
    Table,
    TableResult,
    Tournament,
    name_key,
)

FORMAT = "clubsite-club"
VERSION = 4

#: The first version whose documents carry the change history (the "history" section).
HISTORY_SINCE = 3

#: What changed in the records from version n to n + 1: {n: {section: {old key: new key}}}.
#: A document of version n is read by applying each step from n up to ``VERSION``.
#: From 2 to 3 no key changed (the "history" section was added), nor from 3 to 4 (the
#: sections "signups", "leagues" and "notices" were added: ``SINCE``).
UPGRADES: dict[int, dict[str, dict[str, str]]] = {
    1: {"seats": {"vp": "victory_points"}},  # Seat.vp became Seat.victory_points
}

#: (key in the document, model): the club's data, in the order they are restored (references
#: point backwards; a many-to-many list is restored after every section). A model with
#: ``history = HistoricalRecords()`` has its history rows under the same key in "history".
SECTIONS = (
    ("players", Player),
    ("tournaments", Tournament),
    ("entries", Entry),
    ("rounds", Round),
    ("tables", Table),
    ("seats", Seat),
    ("byes", Bye),
    ("results", Result),
    ("match_results", MatchResult),
    ("table_results", TableResult),
    ("castigos", Castigo),
    ("sorteos", Sorteo),
    ("signups", SignUp),  # what players asked; accepted ones point at their entry
    ("leagues", League),  # with its settings (points by place, best N ...) and tournaments
    ("notices", Notice),  # messages sent: restored, so a restore never mails anyone twice
)

#: The version that added each section; a section not named here is in every version.
SINCE = {"signups": 4, "leagues": 4, "notices": 4}

#: What the file does not hold, model by model (``app_label.ModelName``: why). docs/backup.md
#: says the same. A model of an installed app that is neither here nor in ``SECTIONS`` (with
#: its history and many-to-many tables) fails tests/tournaments/test_backup_coverage.py.
_ACCOUNTS = (
    "user accounts and their rights: a backup travels (copied off the server, kept on a "
    "laptop), so it holds no password hash, email or staff flag, and restoring it can grant "
    "no one rights; accounts are made by hand and matched by username on import"
)
EXCLUDED: dict[str, str] = {
    "auth.User": _ACCOUNTS,
    "auth.Group": _ACCOUNTS + " (the directors' group is made by the migrations)",
    "auth.User_groups": _ACCOUNTS,
    "auth.Group_permissions": _ACCOUNTS,
    "auth.User_user_permissions": _ACCOUNTS,
    "auth.Permission": "made by migrate for every model",
    "contenttypes.ContentType": "made by migrate for every model",
    "sessions.Session": "logins in progress: operational, and a session is a credential",
    "axes.AccessAttempt": "failed logins by address (login throttling): operational",
    "axes.AccessAttemptExpiration": "failed logins by address (login throttling): operational",
    "axes.AccessFailureLog": "failed logins by address (login throttling): operational",
    "axes.AccessLog": "logins by address (login throttling): operational",
    "admin.LogEntry": (
        "the admin's action log: operational; the admin's history pages read the change "
        "history, which is in the file"
    ),
    "django_tasks_database.DBTaskResult": (
        "the background queue (mails, replays, imports waiting or done): operational; the "
        "import rebuilds the ranking itself"
    ),
    "tournaments.ImportJob": (
        "a results or castigos file on its way in: operational; what it imported is in the "
        "file (results and castigos with their history), and its text or workbook is the "
        "uploaded file, kept only until it ends"
    ),
    "tournaments.FinalPlace": (
        "derived: the finished tournaments' final places, stored again by the import from the "
        "restored results"
    ),
    "rankings.LedgerRow": "derived: rebuilt by the import from the restored results",
    "rankings.YearRating": "derived: the year figures, rebuilt with the ledger",
    "rankings.LedgerStatus": "derived: written by the import's rebuild (current, or why not)",
    "rankings.ReplayRequest": (
        "operational: replays waiting for the worker; the import rebuilds everything, so none "
        "is waiting after a restore"
    ),
    "rankings.PlayerStory": (
        "derived: each player's story figures (partners, rivals, zapatos), computed again by "
        "the first reader of the player's page after a restore"
    ),
    "rankings.StoryRequest": (
        "operational: stories waiting for the worker; a restore has no stored stories to refresh"
    ),
}

HISTORY = "history"

#: Fields recomputed on import rather than stored in the document.
DERIVED = {(Player, "name_key")}

#: The change reason of the one history row written per object when a document without history
#: (versions 1 and 2) is restored.
CHANGE_REASON = "Restaurado con import_club"


class RestoreError(Exception):
    """The document cannot be restored; nothing was written. The message is Spanish text."""


class UnsupportedField(Exception):
    """A model in the file has a field of a type ``WRITERS`` does not know: no backup is made
    (a file that cannot be read back is worse than none). The message names the field."""


# --- values, by field type ------------------------------------------------------------------


def _same(value):
    return value


def _instant(value: dt.datetime) -> str:
    """A date-time in UTC with its offset ("2026-02-07T18:00:00.123456+00:00")."""
    return value.astimezone(dt.UTC).isoformat() if value.tzinfo else value.isoformat()


def _binary(value) -> str:
    return base64.b64encode(bytes(value)).decode("ascii")


#: How a stored value is written in the document, by its field's ``get_internal_type()``. Each
#: is read back by the field's own ``to_python`` (``decode``), which takes exactly this form:
#: ISO 8601 dates, times ("19:30:00.000250") and date-times (UTC, with the offset), a
#: duration as ISO 8601 ("P1DT02H03M04.000005S", "-P0DT00H00M01S"), a decimal as its exact
#: text ("12.50", never a binary float), a UUID as text, bytes as base64, a JSON value as it
#: is; numbers, booleans and text as they are. None is always null.
WRITERS = {
    **dict.fromkeys(
        (
            "AutoField",
            "BigAutoField",
            "SmallAutoField",
            "IntegerField",
            "BigIntegerField",
            "SmallIntegerField",
            "PositiveIntegerField",
            "PositiveSmallIntegerField",
            "PositiveBigIntegerField",
            "BooleanField",
            "FloatField",
            "CharField",
            "TextField",
            "SlugField",
            "EmailField",
            "URLField",
            "FilePathField",
            "FileField",
            "ImageField",
            "GenericIPAddressField",
            "IPAddressField",
            "JSONField",
        ),
        _same,
    ),
    "DateField": dt.date.isoformat,
    "DateTimeField": _instant,
    "TimeField": dt.time.isoformat,
    "DurationField": duration_iso_string,
    "DecimalField": str,
    "UUIDField": str,
    "BinaryField": _binary,
}


def _value_field(field):
    """The field whose type says how ``field``'s value is written: the target's key field for a
    reference (a foreign key holds its target's id), the field itself otherwise."""
    while field.is_relation and (field.many_to_one or field.one_to_one):
        field = field.target_field
    return field


def _writer(field):
    base = _value_field(field)
    writer = WRITERS.get(base.get_internal_type())
    if writer is None:
        raise UnsupportedField(
            f"{field.model._meta.label}.{field.name}: la copia no sabe escribir un "
            f"{base.get_internal_type()}; añada su forma a tournaments.backup.WRITERS."
        )
    return writer


def encode(field, value):
    """``value`` as stored in ``field`` (a model field: what ``values_list`` gives), written as
    a JSON-ready value (``WRITERS``); None stays None. Raises ``UnsupportedField``."""
    writer = _writer(field)
    return None if value is None else writer(value)


def decode(field, value):
    """The inverse of ``encode``: the Python value to store in ``field``, through the field's
    own ``to_python`` (a reference through its target's key field). Raises
    ``ValidationError`` for a value of the wrong form, ``UnsupportedField``."""
    _writer(field)
    return None if value is None else _value_field(field).to_python(value)


def unsupported_fields(models=None) -> list[str]:
    """``label.field (type)`` of every stored field of ``models`` (default: the models of the
    file, their history models included) whose type ``WRITERS`` does not know; [] when every
    one can be written and read back."""
    out = []
    for model in models if models is not None else file_models():
        for field in model._meta.concrete_fields:
            try:
                _writer(field)
            except UnsupportedField:
                kind = _value_field(field).get_internal_type()
                out.append(f"{model._meta.label}.{field.name} ({kind})")
    return out


# --- which models -----------------------------------------------------------------------------


def has_history(model) -> bool:
    """Whether ``model`` keeps a change history (``history = HistoricalRecords()``)."""
    return getattr(model._meta, "simple_history_manager_attribute", None) is not None


def history_model(model):
    """The django-simple-history model holding ``model``'s change history (``HistoricalPlayer``
    for ``Player``)."""
    return model.history.model


def _many(model) -> list:
    """The many-to-many fields declared on ``model`` (their lists go in its records)."""
    return list(model._meta.many_to_many)


def file_models() -> list:
    """Every model whose rows the file holds as records: the sections' models and their
    history models."""
    out = []
    for _key, model in SECTIONS:
        out.append(model)
        if has_history(model):
            out.append(history_model(model))
    return out


def placement(model) -> str | None:
    """Where the file holds ``model``'s rows, in words: ``"section «players»"``, ``"history of
    «players»"``, ``"«directors» of each record of «tournaments»"`` (a many-to-many table),
    ``"excluded: <why>"``; None when nowhere (a model nobody placed)."""
    label = model._meta.label
    if label in EXCLUDED:
        return f"excluded: {EXCLUDED[label]}"
    for key, section in SECTIONS:
        if model is section:
            return f"section «{key}»"
        if has_history(section) and model is history_model(section):
            return f"history of «{key}»"
        for field in _many(section):
            if model is field.remote_field.through:
                return f"«{field.name}» of each record of «{key}»"
    return None


def unplaced(models) -> list[str]:
    """The labels (``app_label.ModelName``) of ``models`` that are neither in the file nor in
    ``EXCLUDED``, sorted. The coverage test passes every installed model
    (``apps.get_models(include_auto_created=True)``): a model added to any app fails it until
    it is placed."""
    return sorted(m._meta.label for m in models if placement(m) is None)


def sections_of(version: int) -> list[tuple[str, type]]:
    """The ``SECTIONS`` a document of ``version`` holds."""
    return [(key, model) for key, model in SECTIONS if SINCE.get(key, 1) <= version]


def _history_sections(version: int) -> list[tuple[str, type]]:
    if version < HISTORY_SINCE:
        return []
    return [(key, model) for key, model in sections_of(version) if has_history(model)]


# --- export -----------------------------------------------------------------------------------


def _is_user_fk(field) -> bool:
    return field.is_relation and field.related_model is get_user_model()


def _fields(model):
    """(document key, field) of the model's stored columns, in model order."""
    out = []
    for field in model._meta.concrete_fields:
        if (model, field.name) in DERIVED:
            continue
        out.append((field.name if _is_user_fk(field) else field.attname, field))
    return out


def _links(model, field, usernames: dict) -> dict:
    """{object id: sorted list of the targets of ``model``'s many-to-many ``field``} (ids;
    usernames for accounts)."""
    through = field.remote_field.through
    source = through._meta.get_field(field.m2m_field_name())
    target = through._meta.get_field(field.m2m_reverse_field_name())
    out: dict = {}
    for owner, other in through._base_manager.values_list(source.attname, target.attname):
        value = usernames.get(other) if _is_user_fk(target) else encode(target, other)
        out.setdefault(owner, []).append(value)
    return {owner: sorted(values, key=lambda v: (v is None, v)) for owner, values in out.items()}


def records(model, usernames: dict) -> list[dict]:
    """Every row of ``model`` as a document record, by primary key (``history_id`` for a
    history model): each stored column written by its field's type (``encode``), a reference
    to an account as the username (``usernames``: {user id: username}), each many-to-many
    field as the sorted list of its targets. Raises ``UnsupportedField``."""
    fields = _fields(model)
    for _name, field in fields:
        _writer(field)  # refuse before reading a row
    many = [(f.name, _links(model, f, usernames)) for f in _many(model)]
    rows = []
    for pk, *values in model._base_manager.order_by("pk").values_list(
        "pk", *(f.attname for _k, f in fields)
    ):
        record = {}
        for (name, field), value in zip(fields, values, strict=True):
            record[name] = usernames.get(value) if _is_user_fk(field) else encode(field, value)
        for name, links in many:
            record[name] = links.get(pk, [])
        rows.append(record)
    return rows


def export_club() -> dict:
    """The whole club with its change history as a JSON-ready dict (see the module docstring).
    A consistent snapshot: one transaction (REPEATABLE READ on PostgreSQL when not already
    inside a transaction). Raises ``UnsupportedField`` (nothing written)."""
    User = get_user_model()
    fresh = not connection.in_atomic_block
    with transaction.atomic():
        if fresh and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        usernames = dict(User.objects.values_list("pk", User.USERNAME_FIELD))
        doc: dict = {"format": FORMAT, "version": VERSION}
        for key, model in SECTIONS:
            doc[key] = records(model, usernames)
        doc[HISTORY] = {
            key: records(history_model(model), usernames)
            for key, model in _history_sections(VERSION)
        }
    return doc


def dumps(doc: dict) -> str:
    """The document as text: stable (sorted keys, lists by id), UTF-8 friendly, one line per value."""
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# --- import -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _keep_timestamps():
    """Store ``auto_now``/``auto_now_add`` fields as given in the document, not as "now"."""
    switched = []
    for _key, model in SECTIONS:
        for field in model._meta.concrete_fields:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                switched.append((field, field.auto_now, field.auto_now_add))
                field.auto_now = field.auto_now_add = False
    try:
        yield
    finally:
        for field, auto_now, auto_now_add in switched:
            field.auto_now, field.auto_now_add = auto_now, auto_now_add


def _choice_values(field) -> set:
    return {value for value, _label in field.flatchoices}


def _checked(field, value):
    """``value`` (a document value) as ``field`` stores it, checked as the database and the
    pages need it: its form (``decode``), empty only where the column allows it, its length,
    one of its choices, the range of its column; not the club's rules a form or a service
    applies (the field's own validators: ``MAX_SCORE`` ...), which a row stored before the rule
    existed may break. Raises ``ValidationError``."""
    value = decode(field, value)
    if value is None:
        if not field.null:
            raise ValidationError(field.error_messages["null"], code="null")
        return None
    if field.choices and not field.is_relation and value not in _choice_values(field):
        raise ValidationError(
            field.error_messages["invalid_choice"] % {"value": value}, code="invalid_choice"
        )
    if value in field.empty_values:  # "" in a text column: Django validates no empty value
        return value
    own = list(getattr(field, "_validators", []))
    for validator in _value_field(field).validators:
        if validator not in own:
            validator(value)
    return value


def instance(model, key: str, record, users: dict, missing_users: set):
    """The instance of ``model`` that ``record`` (a document record) describes, not saved:
    each value checked (``_checked``), accounts looked up by username in ``users`` ({username:
    user id}; a name not there is added to ``missing_users`` and left empty). ``key`` names the
    section in messages. Raises ``RestoreError`` naming the record and the field."""
    if not isinstance(record, dict):
        raise RestoreError(f"«{key}»: cada elemento debe ser un objeto JSON.")
    pk = model._meta.pk.attname  # "id"; "history_id" for a history row
    fields = _fields(model)
    allowed = {name for name, _f in fields} | {f.name for f in _many(model)}
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise RestoreError(
            f"«{key}» {pk} {record.get(pk)!r}: campos desconocidos {', '.join(unknown)}."
        )
    values = {}
    for name, field in fields:
        if name not in record:
            if field.has_default() or field.null:
                continue
            raise RestoreError(f"«{key}» {pk} {record.get(pk)!r}: falta el campo «{name}».")
        value = record[name]
        if _is_user_fk(field):
            if value is not None and value not in users:
                missing_users.add(value)
            values[field.attname] = users.get(value) if value is not None else None
            continue
        try:
            values[field.attname] = _checked(field, value)
        except (ValidationError, ValueError, TypeError) as exc:
            reason = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
            raise RestoreError(
                f"«{key}» {pk} {record.get(pk)!r}: {name}: {reason}"
                + ("" if reason.endswith(".") else ".")
            ) from None
    if values.get(pk) is None:
        raise RestoreError(f"«{key}»: un elemento no tiene «{pk}».")
    obj = model(**values)
    if model is Player:
        obj.name_key = name_key(obj.full_name)
    return obj


def _link_rows(model, key: str, records: list, users: dict, missing_users: set) -> dict:
    """{through model: [rows]} of the many-to-many lists in ``records``. A username the
    database does not know is left out and reported; an id must name a restored object (the
    constraint check refuses the file otherwise). Raises ``RestoreError``."""
    out: dict = {}
    for field in _many(model):
        through = field.remote_field.through
        source = through._meta.get_field(field.m2m_field_name())
        target = through._meta.get_field(field.m2m_reverse_field_name())
        rows = out.setdefault(through, [])
        for record in records:
            targets = record.get(field.name, [])
            if not isinstance(targets, list):
                raise RestoreError(f"«{key}» id {record['id']}: «{field.name}» debe ser una lista.")
            seen = set()
            for value in targets:
                if _is_user_fk(target):
                    if value not in users:
                        missing_users.add(value)
                        continue
                    other = users[value]
                else:
                    try:
                        other = _checked(target, value)
                    except (ValidationError, ValueError, TypeError):
                        raise RestoreError(
                            f"«{key}» id {record['id']}: «{field.name}»: {value!r} no es un id."
                        ) from None
                if other in seen:
                    continue
                seen.add(other)
                rows.append(through(**{source.attname: record["id"], target.attname: other}))
    return out


def _upgrade(doc: dict) -> dict:
    """``doc`` with the record keys of its version renamed to this version's (``UPGRADES``);
    ``doc`` itself is left as it is. Records that are not objects are left for ``instance``
    to refuse; a key whose new name is already in the record is kept (and refused as
    unknown)."""
    doc = dict(doc)
    for version in range(doc["version"], VERSION):
        for key, renames in UPGRADES.get(version, {}).items():
            records = doc.get(key)
            if not isinstance(records, list):
                continue
            doc[key] = [_renamed(r, renames) if isinstance(r, dict) else r for r in records]
    doc["version"] = VERSION
    return doc


def _renamed(record: dict, renames: dict[str, str]) -> dict:
    out = {}
    for key, value in record.items():
        new = renames.get(key)
        out[new if new is not None and new not in record else key] = value
    return out


def _history_rows() -> int:
    """How many change-history rows the database holds, over every section's model."""
    return sum(
        history_model(model)._base_manager.count() for _key, model in SECTIONS if has_history(model)
    )


def _restore_history(history, version: int, users: dict, missing_users: set) -> tuple[int, int]:
    """Write the document's "history" section as it is (same ``history_id``); returns (rows
    written, rows whose ``history_user`` is unknown here and was left empty). Raises
    ``RestoreError``."""
    if not isinstance(history, dict):
        raise RestoreError(gettext("«history» debe ser un objeto JSON con una lista por sección."))
    sections = _history_sections(version)
    unknown = sorted(set(history) - {key for key, _m in sections})
    if unknown:
        raise RestoreError(
            gettext("«history»: secciones desconocidas: %(sections)s.")
            % {"sections": ", ".join(unknown)}
        )
    written = authorless = 0
    for key, model in sections:
        records = history.get(key, [])
        label = f"{HISTORY}.{key}"
        if not isinstance(records, list):
            raise RestoreError(f"«{label}» debe ser una lista.")
        hmodel = history_model(model)
        objs = [instance(hmodel, label, r, users, missing_users) for r in records]
        if len({o.pk for o in objs}) != len(objs):
            raise RestoreError(
                gettext("«%(section)s»: hay valores de history_id repetidos.") % {"section": label}
            )
        authorless += sum(
            1
            for r in records
            if r.get("history_user") is not None and r["history_user"] not in users
        )
        hmodel._base_manager.bulk_create(objs, batch_size=500)
        written += len(objs)
    return written, authorless


def _occupied() -> list[str]:
    """The sections whose models already hold rows here."""
    return [key for key, model in SECTIONS if model._base_manager.exists()]


def _warn_older(stdout, version: int) -> None:
    """Say what a document of an older ``version`` lacks."""
    if version < HISTORY_SINCE:
        stdout.write(
            gettext(
                "Aviso: esta copia (versión %(version)d) no contiene el historial de cambios: "
                "cada objeto restaurado tiene un solo cambio, «%(reason)s»."
            )
            % {"version": version, "reason": CHANGE_REASON}
        )
    lacking = [model for key, model in SECTIONS if SINCE.get(key, 1) > version]
    if lacking:
        stdout.write(
            gettext(
                "Aviso: esta copia (versión %(version)d) no tiene estas secciones, que llegaron "
                "después: %(sections)s. Se restaura sin ellas."
            )
            % {
                "version": version,
                "sections": ", ".join(str(m._meta.verbose_name_plural) for m in lacking),
            }
        )
    if Notice in lacking:
        stdout.write(
            gettext(
                "Aviso: sin los avisos enviados, el sitio no sabe a quién avisó ya: el "
                "recordatorio de un torneo próximo o los emparejamientos de una ronda abierta "
                "que se publique otra vez pueden llegar de nuevo a quien ya los recibió."
            )
        )


def import_club(doc, *, stdout=None) -> dict[str, int]:
    """Restore ``doc`` (a dict from ``export_club``, of this version or an earlier one) into
    a database without any of the club's data, keeping ids and (version 3 on) the change
    history row for row, then rebuild the ledger once; all or nothing. Returns {section:
    records restored (0 for a section the document's version lacks), "history": history rows
    restored from the document (0 for a document without history)}.

    Raises ``RestoreError`` when the database already holds rows of any section (or, for a
    document with history, any change-history row: they would mix with the restored ones), the
    document is not a club backup of a known version or holds a section its version does not
    have, or a record is invalid (bad value, broken reference, duplicate). Usernames the
    database does not know are left empty (results' "entered by", sorteos' "recorded by",
    sign-ups' "decided by", tournament directors, the author of a history row), with a warning
    written to ``stdout``; so is what an older document lacks (``_warn_older``).
    No model signal fires (bulk inserts): no notice is sent for the restored rounds and
    tournaments, whose sent notices are restored with them; the ledger is rebuilt once at the
    end, so ``manage.py check_ledger`` finds it current.
    """

    occupied = _occupied()
    if occupied:
        raise RestoreError(
            gettext(
                "La base de datos ya tiene datos del club (%(sections)s): import_club solo "
                "restaura en una base vacía (recién migrada). No se cambió nada."
            )
            % {"sections": ", ".join(occupied)}
        )
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RestoreError(f'El archivo no es una copia del club (falta «"format": "{FORMAT}"»).')
    version = doc.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise RestoreError(
            f"Versión de copia desconocida: {version!r}; esta versión del sitio lee de la 1 a "
            f"la {VERSION}."
        )
    with_history = version >= HISTORY_SINCE
    sections = sections_of(version)
    doc = _upgrade(doc)
    known = {"format", "version"} | {key for key, _m in sections}
    if with_history:
        known.add(HISTORY)
    if set(doc) - known:
        raise RestoreError(f"Secciones desconocidas: {', '.join(sorted(set(doc) - known))}.")
    if with_history and _history_rows():
        raise RestoreError(
            gettext(
                "La base de datos ya tiene historial de cambios: import_club restaura el historial "
                "de la copia solo en una base sin historial (recién migrada). No se cambió nada."
            )
        )
    User = get_user_model()
    users = {getattr(u, User.USERNAME_FIELD): u.pk for u in User.objects.all()}
    missing_users: set = set()
    counts: dict[str, int] = {key: 0 for key, _m in SECTIONS}
    authorless = 0
    links: dict = {}
    try:
        with transaction.atomic(), _keep_timestamps():
            pagecache.changed()  # bulk inserts send no signal
            for key, model in sections:
                records = doc.get(key, [])
                if not isinstance(records, list):
                    raise RestoreError(f"«{key}» debe ser una lista.")
                objs = [instance(model, key, r, users, missing_users) for r in records]
                if len({o.pk for o in objs}) != len(objs):
                    raise RestoreError(f"«{key}»: hay ids repetidos.")
                if objs and has_history(model) and not with_history:
                    bulk_create_with_history(
                        objs, model, batch_size=500, default_change_reason=CHANGE_REASON
                    )
                elif objs:  # with history: it comes from the document, below
                    model._base_manager.bulk_create(objs, batch_size=500)
                counts[key] = len(objs)
                for through, rows in _link_rows(model, key, records, users, missing_users).items():
                    links.setdefault(through, []).extend(rows)
            for through, rows in links.items():
                through._base_manager.bulk_create(rows, batch_size=500)
            counts[HISTORY] = 0
            if with_history:
                counts[HISTORY], authorless = _restore_history(
                    doc.get(HISTORY, {}), version, users, missing_users
                )
            _reset_sequences()
            with connection.cursor() as cursor:  # broken references fail here, not at COMMIT
                if connection.vendor == "postgresql":
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                else:
                    connection.check_constraints()
            ledger.rebuild()
            FinalPlace.objects.store_all()  # derived, like the ledger: no signal fired
    except (DatabaseError, ValueError, TypeError) as exc:
        raise RestoreError(
            f"No se restauró nada: la copia no es coherente ({str(exc).strip()[:300]})."
        ) from None
    if stdout is not None:
        if missing_users:
            stdout.write(
                "Aviso: estos usuarios no existen en esta base y sus referencias quedaron vacías: "
                + ", ".join(sorted(str(name) for name in missing_users))
                + "."
            )
        if authorless:
            stdout.write(
                ngettext(
                    "Aviso: %(count)d cambio del historial quedó sin autor porque su usuario no "
                    "existe en esta base. La copia conserva el nombre: crea la cuenta y restaura "
                    "de nuevo en una base vacía para recuperarlo.",
                    "Aviso: %(count)d cambios del historial quedaron sin autor porque sus usuarios "
                    "no existen en esta base. La copia conserva los nombres: crea las cuentas y "
                    "restaura de nuevo en una base vacía para recuperarlos.",
                    authorless,
                )
                % {"count": authorless}
            )
        _warn_older(stdout, version)
    return counts


def _reset_sequences() -> None:
    """After inserting explicit ids, point every id sequence past the ids in use: for a model,
    past its rows' ids and the ids its history names (an object deleted before the backup keeps
    its id: a new object must not take it and inherit its history); for a history model, past
    its ``history_id``s; for a many-to-many table, past its rows. A sequence only ever moves
    up (an id handed out once is never handed out again): PostgreSQL ``setval`` from where it
    is, SQLite (``AUTOINCREMENT``) ``sqlite_sequence``; other databases: Django's
    ``sequence_reset_sql``."""
    floors: dict = {}
    for _key, model in SECTIONS:
        top = model._base_manager.aggregate(top=Max("pk"))["top"] or 0
        if has_history(model):
            hmodel = history_model(model)
            top = max(top, hmodel._base_manager.aggregate(top=Max("id"))["top"] or 0)
            floors[hmodel] = hmodel._base_manager.aggregate(top=Max("pk"))["top"] or 0
        floors[model] = top
        for field in _many(model):
            through = field.remote_field.through
            floors[through] = through._base_manager.aggregate(top=Max("pk"))["top"] or 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for model, top in floors.items():
                cursor.execute(
                    "SELECT pg_get_serial_sequence(%s, %s)",
                    [connection.ops.quote_name(model._meta.db_table), model._meta.pk.column],
                )
                sequence = cursor.fetchone()[0]
                cursor.execute(f"SELECT last_value, is_called FROM {sequence}")  # a quoted name
                last, called = cursor.fetchone()
                top = max(top, last if called else last - 1)  # never back over a used id
                cursor.execute("SELECT setval(%s, %s, %s)", [sequence, max(top, 1), top > 0])
        elif connection.vendor == "sqlite":
            for model, top in floors.items():
                if not top:
                    continue
                table = model._meta.db_table
                cursor.execute(
                    "UPDATE sqlite_sequence SET seq = MAX(seq, %s) WHERE name = %s", [top, table]
                )
                if cursor.rowcount == 0:
                    cursor.execute(
                        "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, top]
                    )
        else:
            for sql in connection.ops.sequence_reset_sql(no_style(), list(floors)):
                cursor.execute(sql)


__all__ = [
    "CHANGE_REASON",
    "EXCLUDED",
    "FORMAT",
    "HISTORY_SINCE",
    "SECTIONS",
    "SINCE",
    "UPGRADES",
    "VERSION",
    "WRITERS",
    "RestoreError",
    "UnsupportedField",
    "decode",
    "dumps",
    "encode",
    "export_club",
    "file_models",
    "has_history",
    "history_model",
    "import_club",
    "instance",
    "placement",
    "records",
    "sections_of",
    "unplaced",
    "unsupported_fields",
]
