"""Swiss match play (seed 000, SCORING.md §3): its rules (``rules.Swiss``) and how it looks
(``presentation.SwissPresentation``); its results file is ``tournaments.imports.swiss``."""

from tournaments.systems.swiss.rules import Swiss

__all__ = ["Swiss"]
