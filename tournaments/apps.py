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

        # The empty option of every select built from a model field's choices (the admin's
        # action list, its choice fields): Django's own "- Select an option -" has no Spanish.
        from django.db.models import fields as model_fields

        model_fields.BLANK_CHOICE_LABEL = _("— Elige una opción —")

        # The public pages' cache (clubsite.pagecache): new generations of the scopes whose
        # pages show a row whenever it is saved or deleted, whatever the path of the change.
        # The lists (CLUB) show each tournament's name, dates, venue, system, status, number of
        # entries and, while it runs, its current round (which rounds are closed, which have
        # every table's result); the ranking pages (RANKING) show the ledger (its replays
        # draw RANKING), which players are public (their entries, drafts) and each game's
        # tournament name and address, round and table numbers.
        from clubsite import pagecache
        from clubsite.pagecache import ADDED_OR_REMOVED, SELF, Rule
        from tournaments import models as m

        result = Rule("table", club=ADDED_OR_REMOVED)
        pagecache.connect_signals(
            {
                m.Player: Rule(),  # names on every page: ALL
                m.Tournament: Rule(SELF, club=True, ranking=("name", "slug", "status")),
                m.Entry: Rule("tournament", club=True, ranking=True),
                m.Round: Rule("tournament", club=True, ranking=("number",)),
                m.Table: Rule("round", club=ADDED_OR_REMOVED, ranking=("number",)),
                m.Seat: Rule("round"),
                m.Bye: Rule("round"),
                m.Result: result,
                m.MatchResult: result,
                m.TableResult: result,
                m.Castigo: Rule("tournament"),
                m.Sorteo: Rule("tournament"),
            }
        )
        # Leagues (tournaments/leagues.py): a league's own row and its tournaments draw the
        # LEAGUES scope; its pages also name the scopes of its tournaments.
        from tournaments import leagues

        leagues.connect_signals()
