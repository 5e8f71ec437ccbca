"""Players in the admin: registered and changed through ``services.create_player`` /
``update_player``; a player who has played (or is entered anywhere) is never deleted."""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tournaments import services
from tournaments.admin.base import HistoryAdmin, ServiceForm, message, moment_text
from tournaments.errors import DomainError, gettext_noop
from tournaments.models import Entry, Player

PLAYER_FIELDS = ("full_name", "nickname", "member_number", "email", "phone")


class PlayerAdminForm(ServiceForm, forms.ModelForm):
    error_fields: ClassVar[dict[str, str]] = {
        "member_number_taken": "member_number",
        "member_number_too_long": "member_number",
    }

    class Meta:
        model = Player
        fields = ("full_name", "nickname", "member_number", "email", "phone", "active")

    def _clean_text(self, field: str, label: str, required: bool, max_length: int) -> str:
        try:
            return services.clean_name(
                self.cleaned_data.get(field, ""),
                field=label,
                required=required,
                max_length=max_length,
            )
        except DomainError as exc:
            raise ValidationError(exc.message, code=exc.code) from exc

    def clean_full_name(self):
        return self._clean_text("full_name", gettext_noop("nombre"), True, services.MAX_NAME)

    def clean_nickname(self):
        return self._clean_text("nickname", gettext_noop("apodo"), False, 60)

    def clean_member_number(self):
        return (self.cleaned_data.get("member_number") or "").strip() or None

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.check_with(lambda: self.save_through_services(self.acting_user))
        return cleaned

    def save_through_services(self, acting_user) -> Player:
        """``services.create_player`` (then ``set_player_active`` for an inactive one) or
        ``services.update_player``. Raises DomainError."""
        values = {k: self.cleaned_data.get(k) for k in PLAYER_FIELDS}
        values["email"] = values["email"] or ""
        values["phone"] = values["phone"] or ""
        active = bool(self.cleaned_data.get("active"))
        if self.instance.pk:
            return services.update_player(
                acting_user=acting_user, player=self.instance, active=active, **values
            )
        player = services.create_player(acting_user=acting_user, **values)
        if not active:
            player = services.set_player_active(
                acting_user=acting_user, player=player, active=False
            )
        return player


@admin.register(Player)
class PlayerAdmin(HistoryAdmin):
    form = PlayerAdminForm
    list_display = ("full_name", "nickname", "member_number", "active", "created_at_display")
    list_filter = ("active",)
    search_fields = ("full_name", "name_key", "nickname", "member_number", "email")
    readonly_fields = ("created_at_display",)
    ordering = ("full_name", "id")

    @admin.display(description=_("alta"), ordering="created_at")
    def created_at_display(self, obj):
        return moment_text(obj.created_at)

    def save_model(self, request, obj, form, change):
        try:
            player = form.save_through_services(request.user)
        except DomainError as exc:
            self.refuse(request, exc)
            return
        obj.pk = player.pk
        obj.refresh_from_db()

    @staticmethod
    def _locked(player: Player) -> bool:
        """A player who played, holds a castigo or is entered anywhere is never deleted."""
        return (
            player.has_results()
            or Entry.objects.filter(Q(player1=player) | Q(player2=player)).exists()
        )

    def has_delete_permission(self, request, obj=None):
        if obj is not None and self._locked(obj):
            return False
        return super().has_delete_permission(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        player = self.get_object(request, object_id)
        if player is not None and self._locked(player):
            self.message_user(
                request, message("player_has_results", name=player.full_name), messages.ERROR
            )
            return HttpResponseRedirect(
                reverse(
                    "admin:tournaments_player_change",
                    args=[player.pk],
                    current_app=self.admin_site.name,
                )
            )
        return super().delete_view(request, object_id, extra_context)

    def delete_model(self, request, obj):
        try:
            services.delete_player(acting_user=request.user, player=obj)
        except DomainError as exc:
            self.refuse(request, exc)

    def delete_queryset(self, request, queryset):
        for player in queryset:
            try:
                services.delete_player(acting_user=request.user, player=player)
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)
