"""Messages to players by email: a round's table (pairings), the reminder the day before a
tournament, the link that claims a player record, the warning to the old address when an
account's email changes, the question to a player named as partner by a sign-up request, and
the signed links they carry.

Who is told: a player with an email, ``notices_consent`` and not anonymised (``recipients``).
What is sent is built here from the database (``placements``, ``pairings_message``,
``reminder_message``, ``claim_message``); the background tasks beside it
(``tournaments.notices.tasks``) send it, never the director's request: a round's pairings, once
stored, tell ``tournaments.events.round_paired`` when their transaction commits, and its
listener enqueues ``send_pairings_notices`` (``tasks.enqueue_pairings``).

Once: each message is a ``Notice`` row (player and round for the pairings, player and tournament
for the reminder) created BEFORE the message goes out (``deliver``), so a round paired again,
a task run twice or two workers at once tell nobody twice (the model's unique constraints). A
message that fails to go out gives its row back, so a later run tells that player. Pairings
changed after the notice are not sent again: the message says that the tournament's page always
has the current tables.

The partner's question (``partner_message``) is not a notice either: it goes, once per player
and tournament (``Notice``, kind ``PARTNER``), to the email the club holds whatever the consent
to notices, because nobody is entered as someone's partner without their word
(``services.signups``); it carries no unsubscribe link, and its link
(``partner_token``) answers every request naming them in that tournament.

Language: the messages are written in the club's language (``settings.LANGUAGE_CODE``): a player
has no stored language. Every notice ends with an unsubscribe link (``unsubscribe_url``: signed,
no expiry, works without logging in); the claim message too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage, mailers
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.utils.formats import date_format, time_format
from django.utils.http import urlencode
from django.utils.translation import gettext

from tournaments import systems
from tournaments.models import Bye, Entry, Notice, Player, Round, Seat, SignUp, Tournament

log = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "tournaments.notices.unsubscribe"
CLAIM_SALT = "tournaments.accounts.claim"
#: How long a claim link works (seconds): two days.
CLAIM_MAX_AGE = 2 * 24 * 60 * 60


# --- links -------------------------------------------------------------------------------------


def absolute(path: str, base_url: str | None = None) -> str:
    """``path`` on the site's address (``base_url``, else ``settings.SITE_URL``)."""
    return (base_url or settings.SITE_URL).rstrip("/") + path


def unsubscribe_token(player: Player) -> str:
    """The signed token of ``player``'s unsubscribe link (no expiry: a link in an old message
    still works)."""
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign(str(player.pk))


def unsubscribing_player(token: str) -> Player | None:
    """The player whose unsubscribe ``token`` this is, or None (forged, or the player is gone)."""
    try:
        pk = int(signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token))
    except (signing.BadSignature, ValueError):
        return None
    return Player.objects.filter(pk=pk).first()


def unsubscribe_url(player: Player, base_url: str | None = None) -> str:
    return absolute(reverse("account:unsubscribe", args=[unsubscribe_token(player)]), base_url)


def _email_key(email: str) -> str:
    """A keyed digest of an address (case ignored): a claim link names the address it was sent
    to without showing it, and stops working once the record's email changes."""
    return salted_hmac(CLAIM_SALT, email.strip().lower()).hexdigest()[:20]


def claim_token(player: Player) -> str:
    """The signed, timestamped token of the link that claims ``player`` (``TimestampSigner``:
    valid ``CLAIM_MAX_AGE`` seconds, for the record's present email only)."""
    signer = signing.TimestampSigner(salt=CLAIM_SALT)
    return signer.sign_object({"p": player.pk, "e": _email_key(player.email)})


def claimable_player(token: str) -> Player | None:
    """The player that claim ``token`` names, while it may be claimed with it: the token is
    genuine and younger than ``CLAIM_MAX_AGE``, the record still has the email the link went to,
    belongs to no account and is not anonymised. None otherwise (one time: a claimed record
    refuses its link)."""
    try:
        value = signing.TimestampSigner(salt=CLAIM_SALT).unsign_object(token, max_age=CLAIM_MAX_AGE)
        pk, key = int(value["p"]), str(value["e"])
    except (signing.BadSignature, ValueError, TypeError, KeyError):
        return None
    player = Player.objects.filter(pk=pk, user__isnull=True, anonymised_at__isnull=True).first()
    if player is None or not player.email or _email_key(player.email) != key:
        return None
    return player


PARTNER_SALT = "tournaments.signups.partner"
#: How long the link that answers a partner's requests works (seconds): thirty days.
PARTNER_MAX_AGE = 30 * 24 * 60 * 60


def partner_token(player: Player, tournament: Tournament) -> str:
    """The signed, timestamped token of the link that lets ``player`` answer the sign-up
    requests of ``tournament`` naming them as partner (valid ``PARTNER_MAX_AGE`` seconds, for
    the record's present email only)."""
    signer = signing.TimestampSigner(salt=PARTNER_SALT)
    return signer.sign_object({"p": player.pk, "t": tournament.pk, "e": _email_key(player.email)})


def partner_of_token(token: str, tournament: Tournament) -> Player | None:
    """The player that partner ``token`` names, when it is genuine, younger than
    ``PARTNER_MAX_AGE``, made for ``tournament``, and the record still has the email the link
    went to and is not anonymised; None otherwise."""
    try:
        value = signing.TimestampSigner(salt=PARTNER_SALT).unsign_object(
            token, max_age=PARTNER_MAX_AGE
        )
        pk, t, key = int(value["p"]), int(value["t"]), str(value["e"])
    except (signing.BadSignature, ValueError, TypeError, KeyError):
        return None
    if t != tournament.pk:
        return None
    player = Player.objects.filter(pk=pk, anonymised_at__isnull=True).first()
    if player is None or not player.email or _email_key(player.email) != key:
        return None
    return player


def partner_url(player: Player, tournament: Tournament, base_url: str | None = None) -> str:
    path = reverse("public:partner", args=[tournament.slug, partner_token(player, tournament)])
    return absolute(path, base_url)


# --- who is told -------------------------------------------------------------------------------


def recipients():
    """The players who get notices: an email, consent, not anonymised. A queryset."""
    return Player.objects.exclude(email="").filter(notices_consent=True, anonymised_at__isnull=True)


def wants_notices(player: Player) -> bool:
    return bool(player.email) and player.notices_consent and player.anonymised_at is None


@dataclass
class Placement:
    """Where one player is in a round: table, side ("A"/"B"; "" at a table game), seat number
    around the table where it matters (else None), partners and opponents by name; or
    ``rests`` (a bye)."""

    player: Player
    table_number: int | None = None
    side: str = ""
    position: int | None = None
    partners: list[str] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    rests: bool = False


def _seat_number(seat: Seat, seats: list[Seat], table_game: bool) -> int | None:
    """The seat's number as the pages give it: a table game's seat (1–4); with two players a
    side, side A sits 1 and 3, side B 2 and 4; None with one entry a side."""
    if table_game:
        return seat.position
    if sum(1 for other in seats if other.side == seat.side) < 2:
        return None
    return 2 * seat.position - (1 if seat.side == "A" else 0)


def placements(rnd: Round) -> list[Placement]:
    """Every player of round ``rnd`` (seated or resting), once each, in table order then the
    resting ones. Two queries."""
    table_game = not systems.of(rnd.tournament).has_sides
    tables: dict[int, list[Seat]] = {}
    for seat in (
        Seat.objects.filter(round=rnd)
        .select_related("table", "entry__player1", "entry__player2")
        .order_by("table__number", "side", "position")
    ):
        tables.setdefault(seat.table.number, []).append(seat)
    found: dict[int, Placement] = {}
    for number, seats in tables.items():
        for seat in seats:
            for player in (seat.entry.player1, seat.entry.player2):
                if player is None or player.pk in found:
                    continue
                here = Placement(
                    player=player,
                    table_number=number,
                    side="" if table_game else seat.side,
                    position=_seat_number(seat, seats, table_game),
                )
                for other in seats:
                    for p in (other.entry.player1, other.entry.player2):
                        if p is None or p.pk == player.pk:
                            continue
                        if not table_game and other.side == seat.side:
                            here.partners.append(p.full_name)
                        else:
                            here.opponents.append(p.full_name)
                found[player.pk] = here
    for bye in Bye.objects.filter(round=rnd).select_related("entry__player1", "entry__player2"):
        for player in (bye.entry.player1, bye.entry.player2):
            if player is not None and player.pk not in found:
                found[player.pk] = Placement(player=player, rests=True)
    return list(found.values())


def pairings_pending(round_id: int) -> bool:
    """Whether round ``round_id`` has a player to tell: seated or resting, a recipient, not
    told yet. One query (the director's request asks it before enqueuing)."""
    entries = Entry.objects.filter(Q(seats__round_id=round_id) | Q(byes__round_id=round_id))
    told = Notice.objects.filter(kind=Notice.Kind.PAIRINGS, round_id=round_id)
    return (
        recipients()
        .filter(Q(pk__in=entries.values("player1")) | Q(pk__in=entries.values("player2")))
        .exclude(pk__in=told.values("player_id"))
        .exists()
    )


def reminder_players(t: Tournament) -> list[Player]:
    """The recipients entered in ``t`` (an entry, or an accepted sign-up, as player or
    partner), by name. One query."""
    entries = Entry.objects.filter(tournament=t)
    accepted = t.signups.filter(status=SignUp.Status.ACCEPTED)
    return list(
        recipients()
        .filter(
            Q(pk__in=entries.values("player1"))
            | Q(pk__in=entries.values("player2"))
            | Q(pk__in=accepted.values("player"))
            | Q(pk__in=accepted.values("partner"))
        )
        .order_by("full_name", "pk")
    )


# --- the messages ------------------------------------------------------------------------------


def _message(subject: str, lines: list[str], to: str, unsubscribe: str | None) -> EmailMessage:
    body = "\n".join(lines).rstrip() + "\n"
    headers = {}
    if unsubscribe:
        body += "\n-- \n" + gettext(
            "Recibes este aviso porque aceptaste los avisos por correo del club."
        )
        body += "\n" + gettext("Para no recibir más avisos: {url}").format(url=unsubscribe) + "\n"
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
    return EmailMessage(
        subject=f"{gettext('Club de dominó')}: {subject}",
        body=body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers=headers,
    )


def pairings_message(place: Placement, rnd: Round) -> EmailMessage:
    """The message telling ``place.player`` their table in ``rnd``: tournament, round, table,
    side and seat, partners and opponents (or that they rest), the link to the tournament's
    "find my table" page and the unsubscribe link."""
    t = rnd.tournament
    player = place.player
    lines = [gettext("Hola, {name}:").format(name=player.full_name), ""]
    if place.rests:
        subject = gettext("«{tournament}», ronda {number}: descansas").format(
            tournament=t.name, number=rnd.number
        )
        lines.append(
            gettext(
                "En la ronda {number} de «{tournament}» descansas: no juegas esta ronda."
            ).format(number=rnd.number, tournament=t.name)
        )
    else:
        subject = gettext("«{tournament}», ronda {number}: mesa {table}").format(
            tournament=t.name, number=rnd.number, table=place.table_number
        )
        lines.append(
            gettext("En la ronda {number} de «{tournament}» juegas en la mesa {table}.").format(
                number=rnd.number, tournament=t.name, table=place.table_number
            )
        )
        if place.side:
            where = gettext("Lado {side}").format(side=place.side)
            if place.position:
                where += " · " + gettext("asiento {number}").format(number=place.position)
            lines.append(where)
        elif place.position:
            lines.append(gettext("Asiento {number}").format(number=place.position))
        if place.partners:
            lines.append(gettext("Con: {names}").format(names=" & ".join(place.partners)))
        joined = " & " if place.side else ", "
        lines.append(gettext("Contra: {names}").format(names=joined.join(place.opponents) or "—"))
    lines += [
        "",
        gettext("Tu mesa en cada ronda, siempre al día: {url}").format(
            url=absolute(reverse("public:find_table", args=[t.slug]))
            + "?"
            + urlencode({"q": player.full_name})
        ),
        gettext(
            "Si el director cambia las mesas después de este aviso, no te llega otro: la página "
            "del torneo tiene siempre las actuales."
        ),
    ]
    return _message(subject, lines, player.email, unsubscribe_url(player))


def reminder_message(player: Player, t: Tournament) -> EmailMessage:
    """The reminder the day before ``t``: its name, day, hour and place, its page, the
    unsubscribe link."""
    lines = [
        gettext("Hola, {name}:").format(name=player.full_name),
        "",
        gettext("Mañana, {date}, juegas «{tournament}».").format(
            date=date_format(t.date, "DATE_FORMAT"), tournament=t.name
        ),
    ]
    if t.start_time:
        lines.append(gettext("Hora: {time}").format(time=time_format(t.start_time, "H:i")))
    if t.venue:
        lines.append(gettext("Lugar: {venue}").format(venue=t.venue))
    lines += [
        absolute(t.get_absolute_url()),
        "",
        gettext("Si al final no puedes ir, avisa al director del torneo."),
    ]
    subject = gettext("mañana juegas «{tournament}»").format(tournament=t.name)
    return _message(subject, lines, player.email, unsubscribe_url(player))


def claim_message(players: list[Player], base_url: str) -> EmailMessage:
    """The message with the links that claim ``players`` (records sharing one email), sent to
    that email; the links open on ``base_url`` (the address the request came to)."""
    lines = [
        gettext("Hola:"),
        "",
        gettext(
            "Alguien (seguramente tú) pidió unir a una cuenta del sitio la ficha de jugador del "
            "club que tiene este correo. Para hacerlo, abre el enlace en los próximos 2 días:"
        ),
        "",
    ]
    for player in players:
        url = absolute(reverse("account:claim_link", args=[claim_token(player)]), base_url)
        lines += [f"{player.full_name}:", url, ""]
    lines.append(gettext("Si no lo pediste tú, no hagas nada: sin abrir el enlace no cambia nada."))
    subject = gettext("tu ficha de jugador")
    # Asked for by the reader, not a notice: no "you accepted notices" footer, no unsubscribe.
    return _message(subject, lines, players[0].email, None)


def masked(email: str) -> str:
    """``email`` with its local part hidden but its first character ("a…@example.org"), for a
    message to another address; "" for "" ."""
    local, at, domain = (email or "").strip().partition("@")
    if not local:
        return ""
    return f"{local[0]}…{at}{domain}"


def email_changed_message(old: str, new: str, username: str) -> EmailMessage:
    """The warning sent to ``old`` when the email of account ``username`` (and its player
    record) became ``new`` ("" when it was removed): the new address half hidden (``masked``),
    and what to do if it was not them. Asked for by nobody: no unsubscribe link (an account's
    security is not a notice)."""
    lines = [gettext("Hola:"), ""]
    if new:
        lines.append(
            gettext(
                "El correo de la cuenta «{username}» del sitio del club cambió: ahora es {email}, "
                "y este ya no recibe sus mensajes."
            ).format(username=username, email=masked(new))
        )
    else:
        lines.append(
            gettext(
                "La cuenta «{username}» del sitio del club ya no tiene correo: este ya no recibe "
                "sus mensajes."
            ).format(username=username)
        )
    lines += [
        "",
        gettext(
            "Si no lo cambiaste tú, alguien entró con tu contraseña: avisa a un director del "
            "club para que te devuelva la cuenta."
        ),
    ]
    return _message(gettext("el correo de tu cuenta cambió"), lines, old, None)


def partner_message(signup: SignUp) -> EmailMessage:
    """The question to the club's player ``signup`` names as partner: who named them, for
    which tournament, that they are not entered until they say yes, and the link
    (``partner_url``) where they say yes or no. Sent to the email the club holds."""
    t = signup.tournament
    player = signup.partner
    lines = [
        gettext("Hola, {name}:").format(name=player.full_name),
        "",
        gettext(
            "En la página de inscripción de «{tournament}» ({date}), {requester} te apuntó como "
            "su compañero."
        ).format(tournament=t.name, date=date_format(t.date, "DATE_FORMAT"), requester=signup.name),
        gettext(
            "No quedas inscrito hasta que lo confirmes. Para confirmarlo, o para decir que no, "
            "abre este enlace:"
        ),
        partner_url(player, t),
        "",
        gettext(
            "Si no conoces a esa persona o no vas a jugar con ella, no hagas nada: sin tu "
            "confirmación nadie te inscribe."
        ),
    ]
    subject = gettext("¿juegas «{tournament}» con {requester}?").format(
        tournament=t.name, requester=signup.name
    )
    # Not a notice (the player did not ask for notices): no footer, no unsubscribe link.
    return _message(subject, lines, player.email, None)


# --- sending once ------------------------------------------------------------------------------


def deliver(
    *,
    kind: str,
    player: Player,
    tournament: Tournament,
    round: Round | None = None,
    build: Callable[[], EmailMessage],
    mailer=None,
) -> bool:
    """Send the message ``build()`` makes to ``player`` unless they were told already: the
    ``Notice`` row (``kind``, player, ``round`` or, without a round, ``tournament``) is stored
    first and committed, then the message goes out through ``mailer`` (an open mail backend;
    None: the default mailer). Returns whether it was sent. A message
    that fails to go out deletes its row (a later run tells the player) and raises."""
    once = {"round": round} if round is not None else {"tournament": tournament, "round": None}
    try:
        with transaction.atomic():
            notice, created = Notice.objects.get_or_create(
                kind=kind, player=player, **once, defaults={"tournament": tournament}
            )
    except IntegrityError:  # another worker stored it this very moment
        return False
    if not created:
        return False
    try:
        (mailer or mailers.default).send_messages([build()])
    except Exception:
        Notice.objects.filter(pk=notice.pk).delete()
        raise
    return True
