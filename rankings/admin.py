"""The ledger in the Django admin: read-only (it is derived), with a rebuild action for superusers."""

from django.contrib import admin, messages
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rankings import ledger
from rankings.models import LedgerRow, LedgerStatus
from tournaments.admin.base import TitledValuesFilter, column, moment_text, titled

#: The ranking row's fields in words (the model's fields have no labels of their own).
LEDGER_LABELS = {
    "table": _("mesa"),
    "player": _("jugador"),
    "tournament": _("torneo"),
    "order_key": _("clave de orden"),
    "played_at": _("jugada el"),
    "year": _("año"),
    "side": _("lado"),
    "ng_before": _("partidas antes (NG)"),
    "rating_before": _("rating antes"),
    "team_rating": _("rating del lado"),
    "opponent_rating": _("rating del rival"),
    "expected_score": _("resultado esperado"),
    "score": _("resultado obtenido"),
    "k_factor": _("factor K"),
    "rating_after": _("rating después"),
    "tantos_own": _("tantos propios"),
    "tantos_other": _("tantos del rival"),
}


@admin.register(LedgerRow)
class LedgerRowAdmin(admin.ModelAdmin):
    list_display = tuple(
        column(name, LEDGER_LABELS[name])
        for name in (
            "played_at",
            "player",
            "tournament",
            "year",
            "ng_before",
            "rating_before",
            "expected_score",
            "score",
            "k_factor",
            "rating_after",
        )
    )
    list_filter = (("year", titled(_("año"), TitledValuesFilter)),)
    search_fields = ("player__full_name", "tournament__name")
    list_select_related = ("player", "tournament")
    ordering = ("-order_key",)
    actions = ["rebuild_ledger"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs.setdefault("labels", dict(LEDGER_LABELS))
        return super().get_form(request, obj, change=change, **kwargs)

    def get_actions(self, request, action_location=admin.options.ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        if not request.user.is_superuser:
            actions.pop("rebuild_ledger", None)
        return actions

    @admin.action(description=_("Reconstruir todo el ranking desde las partidas"))
    def rebuild_ledger(self, request, queryset):
        if not request.user.is_superuser:
            self.message_user(
                request,
                gettext("Solo un superusuario puede reconstruir el ranking."),
                messages.ERROR,
            )
            return
        try:
            report = ledger.rebuild()
        except ledger.ReplayFailed as exc:
            self.message_user(
                request,
                gettext("No se pudo reconstruir el ranking: {error}").format(error=exc),
                messages.ERROR,
            )
            return
        if report.skipped:
            self.message_user(
                request,
                gettext(
                    "Ranking reconstruido: {count} filas; {skipped} partida(s) quedaron fuera "
                    "(mira el aviso del ranking)."
                ).format(count=report.written, skipped=len(report.skipped)),
                messages.WARNING,
            )
            return
        self.message_user(
            request,
            gettext("Ranking reconstruido: {count} filas.").format(count=report.written),
            messages.SUCCESS,
        )


@admin.register(LedgerStatus)
class LedgerStatusAdmin(admin.ModelAdmin):
    """The ranking's health (``rankings.health``), read-only: a replay writes it."""

    list_display = ("state", "since", "causes_text")
    readonly_fields = ("state", "since", "from_key", "causes_text", "updated_display")
    fields = readonly_fields

    @admin.display(description=_("causas"))
    def causes_text(self, obj):
        return " ".join(obj.causes()) or "—"

    @admin.display(description=_("modificado"))
    def updated_display(self, obj):
        return moment_text(obj.updated_at)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
