"""A player's own pages (issue "accounts"): claiming their player record through a link sent to
the email the club holds (``/cuenta/jugador/``), their page (``/cuenta/``: entries, sign-up
requests, contact details and consent to notices; the requests naming them as partner with
"yes" and "no": ``/cuenta/companero/``), the unsubscribe link of every notice
(``/avisos/baja/<token>/``, no login) and the password reset (Django's views, with the mail
sent by the worker and the login lockout lifted by a successful reset; URLs in
clubsite/urls.py).

The claim and reset forms answer the same whether the club has the email or not, and do the
same work: they enqueue a task with the address (``tournaments.notices.tasks``) and the task,
in the worker, looks it up; so nobody learns who is a member, not even by timing. Both are
limited per connection and per mailbox (``clubsite.limits``). None of these pages is cached:
they carry a form and, for the account's page, the player's contact details.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from axes.utils import reset as axes_reset
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.db.models import Q
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from clubsite.http import form_page
from clubsite.limits import LIMITS, limited, take, too_many
from tournaments import notices, services
from tournaments.errors import DomainError
from tournaments.models import Entry, Player, SignUp, Tournament
from tournaments.notices.tasks import send_claim_link, send_password_reset
from tournaments.views.manage.access import posted_object
from tournaments.views.manage.confirm import place_error
from tournaments.views.signups import answered


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
    """A player's own contact details and consent to notices (``services.update_contact``);
    ``current_password`` is needed only to change the email."""

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
    current_password = forms.CharField(
        label=gettext_lazy("Tu contraseña actual"),
        required=False,
        strip=False,
        max_length=4096,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=gettext_lazy(
            "Solo para cambiar el correo: a tu correo llegan los enlaces para cambiar la "
            "contraseña. Avisamos al correo de antes."
        ),
    )


def _mailbox(email: str) -> str:
    """The subject a mailbox is counted under (``clubsite.limits``): the address, case and
    spaces aside."""
    return f"mail:{email.strip().lower()}"


@never_cache
@form_page
@limited("claim")
def claim(request):
    """The claim request form. A valid email is answered with the same page (303 to
    ``?enviado=1``) whether the club has it or not, after the same work (the task
    ``send_claim_link`` is enqueued and looks the address up: the records holding it,
    unclaimed, not anonymised). Every POST counts against the connection ("claim"); a
    mailbox gets at most "claim-mailbox" links an hour (the requests above it are answered
    the same and send nothing)."""
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
            if take(LIMITS["claim-mailbox"], _mailbox(data["email"])) is not None:
                send_claim_link.enqueue(
                    data["email"], request.build_absolute_uri("/"), get_language() or ""
                )
            return sent
    context = {"form": form, "sent": request.GET.get("enviado") == "1", "own": own}
    return render(request, "tournaments/account/claim.html", context, status=status)


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's password reset form whose ``save`` only enqueues ``send_password_reset`` (the
    worker looks the address up and mails): the request does the same work for a known and an
    unknown address. A mailbox gets at most "reset-mailbox" messages an hour (``save`` sends
    nothing above it; the page answers the same)."""

    def save(self, *, request=None, use_https=False, **ignored):
        email = self.cleaned_data["email"]
        if take(LIMITS["reset-mailbox"], _mailbox(email)) is None:
            return
        # the link on the site's own address (DJANGO_SITE_URL), never the Host a request names
        site = urlsplit(settings.SITE_URL)
        send_password_reset.enqueue(
            email, site.netloc, site.scheme == "https", get_language() or ""
        )


class PasswordResetView(auth_views.PasswordResetView):
    """The password reset request (``/cuenta/contrasena/``), every POST counted against the
    connection ("reset", ``clubsite.urls``)."""

    form_class = QueuedPasswordResetForm


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The page the reset link opens: a new password, then the person is logged in, and the
    login lockout of that username (django-axes, from every address) is lifted: who proves
    their mailbox gets back in even while someone at their connection keeps typing wrong
    passwords (README, "Login lockout")."""

    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"

    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        return response


def _invalid_link(request, exc: DomainError):
    return render(
        request, "tournaments/account/claim_link.html", {"refusal": exc.message}, status=400
    )


@never_cache
@form_page
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
@form_page
def home(request):
    """ "Mi página": the player record joined to the account, its entries (newest tournament
    first), its sign-up requests (those of published tournaments: a draft is private, even
    to its players), and the form of its contact details and consent to notices
    (only the player sees them here; no public page shows them). Without a record: how to
    claim one. Changing the email needs the current password (``services.update_contact``);
    the tries count per account ("password-check", ``clubsite.limits``)."""
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
            data = form.cleaned_data
            changes_email = data["email"].strip().lower() != player.email.strip().lower()
            check = LIMITS["password-check"]
            if changes_email and take(check, f"user:{request.user.pk}") is None:
                return too_many(request, check)
            try:
                services.update_contact(
                    acting_user=request.user,
                    player=player,
                    email=data["email"],
                    phone=data["phone"],
                    notices_consent=data["notices_consent"],
                    current_password=data["current_password"],
                )
            except DomainError as exc:
                place_error(
                    form,
                    exc,
                    {"consent_needs_email": "email", "email_change_password": "current_password"},
                )
            else:
                messages.success(request, _("Tus datos se guardaron."))
                return redirect("account:home")
    mine = Q(player1=player) | Q(player2=player)
    context = {
        "player": player,
        "form": form,
        "entries": Entry.objects.filter(mine)
        .filter(Tournament.public_q("tournament__"))
        .select_related("tournament", "player1", "player2")
        .order_by("-tournament__date", "-pk"),
        "signups": SignUp.objects.filter(Q(player=player) | Q(partner=player))
        .filter(Tournament.public_q("tournament__"))
        .select_related("tournament")
        .order_by("-created_at", "-pk"),
        "asking": set(SignUp.asking(player).values_list("pk", flat=True)),
    }
    return render(request, "tournaments/account/home.html", context, status=status)


@never_cache
@login_required
@require_POST
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
@form_page
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
