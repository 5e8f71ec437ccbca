"""``manage.py export_club FILE.json``: back up the whole club as one versioned JSON document
(``tournaments.backup``): every model of ``backup.SECTIONS`` — players, tournaments and their
directors, entries, rounds, tables, seats, byes, results, castigos, sorteos, sign-up requests,
leagues with their settings and tournaments, sent notices — with their whole change history
(every history row, its date, author and reason). Not what ``backup.EXCLUDED`` names, each for
its reason: the user accounts, the Elo ledger (derived: ``import_club`` rebuilds it), the
background queue and import jobs (operational) ... (docs/backup.md). ``-`` writes to standard
output."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError

from tournaments import backup


class Command(BaseCommand):
    help = (
        "Exporta todo el club (jugadores, torneos, resultados, castigos, sorteos, "
        "inscripciones, ligas, avisos enviados) con su historial de cambios a un JSON versionado."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="archivo .json de destino («-»: salida estándar)")

    def handle(self, *args, **opts):
        try:
            doc = backup.export_club()
        except backup.UnsupportedField as exc:
            raise CommandError(f"No se hizo la copia: {exc}") from None
        text = backup.dumps(doc)
        unplaced = backup.unplaced(apps.get_models(include_auto_created=True))
        if unplaced:  # the coverage test fails on these; a site running with one says so
            self.stderr.write(
                "Aviso: estos modelos no están en la copia ni en su lista de exclusiones "
                f"(tournaments.backup.EXCLUDED): {', '.join(unplaced)}."
            )
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
