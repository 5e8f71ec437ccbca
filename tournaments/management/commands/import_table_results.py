"""``manage.py import_table_results SLUG FILE.csv``: import the results of a 3–4 player table
game (all or nothing; ``tournaments.imports.import_table_results``, seed 004, SCORING.md §4).
The same as ``import_results`` for a table-game tournament; refuses any other."""

from __future__ import annotations

from tournaments.imports import import_table_results
from tournaments.management.commands._common import ResultsImportCommand


class Command(ResultsImportCommand):
    help = (
        "Importa resultados de juegos de mesa de 3–4 jugadores desde un CSV "
        "(round,table,player,vp,ended_by_time; una línea por jugador sentado)."
    )
    importer = staticmethod(import_table_results)

    def details(self, report) -> str:
        return (
            f"jugadores nuevos: {report.players_created}, "
            f"inscripciones nuevas: {report.entries_created}"
        )
