"""Tournaments, their directors and entries in the admin.

A tournament is created and changed through ``services.create_tournament`` /
``update_tournament`` (the settings its system checks, the target locked once there are results,
the games moving with the date ...), its directors through ``services.set_tournament_directors``;
an entry is registered through ``services.register_entry``, dropped and taken back through
``drop_entry`` / ``undrop_entry``, deleted through ``remove_entry``. Changing the players or
tournament of an existing entry has no service: the admin saves it (with history) and bumps the
version of the tables it played with a result, so the ranking sees the new players.
"""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext_lazy as _

from tournaments import services
from tournaments.admin.base import (
    HistoryAdmin,
    SavedThroughServicesAdmin,
    ServiceForm,
    message,
    titled,
    touch_tables,
)
from tournaments.admin.rounds import NewRoundForm
from tournaments.errors import DomainError
from tournaments.models import Entry, Round, Table, Tournament

# --- tournaments -------------------------------------------------------------------------------


class TournamentAdminForm(ServiceForm, forms.ModelForm):
    """A tournament's settings and directors, checked by the services before anything is saved
    (``clean`` asks ``create_tournament`` / ``update_tournament`` and
    ``set_tournament_directors``); each refusal beside its field (``services.ERROR_FIELDS``).

    Finishing a tournament (status "Terminado") while a round is still open is refused here,
    beside the status ("open_rounds", listing the open rounds): the admin does not ask, as the
    directors' settings page does; close those rounds first (the tournament's rounds below,
    or the round's own page), then save the status."""

    error_fields: ClassVar[dict[str, str]] = services.ERROR_FIELDS
    reason = forms.CharField(
        label=_("Motivo del cambio de estado"),
        required=False,
        max_length=100,
        help_text=_(
            "Para reabrir un torneo terminado o volverlo a borrador: queda en su historial."
        ),
    )

    class Meta:
        model = Tournament
        fields = ("slug", *services.TOURNAMENT_FIELDS, "directors")
        labels: ClassVar[dict[str, str]] = {
            "slug": _("Dirección (slug)"),
            "directors": _("Directores"),
        }

    def add_domain_error(self, exc: DomainError) -> None:
        if exc.code == "mode_locked" and "system" in self.changed_data:
            self.add_error("system", ValidationError(exc.message, code=exc.code))
            return
        super().add_domain_error(exc)

    def settings(self) -> dict:
        """The cleaned values the tournament services take (``services.TOURNAMENT_FIELDS``)."""
        return {
            key: self.cleaned_data[key]
            for key in services.TOURNAMENT_FIELDS
            if key in self.fields and key in self.cleaned_data
        }

    def step_reason(self) -> dict:
        """``{"reason": ...}`` for ``update_tournament`` when a reason was typed."""
        reason = (self.cleaned_data.get("reason") or "").strip()
        return {"reason": reason} if reason else {}

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.check_with(lambda: self.save_through_services(self.acting_user))
        return cleaned

    def save_through_services(self, acting_user) -> Tournament:
        """Create or change the tournament, then set its directors, through the services; the
        slug (no service sets it) is kept as typed. Raises DomainError."""
        if self.instance.pk:
            t = services.update_tournament(
                acting_user=acting_user,
                tournament=self.instance,
                **self.settings(),
                **self.step_reason(),
            )
        else:
            t = services.create_tournament(acting_user=acting_user, **self.settings())
        slug = self.cleaned_data.get("slug")
        if slug and slug != t.slug:
            t.slug = slug
            services.audit(t, acting_user).save(update_fields=["slug", "updated_at"])
        if "directors" in self.cleaned_data:
            services.set_tournament_directors(
                acting_user=acting_user, tournament=t, directors=self.cleaned_data["directors"]
            )
        return t


class RoundInline(admin.TabularInline):
    model = Round
    form = NewRoundForm
    fields = ("number", "closed", "played_at", "tables_count")
    readonly_fields = ("tables_count",)
    extra = 0
    show_change_link = True
    verbose_name = _("ronda")
    verbose_name_plural = _("rondas")

    @admin.display(description=_("mesas"))
    def tables_count(self, obj):
        return obj.tables.count() if obj.pk else 0


@admin.register(Tournament)
class TournamentAdmin(SavedThroughServicesAdmin, HistoryAdmin):
    form = TournamentAdminForm
    list_display = ("name", "date", "system", "mode", "target", "status", "rated", "entries_count")
    list_filter = ("status", "system", "mode", "target", "rated", "date")
    search_fields = ("name", "slug", "venue")
    prepopulated_fields: ClassVar[dict] = {"slug": ("name",)}
    filter_horizontal = ("directors",)
    inlines = (RoundInline,)
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "name",
                    "slug",
                    "date",
                    "end_date",
                    "start_time",
                    "venue",
                    "status",
                    "reason",
                    "directors",
                )
            },
        ),
        (
            _("Reglas"),
            {
                "fields": (
                    "system",
                    "mode",
                    "target",
                    "time_limit",
                    "bye_rule",
                    "rounds_planned",
                    "forfeit_winner_tantos",
                    "forfeit_loser_tantos",
                    "best_of",
                    "rated",
                    "forfeits_rated",
                )
            },
        ),
    )

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_entries=Count("entries", distinct=True))

    @admin.display(description=_("inscripciones"), ordering="_entries")
    def entries_count(self, obj):
        return obj._entries


# --- entries -----------------------------------------------------------------------------------


class EntryAdminForm(ServiceForm, forms.ModelForm):
    """A new entry is registered by ``services.register_entry`` (its checks: one or two
    players, not entered twice, active players, tournament not finished); a drop goes through
    ``drop_entry`` / ``undrop_entry``. Changing the players of an existing entry (no service)
    keeps the same checks here."""

    error_fields: ClassVar[dict[str, str]] = {
        "tournament_finished": "tournament",
        "invalid_round_number": "dropped_after_round",
    }

    class Meta:
        model = Entry
        fields = ("tournament", "player1", "player2", "dropped_after_round")
        labels: ClassVar[dict[str, str]] = {
            "tournament": _("Torneo"),
            "player1": _("Jugador 1"),
            "player2": _("Jugador 2"),
            "dropped_after_round": _("Se retiró después de la ronda"),
        }

    def clean(self):
        cleaned = super().clean()
        t, p1, p2 = cleaned.get("tournament"), cleaned.get("player1"), cleaned.get("player2")
        if t is None or p1 is None or self.errors:
            return cleaned
        if self.instance.pk:
            self._check_players(t, p1, p2)
        if not self.errors:
            self.check_with(lambda: self.save_through_services(self.acting_user))
        return cleaned

    def _check_players(self, t, p1, p2) -> None:
        """The players of a changed entry: as many as the mode asks, not entered twice."""
        size = t.players_per_entry
        if (2 if p2 else 1) != size or (p2 is not None and p2.pk == p1.pk):
            raise ValidationError(message("entry_size", size=size), code="entry_size")
        others = Entry.objects.filter(tournament=t).exclude(pk=self.instance.pk)
        for p in (p1, p2):
            if p is not None and others.filter(Q(player1=p) | Q(player2=p)).exists():
                raise ValidationError(
                    message("player_already_entered", name=p.full_name),
                    code="player_already_entered",
                )

    def save_through_services(self, acting_user) -> Entry:
        """Register the entry (new) or save its players (changed, no service), then its drop
        through the services. Raises DomainError."""
        cleaned = self.cleaned_data
        dropped = cleaned.get("dropped_after_round")
        if self.instance.pk is None:
            players = [p for p in (cleaned["player1"], cleaned.get("player2")) if p is not None]
            entry = services.register_entry(
                acting_user=acting_user, tournament=cleaned["tournament"], players=players
            )
            was_dropped = None
        else:
            entry = Entry.objects.get(pk=self.instance.pk)
            was_dropped = entry.dropped_after_round
            moved = {"tournament", "player1", "player2"} & set(self.changed_data)
            if moved:
                for field in moved:
                    setattr(entry, field, cleaned.get(field))
                services.audit(entry, acting_user).save()
                # Other players sat at these tables: the ranking must see them.
                touch_tables(
                    acting_user,
                    Table.objects.filter(seats__entry=entry).values_list("pk", flat=True),
                )
        if dropped != was_dropped:
            if dropped is None:
                entry = services.undrop_entry(acting_user=acting_user, entry=entry)
            else:
                entry = services.drop_entry(
                    acting_user=acting_user, entry=entry, after_round=dropped
                )
        return entry


@admin.register(Entry)
class EntryAdmin(HistoryAdmin):
    form = EntryAdminForm
    list_display = ("entry_name", "tournament_name", "dropped_after_round_display")
    list_filter = (("tournament", titled(_("torneo"))),)
    search_fields = ("player1__full_name", "player2__full_name", "tournament__name")
    list_select_related = ("tournament", "player1", "player2")
    autocomplete_fields = ("tournament", "player1", "player2")

    @admin.display(description=_("inscripción"), ordering="player1__full_name")
    def entry_name(self, obj):
        return obj.name

    @admin.display(description=_("torneo"), ordering="tournament__date")
    def tournament_name(self, obj):
        return obj.tournament.name

    @admin.display(description=_("retirada tras la ronda"), ordering="dropped_after_round")
    def dropped_after_round_display(self, obj):
        return obj.dropped_after_round

    def save_model(self, request, obj, form, change):
        try:
            with transaction.atomic():
                entry = form.save_through_services(request.user)
        except DomainError as exc:
            self.refuse(request, exc)
            return
        obj.pk = entry.pk
        obj.refresh_from_db()

    def delete_model(self, request, obj):
        try:
            services.remove_entry(acting_user=request.user, entry=obj)
        except DomainError as exc:
            self.refuse(request, exc)

    def delete_queryset(self, request, queryset):
        for entry in queryset:
            try:
                services.remove_entry(acting_user=request.user, entry=entry)
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)
