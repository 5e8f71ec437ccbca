"""The messages of the ranking's health (rankings.ledger, rankings.health; SCORING.md §2).

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
    # Ranking health (rankings.ledger, rankings.health; SCORING.md §2): a replay's problems
    "ledger_bad_date": gettext_noop(
        "Torneo «{tournament}», ronda {round}, mesa {table}: la partida tiene una fecha "
        "imposible ({played_at}), fuera de los años {first} a {last}; quedó fuera del ranking. "
        "Corrige su fecha."
    ),
    "ledger_bad_sides": gettext_noop(
        "Torneo «{tournament}», ronda {round}, mesa {table}: la mesa tiene resultado, pero sus "
        "lados no tienen 1 o 2 jugadores cada uno ({side_a} contra {side_b}); quedó fuera del "
        "ranking."
    ),
    "ledger_player_twice": gettext_noop(
        "Torneo «{tournament}», ronda {round}, mesa {table}: un mismo jugador está sentado dos "
        "veces en la partida; quedó fuera del ranking."
    ),
    "ledger_bad_game": gettext_noop(
        "Torneo «{tournament}», ronda {round}, mesa {table}: la partida no se puede puntuar "
        "({detail}); quedó fuera del ranking."
    ),
    "ledger_replay_failed": gettext_noop(
        "El recálculo del ranking falló ({error}): el ranking no incluye los últimos cambios. "
        "Corrige la causa y reconstruye el ranking (manage.py rebuild_ledger o la acción "
        "del admin)."
    ),
    "ledger_rules_changed": gettext_noop(
        "Las partidas de los torneos en borrador ya no cuentan para el ranking: reconstruye "
        "el ranking una vez (manage.py rebuild_ledger o la acción del admin)."
    ),
    "ledger_more_problems": gettext_noop("Y {count} problema(s) más del mismo recálculo."),
}
