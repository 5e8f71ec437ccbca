from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = _("Ranking")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here, not at the top: Django imports this module before the models exist.
        from rankings import signals  # noqa: F401  (connects the ledger replay)
