"""A player's own pages (issue "accounts"): claiming their player record through a link sent to
the email the club holds (``/cuenta/jugador/``), their page (``/cuenta/``: entries, sign-up
requests, contact details and consent to notices; the requests naming them as partner with
"yes" and "no": ``/cuenta/companero/``) and the unsubscribe link of every notice
(``/avisos/baja/<token>/``, no login). The password reset is Django's own (clubsite/urls.py).

The claim form answers the same whether the club has the email or not (the link goes to that
email only, from the background worker), so nobody learns who is a member; it is limited per
connection and per address. None of these pages is cached: they carry a form and, for the
account's page, the player's contact details.
"""

from __future__ import annotations

import hashlib

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.core.cache import cache
from django.db.models import Q
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from clubsite.client_ip import client_ip
from tournaments import notices, services
from tournaments.errors import DomainError
from tournaments.models import Entry, Player, SignUp, Tournament
from tournaments.notices.tasks import send_claim_link
from tournaments.views.manage.access import posted_object
from tournaments.views.manage.confirm import place_error
from tournaments.views.signups import answered

#: Claim requests per connection in ``CLAIM_WINDOW`` seconds (a club's players share the
#: venue's connection: generous, but a robot stops soon), and per email address (a mailbox is
#: never flooded: the requests above it are answered the same and send nothing).
CLAIM_PER_CONNECTION = 20
CLAIM_PER_ADDRESS = 3
CLAIM_WINDOW = 60 * 60


class ClaimRequestForm(forms.Form):
    """The claim request: the email the club holds. ``website`` is a trap for robots (as the
    sign-up's): a request that fills it is answered as any other and sends nothing."""

    email = forms.EmailField(
        label=gettext_lazy("Tu correo"),
        max_length=254,
        help_text=gettext_lazy("El que le diste al club. Te mandamos ahí el enlace."),
    )
    website = forms.CharField(required=False, label=gettext_lazy("No rellenes este campo"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["website"].widget.attrs.update(
            {"tabindex": "-1", "autocomplete": "off", "class": "trap-input"}
        )


class ContactForm(forms.Form):
    """A player's own contact details and consent to notices (``services.update_contact``)."""

    email = forms.EmailField(label=gettext_lazy("Correo"), required=False, max_length=254)
    phone = forms.CharField(label=gettext_lazy("Teléfono"), max_length=40, required=False)
    notices_consent = forms.BooleanField(
        label=gettext_lazy("Quiero recibir avisos por correo"),
        required=False,
        help_text=gettext_lazy(
            "Tu mesa en cada ronda y un recordatorio el día antes de los torneos en que estés "
            "inscrito. Cada aviso trae un enlace para darte de baja."
        ),
    )


def _count(key: str) -> int:
    """One more in the counter ``key`` of the shared cache (kept ``CLAIM_WINDOW`` seconds from
    the first); returns the count before this one."""
    before = cache.get(key) or 0
    cache.add(key, 0, CLAIM_WINDOW)
    cache.incr(key)
    return before


@never_cache
@require_http_methods(["GET", "POST"])
def claim(request):
    """The claim request form. A valid email is answered with the same page (303 to
    ``?enviado=1``) whether the club has it or not; the link is sent by the background task
    ``send_claim_link`` (to the records holding that email, unclaimed, not anonymised). More
    than ``CLAIM_PER_CONNECTION`` requests per connection in an hour are refused in words;
    more than ``CLAIM_PER_ADDRESS`` for one address send nothing."""
    own = (
        Player.objects.filter(user=request.user).first() if request.user.is_authenticated else None
    )
    form = ClaimRequestForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            sent = redirect(f"{reverse('account:claim')}?enviado=1")
            if data["website"]:
                return sent
            if _count(f"claim:ip:{client_ip(request)}") >= CLAIM_PER_CONNECTION:
                form.add_error(None, DomainError("signup_too_many").message)
            else:
                address = hashlib.sha256(data["email"].strip().lower().encode()).hexdigest()
                if _count(f"claim:mail:{address}") < CLAIM_PER_ADDRESS:
                    send_claim_link.enqueue(
                        data["email"], request.build_absolute_uri("/"), get_language() or ""
                    )
                return sent
    context = {"form": form, "sent": request.GET.get("enviado") == "1", "own": own}
    return render(request, "tournaments/account/claim.html", context, status=status)


def _invalid_link(request, exc: DomainError):
    return render(
        request, "tournaments/account/claim_link.html", {"refusal": exc.message}, status=400
    )


@never_cache
@require_http_methods(["GET", "POST"])
def claim_link(request, token):
    """The page the claim link opens: the record it names (``notices.claimable_player``: a
    genuine link under two days old, for the record's present email, not claimed yet), then
    either a new account (username and password, Django's checks) or, logged in, "join it to
    my account". Done, the person is on their page, logged in. A link that no longer works:
    400 and the page says why and offers another."""
    player = notices.claimable_player(token)
    if player is None:
        return _invalid_link(request, DomainError("claim_link_invalid"))
    user = request.user
    if user.is_authenticated:
        own = Player.objects.filter(user=user).first()
        if request.method == "POST" and own is None:
            try:
                services.claim_player(user=user, player=player)
            except DomainError as exc:
                return _invalid_link(request, exc)
            messages.success(request, _("Listo: tu ficha de jugador está unida a tu cuenta."))
            return redirect("account:home")
        context = {"player": player, "own": own}
        status = 400 if request.method == "POST" else 200
        return render(request, "tournaments/account/claim_link.html", context, status=status)
    form = UserCreationForm(request.POST or None)
    form.instance.email = player.email  # the password may not look like it either
    if request.method == "POST" and form.is_valid():
        try:
            user = services.create_account_and_claim(
                player=player,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
            )
        except DomainError as exc:
            return _invalid_link(request, exc)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Listo: ya tienes cuenta, unida a tu ficha de jugador."))
        return redirect("account:home")
    status = 400 if request.method == "POST" else 200
    context = {"player": player, "form": form}
    return render(request, "tournaments/account/claim_link.html", context, status=status)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def home(request):
    """ "Mi página": the player record joined to the account, its entries (newest tournament
    first), its sign-up requests, and the form of its contact details and consent to notices
    (only the player sees them here; no public page shows them). Without a record: how to
    claim one."""
    player = Player.objects.filter(user=request.user).first()
    if player is None:
        if request.method == "POST":
            return redirect("account:home")
        return render(request, "tournaments/account/home.html", {"player": None})
    initial = {
        "email": player.email,
        "phone": player.phone,
        "notices_consent": player.notices_consent,
    }
    form = ContactForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.update_contact(
                    acting_user=request.user, player=player, **form.cleaned_data
                )
            except DomainError as exc:
                place_error(form, exc, {"consent_needs_email": "email"})
            else:
                messages.success(request, _("Tus datos se guardaron."))
                return redirect("account:home")
    mine = Q(player1=player) | Q(player2=player)
    context = {
        "player": player,
        "form": form,
        "entries": Entry.objects.filter(mine)
        .exclude(tournament__status=Tournament.Status.DRAFT)
        .select_related("tournament", "player1", "player2")
        .order_by("-tournament__date", "-pk"),
        "signups": SignUp.objects.filter(Q(player=player) | Q(partner=player))
        .select_related("tournament")
        .order_by("-created_at", "-pk"),
        "asking": set(SignUp.asking(player).values_list("pk", flat=True)),
    }
    return render(request, "tournaments/account/home.html", context, status=status)


@never_cache
@login_required
@require_http_methods(["POST"])
def partner_answer(request):
    """ "Yes" or "no" from "Mi página" to a sign-up request naming the account's player as
    partner (``action=confirm|decline``, ``signup``: ``services.answer_partner``), then back to
    the page with the answer in words. 404 for a request that does not name them."""
    player = Player.objects.filter(user=request.user).first()
    action = request.POST.get("action", "")
    if player is None or action not in ("confirm", "decline"):
        return redirect("account:home")
    asked = posted_object(request, SignUp, "signup", partner=player)
    try:
        done = services.answer_partner(
            acting_user=request.user, signup=asked, player=player, confirm=action == "confirm"
        )
        messages.success(request, answered(done))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("account:home")


@never_cache
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token):
    """The unsubscribe link of every notice: a button (a link opened by a mail program's
    preview changes nothing), and once pressed no more notices (``notices_consent`` off). No
    login. A forged link: 400."""
    player = notices.unsubscribing_player(token)
    if player is None:
        return render(
            request, "tournaments/account/unsubscribe.html", {"invalid": True}, status=400
        )
    done = False
    if request.method == "POST":
        services.unsubscribe(player=player)
        done = True
    context = {"player": player, "done": done, "token": token}
    return render(request, "tournaments/account/unsubscribe.html", context)
