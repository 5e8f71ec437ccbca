"""The admin pages of the other apps the site runs, in the site's words (Spanish, English,
Russian): django-axes (login attempts and lockouts) and django-tasks-db (background tasks).

Neither app speaks Spanish, and their pages mix English into the Russian too ("Locked Out",
"Run", "Access Log for root @ ..."). Their models cannot be changed here (a field label is part
of a migration), so:

- the app and model names are set at start-up on the app configs and on ``_meta`` (names shown
  on the pages only: migrations read a model's options from ``Meta``, not from ``_meta``);
- their admins are replaced by subclasses whose columns, filters, sections, labels, actions and
  messages are ours (the fields keep their behaviour: read-only, no "add");
- the titles of their rows (``__str__``: the page titles, breadcrumbs, the delete page) are ours.
"""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin, messages
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments import timing
from tournaments.admin.base import (
    TitledBooleanFilter,
    TitledDateFilter,
    TitledValuesFilter,
    column,
    titled,
)

# --- django-axes: login attempts, lockouts and the log of logins ------------------------------

AXES_LABELS = {
    "username": _("Usuario"),
    "ip_address": _("Dirección IP"),
    "user_agent": _("Navegador"),
    "http_accept": _("Cabecera Accept"),
    "path_info": _("Página"),
    "attempt_time": _("Hora del intento"),
    "get_data": _("Datos GET"),
    "post_data": _("Datos POST"),
    "failures_since_start": _("Intentos fallidos"),
    "logout_time": _("Hora de salida"),
    "session_hash": _("Huella de la sesión"),
    "locked_out": _("Bloqueado"),
}


def _moment(value) -> str:
    return timing.format_moment(value) if value is not None else "—"


def _attempt_title(self) -> str:
    return gettext("Intentos fallidos de «{username}» desde {ip}").format(
        username=self.username or "—", ip=self.ip_address or "—"
    )


def _log_title(self) -> str:
    return gettext("Entrada de «{username}» el {time}").format(
        username=self.username or "—", time=_moment(self.attempt_time)
    )


def _failure_title(self) -> str:
    return gettext("Intento fallido de «{username}» el {time}").format(
        username=self.username or "—", time=_moment(self.attempt_time)
    )


class LockedOutFilter(admin.SimpleListFilter):
    """Attempts that reached the failure limit (``AXES_FAILURE_LIMIT``): the user is locked
    out until they expire or the row is deleted."""

    title = _("bloqueado")
    parameter_name = "bloqueado"

    def lookups(self, request, model_admin):
        return (("si", _("sí")), ("no", _("no")))

    def queryset(self, request, queryset):
        from axes.conf import settings as axes_settings

        limit = axes_settings.AXES_FAILURE_LIMIT
        if not isinstance(limit, int):
            return queryset
        if self.value() == "si":
            return queryset.filter(failures_since_start__gte=limit)
        if self.value() == "no":
            return queryset.filter(failures_since_start__lt=limit)
        return queryset


class _AxesWords:
    """What the three axes admins share: our labels, no date bar (its heading is English in
    Spanish), and the values of the change page labelled as in the list."""

    date_hierarchy = None

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs.setdefault("labels", dict(AXES_LABELS))
        return super().get_form(request, obj, change=change, **kwargs)


def _register_axes() -> None:
    try:
        from axes import admin as axes_admin
        from axes.models import (
            AccessAttempt,
            AccessAttemptExpiration,
            AccessFailureLog,
            AccessLog,
        )
    except ImportError:  # pragma: no cover - django-axes is in INSTALLED_APPS
        return
    config = apps.get_app_config("axes")
    config.verbose_name = _("Inicios de sesión")
    AccessAttempt._meta.verbose_name = _("intento de inicio de sesión")
    AccessAttempt._meta.verbose_name_plural = _("intentos de inicio de sesión")
    AccessLog._meta.verbose_name = _("entrada al sitio")
    AccessLog._meta.verbose_name_plural = _("entradas al sitio")
    AccessFailureLog._meta.verbose_name = _("intento fallido")
    AccessFailureLog._meta.verbose_name_plural = _("intentos fallidos")
    # not in the admin, but named in the permissions' list of users and groups
    AccessAttemptExpiration._meta.verbose_name = _("caducidad de un intento")
    AccessAttemptExpiration._meta.verbose_name_plural = _("caducidades de intentos")
    AccessAttempt.__str__ = _attempt_title
    AccessLog.__str__ = _log_title
    AccessFailureLog.__str__ = _failure_title

    attempt_time = ("attempt_time", titled(_("hora del intento"), TitledDateFilter))
    browser = (_("Navegador"), {"fields": ("user_agent", "ip_address", "http_accept")})

    class AttemptAdmin(_AxesWords, axes_admin.AccessAttemptAdmin):
        """Failed logins per user and address; deleting a row lifts its lockout."""

        list_display = (
            column("attempt_time", _("hora del intento")),
            column("username", _("usuario")),
            column("ip_address", _("dirección IP")),
            column("path_info", _("página")),
            column("failures_since_start", _("intentos fallidos")),
            "lock_state",
        )
        list_filter = (
            attempt_time,
            ("path_info", titled(_("página"), TitledValuesFilter)),
            LockedOutFilter,
        )
        fieldsets = (
            (None, {"fields": ("username", "path_info", "failures_since_start")}),
            (_("Datos enviados"), {"fields": ("get_data", "post_data")}),
            browser,
        )
        actions = ("clean_expired",)

        @admin.display(description=_("estado"))
        def lock_state(self, obj):
            from axes.conf import settings as axes_settings

            limit = axes_settings.AXES_FAILURE_LIMIT
            if not isinstance(limit, int) or obj.failures_since_start < limit:
                left = limit - obj.failures_since_start if isinstance(limit, int) else None
                if left is None:
                    return "—"
                return ngettext("queda {n} intento", "quedan {n} intentos", left).format(n=left)
            return gettext("bloqueado")

        @admin.action(description=_("Borrar los intentos ya caducados"))
        def clean_expired(self, request, queryset):
            count = self.handler.clean_expired_user_attempts(request=request)
            self.message_user(
                request,
                ngettext(
                    "Se borró {count} intento caducado.",
                    "Se borraron {count} intentos caducados.",
                    count,
                ).format(count=count),
                messages.SUCCESS,
            )

    class LogAdmin(_AxesWords, axes_admin.AccessLogAdmin):
        """Successful logins and when the user left."""

        list_display = (
            column("attempt_time", _("hora de entrada")),
            column("logout_time", _("hora de salida")),
            column("username", _("usuario")),
            column("ip_address", _("dirección IP")),
            column("path_info", _("página")),
        )
        list_filter = (
            ("attempt_time", titled(_("hora de entrada"), TitledDateFilter)),
            ("logout_time", titled(_("hora de salida"), TitledDateFilter)),
            ("path_info", titled(_("página"), TitledValuesFilter)),
        )
        fieldsets = ((None, {"fields": ("username", "path_info")}), browser)

    class FailureAdmin(_AxesWords, axes_admin.AccessFailureLogAdmin):
        """Every failed login, and whether it locked the user out."""

        list_display = (
            column("attempt_time", _("hora del intento")),
            column("username", _("usuario")),
            column("ip_address", _("dirección IP")),
            column("path_info", _("página")),
            column("locked_out", _("bloqueado"), boolean=True),
        )
        list_filter = (
            attempt_time,
            ("locked_out", titled(_("bloqueado"), TitledBooleanFilter)),
            ("path_info", titled(_("página"), TitledValuesFilter)),
        )
        fieldsets = ((None, {"fields": ("username", "path_info", "locked_out")}), browser)

    for model, model_admin in (
        (AccessAttempt, AttemptAdmin),
        (AccessLog, LogAdmin),
        (AccessFailureLog, FailureAdmin),
    ):
        if admin.site.is_registered(model):
            admin.site.unregister(model)
            admin.site.register(model, model_admin)


# --- django-tasks-db: the background tasks (ledger replays, imports) --------------------------

TASK_LABELS = {
    "id": _("Identificador"),
    "status": _("Estado"),
    "enqueued_at": _("En cola desde"),
    "started_at": _("Empezó"),
    "finished_at": _("Terminó"),
    "args_kwargs": _("Argumentos"),
    "priority": _("Prioridad"),
    "task_path": _("Tarea"),
    "worker_ids": _("Procesos"),
    "queue_name": _("Cola"),
    "backend_name": _("Motor"),
    "return_value": _("Resultado"),
    "exception_class_path": _("Error"),
}

TASK_STATES = {
    "READY": _("en cola"),
    "RUNNING": _("en marcha"),
    "SUCCESSFUL": _("terminada"),
    "FAILED": _("fallida"),
}


class TaskStateFilter(admin.SimpleListFilter):
    title = _("estado")
    parameter_name = "estado"

    def lookups(self, request, model_admin):
        return list(TASK_STATES.items())

    def queryset(self, request, queryset):
        if self.value() in TASK_STATES:
            return queryset.filter(status=self.value())
        return queryset


def _task_title(self) -> str:
    return gettext("Tarea {name} ({state})").format(
        name=self.task_path.rsplit(".", 1)[-1] if self.task_path else "—",
        state=TASK_STATES.get(self.status, self.status),
    )


def _register_tasks() -> None:
    try:
        from django_tasks_db.admin import DBTaskResultAdmin
        from django_tasks_db.models import DBTaskResult
    except ImportError:  # pragma: no cover - django-tasks-db is in INSTALLED_APPS
        return
    config = apps.get_app_config(DBTaskResult._meta.app_label)
    config.verbose_name = _("Tareas en segundo plano")
    DBTaskResult._meta.verbose_name = _("tarea")
    DBTaskResult._meta.verbose_name_plural = _("tareas")
    DBTaskResult.__str__ = _task_title

    class TaskAdmin(DBTaskResultAdmin):
        """The tasks waiting, running or done, read-only."""

        list_display = (
            column("task_path", _("tarea")),
            "state",
            column("enqueued_at", _("en cola desde")),
            column("started_at", _("empezó")),
            column("finished_at", _("terminó")),
            column("priority", _("prioridad")),
            column("queue_name", _("cola")),
        )
        list_filter = (TaskStateFilter, ("queue_name", titled(_("cola"), TitledValuesFilter)))

        @admin.display(description=_("estado"), ordering="status")
        def state(self, obj):
            return TASK_STATES.get(obj.status, obj.status)

        @admin.display(description=_("Detalle del error"))
        def formatted_traceback(self, obj):
            return super().formatted_traceback(obj)

        @admin.display(description=_("No antes de"))
        def display_run_after(self, obj):
            return super().display_run_after(obj)

        def get_form(self, request, obj=None, change=False, **kwargs):
            kwargs.setdefault("labels", dict(TASK_LABELS))
            return super().get_form(request, obj, change=change, **kwargs)

    if admin.site.is_registered(DBTaskResult):
        admin.site.unregister(DBTaskResult)
        admin.site.register(DBTaskResult, TaskAdmin)


_register_axes()
_register_tasks()
