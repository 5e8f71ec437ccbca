"""One child process of ``tests/test_scale_out.py`` (two ledger replays at once).

Not a test module and never imported by pytest: the test starts it in a fresh interpreter
(multiprocessing, "spawn") with ``runpy.run_path(this file, init_globals=..., run_name=
"__replay_child__")``, because pytest imports the test module in importlib mode and a spawned
child could not import it by name. The child configures Django from its environment
(``DATABASE_URL`` = the parent's PostgreSQL *test* database), waits at the shared barrier
with its connection open, runs ``ledger.replay_from(FROM_KEY)`` and puts what it saw on the
``RESULTS`` queue.

Times are taken inside the replay's transaction, after ``pg_advisory_xact_lock``: the progress
callback runs after each batch is written. ``ledger.BATCH`` is lowered and each callback
pauses, so a replay holds the lock for a measurable time and an overlap could not be missed.
"""

import os
import time


def replay_child(name, from_key, barrier, results, pause, batch):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    import django

    django.setup()
    from django.db import connection

    from rankings import ledger

    ledger.BATCH = batch
    times: list[float] = []

    def progress(written, total):
        times.append(time.time())
        time.sleep(pause)
        times.append(time.time())

    try:
        connection.ensure_connection()
        backend_pid = connection.connection.info.backend_pid
        barrier.wait(timeout=60)
        report = ledger.replay_from(from_key, progress=progress)
        results.put(
            {
                "name": name,
                "backend_pid": backend_pid,
                "start": times[0],
                "end": times[-1],
                "calls": len(times) // 2,
                "deleted": report.deleted,
                "written": report.written,
            }
        )
    except BaseException as exc:  # reported to the parent, which fails the test with it
        results.put({"name": name, "error": repr(exc)})
    finally:
        connection.close()


if __name__ == "__replay_child__":
    replay_child(**CHILD_ARGS)  # noqa: F821 -- given by the parent through init_globals
