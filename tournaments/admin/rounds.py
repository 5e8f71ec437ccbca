"""Rounds, tables, seats and byes in the admin.

No service moves a single seat or edits a table by hand: the admin saves these with history
and, when a table with a result changes its seats, bumps its version (``touch_tables``) so the
ranking ledger replays. The result of a table, on the table's page, is the inline of its
system's storage model (``tournaments.admin.results``) and saves through
``services.record_result`` / ``delete_result``.
"""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments import services, systems
from tournaments.admin import results
from tournaments.admin.base import (
    HistoryAdmin,
    TitledBooleanFilter,
    TitledChoicesFilter,
    entry_label,
    message,
    score_text,
    table_label,
    titled,
    touch_tables,
)
from tournaments.errors import DomainError
from tournaments.models import Bye, Entry, Round, Seat, Table
from tournaments.services import lifecycle
from tournaments.systems.base import versus

# --- rounds ------------------------------------------------------------------------------------


class TableInline(admin.TabularInline):
    model = Table
    fields = ("number", "sides", "score", "version_display")
    readonly_fields = ("sides", "score", "version_display")
    extra = 0
    show_change_link = True
    verbose_name = _("mesa")
    verbose_name_plural = _("mesas")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("round__tournament").loaded()

    @admin.display(description=_("lados"))
    def sides(self, obj):
        if not obj.pk:
            return ""
        try:
            has_sides = systems.of(obj.round.tournament).has_sides
        except systems.UnknownSystem:
            has_sides = True
        if not has_sides:
            return ", ".join(seat.entry.name for seat in obj.seats.all())
        return versus([obj.side_name("A")], [obj.side_name("B")])

    @admin.display(description=_("resultado"))
    def score(self, obj):
        return score_text(obj) if obj.pk else "—"

    @admin.display(description=_("versión"))
    def version_display(self, obj):
        return obj.version if obj.pk else 0


class ByeInline(admin.TabularInline):
    model = Bye
    fields = ("entry",)
    extra = 0
    verbose_name = _("descanso")
    verbose_name_plural = _("descansos")

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        field = formset.form.base_fields.get("entry")
        if field is not None:
            field.label = pgettext_lazy("competidor inscrito", "Inscripción")
            qs = Entry.objects.select_related("player1", "player2")
            field.queryset = qs.filter(tournament_id=obj.tournament_id) if obj is not None else qs
            field.label_from_instance = entry_label
        return formset


class NewRoundForm(forms.ModelForm):
    """A round added in the admin follows the order of play of the pairings page: the one after
    the last, within the planned rounds (``services.check_new_round``), and only once the round
    before it is complete (``lifecycle.check_next_round``: the admin has no "pair anyway"; the
    pairings page has). Each refusal beside the round's number."""

    def clean(self):
        cleaned = super().clean()
        t, number = cleaned.get("tournament") or getattr(self.instance, "tournament", None), None
        number = cleaned.get("number")
        if self.instance.pk is None and t is not None and number is not None:
            try:
                services.check_new_round(t, number)
                lifecycle.check_next_round(t, number)
            except DomainError as exc:
                self.add_error("number", ValidationError(exc.message, code=exc.code))
        return cleaned


class RoundAdminForm(NewRoundForm):
    class Meta:
        model = Round
        fields = ("tournament", "number", "closed", "played_at", "seed")
        labels: ClassVar[dict[str, str]] = {
            "tournament": _("Torneo"),
            "seed": _("Semilla del sorteo de parejas"),
        }


@admin.register(Round)
class RoundAdmin(HistoryAdmin):
    form = RoundAdminForm
    list_display = ("__str__", "tournament_name", "number", "closed", "played_at", "tables_count")
    list_filter = ("closed", ("tournament", titled(_("torneo"))))
    search_fields = ("tournament__name", "=number")
    list_select_related = ("tournament",)
    autocomplete_fields = ("tournament",)
    inlines = (
        TableInline,
        ByeInline,
    )

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_tables=Count("tables", distinct=True))

    @admin.display(description=_("torneo"), ordering="tournament__date")
    def tournament_name(self, obj):
        return obj.tournament.name

    @admin.display(description=_("mesas"), ordering="_tables")
    def tables_count(self, obj):
        return obj._tables


# --- seats -------------------------------------------------------------------------------------


class SeatAdminForm(forms.ModelForm):
    """A seat (its round is the table's): one seat per entry and round, tournament entries only."""

    class Meta:
        model = Seat
        fields = ("table", "entry", "side", "position")
        labels: ClassVar[dict[str, str]] = {
            "table": _("Mesa"),
            "entry": pgettext_lazy("competidor inscrito", "Inscripción"),
            "side": _("Lado"),
            "position": _("Número de asiento"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields.get("table")
        if isinstance(field, forms.ModelChoiceField) and not isinstance(
            field, forms.models.InlineForeignKeyField
        ):
            field.label_from_instance = table_label

    def clean(self):
        cleaned = super().clean()
        table, entry = cleaned.get("table"), cleaned.get("entry")
        if table is None or entry is None or not table.round_id:
            return cleaned
        self.instance.round_id = table.round_id
        if entry.tournament_id != table.round.tournament_id:
            raise ValidationError(message("foreign_entry", name=entry.name), code="foreign_entry")
        others = Seat.objects.filter(round_id=table.round_id, entry=entry)
        if self.instance.pk:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise ValidationError(message("entry_twice", name=entry.name), code="entry_twice")
        if not isinstance(self.fields.get("table"), forms.models.InlineForeignKeyField):
            self._check_layouts(table, cleaned)
        return cleaned

    def _check_layouts(self, table, cleaned) -> None:
        """The table this seat goes to, and the one it leaves, must stay scorable by the
        tournament's system (``ScoringSystem.check_seats``; complete while it has a result)."""
        t = table.round.tournament
        system = systems.of(t)
        here = (cleaned.get("side"), cleaned.get("position"))
        changed = [table]
        old_table_id = self.initial.get("table") if self.instance.pk else None
        if old_table_id and old_table_id != table.pk:
            old_table = Table.objects.select_related("round__tournament").get(pk=old_table_id)
            if systems.any_result(old_table) is not None or systems.any_result(table) is not None:
                # the seat would carry its score into another game: both results would change
                raise ValidationError(message("seat_move_scored"), code="seat_move_scored")
            changed.append(old_table)
        for tbl in changed:
            seats = [
                (s.side, s.position)
                for s in Seat.objects.filter(table=tbl).exclude(pk=self.instance.pk)
            ]
            if tbl.pk == table.pk:
                seats.append(here)
            try:
                system.check_seats(t, seats, complete=systems.any_result(tbl) is not None)
            except DomainError as exc:
                raise ValidationError(exc.message, code=exc.code) from exc


class SeatInlineFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        self._check_layout()
        seen = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or form.cleaned_data.get("DELETE"):
                continue
            entry = form.cleaned_data.get("entry")
            if entry is None:
                continue
            if entry.pk in seen:
                raise ValidationError(message("entry_twice", name=entry.name), code="entry_twice")
            seen.add(entry.pk)

    def _check_layout(self) -> None:
        """The table's seats as they would be saved must stay scorable by the tournament's
        system (``ScoringSystem.check_seats``; complete while the table has a result)."""
        table = self.instance
        if table is None or not table.pk or any(form.errors for form in self.forms):
            return
        t = table.round.tournament
        seats = [
            (form.cleaned_data.get("side"), form.cleaned_data.get("position"))
            for form in self.forms
            if getattr(form, "cleaned_data", None)
            and not form.cleaned_data.get("DELETE")
            and form.cleaned_data.get("entry") is not None
        ]
        try:
            systems.of(t).check_seats(t, seats, complete=systems.any_result(table) is not None)
        except DomainError as exc:
            raise ValidationError(exc.message, code=exc.code) from exc


class SeatInline(admin.TabularInline):
    model = Seat
    form = SeatAdminForm
    formset = SeatInlineFormSet
    fields = ("side", "position", "entry")
    extra = 0
    verbose_name = _("asiento")
    verbose_name_plural = _("asientos")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("entry__player1", "entry__player2")

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        field = formset.form.base_fields.get("entry")
        if field is not None:
            qs = Entry.objects.select_related("player1", "player2")
            if obj is not None and obj.round_id:
                qs = qs.filter(tournament_id=obj.round.tournament_id)
            field.queryset = qs
            field.label_from_instance = entry_label
        return formset


# --- tables ------------------------------------------------------------------------------------


class TableResultFilter(admin.SimpleListFilter):
    """Tables with or without a result (of any system), or ended by time (systems whose
    results record it)."""

    title = _("resultado")
    parameter_name = "resultado"

    def lookups(self, request, model_admin):
        return (
            ("con", _("con resultado")),
            ("sin", _("sin resultado")),
            ("tiempo", _("terminada por tiempo")),
        )

    def queryset(self, request, queryset):
        value = self.value()
        if value == "con":
            return queryset.filter(systems.has_result_q())
        if value == "sin":
            return queryset.filter(systems.no_result_q())
        if value == "tiempo":
            by_time = Q(pk__in=[])
            for system in systems.all_systems():
                names = {f.name for f in system.result_model._meta.get_fields()}
                if "ended_by_time" in names:
                    by_time |= Q(**{f"{system.result_relation}__ended_by_time": True})
            return queryset.filter(by_time)
        return queryset


class TableAdminForm(forms.ModelForm):
    class Meta:
        model = Table
        fields = ("round", "number")
        labels: ClassVar[dict[str, str]] = {"round": _("Ronda")}


@admin.register(Table)
class TableAdmin(HistoryAdmin):
    form = TableAdminForm
    list_display = (
        "table_name",
        "tournament_name",
        "round_number",
        "sides",
        "score",
        "version_display",
    )
    list_filter = (
        ("round__tournament", titled(_("torneo"))),
        ("round__closed", titled(_("ronda cerrada"), TitledBooleanFilter)),
        TableResultFilter,
    )
    search_fields = (
        "round__tournament__name",
        "seats__entry__player1__full_name",
        "seats__entry__player2__full_name",
    )
    list_select_related = ("round__tournament",)
    readonly_fields = ("version_display",)
    autocomplete_fields = ("round",)

    def get_queryset(self, request):
        return super().get_queryset(request).loaded()

    def get_inlines(self, request, obj):
        """The seats, and on an existing table the result inline of its system's storage
        model (none on a new table: seat it first, then type its result)."""
        inlines = [SeatInline]
        if obj is not None:
            try:
                system = systems.of(obj.round.tournament)
            except systems.UnknownSystem:
                return inlines
            inlines.append(results.inline_for(system.result_model))
        return inlines

    def get_fields(self, request, obj=None):
        return ("round", "number", "version_display")

    @admin.display(description=_("mesa"), ordering="number")
    def table_name(self, obj):
        return str(obj)

    @admin.display(description=_("torneo"), ordering="round__tournament__date")
    def tournament_name(self, obj):
        return obj.round.tournament.name

    @admin.display(description=_("ronda"), ordering="round__number")
    def round_number(self, obj):
        return obj.round.number

    sides = TableInline.sides
    score = TableInline.score

    @admin.display(description=_("versión"))
    def version_display(self, obj):
        return obj.version if obj and obj.pk else 0

    def save_formset(self, request, form, formset, change):
        table = form.instance
        if results.is_result_formset(formset):
            results.save_result_formset(self, request, formset)
        elif formset.model is Seat:
            instances = formset.save(commit=False)
            touched = bool(formset.deleted_objects or instances)
            for obj in formset.deleted_objects:
                services.audit(obj, request.user).delete()
            for obj in instances:
                obj.round_id = table.round_id
                services.audit(obj, request.user).save()
            formset.save_m2m()
            if touched:
                touch_tables(request.user, [table.pk])
        else:
            super().save_formset(request, form, formset, change)


@admin.register(Seat)
class SeatAdmin(HistoryAdmin):
    form = SeatAdminForm
    list_display = (
        "seat_name",
        "tournament_name",
        "round_number",
        "table_number",
        "side",
        "position",
    )
    list_filter = (
        ("round__tournament", titled(_("torneo"))),
        ("side", titled(_("lado"), TitledChoicesFilter)),
    )
    search_fields = (
        "entry__player1__full_name",
        "entry__player2__full_name",
        "round__tournament__name",
    )
    list_select_related = ("round__tournament", "table", "entry__player1", "entry__player2")
    raw_id_fields = ("table",)
    autocomplete_fields = ("entry",)

    @admin.display(description=_("asiento"))
    def seat_name(self, obj):
        return f"{obj.side}{obj.position}: {obj.entry.name}"

    @admin.display(description=_("torneo"), ordering="round__tournament__date")
    def tournament_name(self, obj):
        return obj.round.tournament.name

    @admin.display(description=_("ronda"), ordering="round__number")
    def round_number(self, obj):
        return obj.round.number

    @admin.display(description=_("mesa"), ordering="table__number")
    def table_number(self, obj):
        return obj.table.number

    def save_model(self, request, obj, form, change):
        old_table = None
        if change and "table" in form.changed_data:
            old_table = form.initial.get("table")
        obj.round_id = obj.table.round_id
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            touch_tables(request.user, [obj.table_id, old_table])

    def has_delete_permission(self, request, obj=None):
        """A seat of a table with a result stays (its game would change or break): delete the
        result first. Without an object (the list's bulk action), as Django decides; the
        action itself skips such seats (``delete_queryset``)."""
        if obj is not None and systems.any_result(obj.table) is not None:
            return False
        return super().has_delete_permission(request, obj)

    def delete_model(self, request, obj):
        table_id = obj.table_id
        with transaction.atomic():
            super().delete_model(request, obj)
            touch_tables(request.user, [table_id])

    def delete_queryset(self, request, queryset):
        scored = [seat for seat in queryset if systems.any_result(seat.table) is not None]
        if scored:
            self.message_user(request, message("seat_move_scored"), level="error")
            queryset = queryset.exclude(pk__in=[seat.pk for seat in scored])
        table_ids = list(queryset.values_list("table_id", flat=True))
        with transaction.atomic():
            for seat in queryset:
                services.audit(seat, request.user).delete()
            touch_tables(request.user, table_ids)


# --- byes --------------------------------------------------------------------------------------


@admin.register(Bye)
class ByeAdmin(HistoryAdmin):
    list_display = ("__str__", "tournament_name", "round_number", "entry_name")
    list_filter = (("round__tournament", titled(_("torneo"))),)
    search_fields = (
        "entry__player1__full_name",
        "entry__player2__full_name",
        "round__tournament__name",
    )
    list_select_related = ("round__tournament", "entry__player1", "entry__player2")
    autocomplete_fields = ("round", "entry")

    def get_form(self, request, obj=None, **kwargs):
        kwargs.setdefault(
            "labels",
            {"round": _("Ronda"), "entry": pgettext_lazy("competidor inscrito", "Inscripción")},
        )
        return super().get_form(request, obj, **kwargs)

    @admin.display(description=_("torneo"), ordering="round__tournament__date")
    def tournament_name(self, obj):
        return obj.round.tournament.name

    @admin.display(description=_("ronda"), ordering="round__number")
    def round_number(self, obj):
        return obj.round.number

    @admin.display(description=_("inscripción"))
    def entry_name(self, obj):
        return obj.entry.name
