"""``manage.py import_club FILE.json``: restore a backup made by ``export_club`` into an empty
database (migrated, with none of the club's data and no change history), keeping every id and
every history row as it was (dates, authors, reasons), then rebuild the Elo ledger once, so
``check_ledger`` finds it current. All or nothing; no notice is mailed (the sent notices are
restored with the rest). User accounts are matched by username; unknown ones are reported and
their references left empty (a history row keeps its change, without author). An older backup
restores too, and the command says what it lacks: versions 1 and 2 have no history (one
"Restaurado con import_club" history row per object), versions 1 to 3 no sign-up requests,
leagues or sent notices (docs/backup.md)."""

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
