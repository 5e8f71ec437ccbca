from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = _("Ranking")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here, not at the top: Django imports this module before the models exist.
        from clubsite import pagecache
        from rankings import context_processors, health, signals  # noqa: F401  (signals: the replay)

        # The ranking pages say "updating since …" while a replay waits: decided when a page
        # is served, so a save that queues a replay leaves the stored pages as they are.
        pagecache.register_notice(
            pagecache.RANKING, state=health.notice_state, render=context_processors.pending_notice
        )
