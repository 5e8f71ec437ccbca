"""The messages of the CSV imports (tournaments/imports/).

Pure: no Django (``tournaments.errors``)."""

from tournaments.errors.noop import gettext_noop

MESSAGES: dict[str, str] = {
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
    # A workbook's bounds (tournaments/imports/reading.py, docs/performance.md)
    "file_too_wide": gettext_noop(
        "La fila {row} tiene más de {max} columnas. Borra las columnas que sobran a la derecha "
        "de los datos (aunque parezcan vacías) y vuelve a importarlo."
    ),
    "xlsx_too_many_parts": gettext_noop(
        "El libro de cálculo tiene demasiadas partes ({count}; como mucho {max}). Guarda solo "
        "la hoja de la importación como .xlsx o como «CSV UTF-8» y vuelve a importarlo."
    ),
    "xlsx_too_big": gettext_noop(
        "El libro de cálculo es demasiado grande al descomprimirlo ({size} MB; como mucho "
        "{max} MB). Guarda solo la hoja de la importación como .xlsx o como «CSV UTF-8» y "
        "vuelve a importarlo."
    ),
    "xlsx_bomb": gettext_noop(
        "El libro de cálculo está comprimido de una forma anómala (una de sus partes ocupa "
        "{ratio} veces más al descomprimirla; como mucho {max}) y no se lee. Guárdalo de nuevo "
        "desde la hoja de cálculo como .xlsx o como «CSV UTF-8» y vuelve a importarlo."
    ),
    "xlsx_too_complex": gettext_noop(
        "El libro de cálculo tiene demasiado contenido para leerlo (más de {max} elementos "
        "entre celdas, formatos y demás partes). Guarda solo la hoja de la importación como "
        ".xlsx o como «CSV UTF-8» y vuelve a importarlo."
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
}
