"""The Django admin of the tournaments app: where a superuser corrects anything after the fact.

Every model is registered with change history (``simple_history.admin.SimpleHistoryAdmin``).
Corrections behave like ``tournaments.services`` (DESIGN.md, "Writes"):

- a result saved here (its own page, the results inline of a table, or a revert from the
  history) is validated with ``scoring.domino.validate_result`` against the tournament's target
  in the form's ``clean()`` — a wrong score is refused with a Spanish form error and nothing is
  stored; a stale table version ("someone else changed this table") is refused too;
- saving or deleting a result, or changing the seats of a table that has a result, bumps the
  table's ``version``; the ranking ledger replays from that game after commit, as for any
  other change of results (the model signals of ``rankings.signals``, which also see the
  deletion of a tournament, round or table with results);
- a player who has played (or is entered anywhere) cannot be deleted: the admin says so and
  suggests deactivating them instead.

Unlike the directors' pages, the admin may correct results of closed rounds: that is what it
is for.
"""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from tournaments import services
from tournaments.errors import DomainError, ResultError, gettext_noop
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    Player,
    Result,
    Round,
    Seat,
    Sorteo,
    Table,
    Tournament,
)
from tournaments.scoring import domino
from tournaments.timing import default_played_at

admin.site.site_header = _("Club de dominó — administración")
admin.site.site_title = _("Club de dominó")
admin.site.index_title = _("Administración del club")


# --- helpers -----------------------------------------------------------------------------------


def _message(code: str, **params) -> str:
    """The text of a domain error code (``tournaments.errors.MESSAGES``), in the active language."""
    return DomainError(code, **params).message


def _touch_tables(user, table_ids) -> None:
    """Bump the version of each table (with history).

    The same side effect as ``services.record_result`` / ``services.delete_result`` (the ledger
    replay follows from the model signals of ``rankings.signals``).
    """
    ids = sorted({pk for pk in table_ids if pk})
    if not ids:
        return
    with transaction.atomic():
        for tbl in Table.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk"):
            services.bump_version(tbl, user)


def _table_label(table: Table) -> str:
    rnd = table.round
    return gettext("{tournament} · ronda {round} · mesa {table}").format(
        tournament=rnd.tournament.name, round=rnd.number, table=table.number
    )


def _entry_label(entry: Entry) -> str:
    return entry.name


class TitledRelatedFilter(admin.RelatedFieldListFilter):
    """A related-field filter titled in Spanish (the models' foreign keys have no Spanish label)."""

    filter_title = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = self.filter_title


def titled(title: str, base=TitledRelatedFilter):
    return type("Filter", (base,), {"filter_title": title})


class TitledChoicesFilter(admin.ChoicesFieldListFilter):
    filter_title = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = self.filter_title


class TitledBooleanFilter(admin.BooleanFieldListFilter):
    filter_title = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = self.filter_title


class HistoryAdmin(SimpleHistoryAdmin):
    """Base admin: change history, and the acting user recorded on every save."""

    list_per_page = 50

    def _check_id(self, object_id, version_id=None) -> None:
        """A mistyped id in a history URL ("/history/abc/") is a 404, as Django's own change
        pages answer, not the 500 that django-simple-history's views would raise."""
        try:
            self.model._meta.pk.to_python(object_id)
            if version_id is not None:
                int(version_id)
        except (ValidationError, ValueError, TypeError):
            raise Http404(gettext("No existe ese registro.")) from None

    def history_view(self, request, object_id, extra_context=None):
        self._check_id(object_id)
        return super().history_view(request, object_id, extra_context=extra_context)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        self._check_id(object_id, version_id)
        return super().history_form_view(
            request, object_id, version_id, extra_context=extra_context
        )


# --- players -----------------------------------------------------------------------------------


class PlayerAdminForm(forms.ModelForm):
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
        return obj.created_at

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
                request, _message("player_has_results", name=player.full_name), messages.ERROR
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
            self.message_user(request, exc.message, messages.ERROR)

    def delete_queryset(self, request, queryset):
        for player in queryset:
            if self._locked(player):
                self.message_user(
                    request, _message("player_has_results", name=player.full_name), messages.ERROR
                )
                continue
            services.delete_player(acting_user=request.user, player=player)


# --- tournaments -------------------------------------------------------------------------------


class TournamentAdminForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = (
            "name",
            "slug",
            "date",
            "venue",
            "system",
            "mode",
            "target",
            "time_limit",
            "bye_rule",
            "forfeit_winner_tantos",
            "forfeit_loser_tantos",
            "rounds_planned",
            "rated",
            "forfeits_rated",
            "status",
            "directors",
        )
        labels: ClassVar[dict[str, str]] = {
            "slug": _("Dirección (slug)"),
            "directors": _("Directores"),
        }

    def clean_name(self):
        try:
            return services.clean_name(
                self.cleaned_data.get("name", ""), field=gettext_noop("nombre")
            )
        except DomainError as exc:
            raise ValidationError(exc.message, code=exc.code) from exc

    def clean(self):
        cleaned = super().clean()
        target = cleaned.get("target")
        rounds = cleaned.get("rounds_planned")
        if rounds is not None and not 1 <= int(rounds) <= 99:
            self.add_error("rounds_planned", _message("invalid_rounds"))
        time_limit = cleaned.get("time_limit")
        if time_limit is not None and not 1 <= int(time_limit) <= 600:
            self.add_error("time_limit", _message("invalid_time_limit"))
        if target in (100, 200):
            winner = cleaned.get("forfeit_winner_tantos")
            winner = target if winner is None else winner
            loser = cleaned.get("forfeit_loser_tantos") or 0
            try:
                domino.validate_result(winner, loser, target=target, ended_by_time=False)
            except ResultError as exc:
                self.add_error(
                    "forfeit_winner_tantos",
                    ValidationError(
                        _message("invalid_forfeit_score", score=f"{winner}–{loser}")
                        + " "
                        + exc.message,
                        code="invalid_forfeit_score",
                    ),
                )
        if self.instance.pk:
            original = Tournament.objects.get(pk=self.instance.pk)
            if (
                target is not None
                and target != original.target
                and Result.objects.filter(table__round__tournament=original).exists()
            ):
                self.add_error(
                    "target", ValidationError(_message("target_locked"), code="target_locked")
                )
            if original.entries.exists():
                for field in ("mode", "system"):
                    value = cleaned.get(field)
                    if value is not None and value != getattr(original, field):
                        self.add_error(
                            field, ValidationError(_message("mode_locked"), code="mode_locked")
                        )
        return cleaned


class RoundInline(admin.TabularInline):
    model = Round
    fields = ("number", "closed", "played_at", "tables_count")
    readonly_fields = ("tables_count",)
    extra = 0
    show_change_link = True
    verbose_name = _("ronda")
    verbose_name_plural = _("rondas")

    @admin.display(description=_("mesas"))
    def tables_count(self, obj):
        return obj.tables.count() if obj.pk else 0


def _result_tables_of(**filters) -> list[int]:
    return list(Table.objects.filter(result__isnull=False, **filters).values_list("pk", flat=True))


@admin.register(Tournament)
class TournamentAdmin(HistoryAdmin):
    form = TournamentAdminForm
    list_display = ("name", "date", "system", "mode", "target", "status", "rated", "entries_count")
    list_filter = ("status", "system", "mode", "target", "rated", "date")
    search_fields = ("name", "slug", "venue")
    prepopulated_fields: ClassVar[dict] = {"slug": ("name",)}
    date_hierarchy = "date"
    filter_horizontal = ("directors",)
    inlines = (RoundInline,)
    fieldsets = (
        (None, {"fields": ("name", "slug", "date", "venue", "status", "directors")}),
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


class EntryAdminForm(forms.ModelForm):
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
        if t is None or p1 is None:
            return cleaned
        size = 2 if t.mode == Tournament.Mode.PAIRS else 1
        if (2 if p2 else 1) != size or (p2 is not None and p2.pk == p1.pk):
            raise ValidationError(_message("entry_size", size=size), code="entry_size")
        others = Entry.objects.filter(tournament=t)
        if self.instance.pk:
            others = others.exclude(pk=self.instance.pk)
        for p in (p1, p2):
            if p is not None and others.filter(Q(player1=p) | Q(player2=p)).exists():
                raise ValidationError(
                    _message("player_already_entered", name=p.full_name),
                    code="player_already_entered",
                )
        return cleaned


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
        super().save_model(request, obj, form, change)
        if change and {"player1", "player2"} & set(form.changed_data):
            # Other players sat at these tables: the ranking must see them.
            _touch_tables(request.user, _result_tables_of(seats__entry=obj))


# --- rounds, tables, seats, results ------------------------------------------------------------


class TableInline(admin.TabularInline):
    model = Table
    fields = ("number", "sides", "score", "version_display")
    readonly_fields = ("sides", "score", "version_display")
    extra = 0
    show_change_link = True
    verbose_name = _("mesa")
    verbose_name_plural = _("mesas")

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("result")
            .prefetch_related("seats__entry__player1", "seats__entry__player2")
        )

    @admin.display(description=_("lados"))
    def sides(self, obj):
        if not obj.pk:
            return ""
        return f"{obj.side_name('A')}  —  {obj.side_name('B')}"

    @admin.display(description=_("resultado"))
    def score(self, obj):
        result = obj.result_or_none if obj.pk else None
        if result is None:
            return "—"
        marks = []
        if result.ended_by_time:
            marks.append(gettext("por tiempo"))
        if result.forfeit:
            marks.append(gettext("no presentación"))
        return f"{result.tantos_a}–{result.tantos_b}" + (f" ({', '.join(marks)})" if marks else "")

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
            field.label_from_instance = _entry_label
        return formset


class RoundAdminForm(forms.ModelForm):
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


class ResultAdminForm(forms.ModelForm):
    """A result, validated like ``services.record_result`` (SCORING.md §1, "Valid results").

    ``table_version`` (hidden) is the table version the user saw; if the table changed since,
    the save is refused (DESIGN.md, Concurrency).
    """

    table_version = forms.IntegerField(
        widget=forms.HiddenInput, required=False, label=_("Versión de la mesa")
    )

    class Meta:
        model = Result
        fields = ("table", "tantos_a", "tantos_b", "ended_by_time", "forfeit", "played_at")
        labels: ClassVar[dict[str, str]] = {"table": _("Mesa")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.table_id:
            self.fields["table_version"].initial = (
                Table.objects.filter(pk=self.instance.table_id)
                .values_list("version", flat=True)
                .first()
            )
        field = self.fields.get("table")
        if isinstance(field, forms.ModelChoiceField):
            field.label_from_instance = _table_label

    def _table(self, cleaned) -> Table | None:
        table = cleaned.get("table")
        if table is None and self.instance.table_id:
            table = Table.objects.filter(pk=self.instance.table_id).first()
        return table

    def clean(self):
        cleaned = super().clean()
        table = self._table(cleaned)
        a, b = cleaned.get("tantos_a"), cleaned.get("tantos_b")
        if table is None or a is None or b is None:
            return cleaned
        try:
            tournament = table.round.tournament
        except (Round.DoesNotExist, Tournament.DoesNotExist):
            return cleaned  # a new table whose own form has errors
        by_time = bool(cleaned.get("ended_by_time"))
        if by_time and not tournament.time_limit:
            raise ValidationError(_message("no_time_limit"), code="no_time_limit")
        if by_time and cleaned.get("forfeit"):
            raise ValidationError(_message("forfeit_by_time"), code="forfeit_by_time")
        try:
            domino.validate_result(a, b, target=tournament.target, ended_by_time=by_time)
        except ResultError as exc:
            raise ValidationError(exc.message, code=exc.code) from exc
        if table.pk:
            current = Table.objects.filter(pk=table.pk).values_list("version", flat=True).first()
            seen = cleaned.get("table_version")
            if self.instance.pk and seen is not None and current is not None and seen != current:
                raise ValidationError(
                    _message("stale_version", table=table.number), code="stale_version"
                )
        return cleaned


def _prepare_result(result: Result, user) -> Result:
    """Fill what ``services.record_result`` fills: who entered it and when it was played."""
    if getattr(user, "is_authenticated", False):
        result.entered_by = user
    if result.played_at is None:
        rnd = result.table.round
        result.played_at = rnd.played_at or default_played_at(rnd.tournament.date, rnd.number)
    return services.audit(result, user)


class ResultInline(admin.StackedInline):
    model = Result
    form = ResultAdminForm
    fields = ("tantos_a", "tantos_b", "ended_by_time", "forfeit", "played_at", "table_version")
    extra = 1
    max_num = 1
    verbose_name = _("resultado")
    verbose_name_plural = _("resultado")


class SeatAdminForm(forms.ModelForm):
    """A seat (its round is the table's): one seat per entry and round, tournament entries only."""

    class Meta:
        model = Seat
        fields = ("table", "entry", "side", "position")
        labels: ClassVar[dict[str, str]] = {
            "table": _("Mesa"),
            "entry": pgettext_lazy("competidor inscrito", "Inscripción"),
            "side": _("Lado"),
            "position": _("Puesto"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields.get("table")
        if isinstance(field, forms.ModelChoiceField) and not isinstance(
            field, forms.models.InlineForeignKeyField
        ):
            field.label_from_instance = _table_label

    def clean(self):
        cleaned = super().clean()
        table, entry = cleaned.get("table"), cleaned.get("entry")
        if table is None or entry is None or not table.round_id:
            return cleaned
        self.instance.round_id = table.round_id
        if entry.tournament_id != table.round.tournament_id:
            raise ValidationError(_message("foreign_entry", name=entry.name), code="foreign_entry")
        others = Seat.objects.filter(round_id=table.round_id, entry=entry)
        if self.instance.pk:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise ValidationError(_message("entry_twice", name=entry.name), code="entry_twice")
        return cleaned


class SeatInlineFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        seen = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or form.cleaned_data.get("DELETE"):
                continue
            entry = form.cleaned_data.get("entry")
            if entry is None:
                continue
            if entry.pk in seen:
                raise ValidationError(_message("entry_twice", name=entry.name), code="entry_twice")
            seen.add(entry.pk)


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
            field.label_from_instance = _entry_label
        return formset


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
        ("result__ended_by_time", titled(_("terminada por tiempo"), TitledBooleanFilter)),
    )
    search_fields = (
        "round__tournament__name",
        "seats__entry__player1__full_name",
        "seats__entry__player2__full_name",
    )
    list_select_related = ("round__tournament", "result")
    readonly_fields = ("version_display",)
    autocomplete_fields = ("round",)
    inlines = (
        SeatInline,
        ResultInline,
    )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related("seats__entry__player1", "seats__entry__player2")
        )

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
        if formset.model is Result:
            instances = formset.save(commit=False)
            touched = False
            for obj in formset.deleted_objects:
                services.audit(obj, request.user).delete()
                touched = True
            for obj in instances:
                _prepare_result(obj, request.user).save()
                touched = True
            formset.save_m2m()
            if touched:
                _touch_tables(request.user, [table.pk])
        elif formset.model is Seat:
            instances = formset.save(commit=False)
            touched = bool(formset.deleted_objects or instances)
            for obj in formset.deleted_objects:
                services.audit(obj, request.user).delete()
            for obj in instances:
                obj.round_id = table.round_id
                services.audit(obj, request.user).save()
            formset.save_m2m()
            if touched and Result.objects.filter(table=table).exists():
                _touch_tables(request.user, [table.pk])
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
            tables = [t for t in (obj.table_id, old_table) if t]
            _touch_tables(
                request.user,
                Result.objects.filter(table_id__in=tables).values_list("table_id", flat=True),
            )

    def delete_model(self, request, obj):
        table_id = obj.table_id
        with transaction.atomic():
            super().delete_model(request, obj)
            _touch_tables(
                request.user,
                Result.objects.filter(table_id=table_id).values_list("table_id", flat=True),
            )

    def delete_queryset(self, request, queryset):
        table_ids = list(queryset.values_list("table_id", flat=True))
        with transaction.atomic():
            for seat in queryset:
                services.audit(seat, request.user).delete()
            _touch_tables(
                request.user,
                Result.objects.filter(table_id__in=table_ids).values_list("table_id", flat=True),
            )


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


@admin.register(Result)
class ResultAdmin(HistoryAdmin):
    form = ResultAdminForm
    list_display = (
        "table_label",
        "tantos_a",
        "tantos_b",
        "ended_by_time",
        "forfeit",
        "played_at",
        "entered_by_display",
    )
    list_filter = (
        ("table__round__tournament", titled(_("torneo"))),
        "ended_by_time",
        "forfeit",
        ("table__round__closed", titled(_("ronda cerrada"), TitledBooleanFilter)),
    )
    search_fields = (
        "table__round__tournament__name",
        "table__seats__entry__player1__full_name",
        "table__seats__entry__player2__full_name",
    )
    list_select_related = ("table__round__tournament", "entered_by")
    raw_id_fields = ("table",)
    fields = (
        "table",
        "tantos_a",
        "tantos_b",
        "ended_by_time",
        "forfeit",
        "played_at",
        "table_version",
    )

    def get_readonly_fields(self, request, obj=None):
        return ("table",) if obj is not None else ()

    @admin.display(description=_("mesa"), ordering="table__round__tournament__date")
    def table_label(self, obj):
        return _table_label(obj.table)

    @admin.display(description=_("anotado por"))
    def entered_by_display(self, obj):
        return obj.entered_by or "—"

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            _prepare_result(obj, request.user)
            super().save_model(request, obj, form, change)
            _touch_tables(request.user, [obj.table_id])

    def delete_model(self, request, obj):
        table_id = obj.table_id
        with transaction.atomic():
            super().delete_model(request, obj)
            _touch_tables(request.user, [table_id])

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            table_ids = []
            for result in queryset:
                table_ids.append(result.table_id)
                services.audit(result, request.user).delete()
            _touch_tables(request.user, table_ids)


class CastigoAdminForm(forms.ModelForm):
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
        t, rnd, player = cleaned.get("tournament"), cleaned.get("round"), cleaned.get("player")
        if t is not None and rnd is not None and rnd.tournament_id != t.pk:
            self.add_error("round", _message("foreign_round"))
        if (
            t is not None
            and player is not None
            and not t.entries.filter(Q(player1=player) | Q(player2=player)).exists()
        ):
            self.add_error("player", _message("player_not_entered", name=player.full_name))
        return cleaned


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
        if not change and getattr(request.user, "is_authenticated", False):
            obj.entered_by = request.user
        super().save_model(request, obj, form, change)


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
            self.add_error("entry", _message("foreign_entry", name=entry.name))
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
