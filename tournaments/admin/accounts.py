"""User accounts and groups in the admin: Django's own admins, with the one-time form token of
every admin form (``base.SubmittedOnceAdmin``), so a double click on "Guardar" never makes two
accounts or groups."""

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User

from tournaments.admin.base import SubmittedOnceAdmin

admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class AccountAdmin(SubmittedOnceAdmin, UserAdmin):
    pass


@admin.register(Group)
class AccountGroupAdmin(SubmittedOnceAdmin, GroupAdmin):
    pass
