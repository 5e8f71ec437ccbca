"""The marker of a message to translate, without importing Django (``makemessages`` extracts
what it wraps; ``DomainError.message`` translates it when shown)."""


def gettext_noop(s):  # marks a string for translation extraction without importing Django
    return s
