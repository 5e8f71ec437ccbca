"""The site's mail backends (settings.MAILERS): Django's console and SMTP backends, with the
message written in whole lines.

Python's e-mail package folds a header at 78 characters and encodes a body line longer than
that: a claim or unsubscribe link (a long token) came out quoted-printable in the body
(``…/mes=`` + ``a/?jugador=3D…``: broken when copied from a terminal) and RFC 2047-encoded in
the ``List-Unsubscribe`` header (``=?utf-8?q?=3Chttps=3A//…?=``, which mail clients do not
read as an address). Both backends build the message with the policy's line limit raised to
RFC 5322's 998 characters (``whole_lines``): headers stay on one line, and a UTF-8 text body
is sent as ``8bit`` (what Django did before its 6.0 mail rewrite), the links whole.

``ReadableConsoleBackend`` (development, the demo: no DJANGO_EMAIL_HOST) prints each message
as a person reads it: the headers decoded, then each text part as plain UTF-8 text, so a link
can be copied from the terminal. ``SMTPBackend`` (production) sends as Django's does.
"""

from __future__ import annotations

import email.policy

from django.core.mail.backends import console, smtp

#: RFC 5322 §2.1.1: the longest line a message may have, without its CRLF.
LINE_LIMIT = 998


def whole_lines(policy):
    """``policy`` with its line limit raised to ``LINE_LIMIT`` (see the module)."""
    return policy.clone(max_line_length=LINE_LIMIT)


def readable(message) -> str:
    """A Django ``EmailMessage`` as text a person reads: ``Name: value`` for each header
    (decoded), a blank line, then each text part's content (decoded, UTF-8) and a line
    ``[adjunto: NAME (TYPE)]`` for each other part."""
    msg = message.message(policy=whole_lines(email.policy.default))
    lines = [f"{name}: {value}" for name, value in msg.items()]
    lines.append("")
    for part in msg.walk():
        if part.is_multipart():
            continue
        if part.get_content_maintype() == "text" and not part.get_filename():
            lines.append(part.get_content().rstrip("\n"))
        else:
            lines.append(f"[adjunto: {part.get_filename() or '-'} ({part.get_content_type()})]")
    return "\n".join(lines) + "\n"


class ReadableConsoleBackend(console.EmailBackend):
    """Django's console backend, each message written by ``readable``."""

    def write_message(self, message):
        self.stream.write(readable(message))
        self.stream.write("-" * 79 + "\n")


class SMTPBackend(smtp.EmailBackend):
    """Django's SMTP backend, each message built in whole lines (``whole_lines``)."""

    def _send(self, email_message):
        build = email_message.message

        def message(*, policy=email.policy.SMTP):
            return build(policy=whole_lines(policy))

        email_message.message = message  # this send only: Django's _send builds it
        try:
            return super()._send(email_message)
        finally:
            del email_message.message
