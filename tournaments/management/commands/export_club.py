"""``manage.py export_club FILE.json``: back up the whole club as one versioned JSON document
(``tournaments.backup``): players, tournaments and their directors, entries, rounds, tables,
seats, byes, results, castigos and sorteos, with their whole change history (every history
row, its date, author and reason). Not the Elo ledger: it is derived, and ``import_club``
rebuilds it. Not the user accounts (docs/backup.md). ``-`` writes to standard output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments import backup


class Command(BaseCommand):
    help = (
        "Exporta todo el club (jugadores, torneos, resultados, castigos, sorteos) con su "
        "historial de cambios a un JSON versionado."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="archivo .json de destino («-»: salida estándar)")

    def handle(self, *args, **opts):
        doc = backup.export_club()
        text = backup.dumps(doc)
        if opts["file"] == "-":
            self.stdout.write(text, ending="")
            return
        path = Path(opts["file"])
        try:  # write next to the target, then rename: never a half-written backup
            fd, tmp = tempfile.mkstemp(
                prefix=".export_club-", suffix=".json", dir=path.parent or "."
            )
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except OSError as exc:
            raise CommandError(f"No se puede escribir «{path}»: {exc.strerror or exc}.") from None
        counts = ", ".join(f"{key}: {len(doc[key])}" for key, _m in backup.SECTIONS)
        counts += f", history: {sum(len(rows) for rows in doc['history'].values())}"
        self.stderr.write(f"Copia escrita en {path} ({counts}).")
