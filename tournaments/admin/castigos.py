"""Castigos and sorteos in the admin.

A castigo is added through ``services.add_castigo`` and deleted through ``remove_castigo`` (in a
closed round too: ``base.correcting`` reopens it for the correction); a changed castigo is
checked by the same service (as if added anew) and saved by the admin, no service editing one.
A sorteo row is saved by the admin with history: ``services.record_sorteo`` draws lots for a
whole group of tied entries, not one lot at a time. Like the service, the admin refuses one
before the order is final ("sorteo_too_early", ``Tournament.order_is_final``).
"""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments import services
from tournaments.admin.base import HistoryAdmin, ServiceForm, correcting, message, titled
from tournaments.errors import DomainError
from tournaments.models import Castigo, Sorteo

# --- castigos ----------------------------------------------------------------------------------


class CastigoAdminForm(ServiceForm, forms.ModelForm):
    error_fields: ClassVar[dict[str, str]] = {
        "castigo_tantos": "tantos",
        "castigo_reason": "reason",
        "name_required": "reason",
        "name_too_long": "reason",
        "name_control_chars": "reason",
        "player_not_entered": "player",
        "foreign_round": "round",
        "round_closed": "round",
        "castigos_not_applicable": "tournament",
    }

    class Meta:
        model = Castigo
        fields = ("tournament", "round", "player", "tantos", "reason")
        labels: ClassVar[dict[str, str]] = {
            "tournament": _("Torneo"),
            "round": _("Ronda"),
            "player": _("Jugador"),
        }

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.check_with(lambda: self.add_through_services(self.acting_user))
        return cleaned

    def add_through_services(self, acting_user) -> Castigo:
        """``services.add_castigo`` with the typed values. Raises DomainError."""
        c = self.cleaned_data
        with transaction.atomic(), correcting(c.get("round"), acting_user):
            return services.add_castigo(
                acting_user=acting_user,
                tournament=c["tournament"],
                player=c["player"],
                tantos=c["tantos"],
                reason=c["reason"],
                round=c.get("round"),
            )


def _remove(acting_user, castigo: Castigo) -> None:
    with transaction.atomic(), correcting(castigo.round, acting_user):
        services.remove_castigo(acting_user=acting_user, castigo=castigo)


@admin.register(Castigo)
class CastigoAdmin(HistoryAdmin):
    form = CastigoAdminForm
    list_display = (
        "player_name",
        "tantos",
        "reason",
        "tournament_name",
        "round_number",
        "entered_by_display",
        "created_display",
    )
    list_filter = (("tournament", titled(_("torneo"))),)
    search_fields = ("player__full_name", "reason", "tournament__name")
    list_select_related = ("tournament", "round", "player", "entered_by")
    autocomplete_fields = ("tournament", "round", "player")

    @admin.display(description=_("jugador"), ordering="player__full_name")
    def player_name(self, obj):
        return obj.player.full_name

    @admin.display(description=_("torneo"), ordering="tournament__date")
    def tournament_name(self, obj):
        return obj.tournament.name

    @admin.display(description=_("ronda"), ordering="round__number")
    def round_number(self, obj):
        return obj.round.number if obj.round else "—"

    @admin.display(description=_("anotado por"))
    def entered_by_display(self, obj):
        return obj.entered_by or "—"

    @admin.display(description=_("fecha"), ordering="created_at")
    def created_display(self, obj):
        return obj.created_at

    def save_model(self, request, obj, form, change):
        if change:  # checked by add_castigo in the form; no service edits a castigo
            super().save_model(request, obj, form, change)
            return
        try:
            castigo = form.add_through_services(request.user)
        except DomainError as exc:
            self.refuse(request, exc)
            return
        obj.pk = castigo.pk
        obj.refresh_from_db()

    def delete_model(self, request, obj):
        try:
            _remove(request.user, obj)
        except DomainError as exc:
            self.refuse(request, exc)

    def delete_queryset(self, request, queryset):
        for castigo in queryset.select_related("round"):
            try:
                _remove(request.user, castigo)
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)


# --- sorteos -----------------------------------------------------------------------------------


class SorteoAdminForm(forms.ModelForm):
    class Meta:
        model = Sorteo
        fields = ("tournament", "entry", "lot")
        labels: ClassVar[dict[str, str]] = {
            "tournament": _("Torneo"),
            "entry": pgettext_lazy("competidor inscrito", "Inscripción"),
        }

    def clean(self):
        cleaned = super().clean()
        t, entry = cleaned.get("tournament"), cleaned.get("entry")
        if t is not None and entry is not None and entry.tournament_id != t.pk:
            self.add_error("entry", message("foreign_entry", name=entry.name))
        if t is not None and not t.order_is_final():  # the service's test (SCORING.md §9)
            self.add_error("tournament", message("sorteo_too_early", planned=t.rounds_planned))
        return cleaned


@admin.register(Sorteo)
class SorteoAdmin(HistoryAdmin):
    form = SorteoAdminForm
    list_display = (
        "entry_name",
        "lot",
        "tournament_name",
        "recorded_by_display",
        "created_display",
    )
    list_filter = (("tournament", titled(_("torneo"))),)
    search_fields = ("entry__player1__full_name", "entry__player2__full_name", "tournament__name")
    list_select_related = ("tournament", "entry__player1", "entry__player2", "recorded_by")
    autocomplete_fields = ("tournament", "entry")

    @admin.display(description=_("inscripción"))
    def entry_name(self, obj):
        return obj.entry.name

    @admin.display(description=_("torneo"), ordering="tournament__date")
    def tournament_name(self, obj):
        return obj.tournament.name

    @admin.display(description=_("registrado por"))
    def recorded_by_display(self, obj):
        return obj.recorded_by or "—"

    @admin.display(description=_("fecha"), ordering="created_at")
    def created_display(self, obj):
        return obj.created_at

    def save_model(self, request, obj, form, change):
        if getattr(request.user, "is_authenticated", False):
            obj.recorded_by = request.user
        super().save_model(request, obj, form, change)
