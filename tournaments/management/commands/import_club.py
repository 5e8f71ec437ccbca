"""``manage.py import_club FILE.json``: restore a backup made by ``export_club`` into an empty
database (migrated, with no players, no tournaments and no change history), keeping every id
and every history row as it was (dates, authors, reasons), then rebuild the Elo ledger once.
All or nothing. User accounts are matched by username; unknown ones are reported and their
references left empty (a history row keeps its change, without author). A backup of version 1
or 2 has no history: it is restored as before, with one "Restaurado con import_club" history
row per object, and the command says so (docs/backup.md)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tournaments import backup
from tournaments.management.commands._common import read_bytes


class Command(BaseCommand):
    help = "Restaura en una base vacía una copia hecha con export_club y reconstruye el ranking."

    def add_arguments(self, parser):
        parser.add_argument("file", help="archivo .json de export_club")

    def handle(self, *args, **opts):
        data = read_bytes(opts["file"])
        try:
            doc = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise CommandError(
                "La copia no está en UTF-8: no es un archivo de export_club."
            ) from None
        except json.JSONDecodeError as exc:
            raise CommandError(
                f"La copia no es JSON válido (línea {exc.lineno}, columna {exc.colno}): {exc.msg}."
            ) from None
        try:
            counts = backup.import_club(doc, stdout=self.stderr)
        except backup.RestoreError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write("Restaurado: " + ", ".join(f"{k}: {n}" for k, n in counts.items()) + ".")
