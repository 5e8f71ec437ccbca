"""Every write of the tournaments app (DESIGN.md, "Writes"), split by concern.

Each function takes keyword-only arguments and the acting user, runs in one transaction,
validates with the pure rules before anything is stored, and leaves an audit trail through
django-simple-history. Errors are ``DomainError`` subclasses carrying a stable ``code``.

Modules (every service is re-exported here: call ``services.record_result(...)``):

- ``tournaments.writing`` (one layer below, re-exported here): what several writers share
  (``audit``, ``entered_by``, ``clean_name``, ``parse_int``, ``check_writable``,
  ``bump_version``, ``ImportReport``) and the one lock order: ``lock_tournament`` → ``lock_round`` → ``lock_table`` (``lock_entry``);
- ``players``: register, change, (de)activate, delete and anonymise players;
  ``similar_players``;
- ``accounts``: a player's own account: claiming their record, their contact details and
  consent to notices, the notices' unsubscribe link;
- ``tournaments``: create and change tournaments and their directors (``settings_problems``:
  every refusal of a settings form at once; finishing with open rounds asks first); register,
  remove, drop and undrop entries;
- ``lifecycle``: the states of a tournament and the steps between them with their guards
  (``take_step``, ``check_status_change``), the order of its rounds
  (``check_next_round``: the next round waits for the current one, or "pair anyway"),
  ``what_next`` and ``offers`` for the director's page;
- ``rounds``: pairings, seating, the todos-con-todos schedule, closing and reopening rounds;
  one round, table or bye at a time for the imports (``get_or_create_round``, ``seat_table``,
  ``unseat_table``, ``add_bye``), by the same rules;
- ``results``: record and delete the result of a table, whatever the scoring system (the
  tournament's ``tournaments.systems`` adapter validates and stores the values);
- ``castigos``: castigos and sorteos;
- ``signups``: the public sign-up (requests, the partner's consent, the waiting list, the
  director's decisions);
- ``checkin``: who is present on the day (the director's list, the players' own check-in
  with the day's code);
- ``clock``: the round clock (``start_clock``, ``pause_clock``, ``resume_clock``,
  ``add_clock_time``, ``reset_clock``; ``clock_state``: what it shows at a moment);
- ``places``: the stored final places (``FinalPlace``) kept equal to the computed ones from
  the model signals of whatever changed a finished tournament (``connect_signals``, called by
  the app's ``ready()``; nothing to call);
- ``leagues``: create and change leagues and choose their tournaments (``create_league``,
  ``update_league``, ``set_league_tournaments``; ``league_problems``: every refusal of a
  league form at once).

The ranking ledger is not the services' business: ``rankings.signals`` replays it from the
model signals of whatever changed results (services, imports, admin, shell).
"""

from __future__ import annotations

from tournaments.services.accounts import (
    claim_player,
    create_account_and_claim,
    unsubscribe,
    update_contact,
)
from tournaments.services.castigos import add_castigo, record_sorteo, remove_castigo
from tournaments.services.checkin import (
    check_in_self,
    new_check_in_code,
    set_present,
    stop_self_check_in,
)
from tournaments.services.clock import (
    add_clock_time,
    clock_state,
    pause_clock,
    reset_clock,
    resume_clock,
    start_clock,
)
from tournaments.services.leagues import (
    LEAGUE_ERROR_FIELDS,
    LEAGUE_FIELDS,
    create_league,
    league_problems,
    set_league_tournaments,
    update_league,
)
from tournaments.services.lifecycle import open_rounds_refusal, take_step
from tournaments.services.players import (
    anonymise_player,
    create_player,
    delete_player,
    set_player_active,
    similar_players,
    update_player,
)
from tournaments.services.results import delete_result, record_result
from tournaments.services.rounds import (
    add_bye,
    check_new_round,
    close_round,
    generate_round_robin,
    get_or_create_round,
    pairing_fingerprint,
    reopen_round,
    seat_table,
    set_pairings,
    set_seating,
    unseat_table,
)
from tournaments.services.signups import (
    answer_partner,
    decide_signup,
    move_signup,
    promote_waiting,
    remove_entry,
    sign_up,
    update_signup_settings,
)
from tournaments.services.tournaments import (
    ERROR_FIELDS,
    TOURNAMENT_FIELDS,
    create_tournament,
    drop_entry,
    register_entry,
    set_tournament_directors,
    settings_problems,
    undrop_entry,
    update_tournament,
)
from tournaments.writing import (
    MAX_NAME,
    ImportReport,
    audit,
    bump_version,
    check_writable,
    clean_name,
    entered_by,
    lock_entry,
    lock_round,
    lock_table,
    lock_tournament,
    parse_int,
)

__all__ = [
    "anonymise_player",
    "claim_player",
    "create_account_and_claim",
    "unsubscribe",
    "update_contact",
    "update_signup_settings",
    "sign_up",
    "promote_waiting",
    "answer_partner",
    "decide_signup",
    "move_signup",
    "ERROR_FIELDS",
    "MAX_NAME",
    "TOURNAMENT_FIELDS",
    "ImportReport",
    "add_bye",
    "add_castigo",
    "add_clock_time",
    "clock_state",
    "pause_clock",
    "reset_clock",
    "resume_clock",
    "start_clock",
    "audit",
    "bump_version",
    "check_in_self",
    "check_writable",
    "clean_name",
    "close_round",
    "create_player",
    "create_tournament",
    "delete_player",
    "delete_result",
    "drop_entry",
    "entered_by",
    "generate_round_robin",
    "get_or_create_round",
    "check_new_round",
    "pairing_fingerprint",
    "lock_entry",
    "lock_round",
    "lock_table",
    "lock_tournament",
    "new_check_in_code",
    "open_rounds_refusal",
    "take_step",
    "parse_int",
    "record_result",
    "record_sorteo",
    "register_entry",
    "remove_castigo",
    "remove_entry",
    "reopen_round",
    "seat_table",
    "set_pairings",
    "set_present",
    "set_player_active",
    "set_seating",
    "set_tournament_directors",
    "settings_problems",
    "similar_players",
    "stop_self_check_in",
    "undrop_entry",
    "unseat_table",
    "update_player",
    "update_tournament",
    "LEAGUE_ERROR_FIELDS",
    "LEAGUE_FIELDS",
    "create_league",
    "league_problems",
    "set_league_tournaments",
    "update_league",
]
