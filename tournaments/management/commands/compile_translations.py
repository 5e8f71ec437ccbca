"""Compile the site's translations (locale/<lang>/LC_MESSAGES/django.po → django.mo) without GNU
gettext: the pure-Python ``polib`` writes the .mo files Django reads. ``make demo`` and
``make test`` run it; the .mo files are build output (git-ignored). Fuzzy and untranslated
entries are left out, so Django falls back to the Spanish msgid for them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import polib
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


def po_files() -> list[Path]:
    """Every ``*.po`` under ``settings.LOCALE_PATHS`` (``<lang>/LC_MESSAGES/<domain>.po``)."""
    found: list[Path] = []
    for base in settings.LOCALE_PATHS:
        found.extend(sorted(Path(base).glob("*/LC_MESSAGES/*.po")))
    return found


def compile_po(po_path: Path) -> tuple[Path, bool]:
    """Write the .mo next to ``po_path``; returns (mo path, whether its bytes changed). The file
    is replaced atomically, so a server or test run reading it never sees half a catalogue."""
    catalogue = polib.pofile(str(po_path))
    data = catalogue.to_binary()
    mo_path = po_path.with_suffix(".mo")
    if mo_path.exists() and mo_path.read_bytes() == data:
        return mo_path, False
    fd, tmp = tempfile.mkstemp(prefix=".django-", suffix=".mo", dir=po_path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, mo_path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return mo_path, True


class Command(BaseCommand):
    help = "Compila locale/*/LC_MESSAGES/django.po en .mo con polib (no hace falta GNU gettext)."
    requires_system_checks = []

    def handle(self, *args, **options):
        files = po_files()
        if not files:
            self.stderr.write(
                "No hay archivos .po en LOCALE_PATHS: el sitio queda solo en español."
            )
            return
        for po_path in files:
            try:
                mo_path, changed = compile_po(po_path)
            except (OSError, ValueError) as exc:
                raise CommandError(f"No se pudo compilar {po_path}: {exc}") from exc
            if options["verbosity"] >= 1:
                state = "compilado" if changed else "sin cambios"
                shown = (
                    mo_path.relative_to(settings.BASE_DIR)
                    if mo_path.is_relative_to(settings.BASE_DIR)
                    else mo_path
                )
                self.stdout.write(f"{shown}: {state}")
