"""The messages of a tournament's life (tournaments/services/lifecycle.py): the steps between
its states and the order of its rounds.

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
    "step_not_allowed": gettext_noop(
        "Un torneo «{state}» no pasa a «{target}». Desde aquí se puede: {allowed}."
    ),
    "unknown_step": gettext_noop("Ese paso no existe: «{step}»."),
    "step_needs_reason": gettext_noop(
        "Para «{step}» escribe el motivo: queda en el historial del torneo."
    ),
    "rounds_already_played": gettext_noop(
        "El torneo ya tiene rondas ({count}): no vuelve a la inscripción. Publícalo de nuevo "
        "(en curso o terminado)."
    ),
    "no_rounds_yet": gettext_noop(
        "El torneo aún no tiene rondas: ábrelo a la inscripción o publícalo sin inscripción."
    ),
    "too_few_entries_to_start": gettext_noop(
        "Para empezar hacen falta al menos {minimum} inscripciones; hay {count}."
    ),
    "previous_round_incomplete": gettext_noop(
        "La ronda {number} aún no está completa: faltan los resultados de {count} mesa(s) "
        "({tables}). Anótalos antes de emparejar la ronda {next}, o empareja igualmente."
    ),
    "tournament_finished_no_pairing": gettext_noop(
        "El torneo está terminado: no se emparejan más rondas. Reábrelo primero (con el motivo)."
    ),
    "import_round_incomplete": gettext_noop(
        "El archivo trae la ronda {next}, pero la ronda {number} queda sin los resultados de "
        "{count} mesa(s) ({tables}). Completa la ronda {number} (en el archivo o en la "
        "página de la ronda) y vuelve a importarlo."
    ),
}
