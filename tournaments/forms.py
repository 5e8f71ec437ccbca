"""Forms of the directors' pages: field-level validation only; the rules are checked by the
services (the tournament form asks them in ``clean``, so that one submit shows every problem)."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from tournaments import names, services, systems
from tournaments.errors import MESSAGES
from tournaments.models import MAX_SCORE, Player, Tournament
from tournaments.services import lifecycle


class NameField(forms.CharField):
    """A name or short text typed by a person (player, nickname, tournament, castigo reason):
    cleaned as every stored name is (``tournaments.names.clean``: invisible and control
    characters dropped, whitespace runs one space, NFC, trimmed) before the required and
    length checks, so that a name of only invisible characters is "required" and the length
    counts what will be stored."""

    def to_python(self, value):
        value = super().to_python(value)
        return names.clean(value) if value else value


class PlayerForm(forms.Form):
    full_name = NameField(label=_("Nombre completo"), max_length=120)
    nickname = NameField(label=_("Apodo"), max_length=60, required=False)
    member_number = forms.CharField(label=_("Número de socio"), max_length=20, required=False)
    email = forms.EmailField(label=_("Correo (privado)"), required=False)
    phone = forms.CharField(label=_("Teléfono (privado)"), max_length=40, required=False)
    notices_consent = forms.BooleanField(
        label=_("Acepta avisos por correo"),
        required=False,
        help_text=_(
            "Solo si el jugador lo pidió (en persona o por escrito): su mesa en cada ronda y "
            "un recordatorio el día antes. Cada aviso trae un enlace para darse de baja."
        ),
    )
    active = forms.BooleanField(label=_("Activo"), required=False, initial=True)
    confirm_duplicate = forms.BooleanField(
        label=_("Sí, es otra persona con el mismo nombre"),
        required=False,
        widget=forms.HiddenInput,
    )


class TournamentForm(forms.ModelForm):
    """A tournament's settings: only those of its scoring system (``ScoringSystem.fields``),
    with the modes that system accepts (none to choose when it has one). The system comes
    from the posted or ``initial`` data, else the tournament, else the first registered
    one; changing it on the page swaps the fields (HTMX ``hx-get``; without JavaScript, the
    "show the fields" button posts ``refresh_system``)."""

    class Meta:
        model = Tournament
        fields = list(services.TOURNAMENT_FIELDS)  # the model's settings and the start time
        field_classes = {"name": NameField}
        widgets = {
            "date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "end_date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "start_time": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.system = self._chosen_system()
        for name in list(self.fields):
            if name not in self.system.fields():
                del self.fields[name]
        mode = self.fields["mode"]
        mode.choices = [(k, v) for k, v in Tournament.Mode.choices if k in self.system.modes]
        mode.error_messages["invalid_choice"] = _(
            "Esa modalidad no es del sistema elegido: elige una de la lista."
        )
        if len(self.system.modes) == 1:
            mode.widget = forms.HiddenInput()
            mode.initial = self.system.modes[0]
            if self.is_bound:
                self.data = self.data.copy()
                self.data[self.add_prefix("mode")] = self.system.modes[0]
        elif not self.instance.pk and self.initial.get("mode") not in self.system.modes:
            mode.initial = self.initial["mode"] = self.system.modes[0]
        if "best_of" in self.fields:
            self.fields["best_of"].required = False
        self.fields["system"].widget.attrs.update(
            {
                "hx-get": ".",
                "hx-trigger": "change",
                "hx-target": "#tournament-fields",
                "hx-select": "#tournament-fields",
                "hx-swap": "outerHTML",
                "hx-include": "closest form",
                "hx-sync": "this:replace",  # the last system chosen wins
                "hx-params": "not csrfmiddlewaretoken,form_token",
            }
        )
        if "status" in self.fields:  # the statuses its steps reach from here (lifecycle)
            allowed = lifecycle.status_choices(self.instance if self.instance.pk else None)
            self.fields["status"].choices = [
                (k, v) for k, v in Tournament.Status.choices if k in allowed
            ]
            if self.instance.pk:
                self.fields["reason"] = forms.CharField(
                    label=_("Motivo del cambio de estado"),
                    required=False,
                    max_length=100,
                    help_text=_(
                        "Para reabrir un torneo terminado o volverlo a borrador: queda en su "
                        "historial."
                    ),
                )
        if self.instance.pk:
            # Settings page of an existing tournament: who directs it (services.set_tournament_directors).
            # Staff users may be chosen; anyone already listed stays selectable.
            current = self.instance.directors.values_list("pk", flat=True)
            users = (
                get_user_model()
                .objects.filter(Q(is_staff=True, is_active=True) | Q(pk__in=list(current)))
                .order_by("username")
            )
            self.fields["directors"] = forms.ModelMultipleChoiceField(
                label=_("Directores del torneo"),
                queryset=users,
                required=False,
                initial=list(current),
                help_text=_("Personal que gestiona este torneo (y solo este)."),
            )

    def _chosen_system(self):
        key = None
        if self.is_bound:
            key = self.data.get(self.add_prefix("system"))
        key = (
            key
            or self.initial.get("system")
            or (self.instance.system if self.instance.pk else None)
        )
        try:
            return systems.get(key)
        except systems.UnknownSystem:
            return systems.all_systems()[0]

    def clean_best_of(self):
        return self.cleaned_data.get("best_of") or 3

    def clean(self):
        """Every rule of the services over the settings typed, besides the fields' own checks,
        so that one submit shows every problem, each beside its field
        (``services.settings_problems``; the settings a field check refused are left out). The
        save may still refuse what needs the write itself (the games leaving the new dates,
        the directors, finishing with open rounds)."""
        cleaned = super().clean()
        fields = {k: v for k, v in cleaned.items() if k in self.system.fields()}
        for exc in services.settings_problems(
            tournament=self.instance if self.instance.pk else None,
            skip=set(self.errors),
            **fields,
        ):
            self.add_domain_error(exc)
        return cleaned

    def add_domain_error(self, exc) -> None:
        """Show a refusal of the tournament services beside the field it is about
        (``services.ERROR_FIELDS``), or at the top of the form."""
        field = services.ERROR_FIELDS.get(exc.code)
        if field == "mode" and "mode" in self.fields and self.fields["mode"].widget.is_hidden:
            field = "system"  # one mode only: the choice the director made was the system
        self.add_error(field if field in self.fields else None, exc.message)

    def settings(self) -> dict:
        """The cleaned settings that apply to the chosen system (for the services)."""
        return {k: v for k, v in self.cleaned_data.items() if k in self.system.fields()}


class EntryForm(forms.Form):
    player1 = forms.ModelChoiceField(
        label=_("Jugador"), queryset=Player.objects.none(), empty_label="—"
    )
    player2 = forms.ModelChoiceField(
        label=_("Compañero"), queryset=Player.objects.none(), empty_label="—", required=False
    )

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        entered = set()
        for p1, p2 in tournament.entries.values_list("player1_id", "player2_id"):
            entered.update(x for x in (p1, p2) if x)
        qs = Player.objects.filter(active=True).exclude(pk__in=entered).order_by("full_name")
        self.fields["player1"].queryset = qs
        self.fields["player2"].queryset = qs
        if tournament.players_per_entry == 1:
            del self.fields["player2"]
        else:
            self.fields["player2"].required = True


def result_row_form(system, table, tournament, data=None) -> forms.Form:
    """The form of one table's result row, built from the system's boxes
    (``Presentation.row_fields``): a text box of at most 40 characters per number (the
    service parses it and says what is wrong in words), a checkbox, a choice among the
    select's options, and the hidden ``version`` the director saw (0 … 2³¹ − 1). Field
    checks only; the rules are the service's."""
    fields: dict[str, forms.Field] = {
        "version": forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=2**31 - 1)
    }
    for box in system.presentation.row_fields(table, tournament, None):
        if box.kind == "checkbox":
            fields[box.name] = forms.BooleanField(label=box.label, required=False)
        elif box.kind == "select":
            fields[box.name] = forms.ChoiceField(
                label=box.label, required=False, choices=list(box.options)
            )
        else:
            fields[box.name] = forms.CharField(label=box.label, required=False, max_length=40)
    form_class = type("ResultRowForm", (forms.Form,), fields)
    return form_class(data)


class CastigoForm(forms.Form):
    player = forms.ModelChoiceField(
        label=_("Jugador"), queryset=Player.objects.none(), empty_label="—"
    )
    tantos = forms.IntegerField(
        label=_("Tantos"),
        min_value=1,
        max_value=MAX_SCORE,
        error_messages=dict.fromkeys(
            ("invalid", "min_value", "max_value"), _(MESSAGES["castigo_tantos"])
        ),
    )
    reason = NameField(label=_("Motivo"), max_length=200)

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
    #: What the import reads (``imports.reading.open_file``): CSV or text files and .xlsx.
    ACCEPT = (
        ".csv,.txt,.tsv,.xlsx,text/csv,text/plain,text/tab-separated-values,"
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    file = forms.FileField(
        label=_("Archivo (CSV o .xlsx)"), widget=forms.ClearableFileInput(attrs={"accept": ACCEPT})
    )

    def __init__(self, *args, castigos: bool = True, **kwargs):
        """``castigos``: whether the tournament's system has castigos (else results only)."""
        super().__init__(*args, **kwargs)
        if not castigos:
            self.fields["kind"].choices = [("results", _("Resultados"))]


class SignUpForm(forms.Form):
    """The public sign-up (``services.sign_up`` decides; this form only bounds the input).
    ``website`` is a trap for robots: hidden from people (CSS, ``aria-hidden``, out of the tab
    order), a request that fills it is answered as received and stores nothing."""

    name = NameField(label=_("Tu nombre y apellidos"), max_length=120)
    member_number = forms.CharField(
        label=_("Número de socio"),
        max_length=20,
        required=False,
        help_text=_("Si eres socio: así te reconoce el club."),
    )
    email = forms.EmailField(label=_("Correo"), required=False, max_length=254)
    phone = forms.CharField(label=_("Teléfono"), max_length=40, required=False)
    partner_name = NameField(label=_("Nombre de tu compañero"), max_length=120, required=False)
    website = forms.CharField(required=False, label=_("No rellenes este campo"))

    def __init__(self, *args, pairs: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not pairs:
            del self.fields["partner_name"]
        else:
            self.fields["partner_name"].required = True
        self.fields["email"].help_text = _(
            "Correo o teléfono: el club los guarda para avisarte y nunca se publican."
        )
        self.fields["website"].widget.attrs.update(
            {"tabindex": "-1", "autocomplete": "off", "class": "trap-input"}
        )


class ClubDateTimeField(forms.DateTimeField):
    """A date and time typed in the club's time zone, between the years 2000 and 2999: a year
    the calendar cannot hold once turned into UTC (9999-12-31 23:59) is refused in words, not
    an overflow."""

    def to_python(self, value):
        try:
            result = super().to_python(value)
        except (OverflowError, ValueError) as exc:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from exc
        if result is not None and not 2000 <= result.year <= 2999:
            raise forms.ValidationError(
                _("Escribe una fecha entre los años 2000 y 2999."), code="out_of_range"
            )
        return result


class SignUpSettingsForm(forms.ModelForm):
    """A tournament's sign-up settings (``services.update_signup_settings``)."""

    signup_closes_at = ClubDateTimeField(
        label=Tournament._meta.get_field("signup_closes_at").verbose_name.capitalize(),
        required=False,
        help_text=Tournament._meta.get_field("signup_closes_at").help_text,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    class Meta:
        model = Tournament
        fields = ["signup_open", "max_entries", "signup_closes_at", "signup_needs_approval"]
        widgets = {
            "signup_closes_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
        }


def _optional_number(label, help_text) -> forms.CharField:
    """A whole number that may be left empty, typed as text (the service checks it and says
    what is wrong in words), with the phone's number keyboard."""
    return forms.CharField(
        label=label,
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"inputmode": "numeric"}),
        help_text=help_text,
    )


class LeagueForm(forms.Form):
    """A league (``services.create_league`` / ``update_league``): its settings as typed (the
    service checks them and says what is wrong in words, beside each field:
    ``services.LEAGUE_ERROR_FIELDS``) and its tournaments, chosen among those of the last two
    years and later (and those it already has)."""

    name = NameField(label=_("Nombre"), max_length=120)
    season = forms.CharField(
        label=_("Temporada"),
        max_length=10,
        widget=forms.TextInput(attrs={"inputmode": "numeric"}),
        help_text=_("El año de la liga, por ejemplo 2026."),
    )
    description = forms.CharField(
        label=_("Descripción"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    points_scale = forms.CharField(
        label=_("Puntos por puesto"),
        max_length=400,
        help_text=_("Los del 1.º, 2.º, 3.º…, separados por comas; los puestos después, 0."),
    )
    participation_points = _optional_number(
        _("Puntos por participar"), _("Se suman a cada resultado. Vacío: 0.")
    )
    best_results = _optional_number(
        _("Resultados que cuentan"),
        _("Los N mejores de cada jugador; los demás se descartan. Vacío: todos."),
    )
    planned_tournaments = _optional_number(
        _("Torneos previstos"),
        _("Cuántos torneos tendrá la temporada, para decir cuántos quedan."),
    )
    tournaments = forms.ModelMultipleChoiceField(
        label=_("Torneos de la liga"),
        queryset=Tournament.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, league=None, **kwargs):

        super().__init__(*args, **kwargs)
        self.league = league
        since = timezone.localdate().year - 2
        recent = Q(date__year__gte=since)
        if league is not None:
            recent |= Q(pk__in=league.tournaments.values("pk"))
        field = self.fields["tournaments"]
        field.queryset = Tournament.objects.filter(recent).order_by("-date", "name", "pk")
        field.label_from_instance = lambda t: "{} · {}".format(
            t.name, formats.date_format(t.date, "SHORT_DATE_FORMAT")
        )

    def clean(self):
        """Every refusal of the league services at once, each beside its field
        (``services.league_problems``)."""
        cleaned = super().clean()
        fields = {k: cleaned[k] for k in services.LEAGUE_FIELDS if k in cleaned}
        tournaments = cleaned.get("tournaments")
        for exc in services.league_problems(
            league=self.league, tournaments=tournaments, skip=set(self.errors), **fields
        ):
            field = services.LEAGUE_ERROR_FIELDS.get(exc.code)
            self.add_error(field if field in self.fields else None, exc.message)
        return cleaned

    def values(self) -> dict:
        """The cleaned settings for the league services (``services.LEAGUE_FIELDS``)."""
        return {k: self.cleaned_data[k] for k in services.LEAGUE_FIELDS if k in self.cleaned_data}


# --- a round's pairings: one form per table, the seats from the system's seat rule ------------


class TableSeatsForm(forms.Form):
    """One table of the pairings page: a select per seat box (``Presentation.slots``: "a1",
    "b1" ... or "s1" … "s4"), named ``t<index>_<slot>``. Complete when every box is chosen
    (a system with sides: ``ScoringSystem.seats_per_table``), or when ``fewest`` … ``most``
    boxes are (without sides); an empty table is no table. ``picked``: slot → entry."""

    def __init__(self, *args, slots, entries, system, tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.slots, self.system, self.tournament = slots, system, tournament
        self.by_id = {str(e.pk): e for e in entries}
        self.picked: dict = {}  # an empty table is not cleaned (a formset's extra form)
        choices = [("", "—"), *((str(e.pk), e.name) for e in entries)]
        for slot in slots:
            self.fields[slot] = forms.ChoiceField(
                choices=choices,
                required=False,
                error_messages={"invalid_choice": _("Hay un competidor que no es de este torneo.")},
            )

    def add_prefix(self, field_name: str) -> str:
        return f"{self.prefix}_{field_name}"

    @property
    def number(self) -> int:
        return int(self.prefix[1:]) + 1

    def clean(self):
        data = super().clean()
        self.picked = {s: self.by_id[v] for s, v in data.items() if v}
        if not self.picked or self.errors:
            return data
        fewest, most = self.system.seats_per_table(self.tournament)
        if not self.system.has_sides and len(self.picked) < fewest:
            raise forms.ValidationError(
                _("La mesa {table} tiene {count} jugador(es): una mesa lleva 3 o 4.").format(
                    table=self.number, count=len(self.picked)
                )
            )
        if self.system.has_sides and len(self.picked) != most:
            raise forms.ValidationError(
                _("La mesa {table} está incompleta: elige todos sus asientos.").format(
                    table=self.number
                )
            )
        return data

    def table(self):
        """The chosen table as the services take it: (side A, side B) entry lists, or the
        seated entries in seat order; None for an empty table."""
        if not self.picked:
            return None
        if not self.system.has_sides:
            return [self.picked[s] for s in self.slots if s in self.picked]
        return tuple(
            [e for s, e in self.picked.items() if s.startswith(side)] for side in ("a", "b")
        )

    def first_error(self) -> str | None:
        for errors in self.errors.values():
            return str(errors[0])
        return None


class TableSeatsFormSet(forms.BaseFormSet):
    """The tables of a round's pairings page (``table_seats_formset``): as many as the entries
    fill at the system's seat rule, so the page needs no management form; each form's fields
    are ``t<index>_<slot>``."""

    def __init__(self, *args, tables: int, **kwargs):
        self.tables = tables
        super().__init__(*args, prefix="t", **kwargs)

    def add_prefix(self, index):
        return f"t{index}"

    def total_form_count(self) -> int:
        return self.tables

    def initial_form_count(self) -> int:
        return 0

    @property
    def management_form(self):
        form = forms.formsets.ManagementForm(
            {"t-TOTAL_FORMS": self.tables, "t-INITIAL_FORMS": 0}, prefix="t"
        )
        form.full_clean()
        return form


def table_seats_formset(tournament, entries, data=None) -> TableSeatsFormSet:
    """The pairings page's formset for ``tournament`` (its system's seat boxes) with
    ``entries`` to choose from, bound to ``data`` (a POST) if given."""
    system = systems.of(tournament)
    slots = system.presentation.slots(tournament)
    most = system.seats_per_table(tournament)[1]
    count = len(entries)
    tables = max(1, count // most if system.has_sides else -(-count // most))
    formset = forms.formset_factory(TableSeatsForm, formset=TableSeatsFormSet, extra=0)
    return formset(
        data,
        tables=tables,
        form_kwargs={
            "slots": slots,
            "entries": entries,
            "system": system,
            "tournament": tournament,
        },
    )
