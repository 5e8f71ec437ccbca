"""Forms of the directors' pages: field-level validation only; the rules are checked by the services."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.errors import MESSAGES
from tournaments.models import MAX_SCORE, Player, Tournament


class PlayerForm(forms.Form):
    full_name = forms.CharField(label=_("Nombre completo"), max_length=120, strip=True)
    nickname = forms.CharField(label=_("Apodo"), max_length=60, required=False)
    member_number = forms.CharField(label=_("Número de socio"), max_length=20, required=False)
    email = forms.EmailField(label=_("Correo (privado)"), required=False)
    phone = forms.CharField(label=_("Teléfono (privado)"), max_length=40, required=False)
    active = forms.BooleanField(label=_("Activo"), required=False, initial=True)
    confirm_duplicate = forms.BooleanField(
        label=_("Sí, es otra persona con el mismo nombre"), required=False,
        widget=forms.HiddenInput,
    )


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = [
            "name", "date", "venue", "system", "mode", "target", "time_limit", "bye_rule",
            "forfeit_winner_tantos", "forfeit_loser_tantos", "rounds_planned", "rated",
            "forfeits_rated", "status", "best_of",
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["best_of"].required = False
        if self.instance.pk:
            # Settings page of an existing tournament: who directs it (services.set_tournament_directors).
            # Staff users may be chosen; anyone already listed stays selectable.
            current = self.instance.directors.values_list("pk", flat=True)
            users = get_user_model().objects.filter(
                Q(is_staff=True, is_active=True) | Q(pk__in=list(current))
            ).order_by("username")
            self.fields["directors"] = forms.ModelMultipleChoiceField(
                label=_("Directores del torneo"), queryset=users, required=False,
                initial=list(current),
                help_text=_("Personal que gestiona este torneo (y solo este)."),
            )

    def clean_best_of(self):
        return self.cleaned_data.get("best_of") or 3

    def clean_system(self):
        system = self.cleaned_data["system"]
        return system


class EntryForm(forms.Form):
    player1 = forms.ModelChoiceField(label=_("Jugador"), queryset=Player.objects.none(), empty_label="—")
    player2 = forms.ModelChoiceField(label=_("Compañero"), queryset=Player.objects.none(), empty_label="—", required=False)

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        entered = set()
        for p1, p2 in tournament.entries.values_list("player1_id", "player2_id"):
            entered.update(x for x in (p1, p2) if x)
        qs = Player.objects.filter(active=True).exclude(pk__in=entered).order_by("full_name")
        self.fields["player1"].queryset = qs
        self.fields["player2"].queryset = qs
        if tournament.mode != Tournament.Mode.PAIRS:
            del self.fields["player2"]
        else:
            self.fields["player2"].required = True


class ResultForm(forms.Form):
    """One table's row on the round page. Values are checked again by services.record_result."""

    tantos_a = forms.CharField(label=_("Tantos A"), required=False, max_length=40)
    tantos_b = forms.CharField(label=_("Tantos B"), required=False, max_length=40)
    ended_by_time = forms.BooleanField(label=_("Por tiempo"), required=False)
    forfeit = forms.ChoiceField(
        label=_("No presentación"), required=False,
        choices=[("", "—"), ("A", _("No se presentó A")), ("B", _("No se presentó B"))],
    )
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=2**31 - 1)


class MatchResultForm(forms.Form):
    """One match-play table's row: games won by A, by B, drawn (checked by services.record_match_result)."""

    games_a = forms.CharField(label=_("Partidas ganadas por A"), required=False, max_length=40)
    games_b = forms.CharField(label=_("Partidas ganadas por B"), required=False, max_length=40)
    games_drawn = forms.CharField(label=_("Partidas empatadas"), required=False, max_length=40)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=2**31 - 1)


class CastigoForm(forms.Form):
    player = forms.ModelChoiceField(label=_("Jugador"), queryset=Player.objects.none(), empty_label="—")
    tantos = forms.IntegerField(
        label=_("Tantos"), min_value=1, max_value=MAX_SCORE,
        error_messages=dict.fromkeys(("invalid", "min_value", "max_value"), _(MESSAGES["castigo_tantos"])),
    )
    reason = forms.CharField(label=_("Motivo"), max_length=200)

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        ids = set()
        for p1, p2 in tournament.entries.values_list("player1_id", "player2_id"):
            ids.update(x for x in (p1, p2) if x)
        self.fields["player"].queryset = Player.objects.filter(pk__in=ids).order_by("full_name")


class ImportForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("Contenido"), choices=[("results", _("Resultados")), ("castigos", _("Castigos"))]
    )
    file = forms.FileField(label=_("Archivo CSV (UTF-8)"))
