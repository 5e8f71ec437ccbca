"""``manage.py store_final_places [--all]``: store the final places (``FinalPlace``) of the
finished tournaments that have none (a database from before the table, a refresh that
failed), or with ``--all`` of every finished tournament, replacing what was stored. The
readers also store a missing tournament's places when they first need them
(``tournaments.models.stored_places``); this fills them all at once, after an upgrade."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from tournaments.models import FinalPlace


class Command(BaseCommand):
    help = (
        "Guarda los puestos finales de los torneos terminados que aún no los tienen "
        "(con --all, de todos los terminados)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all",
            action="store_true",
            help="todos los torneos terminados, no solo los que no tienen puestos guardados",
        )

    def handle(self, *args, **opts):
        started = time.perf_counter()
        tournaments, rows = FinalPlace.objects.store_all(missing_only=not opts["all"])
        self.stdout.write(
            f"Puestos finales guardados: {tournaments} torneos, {rows} filas "
            f"({time.perf_counter() - started:.1f} s)."
        )
