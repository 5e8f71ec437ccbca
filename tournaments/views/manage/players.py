"""Directors' pages: the manage home and the club's players (add, edit, (de)activate, delete)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from clubsite.http import form_page
from tournaments import names, services
from tournaments.errors import DomainError
from tournaments.forms import PlayerForm
from tournaments.models import Player, Tournament
from tournaments.permissions import is_director
from tournaments.services.players import anonymous_name
from tournaments.views.manage.access import director_required, submitted_once
from tournaments.views.manage.confirm import ask_first, confirmation, place_error


@director_required
@require_safe
def home(request):
    tournaments = Tournament.objects.order_by("-date", "name")
    if not request.user.is_superuser:
        tournaments = tournaments.filter(directors=request.user)
    return render(
        request,
        "tournaments/manage/home.html",
        {
            "tournaments": tournaments,
            "is_director": is_director(request.user),
        },
    )


@director_required
@require_safe
def player_list(request):
    if not is_director(request.user):
        raise PermissionDenied
    q = request.GET.get("q", "").strip()[:100]
    players = Player.objects.all()
    if q:  # the name ignoring case, accents, spacing and invisible characters (names.key)
        players = players.filter(
            Q(name_key__contains=names.key(q))
            | Q(nickname__icontains=names.clean(q))
            | Q(member_number__iexact=q)
        )
    return render(
        request, "tournaments/manage/player_list.html", {"players": players[:500], "q": q}
    )


def _player_form_page(request, form, player, duplicates, status=200):
    return render(
        request,
        "tournaments/manage/player_form.html",
        {"form": form, "player": player, "duplicates": duplicates},
        status=status,
    )


@director_required
@form_page
@submitted_once
def player_edit(request, pk=None):
    """Add (pk None) or edit a player. A name equal to another after NFC and case folding asks
    for confirmation first (duplicate warning); the name is stored exactly as typed. The add
    form carries a one-time token (``access.one_submission``): a second copy of it creates
    nothing and goes to the players' list with "Ya se había guardado"; editing is idempotent."""
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk) if pk else None
    if request.method != "POST":
        initial = {"active": True}
        if player:
            initial = {
                f: getattr(player, f)
                for f in (
                    "full_name",
                    "nickname",
                    "member_number",
                    "email",
                    "phone",
                    "notices_consent",
                    "active",
                )
            }
        return _player_form_page(request, PlayerForm(initial=initial), player, [])
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:players"))
    form = PlayerForm(request.POST)
    if not form.is_valid():
        return _player_form_page(request, form, player, [], status=400)
    data = form.cleaned_data
    duplicates = services.similar_players(
        data["full_name"], exclude_id=player.pk if player else None
    )
    if duplicates and not data["confirm_duplicate"]:
        form.data = form.data.copy()
        form.data["confirm_duplicate"] = "on"
        return _player_form_page(request, form, player, duplicates, status=200)
    fields = {
        k: data[k]
        for k in ("full_name", "nickname", "member_number", "email", "phone", "notices_consent")
    }
    try:
        if player:
            player = services.update_player(
                acting_user=request.user, player=player, active=data["active"], **fields
            )
            messages.success(request, _("Jugador «{name}» guardado.").format(name=player.full_name))
        else:
            player = services.create_player(acting_user=request.user, **fields)
            request.submission.saved(reverse("manage:players"))
            messages.success(
                request, _("Jugador «{name}» registrado.").format(name=player.full_name)
            )
    except DomainError as exc:
        place_error(
            form,
            exc,
            {"member_number_taken": "member_number", "member_number_too_long": "member_number"},
            by_name={"nombre": "full_name", "apodo": "nickname"},
        )
        return _player_form_page(request, form, player, [], status=400)
    return redirect("manage:players")


@director_required
@require_POST
def player_set_active(request, pk):
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk)
    active = request.POST.get("active") == "1"
    services.set_player_active(acting_user=request.user, player=player, active=active)
    text = _("«{name}» activado.") if active else _("«{name}» desactivado.")
    messages.success(request, text.format(name=player.full_name))
    return redirect("manage:players")


@director_required
@require_POST
def player_delete(request, pk):
    """Delete a player who never played (``services.delete_player``), once the director said
    yes (``confirm.py``: without ``confirm=1``, the confirmation page; a player who played is
    refused at once, with a message). Then "«…» borrado." on the players' list."""
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk)

    def write():
        services.delete_player(acting_user=request.user, player=player)

    def question():
        return confirmation(
            request,
            question=_("¿Borrar a {name}?").format(name=player.full_name),
            details=[
                _("{name} desaparece de la lista de jugadores del club.").format(
                    name=player.full_name
                ),
                _("Si solo no va a jugar por un tiempo, desactívalo en su lugar."),
            ],
            action=reverse("manage:player_delete", args=[player.pk]),
            cancel_url=reverse("manage:players"),
        )

    try:
        if page := ask_first(request, write, question):
            return page
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:players")
    messages.success(request, _("«{name}» borrado.").format(name=player.full_name))
    return redirect("manage:players")


@director_required
@require_POST
def player_anonymise(request, pk):
    """Anonymise a player on their request (``services.anonymise_player``: "Jugador <id>",
    contact erased, results and ranking kept), once the director said yes (``confirm.py``:
    without ``confirm=1``, the confirmation page saying what goes and what stays). Then
    "«Jugador <id>» anonimizado." on the players' list."""
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk)
    done = {}

    def write():
        done["player"] = services.anonymise_player(acting_user=request.user, player=player)

    def question():
        return confirmation(
            request,
            question=_("¿Anonimizar a {name}?").format(name=player.full_name),
            details=[
                _(
                    "Su nombre pasa a ser «{name}»; se borran su apodo, su número de socio, su "
                    "correo y su teléfono, también del historial y de sus solicitudes de "
                    "inscripción."
                ).format(name=anonymous_name(player)),
                _("Sus resultados, castigos y su ranking se quedan, con el nombre nuevo."),
                _(
                    "Deja de recibir avisos, su cuenta del sitio deja de estar unida a la ficha y "
                    "la ficha queda desactivada."
                ),
                _("No se puede deshacer."),
            ],
            action=reverse("manage:player_anonymise", args=[player.pk]),
            cancel_url=reverse("manage:player_edit", args=[player.pk]),
            button=_("Sí, anonimizar"),
        )

    try:
        if page := ask_first(request, write, question):
            return page
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:player_edit", pk=player.pk)
    messages.success(request, _("«{name}» anonimizado.").format(name=done["player"].full_name))
    return redirect("manage:players")
