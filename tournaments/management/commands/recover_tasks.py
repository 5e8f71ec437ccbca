"""``manage.py recover_tasks [--older-than MINUTES]``: recover the background tasks a killed
worker left "running" (``clubsite.taskqueue.recover_abandoned``): back in the queue the first
time, failed (``WorkerLost``) when two workers already stopped while running it.

Run it when the worker starts (README, "Production": the systemd unit's ``ExecStartPre``, and
``make demo`` before each start of its worker): with ``--older-than 0`` (the default) every
running row is recovered, right when this is the only worker (its predecessor is gone). With
several workers, run it from cron instead with ``--older-than`` longer than any task takes
(60: an hour), so the tasks another worker is running are left alone."""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from clubsite.taskqueue import recover_abandoned


class Command(BaseCommand):
    help = (
        "Recupera las tareas de fondo que un db_worker detenido dejó «en marcha»: vuelven a la "
        "cola la primera vez, y fallan si ya se detuvieron dos procesos con ellas."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            default="0",
            help="solo las que empezaron hace más de estos minutos (por omisión 0: todas; con "
            "varios db_worker, más que lo que tarda la tarea más larga, p. ej. 60)",
        )

    def handle(self, *args, **opts):
        try:
            minutes = float(opts["older_than"])
        except ValueError:
            minutes = -1.0
        if not 0 <= minutes <= 7 * 24 * 60:
            raise CommandError(
                f"--older-than «{opts['older_than']}» no es un número de minutos entre 0 y "
                "10080: escribe por ejemplo --older-than 60."
            )
        requeued, failed = recover_abandoned(older_than=dt.timedelta(minutes=minutes))
        for pk in requeued:
            self.stdout.write(f"De vuelta en la cola: {pk}")
        for pk in failed:
            self.stdout.write(f"Fallida (se detuvieron dos procesos con ella): {pk}")
        self.stdout.write(
            f"Tareas recuperadas: {len(requeued)} de vuelta en la cola, {len(failed)} fallidas."
        )
