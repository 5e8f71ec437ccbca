"""``manage.py send_reminders [--date YYYY-MM-DD]``: enqueue the reminders of the tournaments that
start tomorrow (or on ``--date``), for the background worker (``tournaments.notices.tasks.send_reminders``:
players entered, with an email and consent, once per player and tournament). Run it daily from
cron (README, "Production"); running it twice sends nothing twice."""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from tournaments.notices.tasks import send_reminders


class Command(BaseCommand):
    help = (
        "Pone en la cola los recordatorios de los torneos que empiezan mañana (o en --date): "
        "los manda el proceso de fondo (db_worker), una vez por jugador y torneo."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--date",
            help="el día en que empiezan los torneos, AAAA-MM-DD (por omisión: mañana)",
        )

    def handle(self, *args, **opts):
        if opts["date"]:
            try:
                day = dt.date.fromisoformat(opts["date"])
            except ValueError:
                raise CommandError(
                    f"--date «{opts['date']}» no es una fecha: escríbela como 2026-12-05."
                ) from None
        else:
            day = timezone.localdate() + dt.timedelta(days=1)
        send_reminders.enqueue(day.isoformat())
        self.stdout.write(f"Recordatorios en la cola para los torneos del {day.isoformat()}.")
