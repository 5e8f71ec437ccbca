"""The calculator's form: two sides of one or two players and a final score."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player


def _choices():
    """The players the calculator offers: active, and visible to everyone (not only in a
    draft tournament: ``Player.objects.public``)."""
    return Player.objects.public().filter(active=True)


class CalculatorForm(forms.Form):
    a1 = forms.ModelChoiceField(label=_("Lado A, jugador 1"), queryset=_choices(), empty_label="—")
    a2 = forms.ModelChoiceField(
        label=_("Lado A, jugador 2"),
        queryset=_choices(),
        empty_label="—",
        required=False,
    )
    b1 = forms.ModelChoiceField(label=_("Lado B, jugador 1"), queryset=_choices(), empty_label="—")
    b2 = forms.ModelChoiceField(
        label=_("Lado B, jugador 2"),
        queryset=_choices(),
        empty_label="—",
        required=False,
    )
    tantos_a = forms.IntegerField(label=_("Tantos A"), min_value=0, max_value=1000)
    tantos_b = forms.IntegerField(label=_("Tantos B"), min_value=0, max_value=1000)

    def clean(self):
        data = super().clean()
        a = [p for p in (data.get("a1"), data.get("a2")) if p]
        b = [p for p in (data.get("b1"), data.get("b2")) if p]
        if self.errors:
            return data
        if len(a) != len(b):
            raise forms.ValidationError(
                _("Los dos lados deben tener el mismo número de jugadores (1 o 2).")
            )
        if len({p.pk for p in a + b}) != len(a + b):
            raise forms.ValidationError(_("Un jugador no puede estar dos veces en la partida."))
        if data["tantos_a"] == data["tantos_b"]:
            raise forms.ValidationError(_("Un empate no es un resultado: alguien tiene que ganar."))
        return data
