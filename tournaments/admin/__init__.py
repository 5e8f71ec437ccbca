"""The Django admin of the tournaments app: where a superuser corrects anything after the fact.

Every model is registered with change history (``simple_history.admin.SimpleHistoryAdmin``,
through ``base.HistoryAdmin``), by model group:

- ``base``: ``HistoryAdmin``, the filters titled in Spanish, labels, and how a correction goes
  through the services (``dry_run``, ``ServiceForm``, ``correcting``, ``touch_tables``);
- ``players``: players (``services.create_player`` / ``update_player`` / ``delete_player``);
- ``tournaments``: tournaments and their directors, entries (the tournament services);
- ``rounds``: rounds, tables, seats, byes (no service: saved with history, table versions
  bumped when the seats of a table with a result change);
- ``results``: the results of every scoring system, one admin per storage model of the
  registry (``services.record_result`` / ``delete_result``);
- ``castigos``: castigos (``services.add_castigo`` / ``remove_castigo``) and sorteos;
- ``leagues``: leagues and their tournaments (``services.create_league`` / ``update_league``);
- ``accounts``: Django's user and group admins, with the one-time form token;
- ``other_apps``: django-axes (logins, lockouts) and django-tasks-db (background tasks) in the
  site's words.

Corrections behave like the directors' pages (DESIGN.md, "Writes"): the services check them
before anything is stored (a refusal is a form error with the service's message), store them
with history and bump table versions; the ranking ledger replays through the model signals of
``rankings.signals``. Unlike the directors' pages, the admin corrects closed rounds too.
"""

from tournaments.admin import (
    accounts,
    base,
    castigos,
    leagues,
    other_apps,
    players,
    results,
    rounds,
    tournaments,
)

__all__ = [
    "accounts",
    "base",
    "castigos",
    "leagues",
    "other_apps",
    "players",
    "results",
    "rounds",
    "tournaments",
]
