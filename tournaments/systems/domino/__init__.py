"""Dominó (seed 003, SCORING.md §1): its rules (``rules.Domino``) and how it looks
(``presentation.DominoPresentation``); its results file is ``tournaments.imports.domino``."""

from tournaments.systems.domino.rules import Domino

__all__ = ["Domino"]
