"""User accounts and groups in the admin: Django's own admins, with the one-time form token of
every admin form (``base.SubmittedOnceAdmin``), so a double click on "Guardar" never makes two
accounts or groups; permissions named in the reader's language."""

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, Permission, User
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.admin.base import SubmittedOnceAdmin

admin.site.unregister(User)
admin.site.unregister(Group)

#: The four permissions Django makes for every model, by the first word of their codename.
ACTIONS = {
    "add": _("puede añadir"),
    "change": _("puede cambiar"),
    "delete": _("puede borrar"),
    "view": _("puede ver"),
}


def permission_label(permission: Permission) -> str:
    """A permission as the admin lists it, in the active language: "Torneos | torneo | puede
    ver". Django stores the name in English at migration time ("Can view tournament"); the
    label is made from the model's verbose names instead (a history model reads "historial:
    torneo"), and a permission of another kind keeps its stored name."""
    model = permission.content_type.model_class()
    if model is None:
        return str(permission)
    action, _sep, _rest = permission.codename.partition("_")
    if action not in ACTIONS or permission.codename != f"{action}_{model._meta.model_name}":
        what = permission.name
    else:
        what = str(ACTIONS[action])
    original = getattr(model, "instance_type", None)  # simple_history's historical model
    if original is not None:
        noun = gettext("historial: {model}").format(model=original._meta.verbose_name)
    else:
        noun = str(model._meta.verbose_name)
    app = model._meta.app_config.verbose_name
    return f"{app} | {noun} | {what}"


class PermissionNamesAdmin:
    """The permissions' selector (``permissions``, ``user_permissions``) labelled by
    ``permission_label``, content types fetched in the same query."""

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        if db_field.name in ("permissions", "user_permissions") and field is not None:
            field.queryset = field.queryset.select_related("content_type")
            field.label_from_instance = permission_label
        return field


@admin.register(User)
class AccountAdmin(PermissionNamesAdmin, SubmittedOnceAdmin, UserAdmin):
    pass


@admin.register(Group)
class AccountGroupAdmin(PermissionNamesAdmin, SubmittedOnceAdmin, GroupAdmin):
    pass
