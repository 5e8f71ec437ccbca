"""The messages to players as background tasks (Django's tasks framework, ``settings.TASKS``),
beside what they send (``tournaments.notices``): ``send_pairings_notices`` (enqueued when a
round's pairings are stored: ``tournaments.events.round_paired``, connected by the app's
``ready``), ``send_reminders`` (enqueued daily by ``manage.py send_reminders``),
``send_claim_link`` (the public claim form), ``send_password_reset`` (the password reset form),
``send_email_changed`` (an account's email changed: ``tournaments.events.email_changed``) and
``send_partner_request`` (a sign-up request that names a club player as partner:
``tournaments.events.partner_named``). No request waits for a mail server, and the public
forms do the same work whether the club knows the address or not (they enqueue; the task looks
the address up).

A queued task's arguments hold an email address until it runs: anonymising a player erases
theirs from the queue too (``clubsite.taskqueue.scrub``), and every task here does nothing for
an empty address.
"""

from __future__ import annotations

import datetime as dt
import logging
from functools import partial

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import mailers
from django.tasks import task
from django.utils import translation

from tournaments import notices
from tournaments.models import Notice, Player, Round, SignUp, Tournament

log = logging.getLogger(__name__)


class NoticesFailed(Exception):
    """Some messages of a run could not go out (each is logged; their players will be told by
    a later run): marks the task failed."""


def _send_each(messages, *, kind: str) -> int:
    """Deliver each ``(player, tournament, round, build)`` of ``messages`` once
    (``notices.deliver``) over one mail connection. Returns how many went out; raises
    ``NoticesFailed`` at the end when any failed (the others went out)."""
    sent = failed = 0
    with mailers.default as mailer:
        for player, tournament, rnd, build in messages:
            try:
                if notices.deliver(
                    kind=kind,
                    player=player,
                    tournament=tournament,
                    round=rnd,
                    build=build,
                    mailer=mailer,
                ):
                    sent += 1
            except Exception:
                failed += 1
                log.exception("could not send the %s notice to player %s", kind, player.pk)
    if failed:
        raise NoticesFailed(f"{failed} {kind} notice(s) could not be sent; {sent} sent")
    return sent


@task
def send_pairings_notices(round_id: int) -> int:
    """Tell every player of round ``round_id`` with an email and consent their table, side and
    seat, partners and opponents (or that they rest), once per player and round whatever the
    number of times the round is published (``Notice``). Nothing for a round gone or already
    closed (a worker that was down for a while). Returns how many messages went out."""
    rnd = Round.objects.select_related("tournament").filter(pk=round_id).first()
    if rnd is None or rnd.closed:
        return 0
    with translation.override(settings.LANGUAGE_CODE):
        return _send_each(
            (
                (place.player, rnd.tournament, rnd, partial(notices.pairings_message, place, rnd))
                for place in notices.placements(rnd)
                if notices.wants_notices(place.player)
            ),
            kind=Notice.Kind.PAIRINGS,
        )


@task
def send_reminders(day: str) -> int:
    """Remind the players entered in the tournaments starting on ``day`` (ISO date, normally
    tomorrow: ``manage.py send_reminders``) that are published and not finished, once per
    player and tournament. Returns how many messages went out."""
    date = dt.date.fromisoformat(day)
    published = (*Tournament.UPCOMING, Tournament.Status.RUNNING)
    with translation.override(settings.LANGUAGE_CODE):
        return _send_each(
            (
                (player, t, None, partial(notices.reminder_message, player, t))
                for t in Tournament.objects.filter(date=date, status__in=published).order_by("pk")
                for player in notices.reminder_players(t)
            ),
            kind=Notice.Kind.REMINDER,
        )


@task
def send_claim_link(email: str, base_url: str, language: str = "") -> int:
    """Send the links that claim the player records holding ``email`` (not claimed, not
    anonymised) to that email, in ``language`` (the page's), opening on ``base_url``. Nothing
    when the club has no such record: the form answered the same either way. Returns how many
    records the message names."""
    email = email.strip()
    if not email:
        return 0
    players = list(
        Player.objects.filter(
            email__iexact=email, user__isnull=True, anonymised_at__isnull=True
        ).order_by("full_name", "pk")
    )
    if not players:
        return 0
    with translation.override(language or settings.LANGUAGE_CODE):
        mailers.default.send_messages([notices.claim_message(players, base_url)])
    return len(players)


@task
def send_password_reset(email: str, domain: str, use_https: bool, language: str = "") -> int:
    """Send Django's password reset message (templates/registration/password_reset_*) to each
    active account with a usable password whose email is ``email`` (case ignored), its link
    on ``domain`` (https when ``use_https``), in ``language``. Nothing for an unknown or empty
    address: the form answered the same either way. Returns how many accounts were mailed."""
    form = PasswordResetForm({"email": (email or "").strip()})
    if not email.strip() or not form.is_valid():
        return 0
    users = list(form.get_users(form.cleaned_data["email"]))
    if users:
        with translation.override(language or settings.LANGUAGE_CODE):
            form.save(domain_override=domain, use_https=use_https)
    return len(users)


@task
def send_email_changed(old: str, new: str, username: str, language: str = "") -> int:
    """Warn ``old`` that account ``username``'s email became ``new`` (``""``: removed),
    ``notices.email_changed_message``. Nothing for an empty ``old``. Returns the messages sent
    (0 or 1)."""
    if not (old or "").strip():
        return 0
    with translation.override(language or settings.LANGUAGE_CODE):
        message = notices.email_changed_message(old.strip(), (new or "").strip(), username)
        mailers.default.send_messages([message])
    return 1


def email_changed(sender, old: list[str], new: str, username: str, **kwargs) -> None:
    """``tournaments.events.email_changed`` (after the commit, in the request that changed
    it): enqueue ``send_email_changed`` for each old address, in the page's language."""
    language = translation.get_language() or ""
    for address in old:
        send_email_changed.enqueue(address, new, username, language)


@task
def send_partner_request(signup_id: int) -> int:
    """Ask the club's player named as partner by sign-up request ``signup_id`` for their word
    (``notices.partner_message``, its link answering every request naming them in that
    tournament), once per player and tournament however many requests name them (``Notice``,
    kind ``PARTNER``). Nothing when the request no longer waits for them, or the club has no
    email for them. Returns how many messages went out (0 or 1)."""
    signup = (
        SignUp.objects.select_related("tournament", "partner")
        .filter(
            pk=signup_id,
            status=SignUp.Status.UNCONFIRMED,
            partner__isnull=False,
            partner_confirmed_at__isnull=True,
        )
        .first()
    )
    if signup is None or not signup.partner.email or signup.partner.anonymised_at is not None:
        return 0
    with translation.override(settings.LANGUAGE_CODE):
        return _send_each(
            [
                (
                    signup.partner,
                    signup.tournament,
                    None,
                    partial(notices.partner_message, signup),
                )
            ],
            kind=Notice.Kind.PARTNER,
        )


def enqueue_pairings(round_id: int) -> None:
    """Put ``send_pairings_notices(round_id)`` on the queue when someone is to be told; called
    once the transaction that stored the round's pairings commits. Never raises: a queue that
    cannot be reached is logged (the director's pairings are stored all the same)."""
    try:
        if notices.pairings_pending(round_id):
            send_pairings_notices.enqueue(round_id)
    except Exception:
        log.exception("could not enqueue the pairings notices of round %s", round_id)


def round_paired(sender, round_id: int, **kwargs) -> None:
    """``tournaments.events.round_paired``: tell the round's players (``enqueue_pairings``)."""
    enqueue_pairings(round_id)


def partner_named(sender, signup_id: int, **kwargs) -> None:
    """``tournaments.events.partner_named``: ask the partner (``send_partner_request``),
    enqueued whatever the partner's email, so the sign-up answers alike either way. Never
    raises: a queue that cannot be reached is logged (the request is stored all the same; the
    partner can still confirm before a director)."""
    try:
        send_partner_request.enqueue(signup_id)
    except Exception:
        log.exception("could not enqueue the partner request of sign-up %s", signup_id)


__all__ = [
    "NoticesFailed",
    "email_changed",
    "enqueue_pairings",
    "partner_named",
    "round_paired",
    "send_claim_link",
    "send_email_changed",
    "send_password_reset",
    "send_pairings_notices",
    "send_partner_request",
    "send_reminders",
]
