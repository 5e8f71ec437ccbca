"""``manage.py import_domino_results SLUG FILE.csv``: import dominó results (all or nothing;
``tournaments.imports.import_domino_results``). The same as ``import_results`` for a dominó
tournament; refuses any other."""

from __future__ import annotations

from tournaments.imports import import_domino_results
from tournaments.management.commands._common import ResultsImportCommand


class Command(ResultsImportCommand):
    help = (
        "Importa resultados de dominó desde un CSV "
        "(round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at)."
    )
    importer = staticmethod(import_domino_results)
