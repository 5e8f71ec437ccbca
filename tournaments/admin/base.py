"""What every page of the tournaments admin shares: the base ``HistoryAdmin``, filters titled in
Spanish, labels, and the way a correction goes through ``tournaments.services``.

Writes (DESIGN.md, "Writes"): a form whose save has a service asks that service first, in
``clean()``, inside a savepoint that is always rolled back (``dry_run``); a refusal becomes a
form error with the service's own message, and nothing is stored. The save itself then calls
the same service for real. The rules live once, in the services and the scoring systems.

Unlike the directors' pages, the admin corrects closed rounds too (that is what it is for):
``correcting`` reopens such a round through ``services.reopen_round`` for the correction and
closes it again after, so the round's history says who corrected it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from typing import ClassVar

from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.core.exceptions import ValidationError
from django.db import router, transaction
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin
from simple_history.template_utils import HistoricalRecordContextHelper

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.models import Entry, Round, Table
from tournaments.views.manage.access import one_submission

admin.site.site_header = _("Club de dominó — administración")
admin.site.site_title = _("Club de dominó")
admin.site.index_title = _("Administración del club")


def _login_as_get(request, extra_context=None, *, _login=admin.site.login):
    """The admin's login page, answering HEAD as GET (clubsite/http.py: HEAD answers wherever
    GET does): Django's ``AdminSite.login`` sends a logged-in staff user on to the index only
    when ``request.method == "GET"``, so a HEAD got the login form (200) where GET redirects
    (302)."""
    if request.method != "HEAD":
        return _login(request, extra_context)
    request.method = "GET"
    try:
        return _login(request, extra_context)
    finally:
        request.method = "HEAD"


admin.site.login = _login_as_get


# --- words -------------------------------------------------------------------------------------


def message(code: str, **params) -> str:
    """The text of a domain error code (``tournaments.errors.MESSAGES``), in the active language."""
    return DomainError(code, **params).message


def table_label(table: Table) -> str:
    """ "Copa · ronda 2 · mesa 3": a table named by its tournament, round and number
    (``str(table)``)."""
    return str(table)


def moment_text(value) -> str:
    """A stored date and time as the admin shows dates (the active language's format, the
    club's time zone); "—" when empty. For read-only values of the change pages, which Django
    would print raw ("2026-12-01 11:21:59.708263+00:00")."""
    if value is None:
        return "—"
    return formats.localize(timezone.localtime(value))


def entry_label(entry: Entry) -> str:
    return entry.name


def score_text(table: Table) -> str:
    """A table's stored result in one short text, whatever its system: the result boxes as the
    system sums them up (``typed_summary`` of its ``row_fields``: "100–50", "2–1–0",
    "10, 7, 3") and the marks of its public card ("terminada por tiempo" ...); "—" without a
    result. Uses the table's prefetched seats."""
    try:
        system = systems.of(table.round.tournament)
    except systems.UnknownSystem:
        return "—"
    if system.result_of(table) is None:
        return "—"
    boxes = system.presentation.row_fields(table, table.round.tournament, None)
    text = system.presentation.typed_summary(
        {
            box.name: "" if box.value in (None, "") else str(box.value)
            for box in boxes
            if box.kind != "checkbox"
        }
    )
    marks = [str(words) for _abbr, words in system.presentation.card(table).marks]
    return text + (f" ({', '.join(marks)})" if marks else "")


# --- filters -----------------------------------------------------------------------------------


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


class TitledDateFilter(admin.DateFieldListFilter):
    filter_title = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = self.filter_title


class TitledValuesFilter(admin.AllValuesFieldListFilter):
    filter_title = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = self.filter_title


def column(name: str, label, *, ordering: str | None = None, boolean: bool = False):
    """A list column showing the model field ``name`` under the heading ``label`` (for models
    whose fields have no label in the site's words: the ranking's rows, other apps' models),
    sorted by that field (or ``ordering``); ``boolean``: shown as the admin's yes/no icon."""

    def value(obj):
        return getattr(obj, name)

    value.__name__ = name
    return admin.display(description=label, ordering=ordering or name, boolean=boolean)(value)


# --- writing through the services --------------------------------------------------------------


class _Undo(Exception):
    """Raised to roll back a dry run that went through."""


def dry_run(call: Callable[[], object]) -> DomainError | None:
    """Run ``call`` (a service call) in a savepoint that is always rolled back: the
    ``DomainError`` it raised, or None if it would go through. Its commit hooks (ledger
    replay, page cache) are discarded with the savepoint."""
    try:
        with transaction.atomic():
            call()
            raise _Undo
    except _Undo:
        return None
    except DomainError as exc:
        return exc


@contextmanager
def correcting(rnd: Round | None, acting_user):
    """Let the admin correct ``rnd`` even when it is closed: reopen it
    (``services.reopen_round``) for the block and close it again after
    (``services.close_round``; if a result is now missing, as after deleting one, the round
    is closed again as its own admin page would, with history). Run it inside a transaction:
    if the block raises, the reopening is undone with it."""
    if rnd is None or not Round.objects.filter(pk=rnd.pk, closed=True).exists():
        yield
        return
    services.reopen_round(acting_user=acting_user, round=rnd)
    yield
    try:
        services.close_round(acting_user=acting_user, round=rnd)
    except DomainError:
        fresh = Round.objects.get(pk=rnd.pk)
        fresh.closed = True
        services.audit(fresh, acting_user).save(update_fields=["closed"])


def touch_tables(user, table_ids) -> None:
    """Bump the version of each of these tables that has a result, of any system (with
    history), as ``services.record_result`` does: for admin edits no service covers (moving a
    seat, changing an entry's players). The ledger replays through ``rankings.signals``."""
    ids = sorted({pk for pk in table_ids if pk})
    if not ids:
        return
    with transaction.atomic():
        # The lock order (tournaments.writing): their tournaments first, then the tables. Only the
        # tables are locked among those rows: PostgreSQL refuses FOR NO KEY UPDATE on the
        # nullable side of the result joins ``has_result_q`` adds.
        for tournament_id in sorted(
            set(Table.objects.filter(pk__in=ids).values_list("round__tournament_id", flat=True))
        ):
            services.lock_tournament(tournament_id)
        for tbl in (
            Table.objects.select_for_update(no_key=True, of=("self",))
            .filter(pk__in=ids)
            .filter(systems.has_result_q())
            .order_by("pk")
        ):
            services.bump_version(tbl, user)


class ServiceForm:
    """Mixin of the admin's model forms whose save is a service call.

    ``acting_user`` is set by the admin (``HistoryAdmin.get_form``); ``error_fields`` maps a
    ``DomainError`` code to the field its message belongs to (others are non-field errors)."""

    acting_user = None
    error_fields: ClassVar[dict[str, str]] = {}

    def check_with(self, call: Callable[[], object]) -> bool:
        """Ask the service (``dry_run``); a refusal becomes a form error. True if it passed."""
        exc = dry_run(call)
        if exc is None:
            return True
        self.add_domain_error(exc)
        return False

    def add_domain_error(self, exc: DomainError) -> None:
        field = self.error_fields.get(exc.code)
        if field not in self.fields:
            field = None
        self.add_error(field, ValidationError(exc.message, code=exc.code))


# --- the base admin ----------------------------------------------------------------------------


class SubmittedOnceAdmin:
    """Mixin of the admins: their add forms, and their change forms (whose inlines add rows:
    tables of a round, seats of a table, rounds of a tournament), carry a one-time form token
    (``tournaments.views.manage.access.one_submission``, the directors' pages' helper; the
    template ``admin/change_form.html`` puts it in every admin form). A double click on
    "Guardar", a resend or two copies at once save once: a repeated copy saves nothing and
    goes to the change page of the object the first copy saved, with "Ya se había guardado".
    A refused copy (form errors, or a service's refusal: ``HistoryAdmin.refuse``) or one that
    failed with an exception releases the token, so the corrected form can be sent. The claim
    is made before ``HistoryAdmin``'s transaction opens, and the outcome recorded after it
    closed. A revert from the history (django-simple-history's page) carries no token: it sets
    the stored values again, so a second copy changes nothing."""

    def _admin_url(self, name: str, *args) -> str:
        opts = self.model._meta
        return reverse(
            f"admin:{opts.app_label}_{opts.model_name}_{name}",
            args=args,
            current_app=self.admin_site.name,
        )

    def add_view(self, request, form_url="", extra_context=None):
        with one_submission(request) as sub:
            if sub.repeated:
                return sub.answer(request, self._admin_url("changelist"))
            response = super().add_view(request, form_url, extra_context)
            if getattr(request, "_admin_saved_url", None):
                sub.saved(request._admin_saved_url)
            return response

    def change_view(self, request, object_id, form_url="", extra_context=None):
        with one_submission(request) as sub:
            if sub.repeated:
                return sub.answer(request, self._admin_url("change", object_id))
            response = super().change_view(request, object_id, form_url, extra_context)
            if getattr(request, "_admin_saved_url", None):
                sub.saved(request._admin_saved_url)
            return response

    # Reached only when the save went through: ``HistoryAdmin`` answers a refusal itself.
    def response_add(self, request, obj, post_url_continue=None):
        request._admin_saved_url = self._admin_url("change", quote(obj.pk))
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        request._admin_saved_url = self._admin_url("change", quote(obj.pk))
        return super().response_change(request, obj)


class ReadableChanges(HistoricalRecordContextHelper):
    """The "what changed" column of a history page in words: a choice by its label
    ("Inscripción", not "registration"), a yes/no field as "sí"/"no", an empty value as "—"
    (django-simple-history shows the stored values: "registration", "False", "None")."""

    def prepare_delta_change_value(self, change, value):
        field = self.model._meta.get_field(change.field)
        if value is None or value == "":
            return "—"
        if isinstance(value, bool):
            return gettext("sí") if value else gettext("no")
        choices = dict(getattr(field, "flatchoices", None) or ())
        if choices and isinstance(value, (str, int)) and value in choices:
            return choices[value]
        return super().prepare_delta_change_value(change, value)


class HistoryAdmin(SubmittedOnceAdmin, SimpleHistoryAdmin):
    """Base admin: change history, the acting user handed to the forms (``ServiceForm``), and
    a way to refuse a write that a service turned down after the form passed (``refuse``).

    The history pages are in the site's words: the titles here, the templates in
    ``templates/simple_history/`` and the changed values by ``ReadableChanges``."""

    list_per_page = 50

    def get_historical_record_context_helper(self, request, historical_record):
        return ReadableChanges(self.model, historical_record)

    def history_view_title(self, request, obj):
        return gettext("Historial de cambios: {obj}").format(obj=obj)

    def history_form_view_title(self, request, obj):
        if self.revert_disabled(request, obj):
            return gettext("Versión guardada: {obj}").format(obj=obj)
        return gettext("Restaurar una versión: {obj}").format(obj=obj)

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
        """A revert saves through the same form and services as the change page, all or
        nothing (django-simple-history's own view has no transaction)."""
        self._check_id(object_id, version_id)
        return self._all_or_nothing(
            request,
            super().history_form_view,
            object_id,
            version_id,
            extra_context=extra_context,
        )

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return self._all_or_nothing(
            request, super().changeform_view, object_id, form_url, extra_context
        )

    def delete_view(self, request, object_id, extra_context=None):
        return self._all_or_nothing(request, super().delete_view, object_id, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.acting_user = request.user  # a class made for this request (modelform_factory)
        return form

    # A write a service refused after its form passed (a rare race, or a result typed with
    # seats changed in the same post): the whole request is undone (``_all_or_nothing``) and
    # the page says why, without the "changed successfully" message.

    def refuse(self, request, exc: DomainError) -> None:
        """Record that a service refused this request's write, with its message."""
        request._admin_refused = True
        self.message_user(request, exc.message, messages.ERROR)

    def _all_or_nothing(self, request, view, *args, **kwargs):
        """Run an admin view in one transaction, rolled back at its end if a write was refused
        (``refuse``): nothing of the request stays, not even its log entry."""
        with transaction.atomic(using=router.db_for_write(self.model)):
            response = view(request, *args, **kwargs)
            if self.refused(request):
                transaction.set_rollback(True)
        return response

    @staticmethod
    def refused(request) -> bool:
        return getattr(request, "_admin_refused", False)

    def response_add(self, request, obj, post_url_continue=None):
        if self.refused(request):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        if self.refused(request):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_change(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        if self.refused(request):
            return HttpResponseRedirect(request.get_full_path().replace("/delete/", "/change/"))
        return super().response_delete(request, obj_display, obj_id)


class SavedThroughServicesAdmin:
    """For an admin whose form saves the object and its many-to-many field through the
    services (``form.save_through_services(user)``, a ``ServiceForm``): a refusal is shown
    (``refuse``) and nothing is saved; the many-to-many field is not saved again
    (no ``form.save_m2m()``), the inline formsets are."""

    def save_model(self, request, obj, form, change):
        try:
            saved = form.save_through_services(request.user)
        except DomainError as exc:
            self.refuse(request, exc)
            return
        obj.pk = saved.pk
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        if self.refused(request):
            return
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)
