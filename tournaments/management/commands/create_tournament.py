"""``manage.py create_tournament``: create a running dominó, swiss (match play) or 3–4 player
table-game tournament and print its slug.

Dominó needs ``--mode`` and ``--target``. Swiss (``--system swiss``): ``--mode`` defaults to
``single``, ``--target`` is accepted but plays no part (the model's 100 when not given),
``--best-of`` 1, 3 or 5 (default 3). Table games (``--system table``, seed 004, SCORING.md §4):
every entry is one player, so ``--mode`` defaults to ``single`` and any other mode is refused;
``--target`` is optional and plays no part. ``--best-of`` is refused except with swiss.
"""
from __future__ import annotations

import datetime as dt
import re

from django.core.management.base import BaseCommand, CommandError

from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Tournament


class Command(BaseCommand):
    help = ("Crea un torneo de dominó, suizo (match play) o de juegos de mesa de 3–4 "
            "jugadores en curso e imprime su identificador (slug).")

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="nombre del torneo")
        parser.add_argument("--date", required=True, help="fecha, AAAA-MM-DD")
        parser.add_argument("--system", default="domino", choices=["domino", "swiss", "table"])
        parser.add_argument("--mode", default=None, choices=Tournament.Mode.values,
                            help="obligatorio en dominó; en suizo y juegos de mesa, «single» "
                                 "si se omite (juegos de mesa: solo «single»)")
        parser.add_argument("--target", default=None, type=int, choices=[100, 200],
                            help="obligatorio en dominó; en suizo y juegos de mesa no interviene")
        parser.add_argument("--best-of", type=int, default=None, choices=[1, 3, 5],
                            help="solo suizo: partidas por encuentro (por omisión 3)")
        parser.add_argument("--time-limit", type=int, default=None, help="minutos")
        parser.add_argument("--bye-rule", default="rest", choices=Tournament.ByeRule.values)
        parser.add_argument("--forfeit-score", default=None,
                            help="tantos ganador-perdedor de una no presentación, p. ej. 100-0")
        parser.add_argument("--rounds", type=int, default=5)
        rated = parser.add_mutually_exclusive_group()
        rated.add_argument("--rated", dest="rated", action="store_true", default=True)
        rated.add_argument("--unrated", dest="rated", action="store_false")

    def handle(self, *args, **opts):
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
        swiss = opts["system"] == Tournament.System.SWISS
        table = opts["system"] == Tournament.System.TABLE
        if table:
            if opts["best_of"] is not None:
                raise CommandError(
                    "--best-of solo vale para torneos suizos (--system swiss); "
                    "un juego de mesa de 3–4 jugadores no se juega por encuentros."
                )
            if opts["mode"] not in (None, Tournament.Mode.SINGLE):
                raise CommandError(
                    "En los juegos de mesa (--system table) cada inscripción es un jugador: "
                    f"--mode solo puede ser «single»; se recibió «{opts['mode']}»."
                )
        elif not swiss:
            if opts["best_of"] is not None:
                raise CommandError(
                    "--best-of solo vale para torneos suizos (--system swiss); "
                    "un torneo de dominó no se juega por encuentros."
                )
            missing = [f"--{k}" for k in ("mode", "target") if opts[k] is None]
            if missing:
                raise CommandError(f"Un torneo de dominó necesita {' y '.join(missing)}.")
        fields = {
            "name": name, "date": date, "system": opts["system"],
            "mode": opts["mode"] or Tournament.Mode.SINGLE,
            "target": opts["target"] or 100, "time_limit": opts["time_limit"],
            "bye_rule": opts["bye_rule"], "rounds_planned": opts["rounds"],
            "rated": opts["rated"], "status": Tournament.Status.RUNNING,
        }
        if swiss:
            fields["best_of"] = opts["best_of"] or 3
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
