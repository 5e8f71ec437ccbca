"""The calculator's form: two sides of one or two players and a final score.

Each player is a text box: the name as typed, matched the way the site matches names
(``tournaments.names.key``, through ``queries.players_named``). With JavaScript the box asks
``rankings:player_search`` as one types and the browser offers the matches (a ``<datalist>``);
without it the typed name is looked up when the form is sent: the one player whose whole name
it is, else the one whose name contains it; several or none are refused with the candidates
in words. Two players of the same name are told apart by their number (``"Ana Alba #12"``:
``player_label``), which the box also takes, as it takes a bare number (a player's id: the
addresses of earlier versions of the calculator)."""

import re

from django import forms
from django.urls import reverse_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rankings import queries
from tournaments import names
from tournaments.models import Player

#: The id a box may name: "12", "#12", "Ana Alba #12".
_BY_ID = re.compile(r"^(?:\d+|(?:.*\s)?#(\d+))$")
#: The ``id`` of the one ``<datalist>`` the four boxes share.
OPTIONS_ID = "calculator-players"
#: The most characters a box takes.
NAME_MAX = 100


def player_labels(players: list[Player]) -> list[str]:
    """What a box shows for each of ``players`` (in order): the full name, or "name #id" when
    another of them has the same name key (homonyms told apart, and taken back by the box)."""
    keys = [p.name_key for p in players]
    return [
        f"{p.full_name} #{p.pk}" if keys.count(p.name_key) > 1 else p.full_name for p in players
    ]


class PlayerNameField(forms.CharField):
    """A player typed by name (see the module's docstring): cleaned to the ``Player``, or
    None when empty and not required. ``ValidationError`` with the candidates when the text
    names several players, or none."""

    def __init__(self, **kwargs):
        attrs = {
            "list": OPTIONS_ID,
            "autocomplete": "off",
            "hx-get": reverse_lazy("rankings:player_search"),
            "hx-trigger": "input changed delay:250ms",
            "hx-target": f"#{OPTIONS_ID}",
            "hx-swap": "outerHTML",
            "hx-sync": "this:replace",
        }
        super().__init__(max_length=NAME_MAX, widget=forms.TextInput(attrs=attrs), **kwargs)

    def clean(self, value):
        text = names.clean(super().clean(value))
        if not text:
            return None
        by_id = _BY_ID.match(text)
        if by_id:
            found = queries.calculator_players().filter(pk=int(by_id.group(1) or text)).first()
            if found is not None:
                return found
        found = queries.players_named(text, queries.PLAYERS_FOUND + 1)
        whole = [p for p in found if p.name_key == names.key(text)]
        if len(whole) == 1:
            return whole[0]
        if len(found) == 1:
            return found[0]
        if not found:
            raise forms.ValidationError(
                gettext("Ningún jugador se llama «%(name)s».") % {"name": text}
            )
        shown = player_labels(found[: queries.PLAYERS_FOUND])
        if len(found) > queries.PLAYERS_FOUND:
            message = gettext(
                "«%(name)s» es el nombre de más de %(count)s jugadores; escribe más letras. "
                "Algunos: %(candidates)s."
            )
        else:
            message = gettext(
                "«%(name)s» es el nombre de varios jugadores; elige uno: %(candidates)s."
            )
        raise forms.ValidationError(
            message % {"name": text, "count": len(shown), "candidates": "; ".join(shown)}
        )


class CalculatorForm(forms.Form):
    a1 = PlayerNameField(label=_("Lado A, jugador 1"))
    a2 = PlayerNameField(label=_("Lado A, jugador 2"), required=False)
    b1 = PlayerNameField(label=_("Lado B, jugador 1"))
    b2 = PlayerNameField(label=_("Lado B, jugador 2"), required=False)
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
