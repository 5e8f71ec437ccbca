"""The messages of the services (tournaments/services/): players, tournaments, entries, rounds,
results, castigos, the round clock and leagues.

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
    # Players, tournaments, entries, rounds, results, castigos (tournaments.services)
    "name_required": gettext_noop("Falta el {field}."),
    "name_too_long": gettext_noop("El {field} es demasiado largo (máximo {max} caracteres)."),
    "name_control_chars": gettext_noop(
        "El {field} tiene caracteres de control; escríbelo de nuevo."
    ),
    "member_number_taken": gettext_noop("El número de socio {number} ya es de otro jugador."),
    "member_number_too_long": gettext_noop(
        "El número de socio es demasiado largo (máximo 20 caracteres)."
    ),
    "player_has_results": gettext_noop(
        "{name} ya jugó en algún torneo: no se puede borrar, solo desactivar."
    ),
    "invalid_system": gettext_noop("Sistema de puntuación desconocido: «{system}»."),
    "invalid_mode": gettext_noop(
        "Modalidad desconocida: «{mode}» (parejas, individual o mano a mano)."
    ),
    "invalid_status": gettext_noop("Estado desconocido: «{status}»."),
    "invalid_rounds": gettext_noop("El número de rondas debe estar entre 1 y 99."),
    "invalid_time_limit": gettext_noop("El tiempo límite debe estar entre 1 y 600 minutos."),
    "invalid_start_time": gettext_noop(
        "La hora de inicio «{value}» no es una hora del día: escríbela como 19:30."
    ),
    "invalid_forfeit_score": gettext_noop(
        "El resultado por no presentación {score} no es un resultado válido para la meta del torneo."
    ),
    "mode_locked": gettext_noop(
        "El torneo ya tiene inscritos: no se puede cambiar su sistema ni su modalidad."
    ),
    "target_locked": gettext_noop("El torneo ya tiene resultados: no se puede cambiar su meta."),
    "director_not_staff": gettext_noop(
        "{name} no es miembro del personal: solo el personal puede dirigir un torneo."
    ),
    "director_self_removal": gettext_noop(
        "No puedes quitarte de los directores del torneo: pídeselo a otro director o a un administrador."
    ),
    "tournament_finished": gettext_noop("El torneo está terminado: no admite inscripciones."),
    "check_in_finished": gettext_noop("El torneo está terminado: ya no se pasa lista."),
    "signup_off": gettext_noop("Este torneo no tiene abierta la inscripción desde la web."),
    "signup_started": gettext_noop("El torneo ya empezó: la inscripción está cerrada."),
    "signup_closed_ready": gettext_noop(
        "La inscripción está cerrada: el torneo está a punto de empezar."
    ),
    "signup_deadline": gettext_noop("La inscripción de este torneo ya cerró."),
    "signup_contact": gettext_noop(
        "Deja un correo o un teléfono para que el club pueda avisarte (no se publican)."
    ),
    "signup_identify": gettext_noop(
        "El club ya tiene un jugador llamado «{name}»: escribe tu número de socio, tu correo o "
        "tu teléfono tal como los tiene el club."
    ),
    "signup_partner_required": gettext_noop(
        "Es un torneo por parejas: escribe el nombre de tu compañero."
    ),
    "signup_no_partner": gettext_noop(
        "En este torneo se juega sin compañero fijo: deja vacío el compañero."
    ),
    "signup_same_partner": gettext_noop("Tu compañero no puede ser tú."),
    "signup_already_entered": gettext_noop("{name} ya está inscrito en este torneo."),
    "signup_already_requested": gettext_noop(
        "Ya hay una solicitud de inscripción con «{name}» en este torneo."
    ),
    "signup_decided": gettext_noop("La solicitud de {name} ya estaba decidida."),
    "signup_choose": gettext_noop(
        "El club tiene más de un jugador llamado «{name}»: elige cuál es antes de aceptar."
    ),
    "signup_not_a_choice": gettext_noop(
        "{player} no es ninguno de los jugadores llamados «{name}» que puede elegirse aquí."
    ),
    "signup_needs_club_director": gettext_noop(
        "Esta solicitud añade al registro del club a alguien nuevo ({names}): solo un "
        "director del club (grupo «Directores») puede aceptarla. Queda pendiente para él."
    ),
    "signup_not_asking": gettext_noop(
        "La solicitud de {name} ya no espera tu respuesta: ya se decidió o no te nombra."
    ),
    "signup_full": gettext_noop(
        "El torneo está completo ({most} inscripciones): sube el máximo antes de aceptar otra."
    ),
    "signup_places_held": gettext_noop(
        "Las plazas que quedan son de las solicitudes por aprobar: decide esas antes, pásalas "
        "a la lista de espera o sube el máximo para aceptar la de {name}."
    ),
    "signup_not_movable": gettext_noop(
        "La solicitud de {name} está «{status}»: solo una solicitud por aprobar o en lista de "
        "espera pasa de una lista a la otra."
    ),
    "signup_already_there": gettext_noop("La solicitud de {name} ya está «{status}»."),
    "signup_room_left": gettext_noop(
        "La solicitud de {name} tiene plaza: no va a la lista de espera. Acéptala o recházala."
    ),
    "undrop_full": gettext_noop(
        "El torneo está completo ({most} inscripciones): {name} dejó su plaza al retirarse. "
        "Sube el máximo para que vuelva."
    ),
    "max_entries_below": gettext_noop(
        "El máximo ({most}) no puede ser menor que las inscripciones que ya hay ({count})."
    ),
    # The round clock (tournaments/services/clock.py)
    "clock_no_time_limit": gettext_noop(
        "Este torneo no tiene tiempo límite: el reloj no se puede poner en marcha. Ponle un "
        "tiempo límite en los datos del torneo."
    ),
    "clock_already_running": gettext_noop("El reloj de la ronda {number} ya está en marcha."),
    "clock_already_started": gettext_noop(
        "El reloj de la ronda {number} ya se puso en marcha y está en pausa: pulsa «Reanudar»."
    ),
    "clock_not_started": gettext_noop(
        "El reloj de la ronda {number} todavía no se ha puesto en marcha: pulsa «Empezar»."
    ),
    "clock_not_running": gettext_noop("El reloj de la ronda {number} no está en marcha."),
    "clock_bad_seconds": gettext_noop(
        "El tiempo que se añade o se quita debe ser un número entero de segundos, distinto de "
        "0 y de como mucho {max}; se recibió «{value}»."
    ),
    "clock_no_time_left": gettext_noop(
        "Al reloj de la ronda {number} ya no le queda tiempo: no se puede quitar más."
    ),
    "clock_too_long": gettext_noop(
        "Una ronda puede durar como mucho {hours} horas: no se puede añadir tanto tiempo."
    ),
    # Leagues (tournaments/scoring/league.py, tournaments/services/leagues.py; SCORING.md
    # "Leagues")
    "league_scale_empty": gettext_noop(
        "Escribe los puntos por puesto: los del 1.º, 2.º, 3.º…, separados por comas (por "
        "ejemplo 25,18,15,12,10)."
    ),
    "league_scale_value": gettext_noop(
        "El valor {place} de los puntos por puesto es «{value}»: cada uno debe ser un número "
        "entero de 0 a {max}, separado del siguiente por una coma."
    ),
    "league_scale_too_long": gettext_noop(
        "Los puntos por puesto tienen {count} valores: como mucho pueden ser {max}."
    ),
    "league_scale_order": gettext_noop(
        "En los puntos por puesto, el puesto {place} vale más que el puesto {before}: los "
        "puntos no pueden subir al bajar de puesto."
    ),
    "league_season": gettext_noop(
        "La temporada debe ser un año entre {first} y {last}; se recibió «{value}»."
    ),
    "league_description_too_long": gettext_noop(
        "La descripción es demasiado larga (máximo {max} caracteres)."
    ),
    "league_participation": gettext_noop(
        "Los puntos por participar deben ser un número entero de 0 a {max}; se recibió «{value}»."
    ),
    "league_best_results": gettext_noop(
        "Los resultados que cuentan deben ser un número entero de 1 a {max} (vacío: todos); "
        "se recibió «{value}»."
    ),
    "league_planned": gettext_noop(
        "Los torneos previstos deben ser un número entero de 1 a {max} (vacío: sin indicar); "
        "se recibió «{value}»."
    ),
    "league_planned_below": gettext_noop(
        "La liga tiene {count} torneos y se prevén {planned}: sube los torneos previstos o "
        "quita alguno de la liga."
    ),
}
