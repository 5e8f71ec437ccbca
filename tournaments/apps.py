"""The tournaments app's configuration: the composition root, where the layers are wired
together once the models are loaded (docs/ARCHITECTURE.md, "Layers")."""

from django.apps import AppConfig
from django.db.models import fields as model_fields
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Torneos")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here, not at the top: Django imports this module before the models exist
        # (the documented start-up order), and every module below reads the models.
        from clubsite import pagecache
        from clubsite.pagecache import ADDED_OR_REMOVED, SELF, Rule
        from tournaments import errors, events, imports, leagues
        from tournaments import models as m
        from tournaments.notices import tasks as notice_tasks
        from tournaments.services import places, signups
        from tournaments.systems.builtin import register_builtin

        # The scoring systems and their results files, registered after the models, so that
        # the registry stays a leaf that the models may import.
        register_builtin()
        imports.register_builtin_formats()

        # Listeners of the app's own events (tournaments.events): a paired round is mailed.
        events.round_paired.connect(notice_tasks.round_paired, dispatch_uid="notices")
        # ... and an account's old email is told it changed.
        events.email_changed.connect(notice_tasks.email_changed, dispatch_uid="notices")
        # ... and a sign-up naming a club player as partner asks that player for their word.
        events.partner_named.connect(notice_tasks.partner_named, dispatch_uid="notices-partner")
        # ... and an entry withdrawn gives its place to the first waiting request, in the
        # withdrawal's transaction (services.tournaments cannot import the sign-ups, which
        # import it).
        events.place_freed.connect(signups.place_freed, dispatch_uid="signups-waiting")

        # tournaments.errors is pure (no Django): its messages are Spanish msgids, translated
        # when shown through this hook, in the language active at that moment.
        errors.translate = gettext

        # The empty option of every select built from a model field's choices (the admin's
        # action list, its choice fields): Django's own "- Select an option -" has no Spanish.
        model_fields.BLANK_CHOICE_LABEL = _("— Elige una opción —")

        # The public pages' cache (clubsite.pagecache): new generations of the scopes whose
        # pages show a row whenever it is saved or deleted, whatever the path of the change.
        # The lists (CLUB) show each tournament's name, dates, venue, system, status, number of
        # entries and, while it runs, its current round (which rounds are closed, which have
        # every table's result); the ranking pages (RANKING) show the ledger (its replays
        # draw RANKING), which players are public (their entries, drafts) and each game's
        # tournament name and address, round and table numbers.
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
        leagues.connect_signals()
        # The stored final places (FinalPlace): kept equal to the computed ones whatever
        # writes a finished tournament's data (tournaments.services.places).
        places.connect_signals()
