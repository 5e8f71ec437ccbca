"""Table games for 3–4 players (seed 004, SCORING.md §4): their rules (``rules.TableGame``)
and how they look (``presentation.TableGamePresentation``); their results file is
``tournaments.imports.table``."""

from tournaments.systems.table.rules import TableGame

__all__ = ["TableGame"]
