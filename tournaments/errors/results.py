"""The messages of the scoring rules (seeds 003, 000, 004; SCORING.md §1, §3, §4): dominó
score sheets, the standings' inputs, Swiss matches, table-game victory points.

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
    # Dominó results (seed 003, SCORING.md §1)
    "invalid_target": gettext_noop("La meta debe ser 100 o 200 tantos; se recibió «{target}»."),
    "not_integer": gettext_noop(
        "Los tantos deben ser un número entero de 0 o más; se recibió «{value}»."
    ),
    "negative_tantos": gettext_noop(
        "Los tantos no pueden ser negativos: se anotó {tantos_a}–{tantos_b}."
    ),
    "both_reached_target": gettext_noop(
        "Los dos lados llegaron a la meta de {target} tantos ({tantos_a}–{tantos_b}); "
        "solo el ganador puede alcanzarla. Revisa la plantilla."
    ),
    "no_side_reached_target": gettext_noop(
        "Ningún lado llegó a {target} tantos ({tantos_a}–{tantos_b}); "
        "si la partida terminó por tiempo, márcalo."
    ),
    "tie_by_time": gettext_noop(
        "Empate {tantos_a}–{tantos_b} al terminar el tiempo: no es un resultado; "
        "se sigue jugando hasta que un lado quede arriba."
    ),
    "time_but_target_reached": gettext_noop(
        "La partida está marcada como terminada por tiempo, pero un lado llegó a la meta de "
        "{target} tantos ({tantos_a}–{tantos_b}); quita la marca de tiempo."
    ),
    "invalid_sides": gettext_noop(
        "Cada lado de la partida necesita al menos un competidor y nadie puede estar en los "
        "dos lados: {side_a} contra {side_b}."
    ),
    "unknown_entry": gettext_noop(
        "La partida incluye al competidor {entry_id}, que no está inscrito en el torneo."
    ),
    # Standings and pairing inputs
    "duplicate_entry": gettext_noop("El competidor {entry_id} aparece dos veces en la lista."),
    "invalid_count": gettext_noop(
        "{field} del competidor {entry_id} debe ser un número entero de 0 o más; "
        "se recibió «{value}»."
    ),
    "invalid_bye_rule": gettext_noop(
        "La regla de descanso debe ser «rest» (no suma nada) o «win» (cuenta como juego "
        "ganado y 1 punto); se recibió «{bye_rule}»."
    ),
    "too_few_entries": gettext_noop(
        "Se necesitan al menos 2 competidores para un todos con todos; hay {count}."
    ),
    # Swiss match play (tournaments/scoring/swiss.py; seed 000, SCORING.md §3)
    "not_integer_games": gettext_noop(  # message for code "not_integer" on games counts
        "Las partidas deben ser un número entero de 0 o más; se recibió «{value}»."
    ),
    "negative_games": gettext_noop(
        "Las partidas no pueden ser negativas: se anotó {games_a}–{games_b}–{games_drawn}."
    ),
    "empty_match": gettext_noop(
        "El encuentro no tiene ninguna partida anotada (0–0–0); una partida sin terminar "
        "cuenta como empatada."
    ),
    "above_wins_needed": gettext_noop(
        "Al mejor de {best_of} el encuentro termina al ganar {wins_needed} partida(s): "
        "{games_a}–{games_b}–{games_drawn} no es posible. Revisa el resultado."
    ),
    "too_many_games": gettext_noop(
        "Al mejor de {best_of} se juegan como mucho {best_of} partidas; "
        "{games_a}–{games_b}–{games_drawn} suma {total}."
    ),
    "bye_with_games": gettext_noop(
        "La ronda libre del competidor {entry_id} en la ronda {round} no lleva partidas "
        "anotadas: cuenta siempre como un encuentro ganado por el mínimo del formato (1–0, "
        "2–0 o 3–0 al mejor de 1, 3 o 5)."
    ),
    "round_entry_twice": gettext_noop(
        "El competidor {entry_id} tiene más de un encuentro o ronda libre en la ronda {round}."
    ),
    # Table victory points (tournaments/scoring/table.py; seed 004, SCORING.md §4)
    "table_size": gettext_noop(
        "Una mesa lleva 3 o 4 jugadores, uno por resultado; se anotaron {count} resultado(s)."
    ),
    "score_missing": gettext_noop(
        "Falta el resultado (puntos de victoria) del asiento {seat} de la mesa."
    ),
    "not_integer_vp": gettext_noop(  # message for code "not_integer" on table scores
        "Los puntos de victoria deben ser un número entero de 0 o más; se recibió «{value}»."
    ),
    "negative_score": gettext_noop(
        "Los puntos de victoria no pueden ser negativos: el asiento {seat} tiene {value}."
    ),
    "neutral_table_size": gettext_noop(  # message for code "table_size" (neutral player)
        "El jugador neutral solo se calcula en una mesa de 3 jugadores; se recibieron "
        "{count} resultado(s)."
    ),
    "table_seats": gettext_noop(
        "Una mesa de la ronda {round} tiene {players} jugador(es) y {scores} resultado(s): "
        "debe haber un resultado por jugador."
    ),
    "table_round_twice": gettext_noop(  # message for code "round_entry_twice" (table games)
        "El jugador {entry_id} tiene más de una mesa o descanso en la ronda {round}."
    ),
}
