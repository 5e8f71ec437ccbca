"""The messages of the pairing rules: Swiss pairings (tournaments/pairing/swiss.py) and the
seating at tables (tournaments/pairing/seating.py; SCORING.md §1, §4).

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
    # Swiss pairings (tournaments/pairing/swiss.py)
    "too_few_entries_swiss": gettext_noop(  # message for code "too_few_entries" (Swiss)
        "Se necesitan al menos 2 competidores para emparejar una ronda suiza; hay {count}."
    ),
    "invalid_score": gettext_noop(
        "La puntuación del competidor {entry_id} debe ser un número entero o una fracción; "
        "se recibió «{value}»."
    ),
    "invalid_rank": gettext_noop(
        "El puesto del competidor {entry_id} debe ser un número entero de 1 o más; "
        "se recibió «{value}»."
    ),
    "table_size_seating": gettext_noop(
        "Una mesa lleva de {fewest} a {most} jugadores; esta tiene {size}."
    ),
    # Seating at tables (tournaments/pairing/seating.py; SCORING.md §4 "Seating", §1)
    "too_few_players": gettext_noop(
        "Se necesitan al menos {minimum} jugadores para sentar una ronda; hay {count}."
    ),
    "duplicate_player": gettext_noop("El jugador {player_id} aparece dos veces en la lista."),
    "invalid_seating_mode": gettext_noop(
        "Modo de mesas desconocido: «{mode}» (table: juegos de mesa; partners: dominó "
        "individual con compañero rotativo)."
    ),
    "mode_not_for_system": gettext_noop(
        "El sistema «{system}» no admite esa modalidad; elige una de estas: {modes}."
    ),
    "action_not_applicable": gettext_noop("Eso no se hace en un torneo del sistema «{system}»."),
    "swiss_proposal_mode": gettext_noop(
        "El emparejamiento suizo no se usa en «{system}»: ahí las mesas se proponen "
        "por la clasificación (Proponer mesas)."
    ),
    "seat_side": gettext_noop("En este torneo el lado de un asiento es {sides}."),
    "seat_position": gettext_noop("En este torneo el número de un asiento va de 1 a {most}."),
    "seat_taken": gettext_noop("Ese asiento de la mesa (lado y número) ya tiene a alguien."),
    "seats_incomplete": gettext_noop(
        "La mesa tiene un resultado: sus asientos deben quedar completos (cada lado con sus "
        "jugadores, o una mesa de juego con su número de jugadores). Borra el resultado antes "
        "de rehacer la mesa."
    ),
    "table_byes": gettext_noop(
        "Jugadores sin mesa: {count}. En los juegos de mesa juegan todos, en mesas de 3 o 4 "
        "(solo con 5 jugadores descansa uno). Siéntalos o retira a quien no juegue."
    ),
    "seat_move_scored": gettext_noop(
        "Ese asiento es de una mesa con resultado: borra el resultado antes de quitar o mover "
        "el asiento."
    ),
    "best_of_locked": gettext_noop(
        "Ya hay encuentros anotados: el número de partidas por encuentro no puede cambiar."
    ),
    "castigos_not_applicable": gettext_noop(
        "Los castigos son en tantos de dominó: el sistema «{system}» no los tiene."
    ),
    "value_too_large": gettext_noop(
        "{value} es demasiado grande para una plantilla (máximo {max}); revisa lo que escribiste."
    ),
    "time_limit_locked": gettext_noop(
        "Hay partidas terminadas por tiempo: el torneo no puede quedarse sin tiempo límite."
    ),
    "rounds_below_played": gettext_noop(
        "El torneo ya tiene {rounds} rondas emparejadas: el número de rondas no puede ser menor."
    ),
    "forfeit_score_locked": gettext_noop(
        "Ya hay no presentaciones registradas con el resultado actual: no se puede cambiar."
    ),
}
