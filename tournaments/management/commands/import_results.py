"""``manage.py import_results SLUG FILE.csv``: import a results file in the format of the
tournament's scoring system, whatever it is (all or nothing; ``tournaments.imports
.import_results``, which asks the registry). ``import_domino_results``,
``import_match_results`` and ``import_table_results`` are the same command for one format."""

from __future__ import annotations

from tournaments.management.commands._common import ResultsImportCommand


class Command(ResultsImportCommand):
    help = (
        "Importa resultados desde un CSV con el formato del sistema del torneo "
        "(las columnas de «Importar» en la página del torneo)."
    )
