"""Backup and restore of the whole club (issue "reliability and security", point 6), with its
change history.

``export_club()`` returns one versioned JSON document with every player, tournament (its
directors by username), entry, round, table, seat, bye, result, match result, table result,
castigo and sorteo, and every row of their change history (django-simple-history);
``import_club(document)`` restores such a document into a database that holds no players, no
tournaments and no change history, keeping every id and every history row as it was, then
rebuilds the Elo ledger (derived data, never exported: ``rankings.ledger``).

Document (``FORMAT``, ``VERSION`` 3)::

    {"format": "clubsite-club", "version": 3,
     "players": [{"id": 1, "full_name": "Ana Ruiz", ...}, ...],      # by id
     "tournaments": [{"id": 1, ..., "directors": ["director"]}, ...],
     "entries": [...], "rounds": [...], "tables": [...], "seats": [...], "byes": [...],
     "results": [...], "match_results": [...], "table_results": [...],
     "castigos": [...], "sorteos": [...],
     "history": {"players": [{"history_id": 1, "history_date": "2026-02-07T18:00:00+00:00",
                              "history_type": "+", "history_change_reason": null,
                              "history_user": "director", "id": 1, "full_name": ...}, ...],
                 "tournaments": [...], ...}}                       # one list per section

Each record holds the model's stored fields under their column names (``tournament_id``),
except references to user accounts, which hold the username (``entered_by``,
``recorded_by``, ``history_user``): accounts and passwords are not part of a backup. Dates
and times are ISO 8601 (times in UTC, with their offset). Lists are ordered by id (history:
by ``history_id``) and keys sorted, so the same club always gives the same bytes.
``Player.name_key`` is derived and recomputed on import for the live players; a history row
keeps every tracked field as it was stored then, ``name_key`` included.

History (docs/backup.md): a history record is the historical model's row, column for column:
``history_id``, ``history_date``, ``history_type`` ("+", "~", "-"), ``history_change_reason``,
``history_user`` and the tracked fields, references by id as in the live records (they keep
their ids, so they need no mapping; a history row may name an object deleted since, as in the
source database). Import writes those rows as they are (same ``history_id``) and adds none of
its own, so the admin's history page of every object reads as before. A username the target
database does not know leaves that reference empty (``history_user`` too: the change stays,
without its author) and is reported; the document keeps the name, so creating the accounts and
restoring again into an empty database gets the authors back.

Versions: the version changes whenever a record's keys do (they are the model's field names)
or a section is added. ``import_club`` also reads every earlier version, renaming its keys as
listed in ``UPGRADES``: version 1 named a seat's ``victory_points`` ``vp``; versions 1 and 2
carry no history, and restoring them writes one history row per object with the reason
``CHANGE_REASON`` (and says that the file has no history).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction
from django.db.models import Max
from django.utils.translation import gettext, ngettext
from simple_history.utils import bulk_create_with_history

from clubsite import pagecache
from rankings import ledger
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    MatchResult,
    Player,
    Result,
    Round,
    Seat,
    Sorteo,
    Table,
    TableResult,
    Tournament,
    name_key,
)

FORMAT = "clubsite-club"
VERSION = 3

#: The first version whose documents carry the change history (the "history" section).
HISTORY_SINCE = 3

#: What changed in the records from version n to n + 1: {n: {section: {old key: new key}}}.
#: A document of version n is read by applying each step from n up to ``VERSION``.
#: From 2 to 3 no key changed: the "history" section was added.
UPGRADES: dict[int, dict[str, dict[str, str]]] = {
    1: {"seats": {"vp": "victory_points"}},  # Seat.vp became Seat.victory_points
}

#: (key in the document, model), in the order they are restored (references point backwards).
#: Every one of them has ``history = HistoricalRecords()``; its history rows go under the same
#: key in the "history" section.
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
)

HISTORY = "history"

#: Fields recomputed on import rather than stored in the document.
DERIVED = {(Player, "name_key")}

#: The change reason of the one history row written per object when a document without history
#: (versions 1 and 2) is restored.
CHANGE_REASON = "Restaurado con import_club"


class RestoreError(Exception):
    """The document cannot be restored; nothing was written. The message is Spanish text."""


def history_model(model):
    """The django-simple-history model holding ``model``'s change history (``HistoricalPlayer``
    for ``Player``)."""
    return model.history.model


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


def _plain(value):
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat() if value.tzinfo else value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _records(model, usernames: dict, directors: dict | None = None) -> list[dict]:
    """Every row of ``model`` as a document record, by primary key (``history_id`` for a
    history model)."""
    fields = _fields(model)
    rows = []
    for values in model._base_manager.order_by("pk").values_list(*(f.attname for _k, f in fields)):
        record = {}
        for (name, field), value in zip(fields, values, strict=True):
            if _is_user_fk(field):
                value = usernames.get(value)
            record[name] = _plain(value)
        if directors is not None:
            record["directors"] = sorted(directors.get(record["id"], []))
        rows.append(record)
    return rows


def export_club() -> dict:
    """The whole club with its change history as a JSON-ready dict (see the module docstring).
    A consistent snapshot: one transaction (REPEATABLE READ on PostgreSQL when not already
    inside a transaction)."""
    User = get_user_model()
    fresh = not connection.in_atomic_block
    with transaction.atomic():
        if fresh and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        usernames = dict(User.objects.values_list("pk", User.USERNAME_FIELD))
        directors: dict[int, list[str]] = {}
        for t_id, user_id in Tournament.directors.through.objects.order_by(
            "tournament_id", "user_id"
        ).values_list("tournament_id", "user_id"):
            directors.setdefault(t_id, []).append(usernames[user_id])
        doc: dict = {"format": FORMAT, "version": VERSION}
        for key, model in SECTIONS:
            doc[key] = _records(model, usernames, directors if model is Tournament else None)
        doc[HISTORY] = {key: _records(history_model(model), usernames) for key, model in SECTIONS}
    return doc


def dumps(doc: dict) -> str:
    """The document as text: stable (sorted keys, lists by id), UTF-8 friendly, one line per value."""
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


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


def _instance(model, key: str, record, users: dict, missing_users: set):
    if not isinstance(record, dict):
        raise RestoreError(f"«{key}»: cada elemento debe ser un objeto JSON.")
    pk = model._meta.pk.attname  # "id"; "history_id" for a history row
    fields = _fields(model)
    allowed = {name for name, _f in fields} | ({"directors"} if model is Tournament else set())
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
            values[field.attname] = None if value is None else field.to_python(value)
        except ValidationError as exc:
            raise RestoreError(
                f"«{key}» {pk} {record.get(pk)!r}: «{name}» no es válido ({'; '.join(exc.messages)})."
            ) from None
    if values.get(pk) is None:
        raise RestoreError(f"«{key}»: un elemento no tiene «{pk}».")
    obj = model(**values)
    if model is Player:
        obj.name_key = name_key(obj.full_name)
    exclude = [f.name for f in model._meta.concrete_fields if f.is_relation]
    if key.startswith(f"{HISTORY}."):  # a record of what was stored: an empty value is not "blank"
        exclude += [
            f.name for f in model._meta.concrete_fields if f.null and values.get(f.attname) is None
        ]
    try:
        obj.clean_fields(exclude=exclude)
    except ValidationError as exc:
        detail = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        raise RestoreError(f"«{key}» {pk} {obj.pk}: {detail}") from None
    return obj


def _renamed(record: dict, renames: dict[str, str]) -> dict:
    out = {}
    for key, value in record.items():
        new = renames.get(key)
        out[new if new is not None and new not in record else key] = value
    return out


def _upgrade(doc: dict) -> dict:
    """``doc`` with the record keys of its version renamed to this version's (``UPGRADES``);
    ``doc`` itself is left as it is. Records that are not objects are left for ``_instance``
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


def _history_rows() -> int:
    """How many change-history rows the database holds, over every section's model."""
    return sum(history_model(model)._base_manager.count() for _key, model in SECTIONS)


def _restore_history(history, users: dict, missing_users: set) -> tuple[int, int]:
    """Write the document's "history" section as it is (same ``history_id``); returns (rows
    written, rows whose ``history_user`` is unknown here and was left empty). Raises
    ``RestoreError``."""
    if not isinstance(history, dict):
        raise RestoreError(gettext("«history» debe ser un objeto JSON con una lista por sección."))
    sections = dict(SECTIONS)
    unknown = sorted(set(history) - set(sections))
    if unknown:
        raise RestoreError(
            gettext("«history»: secciones desconocidas: %(sections)s.")
            % {"sections": ", ".join(unknown)}
        )
    written = authorless = 0
    for key, model in SECTIONS:
        records = history.get(key, [])
        label = f"{HISTORY}.{key}"
        if not isinstance(records, list):
            raise RestoreError(f"«{label}» debe ser una lista.")
        hmodel = history_model(model)
        objs = [_instance(hmodel, label, r, users, missing_users) for r in records]
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


def import_club(doc, *, stdout=None) -> dict[str, int]:
    """Restore ``doc`` (a dict from ``export_club``, of this version or an earlier one) into
    an empty club, keeping ids and (version 3 on) the change history row for row, then rebuild
    the ledger once; all or nothing. Returns {section: records restored, "history": history
    rows restored from the document (0 for a document without history)}.

    Raises ``RestoreError`` when the database already holds players or tournaments (or, for a
    document with history, any change-history row: they would mix with the restored ones), the
    document is not a club backup of a known version, or a record is invalid (bad value,
    broken reference, duplicate). Usernames the database does not know are left empty
    (results' "entered by", sorteos' "recorded by", tournament directors, the author of a
    history row), with a warning written to ``stdout``; so is the note that a document of
    version 1 or 2 has no history (its objects get one history row each, ``CHANGE_REASON``).
    No model signal fires (bulk inserts): the ledger is rebuilt once at the end.
    """

    if Player.objects.exists() or Tournament.objects.exists():
        raise RestoreError(
            "La base de datos ya tiene jugadores o torneos: import_club solo restaura en una base "
            "vacía (recién migrada). No se cambió nada."
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
    doc = _upgrade(doc)
    known = {"format", "version"} | {key for key, _m in SECTIONS}
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
    counts: dict[str, int] = {}
    authorless = 0
    try:
        with transaction.atomic(), _keep_timestamps():
            pagecache.changed()  # bulk inserts send no signal
            for key, model in SECTIONS:
                records = doc.get(key, [])
                if not isinstance(records, list):
                    raise RestoreError(f"«{key}» debe ser una lista.")
                objs = [_instance(model, key, r, users, missing_users) for r in records]
                if len({o.pk for o in objs}) != len(objs):
                    raise RestoreError(f"«{key}»: hay ids repetidos.")
                if objs and with_history:  # the history comes from the document, below
                    model._base_manager.bulk_create(objs, batch_size=500)
                elif objs:
                    bulk_create_with_history(
                        objs, model, batch_size=500, default_change_reason=CHANGE_REASON
                    )
                counts[key] = len(objs)
                if model is Tournament:
                    links = []
                    for record in records:
                        names = record.get("directors", [])
                        if not isinstance(names, list):
                            raise RestoreError(
                                f"«tournaments» id {record['id']}: «directors» debe ser una lista."
                            )
                        for name in names:
                            if name in users:
                                links.append(
                                    Tournament.directors.through(
                                        tournament_id=record["id"], user_id=users[name]
                                    )
                                )
                            else:
                                missing_users.add(name)
                    Tournament.directors.through.objects.bulk_create(links)
            counts[HISTORY] = 0
            if with_history:
                counts[HISTORY], authorless = _restore_history(
                    doc.get(HISTORY, {}), users, missing_users
                )
            _reset_sequences()
            with connection.cursor() as cursor:  # broken references fail here, not at COMMIT
                if connection.vendor == "postgresql":
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                else:
                    connection.check_constraints()
            ledger.rebuild()
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
        if not with_history:
            stdout.write(
                gettext(
                    "Aviso: esta copia (versión %(version)d) no contiene el historial de cambios: "
                    "cada objeto restaurado tiene un solo cambio, «%(reason)s»."
                )
                % {"version": version, "reason": CHANGE_REASON}
            )
    return counts


def _reset_sequences() -> None:
    """After inserting explicit ids, point every id sequence past the ids in use: for a model,
    past its rows' ids and the ids its history names (an object deleted before the backup keeps
    its id: a new object must not take it and inherit its history); for a history model, past
    its ``history_id``s. PostgreSQL: ``setval``; SQLite (``AUTOINCREMENT``): ``sqlite_sequence``
    only ever moves up; other databases: Django's ``sequence_reset_sql``."""
    floors: dict = {}
    for _key, model in SECTIONS:
        hmodel = history_model(model)
        floors[model] = max(
            model._base_manager.aggregate(top=Max("pk"))["top"] or 0,
            hmodel._base_manager.aggregate(top=Max("id"))["top"] or 0,
        )
        floors[hmodel] = hmodel._base_manager.aggregate(top=Max("pk"))["top"] or 0
    through = Tournament.directors.through
    floors[through] = through.objects.aggregate(top=Max("pk"))["top"] or 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for model, top in floors.items():
                cursor.execute(
                    "SELECT setval(pg_get_serial_sequence(%s, %s), %s, %s)",
                    [
                        connection.ops.quote_name(model._meta.db_table),
                        model._meta.pk.column,
                        max(top, 1),
                        top > 0,
                    ],
                )
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
    "FORMAT",
    "HISTORY_SINCE",
    "RestoreError",
    "SECTIONS",
    "UPGRADES",
    "VERSION",
    "dumps",
    "export_club",
    "history_model",
    "import_club",
]
