from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Torneos")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # tournaments.errors is pure (no Django): its messages are Spanish msgids, translated
        # when shown through this hook, in the language active at that moment.
        from django.utils.translation import gettext

        from tournaments import errors

        errors.translate = gettext

        # The public pages' cache (clubsite.pagecache): a new data generation whenever a row
        # of anything those pages show is saved or deleted, whatever the path of the change.
        from clubsite import pagecache
        from tournaments import models as m

        pagecache.connect_signals(
            [
                m.Player,
                m.Tournament,
                m.Entry,
                m.Round,
                m.Table,
                m.Seat,
                m.Bye,
                m.Result,
                m.MatchResult,
                m.TableResult,
                m.Castigo,
                m.Sorteo,
            ]
        )
