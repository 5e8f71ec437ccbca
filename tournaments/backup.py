"""Backup and restore of the whole club (issue "reliability and security", point 6).

``export_club()`` returns one versioned JSON document with every player, tournament (its
directors by username), entry, round, table, seat, bye, result, match result, table result,
castigo and sorteo; ``import_club(document)`` restores such a document into a database that
holds no players and no tournaments, keeping every id, then rebuilds the Elo ledger (derived
data, never exported: ``rankings.ledger``).

Document (``FORMAT``, ``VERSION`` 2)::

    {"format": "clubsite-club", "version": 2,
     "players": [{"id": 1, "full_name": "Ana Ruiz", ...}, ...],      # by id
     "tournaments": [{"id": 1, ..., "directors": ["director"]}, ...],
     "entries": [...], "rounds": [...], "tables": [...], "seats": [...], "byes": [...],
     "results": [...], "match_results": [...], "table_results": [...],
     "castigos": [...], "sorteos": [...]}

Each record holds the model's stored fields under their column names (``tournament_id``),
except references to user accounts, which hold the username (``entered_by``,
``recorded_by``): accounts and passwords are not part of a backup. Dates and times are ISO
8601 (times in UTC). Lists are ordered by id and keys sorted, so the same club always gives
the same bytes. ``Player.name_key`` is derived and recomputed on import.

Versions: the version changes whenever a record's keys do (they are the model's field
names). ``import_club`` also reads every earlier version, renaming its keys as listed in
``UPGRADES``: version 1 named a seat's ``victory_points`` ``vp``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction
from simple_history.utils import bulk_create_with_history

from clubsite import pagecache
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
VERSION = 2

#: What changed in the records from version n to n + 1: {n: {section: {old key: new key}}}.
#: A document of version n is read by applying each step from n up to ``VERSION``.
UPGRADES: dict[int, dict[str, dict[str, str]]] = {
    1: {"seats": {"vp": "victory_points"}},  # Seat.vp became Seat.victory_points
}

#: (key in the document, model), in the order they are restored (references point backwards).
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

#: Fields recomputed on import rather than stored in the document.
DERIVED = {(Player, "name_key")}

CHANGE_REASON = "Restaurado con import_club"


class RestoreError(Exception):
    """The document cannot be restored; nothing was written. The message is Spanish text."""


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


def export_club() -> dict:
    """The whole club as a JSON-ready dict (see the module docstring). A consistent snapshot:
    one transaction (REPEATABLE READ on PostgreSQL when not already inside a transaction)."""
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
            fields = _fields(model)
            rows = []
            for values in model._base_manager.order_by("pk").values_list(
                *(f.attname for _k, f in fields)
            ):
                record = {}
                for (name, field), value in zip(fields, values, strict=True):
                    if _is_user_fk(field):
                        value = usernames.get(value)
                    record[name] = _plain(value)
                if model is Tournament:
                    record["directors"] = sorted(directors.get(record["id"], []))
                rows.append(record)
            doc[key] = rows
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
    fields = _fields(model)
    allowed = {name for name, _f in fields} | ({"directors"} if model is Tournament else set())
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise RestoreError(
            f"«{key}» id {record.get('id')!r}: campos desconocidos {', '.join(unknown)}."
        )
    values = {}
    for name, field in fields:
        if name not in record:
            if field.has_default() or field.null:
                continue
            raise RestoreError(f"«{key}» id {record.get('id')!r}: falta el campo «{name}».")
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
                f"«{key}» id {record.get('id')!r}: «{name}» no es válido ({'; '.join(exc.messages)})."
            ) from None
    if values.get("id") is None:
        raise RestoreError(f"«{key}»: un elemento no tiene «id».")
    obj = model(**values)
    if model is Player:
        obj.name_key = name_key(obj.full_name)
    relations = [f.name for f in model._meta.concrete_fields if f.is_relation]
    try:
        obj.clean_fields(exclude=relations)
    except ValidationError as exc:
        detail = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        raise RestoreError(f"«{key}» id {obj.pk}: {detail}") from None
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


def import_club(doc, *, stdout=None) -> dict[str, int]:
    """Restore ``doc`` (a dict from ``export_club``, of this version or an earlier one) into
    an empty club, keeping ids, then rebuild the ledger; all or nothing. Returns {section:
    records restored}.

    Raises ``RestoreError`` when the database already holds players or tournaments, the
    document is not a club backup of a known version, or a record is invalid (bad value,
    broken reference, duplicate). Usernames the database does not know are left empty
    (results' "entered by", sorteos' "recorded by", tournament directors), with a warning
    written to ``stdout``.
    """
    from rankings import ledger

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
    doc = _upgrade(doc)
    known = {"format", "version"} | {key for key, _m in SECTIONS}
    if set(doc) - known:
        raise RestoreError(f"Secciones desconocidas: {', '.join(sorted(set(doc) - known))}.")
    User = get_user_model()
    users = {getattr(u, User.USERNAME_FIELD): u.pk for u in User.objects.all()}
    missing_users: set = set()
    counts: dict[str, int] = {}
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
                if objs:
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
    if missing_users and stdout is not None:
        stdout.write(
            "Aviso: estos usuarios no existen en esta base y sus referencias quedaron vacías: "
            + ", ".join(sorted(missing_users))
            + "."
        )
    return counts


def _reset_sequences() -> None:
    """After inserting explicit ids, point the id sequences past them (PostgreSQL)."""
    models_ = [m for _k, m in SECTIONS] + [Tournament.directors.through]
    statements = connection.ops.sequence_reset_sql(no_style(), models_)
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


__all__ = [
    "FORMAT",
    "RestoreError",
    "SECTIONS",
    "UPGRADES",
    "VERSION",
    "dumps",
    "export_club",
    "import_club",
]
