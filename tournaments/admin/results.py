"""The results of every scoring system in the admin, from the registry (``tournaments.systems``).

One admin class, ``ResultAdmin``, registered once per distinct storage model
(``ScoringSystem.result_model``) of ``systems.all_systems()``: dominó ``Result``, Swiss
``MatchResult``, table games ``TableResult``. Two systems sharing a storage model share its
admin. Nothing here knows a system: the boxes of the form are the ``row_fields`` of the
system of the table's tournament (``systems.of(table.round.tournament)``), with its labels
(tantos A/B; games won by A, by B, drawn; each seat's VP and "ended by time" ...), so a
system registered later that reuses a storage model needs no admin code of its own.

Writes go through the services only: ``clean()`` asks ``services.record_result`` in a savepoint
always rolled back (``base.dry_run``), so a result that breaks the rules is refused with the
service's message and nothing is stored; the save calls ``services.record_result`` (which
validates, stores, writes history and bumps the table version) and a deletion
``services.delete_result``. A closed round is reopened for the correction and closed again
(``base.correcting``). The version the admin saw is checked on a correction ("someone else
changed this table"); a new result is not (version None).

The same form is the result inline on a table's page (``inline_for``) and the revert of a
result from its history.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import widgets
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models, transaction
from django.db.models import Prefetch
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments import services, systems, timing
from tournaments.admin.base import (
    HistoryAdmin,
    ServiceForm,
    TitledBooleanFilter,
    correcting,
    message,
    score_text,
    table_label,
    titled,
)
from tournaments.errors import DomainError
from tournaments.models import MAX_SCORE, Seat, Table
from tournaments.systems.base import RowField
from tournaments.systems.rules import ScoringSystem


def _has_field(model, name: str) -> bool:
    try:
        model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return True


def _systems_of(model) -> list[ScoringSystem]:
    """The registered systems that store their results in ``model``."""
    return [s for s in systems.all_systems() if s.result_model is model]


def eligible_tables(model):
    """Tables that may get a new result in ``model``: their tournament's system stores its
    results there and they have none yet."""
    stored_here = _systems_of(model)
    tables = Table.objects.filter(round__tournament__system__in=[s.key for s in stored_here])
    for relation in {s.result_relation for s in stored_here}:
        tables = tables.filter(**{f"{relation}__isnull": True})
    return tables.select_related("round__tournament")


def _box_field(box: RowField) -> forms.Field:
    """The form field of one result box: a checkbox, a choice among the box's options, or a
    whole number (the system says in words what is wrong with it; the field only refuses
    what no score sheet holds, beyond ``MAX_SCORE``)."""
    label = f"{box.label} · {box.who}" if box.who else box.label
    if box.kind == "checkbox":
        return forms.BooleanField(label=label, required=False, initial=bool(box.value))
    if box.kind == "select":
        return forms.ChoiceField(
            label=label, required=False, choices=list(box.options), initial=box.value or ""
        )
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=-MAX_SCORE,
        max_value=MAX_SCORE,
        initial=None if box.value in ("", None) else box.value,
        widget=forms.NumberInput(attrs={"class": "vIntegerField"}),
    )


class ResultForm(ServiceForm, forms.ModelForm):
    """A table's result: the boxes of its system (added by ``form_class_for``), the table
    version the admin saw (hidden) and, on a new result, the table whose boxes are shown
    (hidden ``boxes_of``: choosing another table shows its boxes before anything is saved).

    A post that holds the table's boxes (or names it in ``boxes_of``) is a result for it.

    Class attributes set by ``form_class_for``: ``the_table``, ``system`` (the system of the
    table's tournament), ``box_names``, ``inline`` (the inline of the table's page)."""

    the_table: Table | None = None
    system: ScoringSystem | None = None
    box_names: tuple[str, ...] = ()
    inline = False

    table_version = forms.IntegerField(
        widget=forms.HiddenInput, required=False, label=_("Versión de la mesa")
    )
    boxes_of = forms.IntegerField(
        widget=forms.HiddenInput, required=False, label=_("Mesa de las casillas")
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields.get("table")
        if isinstance(field, forms.ModelChoiceField) and not isinstance(
            field, forms.models.InlineForeignKeyField
        ):
            field.queryset = eligible_tables(self._meta.model)
            field.label_from_instance = table_label
            field.label = _("Mesa")
        table = self.the_table
        if table is not None:
            self.fields["table_version"].initial = table.version
            self.fields["boxes_of"].initial = table.pk
        if "played_at" in self.fields and self.instance.pk:
            stored = self.instance.played_at
            try:
                if stored is not None:
                    stored.astimezone(timing.club_zone())  # the widget shows it in local time
                self.fields["played_at"].initial = stored
            except OverflowError:  # a time at the edge of the calendar, stored by hand
                self.fields["played_at"].help_text = gettext(
                    "La hora guardada ({time}) no es válida: escribe la correcta."
                ).format(time=timing.format_moment(stored))
        self._boxes_shown = True
        if self.is_bound and not self.inline and not self.instance.pk and table is not None:
            key = self.add_prefix("boxes_of")
            typed = any(self.add_prefix(name) in self.data for name in self.box_names)
            if not typed and str(self.data.get(key, "")) != str(table.pk):
                # The table was chosen with this post: its boxes show now, empty.
                self._boxes_shown = False
                self.data = self.data.copy()
                self.data[key] = str(table.pk)

    def has_changed(self) -> bool:
        """Changed when a box (or the time played) changed; the hidden version alone is not a
        change (an empty inline stays empty when the table moved on)."""
        watched = {*self.box_names, "played_at", "table"}
        return any(name in watched for name in self.changed_data)

    def chosen_table(self) -> Table | None:
        """The table whose result this is (and whose boxes the form shows)."""
        table = self.the_table
        if table is None or self.instance.pk or self.inline:
            return table
        chosen = getattr(self, "cleaned_data", {}).get("table")
        return table if chosen is not None and chosen.pk == table.pk else None

    def clean(self):
        cleaned = super().clean()
        if self.errors or cleaned.get("DELETE"):
            return cleaned
        table = self.chosen_table()
        if table is None:
            return cleaned  # the table field says what is wrong
        if self.system is None:
            raise ValidationError(message("wrong_system"), code="wrong_system")
        if not self._boxes_shown:
            raise ValidationError(
                gettext(
                    "Escribe ahora el resultado de {table}: sus casillas ya están en el formulario."
                ).format(table=table_label(table)),
                code="boxes_shown",
            )
        if self.inline and self.instance.pk and not self.has_changed():
            return cleaned
        if transaction.get_connection().in_atomic_block:
            services.lock_table(table)  # held until the save: nobody changes it in between
        self.check_with(lambda: self.save_through_services(self.acting_user))
        return cleaned

    def save_through_services(self, acting_user):
        """Record the typed result with ``services.record_result`` (the table's round
        reopened for it if closed). Returns the stored result; raises DomainError."""
        table = self.chosen_table()
        typed = {name: self.cleaned_data.get(name) for name in self.box_names}
        version = self.cleaned_data.get("table_version") if self.instance.pk else None
        with transaction.atomic(), correcting(table.round, acting_user):
            return services.record_result(
                acting_user=acting_user,
                table=table,
                version=version,
                played_at=self.cleaned_data.get("played_at"),
                **self.system.presentation.values_from_post(typed, table),
            )


def delete_through_services(acting_user, table: Table, version=None) -> None:
    """``services.delete_result`` (the table's round reopened for it if closed)."""
    with transaction.atomic(), correcting(table.round, acting_user):
        services.delete_result(acting_user=acting_user, table=table, version=version)


def form_class_for(model, table: Table | None, instance=None, *, inline: bool = False):
    """The form of a result in ``model`` for ``table`` (None: a new result whose table is not
    chosen yet): ``ResultForm`` with one field per box of the table's system
    (``row_fields``), filled from ``instance`` (a stored or historical result) or the table's
    stored result, and the time played when the model keeps one."""
    attrs: dict = {"the_table": table, "inline": inline}
    if table is not None:
        t = table.round.tournament
        try:
            system = systems.of(t)
        except systems.UnknownSystem:
            system = None
        if system is not None and system.result_model is model:
            if instance is not None and instance.pk:
                # Its boxes show this result (a historical one, on a revert).
                setattr(table, system.result_relation, instance)
            boxes = system.presentation.row_fields(table, t, None)
            attrs.update({box.name: _box_field(box) for box in boxes})
            attrs.update(system=system, box_names=tuple(box.name for box in boxes))
    if _has_field(model, "played_at"):
        attrs["played_at"] = forms.SplitDateTimeField(
            label=capfirst(model._meta.get_field("played_at").verbose_name),
            required=False,
            widget=widgets.AdminSplitDateTime,
            help_text=_("Vacío: se conserva la hora guardada (o la de la ronda)."),
        )
    return type(f"{model.__name__}AdminForm", (ResultForm,), attrs)


# --- the admin of one storage model ------------------------------------------------------------


class ResultAdmin(HistoryAdmin):
    """The results stored in one model (``system.result_model``), of whichever system."""

    system: ScoringSystem | None = None
    form = ResultForm
    raw_id_fields = ("table",)
    search_fields = (
        "table__round__tournament__name",
        "table__seats__entry__player1__full_name",
        "table__seats__entry__player2__full_name",
    )
    list_select_related = ("table__round__tournament", "entered_by")
    ordering = ("-table__round__tournament__date", "table__round__number", "table__number")

    def get_queryset(self, request):
        seats = Seat.objects.select_related("entry__player1", "entry__player2").order_by(
            "side", "position"
        )
        return (
            super()
            .get_queryset(request)
            .select_related("table__round__tournament")
            .prefetch_related(Prefetch("table__seats", queryset=seats))
        )

    @admin.display(description=_("resultado"), ordering="table__round__tournament__date")
    def result_title(self, obj):
        return table_label(obj.table)

    @admin.display(description=_("mesa"))
    def table_title(self, obj):
        return table_label(obj.table)

    @admin.display(description=_("marcador"))
    def score(self, obj):
        return score_text(obj.table)

    @admin.display(description=_("anotado por"))
    def entered_by_display(self, obj):
        return obj.entered_by or "—"

    @admin.display(description=_("modificado"), ordering="updated_at")
    def updated_display(self, obj):
        return obj.updated_at

    @admin.display(description=_("jugada el"), ordering="played_at")
    def played_at_display(self, obj):
        """The game's time in the club's zone; a stored time outside its tournament's days
        (written before the date checks, or by hand) is shown with "needs correction", never
        a server error (a time at the edge of the calendar cannot be localised)."""
        if obj.played_at is None:
            return "—"
        text = timing.format_moment(obj.played_at)
        t = obj.table.round.tournament
        try:
            timing.check_played_at(obj.played_at, t.date, t.end_date)
        except DomainError:
            return gettext("{time} (necesita corrección)").format(time=text)
        return text

    # --- the form: the boxes of the table's system

    def _table_of(self, request, obj) -> Table | None:
        if obj is not None:
            try:
                return obj.table
            except Table.DoesNotExist:
                return None
        raw = request.POST.get("table") if request.method == "POST" else request.GET.get("table")
        if not raw or not str(raw).isdigit():
            return None
        return eligible_tables(self.model).filter(pk=raw).first()

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = form_class_for(self.model, self._table_of(request, obj), obj)
        kwargs["fields"] = [] if obj is not None else ["table"]
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return ("table_title",) if obj is not None else ()

    def get_fields(self, request, obj=None):
        form = self._get_form_for_get_fields(request, obj)
        lead = "table_title" if obj is not None else "table"
        return [lead, *(name for name in form.base_fields if name != "table")]

    # --- writes: the services

    def save_model(self, request, obj, form, change):
        try:
            result = form.save_through_services(request.user)
        except DomainError as exc:
            self.refuse(request, exc)
            return
        obj.pk = result.pk
        obj.refresh_from_db()

    def delete_model(self, request, obj):
        try:
            delete_through_services(request.user, obj.table)
        except DomainError as exc:
            self.refuse(request, exc)

    def delete_queryset(self, request, queryset):
        for result in queryset.select_related("table__round"):
            try:
                delete_through_services(request.user, result.table)
            except DomainError as exc:
                self.message_user(
                    request, f"{table_label(result.table)}: {exc.message}", messages.ERROR
                )


def result_admin_for(system: ScoringSystem) -> type[ResultAdmin]:
    """``ResultAdmin`` for ``system``'s storage model: its list shows the title (tournament,
    round, table), the score, the time played when the model keeps one, who entered it and
    when; its filters are the tournament, closed rounds and the model's yes/no fields
    ("terminó por tiempo", "no presentación" ...)."""
    model = system.result_model
    flags = [f.name for f in model._meta.fields if isinstance(f, models.BooleanField)]
    list_display = [
        "result_title",
        "score",
        *(["played_at_display"] if _has_field(model, "played_at") else []),
        *(["entered_by_display"] if _has_field(model, "entered_by") else []),
        *(["updated_display"] if _has_field(model, "updated_at") else []),
    ]
    list_filter = [
        ("table__round__tournament", titled(_("torneo"))),
        *flags,
        ("table__round__closed", titled(_("ronda cerrada"), TitledBooleanFilter)),
    ]
    return type(
        f"{model.__name__}Admin",
        (ResultAdmin,),
        {"system": system, "list_display": list_display, "list_filter": list_filter},
    )


def register_result_admins(site=admin.site) -> None:
    """Register ``ResultAdmin`` for each storage model of the registered systems not yet
    registered (one admin per model, shared by the systems that use it)."""
    for system in systems.all_systems():
        model = system.result_model
        if model is not None and not site.is_registered(model):
            site.register(model, result_admin_for(system))


register_result_admins()


# --- the result inline of a table's page -------------------------------------------------------


class ResultInline(admin.StackedInline):
    """The result of the table (one at most), with the boxes of its system."""

    form = ResultForm
    extra = 1
    max_num = 1

    def get_formset(self, request, obj=None, **kwargs):
        kwargs["form"] = form_class_for(self.model, obj, inline=True)
        kwargs["fields"] = []
        formset = super().get_formset(request, obj, **kwargs)
        formset.form.acting_user = request.user  # a class made for this request
        formset.saves_through_services = True
        return formset


_INLINES: dict = {}


def inline_for(model) -> type[ResultInline]:
    """The result inline of a table whose system stores its results in ``model``."""
    if model not in _INLINES:
        name = model._meta.verbose_name
        _INLINES[model] = type(
            f"{model.__name__}Inline",
            (ResultInline,),
            {"model": model, "verbose_name": name, "verbose_name_plural": name},
        )
    return _INLINES[model]


def is_result_formset(formset) -> bool:
    return getattr(formset, "saves_through_services", False)


def save_result_formset(model_admin: HistoryAdmin, request, formset) -> None:
    """Save the table page's result inline through the services: a result marked for
    deletion with ``services.delete_result``, a typed or changed one with
    ``services.record_result``."""
    formset.save(commit=False)  # the lists of the change message; writes nothing
    deleted = set(map(id, formset.deleted_forms))
    for form in formset.forms:
        try:
            if id(form) in deleted:
                if form.instance.pk:
                    delete_through_services(
                        request.user, form.the_table, form.cleaned_data.get("table_version")
                    )
            elif form.has_changed():
                result = form.save_through_services(request.user)
                form.instance.pk = result.pk
                form.instance.refresh_from_db()
        except DomainError as exc:
            model_admin.refuse(request, exc)
            return
