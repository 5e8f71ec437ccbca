"""Domain errors: one base class with a stable machine code (DESIGN.md, Conventions).

A pure module: it never imports Django. The messages are Spanish templates (the msgids of the
site's translations), marked with the local ``gettext_noop`` so ``makemessages`` extracts them.
They are translated when shown: ``DomainError.message`` formats ``translate(template)``, and
the tournaments app sets ``translate`` to Django's ``gettext`` when it starts
(``tournaments.apps.TournamentsConfig.ready``), so a message reads in the language active where
it is displayed. Outside Django, ``translate`` leaves the Spanish text as it is.
"""


def gettext_noop(s):  # marks a string for translation extraction without importing Django
    return s


def translate(text: str) -> str:
    """Hook: the message catalogue lookup. Identity here; Django's gettext once the app is ready."""
    return text


#: Parameters whose values are words (marked with gettext_noop where they are passed, e.g.
#: field=gettext_noop("nombre")), translated with the message; the others are shown as given.
TRANSLATED_PARAMS = ("field",)


class _SafeParams(dict):
    """Format parameters that never fail: a missing name shows as "?" instead of raising."""

    def __missing__(self, key):
        return "?"


class DomainError(Exception):
    """Base of every domain error. ``code`` is stable (tests assert on it); ``message`` is the
    text for people, in the active language (Spanish by default): ``template`` (a Spanish msgid,
    by default ``MESSAGES[code]``) translated, then formatted with ``params``."""

    code = "domain_error"

    def __init__(self, code=None, message=None, **params):
        self.code = code or self.code
        self.params = params
        self.template = message or MESSAGES.get(self.code, self.code)
        super().__init__(self.template.format_map(_SafeParams(params)))

    @property
    def message(self) -> str:
        params = _SafeParams(self.params)
        for key in TRANSLATED_PARAMS:
            if isinstance(params.get(key), str):
                params[key] = translate(params[key])
        return translate(self.template).format_map(params)

    def __str__(self) -> str:
        return self.message


class ResultError(DomainError):
    code = "invalid_result"


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
    "signup_full": gettext_noop(
        "El torneo está completo ({most} inscripciones): sube el máximo antes de aceptar otra."
    ),
    "max_entries_below": gettext_noop(
        "El máximo ({most}) no puede ser menor que las inscripciones que ya hay ({count})."
    ),
    "signup_too_many": gettext_noop(
        "Demasiadas solicitudes desde esta conexión: espera un rato y vuelve a intentarlo."
    ),
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
    "self_check_in_off": gettext_noop(
        "Este torneo no permite marcarse presente desde el teléfono: avisa al director."
    ),
    "check_in_code_wrong": gettext_noop(
        "Ese no es el código del día: búscalo en el local (lo tiene el director)."
    ),
    "check_in_too_many": gettext_noop(
        "Demasiados intentos con un código equivocado: espera unos minutos o avisa al director."
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
    "forfeit_by_time": gettext_noop(
        "Una no presentación no puede terminar por tiempo: quita una de las dos marcas."
    ),
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
    # CSV imports (tournaments/imports/)
    "import_invalid": gettext_noop(
        "No se importó nada: {count} línea(s) con errores. Corrige el archivo y vuelve a importarlo."
    ),
    "bad_encoding": gettext_noop(
        "El archivo no está en UTF-8 ni en Windows-1252 (hay un carácter no válido en la línea "
        "{line}). Guárdalo desde la hoja de cálculo como «CSV UTF-8» o como .xlsx y vuelve a "
        "importarlo."
    ),
    "bad_xlsx": gettext_noop(
        "No se pudo leer el archivo como hoja de cálculo .xlsx. Guárdalo desde la hoja de "
        "cálculo como .xlsx o como «CSV UTF-8» y vuelve a importarlo."
    ),
    "xls_file": gettext_noop(
        "Los archivos .xls (Excel 97–2003) no se leen. Guárdalo desde la hoja de cálculo como "
        ".xlsx o como «CSV UTF-8» y vuelve a importarlo."
    ),
    "bad_header": gettext_noop(
        "La primera línea debe ser exactamente «{expected}» (separada por comas, puntos y "
        "comas o tabuladores); se encontró «{found}»."
    ),
    "no_rows": gettext_noop("El archivo no tiene filas de resultados: solo la primera línea."),
    "no_castigo_rows": gettext_noop(
        "El archivo no tiene filas de castigos: solo la primera línea."
    ),
    "file_too_large": gettext_noop(
        "El archivo tiene más de {max} líneas: divídelo en varios archivos."
    ),
    "csv_syntax": gettext_noop("La línea no es CSV válido ({detail}); revisa las comillas."),
    "field_count": gettext_noop(
        "La línea tiene {found} campo(s); se esperaban {expected}, separados como los de la "
        "primera línea."
    ),
    "bad_round": gettext_noop(
        "La ronda debe ser un número entero de 1 a {max}; se recibió «{value}»."
    ),
    "bad_table": gettext_noop(
        "La mesa debe ser un número entero de 1 a {max}; se recibió «{value}»."
    ),
    "table_required": gettext_noop(
        "Falta el número de mesa (solo una línea de descanso puede dejarlo vacío)."
    ),
    "bad_yes_no": gettext_noop(
        "«{field}» debe ser «sí» o «no» (vacío = no); se recibió «{value}»."
    ),
    "castigo_after_withdrawal": gettext_noop(
        "{name} se retiró después de la ronda {played} y no juega la ronda {round}: un castigo "
        "suyo va sin ronda o en una ronda que jugó."
    ),
    "stale_pairings": gettext_noop(
        "Otro director cambió los emparejamientos de la ronda {number} mientras los editabas: "
        "no se guardó nada. Vuelve a abrir la ronda, revisa sus mesas y guarda de nuevo."
    ),
    "table_removed": gettext_noop(
        "La mesa {table} ya no existe: los emparejamientos de la ronda cambiaron mientras "
        "tanto. Vuelve a cargar la página y anota el resultado en la mesa nueva."
    ),
    "played_at_outside": gettext_noop(
        "La hora de la partida ({value}) no cae en los días del torneo ({first} a {last}, "
        "hasta las 06:00 del día siguiente). Corrige la fecha de la partida o, si el torneo "
        "dura varios días, indica su último día."
    ),
    "date_out_of_range": gettext_noop(
        "La fecha {value} no es válida: debe estar entre {first} y {last}."
    ),
    "end_date_before_date": gettext_noop(
        "El último día del torneo no puede ser anterior a su primer día ({date})."
    ),
    "tournament_too_long": gettext_noop("Un torneo puede durar como mucho {days} días."),
    "games_outside_dates": gettext_noop(
        "Hay partidas registradas el {value}, fuera de los días nuevos del torneo ({first} a "
        "{last}): corrige antes esas partidas o elige otras fechas."
    ),
    "games_would_leave_dates": gettext_noop(
        "Las partidas se mueven con la fecha del torneo: la del {value} pasaría al {moved}, "
        "fuera de los días nuevos ({first} a {last}). Elige también el último día del torneo "
        "o corrige antes esa partida."
    ),
    "bad_played_at": gettext_noop(
        "«played_at» debe ser una fecha y hora ISO, p. ej. 2025-03-01 18:30; se recibió «{value}»."
    ),
    "side_names": gettext_noop(
        "El lado {side} debe tener {size} jugador(es), separados por « & »; se recibió «{value}»."
    ),
    "player_twice_in_row": gettext_noop("«{name}» aparece dos veces en la misma partida."),
    "ambiguous_player": gettext_noop(
        "Hay {count} jugadores llamados «{name}»: cambia el nombre de uno en el registro de "
        "jugadores antes de importar."
    ),
    "ambiguous_player_similar": gettext_noop(
        "«{name}» no es exactamente el nombre de ningún jugador y solo difiere en mayúsculas, "
        "acentos o espacios del de {count}: {names}. Escribe en el archivo el nombre exacto "
        "del que corresponda."
    ),
    "player_other_entry": gettext_noop(
        "«{name}» ya está inscrito en este torneo como «{entry}», no como «{side}»."
    ),
    "bye_with_marks": gettext_noop(
        "Una línea de descanso (side_b y tantos vacíos) no lleva ended_by_time ni forfeit."
    ),
    "forfeit_score_mismatch": gettext_noop(
        "Una no presentación se anota con el resultado del torneo ({winner}–{loser}); "
        "se recibió {tantos_a}–{tantos_b}."
    ),
    "table_twice": gettext_noop(
        "La mesa {table} de la ronda {round} ya aparece en la línea {other}."
    ),
    "entry_twice_in_round": gettext_noop(
        "«{name}» ya juega o descansa en la ronda {round} (línea {other})."
    ),
    "entry_elsewhere": gettext_noop(
        "«{name}» ya está en la ronda {round} ({where}), que el archivo no cambia."
    ),
    "seats_differ": gettext_noop(
        "La mesa {table} de la ronda {round} ya tiene resultado con otros competidores "
        "({seated}); el archivo dice {found}. Corrige la mesa o borra su resultado antes."
    ),
    "import_cannot_create_players": gettext_noop(
        "«{name}» no está en el registro de jugadores, y solo un director del club (grupo "
        "«Directores») puede dar de alta jugadores nuevos. Corrige el nombre o pide a un "
        "director del club que lo registre antes de importar."
    ),
    "import_not_domino": gettext_noop(
        "Este torneo no es de dominó: solo se importan resultados de dominó."
    ),
    "round_missing": gettext_noop("La ronda {number} no existe en este torneo."),
    "player_unknown": gettext_noop("No hay ningún jugador llamado «{name}»."),
    "round_robin_conflict": gettext_noop(
        "La ronda {number} ya existe con otros emparejamientos: el todos con todos no puede "
        "completarse sin repetir ni saltar rivales. Borra esas rondas o empareja a mano."
    ),
    "invalid_best_of": gettext_noop(
        "Un encuentro se juega al mejor de 1, 3 o 5 partidas; se recibió «{best_of}»."
    ),
    "entry_dropped": gettext_noop(
        "{name} se retiró después de la ronda {round}: ya no se empareja."
    ),
    "drop_before_played": gettext_noop(
        "{name} ya jugó la ronda {played}: su retirada no puede ser después de la ronda "
        "{round}, sino después de la ronda {played} o más tarde."
    ),
    "wrong_system": gettext_noop("Ese tipo de resultado no corresponde al sistema de este torneo."),
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
        "anotadas: cuenta siempre como un encuentro ganado 2–0."
    ),
    "round_entry_twice": gettext_noop(
        "El competidor {entry_id} tiene más de un encuentro o ronda libre en la ronda {round}."
    ),
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
