"""Mail a person can read (clubsite/mail.py): in development the console shows each message as
plain UTF-8 text, its links whole; over SMTP the List-Unsubscribe header is one line a mail
client reads, and the body keeps its links whole."""

import email
import email.policy
import io

from django.test import override_settings

from clubsite.mail import ReadableConsoleBackend, SMTPBackend
from tournaments.notices import _message

LINK = "https://club.example.org/torneos/copa-de-primavera-del-club-2026/mesa/?jugador=1234567890abcdef"
UNSUBSCRIBE = "https://club.example.org/avisos/baja/" + "Zx9" * 20 + "/"


def notice():
    return _message(
        "Prueba ñandú", ["Hola, Zoë:", f"Tu mesa: {LINK}"], "zoe@example.org", UNSUBSCRIBE
    )


def test_the_console_prints_a_message_readable_with_its_links_whole():
    stream = io.StringIO()
    ReadableConsoleBackend(stream=stream).send_messages([notice()])
    text = stream.getvalue()
    assert "Subject: Club de dominó: Prueba ñandú\n" in text
    assert f"List-Unsubscribe: <{UNSUBSCRIBE}>\n" in text
    assert "\n\nHola, Zoë:\n" in text
    assert f"\nTu mesa: {LINK}\n" in text
    assert f"Para no recibir más avisos: {UNSUBSCRIBE}\n" in text
    assert "=?utf-8?" not in text and "=3D" not in text and "=C3" not in text


class FakeConnection:
    def __init__(self):
        self.sent = []

    def sendmail(self, from_email, recipients, data):
        self.sent.append(data)


SMTP = {
    "default": {"BACKEND": "clubsite.mail.SMTPBackend", "OPTIONS": {"host": "smtp.example.org"}}
}


@override_settings(MAILERS=SMTP)
def test_smtp_sends_whole_lines_and_a_list_unsubscribe_header_clients_read():
    from django.core import mail

    backend = mail.mailers["default"]
    assert isinstance(backend, SMTPBackend)
    backend.connection = FakeConnection()
    message = notice()
    assert backend._send(message) is True
    data = backend.connection.sent[0]
    assert f"\r\nList-Unsubscribe: <{UNSUBSCRIBE}>\r\n".encode() in data
    assert b"Content-Transfer-Encoding: 8bit\r\n" in data
    assert f"Tu mesa: {LINK}\r\n".encode() in data
    assert max(len(line) for line in data.split(b"\r\n")) <= 998
    parsed = email.message_from_bytes(data, policy=email.policy.default)
    assert parsed["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert parsed.get_content().replace("\r\n", "\n") == message.body
    assert "message" not in vars(message)  # the send's own builder is gone afterwards
