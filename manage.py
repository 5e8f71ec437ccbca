#!/usr/bin/env python
"""Django's command-line utility for the club site."""

import os
import sys


def main():
    if sys.version_info < (3, 12):  # noqa: UP036 (a clear message on an old Python)
        sys.exit(f"This site needs Python 3.12 or newer; this is {sys.version.split()[0]}.")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
