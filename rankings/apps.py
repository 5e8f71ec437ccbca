from django.apps import AppConfig


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = "Ranking"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from rankings import signals  # noqa: F401  (connects the ledger replay)
