"""``manage.py import_match_results SLUG FILE.csv``: import swiss match-play results (all or
nothing; ``tournaments.imports.import_match_results``). The same as ``import_results`` for a
Swiss tournament; refuses any other."""

from __future__ import annotations

from tournaments.imports import import_match_results
from tournaments.management.commands._common import ResultsImportCommand


class Command(ResultsImportCommand):
    help = (
        "Importa resultados de encuentros de un torneo suizo desde un CSV "
        "(round,table,player_a,player_b,games_a,games_b,games_drawn,drop)."
    )
    importer = staticmethod(import_match_results)
