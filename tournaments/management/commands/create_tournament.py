"""``manage.py create_tournament``: create a running dominó, swiss (match play) or 3–4 player
table-game tournament and print its slug (stdout: the slug alone; stderr: the planned rounds,
and the import commands' option for more).

Each option fills a tournament setting and is refused, in words, for a scoring system that
does not have that setting (``ScoringSystem.fields``: ``--forfeit-score`` and ``--bye-rule``
are dominó's, ``--best-of`` swiss'), except ``--target`` and ``--time-limit``, accepted and
stored for any system as they always were (only the systems that have them use them). ``--mode`` defaults to the system's first mode and must
be one it accepts (table games: ``single`` only); a system may require settings
(``required_settings``: dominó needs ``--mode`` and ``--target``).
"""

from __future__ import annotations

import datetime as dt
import re

from django.core.management.base import BaseCommand, CommandError

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.management.commands._common import ROUNDS_OPTION
from tournaments.models import Tournament

#: The planned rounds when ``--rounds`` is not given (said on stderr when the tournament is made).
DEFAULT_ROUNDS = 5

#: (command option, tournament setting it fills)
OPTION_SETTINGS = (
    ("target", "target"),
    ("best_of", "best_of"),
    ("time_limit", "time_limit"),
    ("bye_rule", "bye_rule"),
    ("forfeit_score", "forfeit_winner_tantos"),
)


#: Options accepted (and stored) whatever the system, as they always were: scripts pass them.
KEPT = ("target", "time_limit")


class Command(BaseCommand):
    help = (
        "Crea un torneo de dominó, suizo (match play) o de juegos de mesa de 3–4 "
        "jugadores en curso e imprime su identificador (slug)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="nombre del torneo")
        parser.add_argument("--date", required=True, help="fecha, AAAA-MM-DD")
        parser.add_argument("--system", default="domino", choices=systems.keys())
        parser.add_argument(
            "--mode",
            default=None,
            choices=Tournament.Mode.values,
            help="por omisión, la primera modalidad del sistema (dominó: obligatoria)",
        )
        parser.add_argument(
            "--target",
            default=None,
            type=int,
            choices=[100, 200],
            help="meta en tantos (dominó: obligatoria)",
        )
        parser.add_argument(
            "--best-of",
            type=int,
            default=None,
            choices=[1, 3, 5],
            help="partidas por encuentro (suizo; por omisión 3)",
        )
        parser.add_argument("--time-limit", type=int, default=None, help="minutos")
        parser.add_argument("--bye-rule", default=None, choices=Tournament.ByeRule.values)
        parser.add_argument(
            "--forfeit-score",
            default=None,
            help="tantos ganador-perdedor de una no presentación, p. ej. 100-0",
        )
        parser.add_argument(
            "--rounds", type=int, default=None, help="rondas previstas (5 si no se dice)"
        )
        rated = parser.add_mutually_exclusive_group()
        rated.add_argument("--rated", dest="rated", action="store_true", default=True)
        rated.add_argument("--unrated", dest="rated", action="store_false")

    def handle(self, *args, **opts):
        opts["rounds_given"] = opts["rounds"] is not None
        if opts["rounds"] is None:
            opts["rounds"] = DEFAULT_ROUNDS
        name = (opts["name"] or "").strip()
        if not name:
            raise CommandError("El nombre del torneo no puede estar vacío.")
        try:
            date = dt.date.fromisoformat(opts["date"].strip())
        except ValueError:
            raise CommandError(
                "La fecha debe tener la forma AAAA-MM-DD (p. ej. 2025-03-01); "
                f"se recibió «{opts['date']}»."
            ) from None
        system = systems.get(opts["system"])
        applies = system.fields()
        # Each option and the setting it fills: an option given for a setting the system does
        # not have is refused in words (it would be silently ignored otherwise).
        for option, setting in OPTION_SETTINGS:
            if opts[option] is not None and setting not in applies and option not in KEPT:
                flag = "--" + option.replace("_", "-")
                having = " o ".join(
                    str(s.presentation.label_plural)
                    for s in systems.all_systems()
                    if setting in s.fields()
                )
                raise CommandError(
                    f"{flag} solo vale para torneos {having}; este es «{system.label}» "
                    f"(--system {system.key})."
                )
        missing = [f"--{k}" for k in system.required_settings if opts[k] is None]
        if missing:
            raise CommandError(
                f"Un torneo del sistema «{system.label}» necesita {' y '.join(missing)}."
            )
        mode = opts["mode"] or system.modes[0]
        if mode not in system.modes:
            allowed = " o ".join(f"«{m}»" for m in system.modes)
            raise CommandError(
                f"En un torneo «{system.label}», --mode solo puede ser {allowed}; "
                f"se recibió «{mode}»."
            )
        fields = {
            "name": name,
            "date": date,
            "system": system.key,
            "mode": mode,
            "rounds_planned": opts["rounds"],
            "status": Tournament.Status.RUNNING,
        }
        for option, setting in OPTION_SETTINGS:
            kept = setting in applies or option in KEPT
            if kept and opts[option] is not None and option != "forfeit_score":
                fields[setting] = opts[option]
        if "rated" in applies:
            fields["rated"] = opts["rated"]
        if opts["time_limit"] is not None and not 1 <= opts["time_limit"] <= 600:
            raise CommandError("El tiempo límite debe estar entre 1 y 600 minutos.")
        if not 1 <= opts["rounds"] <= 99:
            raise CommandError("El número de rondas debe estar entre 1 y 99.")
        if opts["forfeit_score"] is not None:
            match = re.fullmatch(r"\s*(\d{1,4})\s*[-–]\s*(\d{1,4})\s*", opts["forfeit_score"])
            if not match:
                raise CommandError(
                    "--forfeit-score debe tener la forma GANADOR-PERDEDOR, p. ej. 100-0; "
                    f"se recibió «{opts['forfeit_score']}»."
                )
            fields["forfeit_winner_tantos"] = int(match[1])
            fields["forfeit_loser_tantos"] = int(match[2])
        try:
            t = services.create_tournament(acting_user=None, **fields)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(t.slug)
        # stdout is the slug alone (scripts read it); what was planned goes to stderr
        self.stderr.write(
            f"Rondas previstas: {t.rounds_planned}"
            + ("" if opts["rounds_given"] else " (por omisión; --rounds N para otro número)")
            + f". Las importaciones de más rondas: {ROUNDS_OPTION} N.",
            style_func=lambda x: x,
        )
