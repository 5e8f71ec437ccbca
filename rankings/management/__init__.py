"""The ranking's management commands (``commands/``) and how they end when the ledger is not
current."""

from django.core.management.base import CommandError


class LedgerNotCurrent(CommandError, SystemExit):
    """The command found the ledger not current (``check_ledger``: it differs from a rebuild,
    or a game cannot be rated; ``rebuild_ledger``: it had to skip a game, or failed).

    From the shell, ``manage.py`` prints the message on stderr and exits with ``returncode``
    (1), as for any ``CommandError``. It is also a ``SystemExit`` with that ``code``, so a
    caller of ``call_command`` may catch either."""

    def __init__(self, message: str, returncode: int = 1):
        CommandError.__init__(self, message, returncode=returncode)
        self.code = returncode
