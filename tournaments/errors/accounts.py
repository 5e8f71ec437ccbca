"""The messages of a player's account and the notices (tournaments.services.accounts,
services.players.anonymise_player, the sign-up and check-in pages).

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
    # Accounts and notices (tournaments.services.accounts, services.players.anonymise_player)
    "player_anonymised": gettext_noop("Esta ficha ya está anonimizada ({name})."),
    "claim_taken": gettext_noop(
        "Esta ficha de jugador ya está unida a una cuenta: si es la tuya, entra con ella."
    ),
    "claim_own_player": gettext_noop("Tu cuenta ya está unida a la ficha de {name}."),
    "claim_link_invalid": gettext_noop(
        "Este enlace ya no vale: caducó, ya se usó o el correo de la ficha cambió. Pide otro."
    ),
    "consent_needs_email": gettext_noop("Para recibir avisos por correo, escribe tu correo."),
    "email_change_password": gettext_noop(
        "Para cambiar tu correo, escribe tu contraseña actual: la que usas para entrar."
    ),
    "self_check_in_off": gettext_noop(
        "Este torneo no permite marcarse presente desde el teléfono: avisa al director."
    ),
    "check_in_code_wrong": gettext_noop(
        "Ese no es el código del día: búscalo en el local (lo tiene el director)."
    ),
    "open_rounds": gettext_noop(
        "El torneo tiene rondas abiertas ({rounds}): ciérralas antes de darlo por terminado."
    ),
    "entry_size": gettext_noop(
        "Cada inscripción de este torneo lleva {size} jugador(es) distintos."
    ),
    "player_already_entered": gettext_noop("{name} ya está inscrito en este torneo."),
    "player_inactive": gettext_noop("{name} está desactivado: actívalo antes de inscribirlo."),
    "entry_has_results": gettext_noop(
        "{name} ya jugó o descansó en una ronda: no se puede quitar."
    ),
    "side_size": gettext_noop("Cada lado de una mesa lleva {size} competidor(es) en este torneo."),
    "foreign_entry": gettext_noop("{name} no está inscrito en este torneo."),
    "entry_twice": gettext_noop("{name} está sentado dos veces en la misma ronda."),
    "round_has_results": gettext_noop(
        "La ronda {number} ya tiene resultados: bórralos antes de cambiar los emparejamientos."
    ),
    "round_closed": gettext_noop(
        "La ronda {number} está cerrada: un director debe reabrirla para cambiarla."
    ),
    "no_tables": gettext_noop("No hay ninguna mesa completa."),
    "invalid_round_number": gettext_noop("El número de ronda debe estar entre 1 y 99."),
    "round_out_of_order": gettext_noop(
        "La ronda {number} no existe todavía y la próxima ronda es la {next}: las rondas van en orden."
    ),
    "round_beyond_planned": gettext_noop(
        "El torneo tiene {planned} rondas previstas: no se puede crear la ronda {number}. "
        "Si se juegan más rondas, sube antes el número de rondas en los datos del torneo."
    ),
    "table_has_result": gettext_noop(
        "La mesa {table} de la ronda {round} ya tiene resultado: bórralo antes de cambiar "
        "quién se sienta en ella."
    ),
    "round_robin_mode": gettext_noop(
        "El todos con todos no se usa en «{system}»: ahí las mesas se proponen por "
        "la clasificación (Proponer mesas)."
    ),
    "round_robin_complete": gettext_noop("Todas las rondas del todos con todos ya existen."),
    "round_incomplete": gettext_noop(
        "Faltan resultados en la(s) mesa(s) {tables}: no se puede cerrar la ronda."
    ),
    "stale_version": gettext_noop(
        "Esta mesa cambió mientras la editabas (mesa {table}): recarga y vuelve a capturar."
    ),
    "table_empty": gettext_noop("La mesa {table} no tiene jugadores sentados."),
    "invalid_side": gettext_noop("El lado que no se presentó debe ser A o B."),
    "tantos_missing": gettext_noop("Faltan los tantos del lado {side}."),
    "games_missing": gettext_noop(  # message for code "tantos_missing" on games counts
        "Faltan las partidas ganadas por {side}."
    ),
    "no_time_limit": gettext_noop(
        "Este torneo no tiene tiempo límite: una partida no puede terminar por tiempo."
    ),
    "no_result": gettext_noop("La mesa {table} no tiene resultado que borrar."),
    "castigo_tantos": gettext_noop(
        "El castigo debe ser un número entero de tantos mayor que 0 (como mucho 99999)."
    ),
    "player_not_entered": gettext_noop("{name} no juega en este torneo."),
    "foreign_round": gettext_noop("Esa ronda no es de este torneo."),
    "sorteo_too_few": gettext_noop("Un sorteo necesita al menos dos competidores empatados."),
    "sorteo_too_early": gettext_noop(
        "Todavía no hay sorteo: el orden no es definitivo hasta que el torneo termine o se "
        "jueguen sus {planned} rondas previstas con todos sus resultados."
    ),
    "forfeit_by_time": gettext_noop(
        "Una no presentación no puede terminar por tiempo: quita una de las dos marcas."
    ),
}
