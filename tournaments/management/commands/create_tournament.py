"""``manage.py create_tournament``: create a running dominó tournament and print its slug."""
from __future__ import annotations

import datetime as dt
import re

from django.core.management.base import BaseCommand, CommandError

from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Crea un torneo de dominó en curso e imprime su identificador (slug)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="nombre del torneo")
        parser.add_argument("--date", required=True, help="fecha, AAAA-MM-DD")
        parser.add_argument("--system", default="domino", choices=["domino"])
        parser.add_argument("--mode", required=True, choices=Tournament.Mode.values)
        parser.add_argument("--target", required=True, type=int, choices=[100, 200])
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
        fields = {
            "name": name, "date": date, "system": opts["system"], "mode": opts["mode"],
            "target": opts["target"], "time_limit": opts["time_limit"],
            "bye_rule": opts["bye_rule"], "rounds_planned": opts["rounds"],
            "rated": opts["rated"], "status": Tournament.Status.RUNNING,
        }
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
