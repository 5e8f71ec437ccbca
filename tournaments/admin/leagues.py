"""Leagues in the admin: created and changed, with their tournaments, through
``services.create_league`` / ``update_league`` (docs/SCORING.md, "Leagues"); each refusal
beside its field (``services.LEAGUE_ERROR_FIELDS``). The slug (no service changes it) is kept
as typed, as a tournament's is."""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from tournaments import services
from tournaments.admin.base import HistoryAdmin, SavedThroughServicesAdmin, ServiceForm
from tournaments.models import League


class LeagueAdminForm(ServiceForm, forms.ModelForm):
    error_fields: ClassVar[dict[str, str]] = services.LEAGUE_ERROR_FIELDS

    class Meta:
        model = League
        fields = (
            "name",
            "slug",
            "season",
            "description",
            "points_scale",
            "participation_points",
            "best_results",
            "planned_tournaments",
            "tournaments",
        )
        labels: ClassVar[dict[str, str]] = {
            "slug": _("Dirección (slug)"),
            "tournaments": _("Torneos"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "slug" in self.fields:
            self.fields["slug"].required = False
            self.fields["slug"].help_text = _("Vacío en una liga nueva: se forma con el nombre.")

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.check_with(lambda: self.save_through_services(self.acting_user))
        return cleaned

    def save_through_services(self, acting_user) -> League:
        """Create or change the league with its tournaments through the services, then the
        slug as typed. Raises DomainError."""
        values = {k: self.cleaned_data.get(k) for k in services.LEAGUE_FIELDS}
        tournaments = self.cleaned_data.get("tournaments") or []
        if self.instance.pk:
            league = services.update_league(
                acting_user=acting_user, league=self.instance, tournaments=tournaments, **values
            )
        else:
            league = services.create_league(
                acting_user=acting_user, tournaments=tournaments, **values
            )
        slug = self.cleaned_data.get("slug")
        if slug and slug != league.slug:
            league.slug = slug
            services.audit(league, acting_user).save(update_fields=["slug"])
        return league


@admin.register(League)
class LeagueAdmin(SavedThroughServicesAdmin, HistoryAdmin):
    form = LeagueAdminForm
    list_display = ("name", "season", "points_scale", "best_results", "tournaments_count")
    list_filter = ("season",)
    search_fields = ("name", "slug")
    prepopulated_fields: ClassVar[dict] = {"slug": ("name",)}
    filter_horizontal = ("tournaments",)
    ordering = ("-season", "name")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_tournaments=Count("tournaments"))

    @admin.display(description=_("torneos"), ordering="_tournaments")
    def tournaments_count(self, obj):
        return obj._tournaments
