"""Helpers several test modules share that build nothing (the builders are tests/builders.py):
what a refused call says, how a round is laid out, the ledger as rows, the templates' offences
against the Content-Security-Policy, and a fresh Python process that starts Django."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import connections

from rankings.models import LedgerRow, YearRating
from tournaments.errors import DomainError
from tournaments.models import Bye, Seat

#: The project's directory.
ROOT = Path(__file__).resolve().parent.parent


# --- the services' answers ---------------------------------------------------------------------


def refused(call) -> str:
    """The code of the DomainError ``call()`` raises (it must raise one)."""
    with pytest.raises(DomainError) as caught:
        call()
    return caught.value.code


def layout(t, number, entries):
    """Round ``number`` as {table number: (side A indices, side B indices)} (indices in
    ``entries``)."""
    index = {e.pk: i for i, e in enumerate(entries)}
    tables: dict[int, tuple[list, list]] = {}
    for seat in Seat.objects.filter(round__tournament=t, round__number=number).order_by(
        "table__number", "side", "position"
    ):
        a, b = tables.setdefault(seat.table.number, ([], []))
        (a if seat.side == "A" else b).append(index[seat.entry_id])
    return {n: (tuple(a), tuple(b)) for n, (a, b) in tables.items()}


def byes(t, number, entries):
    """The indices in ``entries`` of the entries with a bye in round ``number``, in order."""
    index = {e.pk: i for i, e in enumerate(entries)}
    return sorted(
        index[e]
        for e in Bye.objects.filter(round__tournament=t, round__number=number).values_list(
            "entry_id", flat=True
        )
    )


# --- the ranking ledger ------------------------------------------------------------------------


def ledger_snapshot():
    """Every ledger row as a tuple, in the ledger's order."""
    return [row.as_tuple() for row in LedgerRow.objects.order_by("order_key", "side", "player_id")]


def year_figures():
    """Every player's stored figures of each year, by year and player."""
    return list(
        YearRating.objects.order_by("year", "player_id").values_list(
            "player_id", "year", "rating", "games", "start_rating", "last_played", "last_key"
        )
    )


# --- the Content-Security-Policy ---------------------------------------------------------------

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>", re.IGNORECASE)
STYLE_ELEMENT = re.compile(r"<style\b", re.IGNORECASE)
STYLE_ATTRIBUTE = re.compile(r"""\sstyle\s*=\s*["'{]""", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"""<[^>]*\son[a-z]+\s*=\s*["']""", re.IGNORECASE)
JS_URL = re.compile(r"""=\s*["']\s*javascript:""", re.IGNORECASE)
# htmx runs these through Function()/eval, which script-src 'self' forbids
HTMX_EVAL = re.compile(
    r"""\s(?:data-)?hx-on[:-]|\s(?:data-)?hx-(?:vals|vars)\s*=\s*["']\s*(?:js|javascript):""",
    re.IGNORECASE,
)


def offences(text: str) -> list[str]:
    """What in the HTML ``text`` the site's Content-Security-Policy forbids (inline scripts and
    styles, event handlers, javascript: URLs, code for htmx to eval)."""
    found = []
    for label, rx in (
        ("inline <script>", INLINE_SCRIPT),
        ("<style> element", STYLE_ELEMENT),
        ("style= attribute", STYLE_ATTRIBUTE),
        ("on...= handler", EVENT_HANDLER),
        ("javascript: URL", JS_URL),
        ("htmx code attribute", HTMX_EVAL),
    ):
        found += [f"{label}: {m.group(0)[:60]!r}" for m in rx.finditer(text)]
    return found


# --- a fresh process -----------------------------------------------------------------------------

SETUP = "import django; django.setup()"


def clean_env(**extra) -> dict:
    """The environment without any of the site's variables, plus ``extra``."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "CLUB_"))
    }
    env["DJANGO_SETTINGS_MODULE"] = "clubsite.settings"
    env.update(extra)
    return env


def run_python(code: str, **extra) -> subprocess.CompletedProcess:
    """``python -c code`` in the project's directory with the environment ``clean_env(**extra)``."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean_env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


def race(*steps):
    """Run each step in its own thread; return their outcomes in order.

    A step is ``(prepare, act)``: ``prepare()`` runs first (its reads, e.g. the version the
    director saw), then every thread waits at one barrier, then ``act(prepared)`` runs. An
    outcome is ``("ok", value)``, ``("error", code)`` for a DomainError, or ``("crash", repr)``.
    Each thread closes its database connections before ending.
    """
    barrier = threading.Barrier(len(steps))
    outcomes: list = [None] * len(steps)

    def run(i, prepare, act):
        try:
            prepared = prepare()
            barrier.wait(timeout=30)
            outcomes[i] = ("ok", act(prepared))
        except DomainError as exc:
            outcomes[i] = ("error", exc.code)
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            barrier.abort()
            outcomes[i] = ("crash", repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, p, a)) for i, (p, a) in enumerate(steps)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread is stuck (deadlock?)"
    assert not [o for o in outcomes if o[0] == "crash"], outcomes
    return outcomes
