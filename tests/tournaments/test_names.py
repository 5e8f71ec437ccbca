"""Invisible characters and name matching (``tournaments.names``): one cleaning for every name
typed or imported, one key for comparing players; the player form's duplicate warning, the
services, every import format (exact, loose with a warning, ambiguous refused) and the data
migration that cleans the stored names."""

from __future__ import annotations

import datetime as dt
import html
import importlib
import re
import unicodedata
from io import StringIO

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests import builders
from tournaments import imports, names, services
from tournaments.errors import DomainError
from tournaments.imports import CASTIGOS_HEADER, ImportRefused, import_castigos
from tournaments.models import Castigo, Entry, Player, Round, Table, Tournament, name_key

# --- the pure rules (hypothesis) ---------------------------------------------------------------

#: Characters a name must never keep: format characters (Cf), default-ignorables of other
#: categories (variation selectors, CGJ, Hangul filler) and the controls that are not spaces.
INVISIBLE = [
    "\u200b",  # zero-width space
    "\u200c",  # zero-width non-joiner
    "\u200d",  # zero-width joiner
    "\u2060",  # word joiner
    "\ufeff",  # BOM / zero-width no-break space
    "\u00ad",  # soft hyphen
    "\u200e",  # left-to-right mark
    "\u200f",  # right-to-left mark
    "\u061c",  # Arabic letter mark
    "\u202a",  # left-to-right embedding
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u2067",  # right-to-left isolate
    "\u2069",  # pop directional isolate
    "\u180e",  # Mongolian vowel separator
    "\ufe0f",  # variation selector 16
    "\U000e0100",  # variation selector 17
    "\u034f",  # combining grapheme joiner
    "\u3164",  # Hangul filler
    "\U000e0041",  # tag latin capital A
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\x9b",
]
SPACES = ["\t", "\n", "\r", "\x0b", "\x0c", "\x85", "\u00a0", "\u202f", "\u2007", "\u3000",
          "\u2028", "\u2029", "\u1680", "\u2003"]  # fmt: skip

invisible_chars = st.one_of(
    st.sampled_from(INVISIBLE),
    st.characters(categories=["Cf"]),
    st.characters(categories=["Cc"]).filter(lambda c: not c.isspace()),
)
#: Names full of what matters: accents (composed and combining), case pairs that do not
#: round-trip (ß, ı, İ, ſ, Greek iota subscript), spaces of every kind, invisible characters,
#: and any other character.
name_chars = st.one_of(
    st.sampled_from(list("aeiouAEIOUnNñÑçÇßẞıİſσςΣᾳΐǅﬁＪ'-.")),
    st.sampled_from(["\u0301", "\u0303", "\u0308", "\u0345", "\u093c", " "]),
    st.sampled_from(SPACES),
    invisible_chars,
    st.characters(codec="utf-8"),
)
texts = st.text(name_chars, max_size=30)
PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(texts)
@example("  Jose\u200b \u00a0Pe\u0301rez\t\n")
@example("\u00a0\u200b\u3000")
def test_cleaning_is_idempotent_and_leaves_no_invisible_character_nor_odd_space(text):
    cleaned = names.clean(text)
    assert names.clean(cleaned) == cleaned
    assert unicodedata.normalize("NFC", cleaned) == cleaned
    assert not [ch for ch in cleaned if unicodedata.category(ch) in ("Cc", "Cf", "Cs")]
    assert not [ch for ch in cleaned if names.invisible(ch)]
    assert [ch for ch in cleaned if ch.isspace()] == [" "] * cleaned.count(" ")
    assert cleaned == cleaned.strip() and "  " not in cleaned


@PROPERTY
@given(texts, st.lists(st.tuples(st.integers(min_value=0), invisible_chars), max_size=4))
@example("José Pérez", [(4, "\u200b")])
@example("e\u0301", [(1, "\u200d")])
def test_invisible_characters_anywhere_change_neither_the_cleaned_name_nor_the_key(text, inserts):
    spoiled = text
    for at, ch in inserts:
        at %= len(spoiled) + 1
        spoiled = spoiled[:at] + ch + spoiled[at:]
    assert names.clean(spoiled) == names.clean(text)
    assert names.key(spoiled) == names.key(text)


@PROPERTY
@given(texts)
@example("José Pérez")
@example("Iğdır ılıca")
@example("Straße ᾳ")
def test_nfc_nfd_and_case_do_not_change_the_key(text):
    wanted = names.key(text)
    variants = [
        unicodedata.normalize("NFC", text),
        unicodedata.normalize("NFD", text),
        text.upper(),
        text.lower(),
        text.swapcase(),
        text.casefold(),
        unicodedata.normalize("NFD", text.upper()),
    ]
    assert [names.key(v) for v in variants] == [wanted] * len(variants)


@PROPERTY
@given(texts, st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(SPACES)), max_size=4))
def test_spaces_of_any_kind_anywhere_do_not_change_the_key(text, inserts):
    spaced = text
    for at, ch in inserts:
        at %= len(spaced) + 1
        spaced = spaced[:at] + ch + spaced[at:]
    assert names.key(spaced) == names.key(text)


@pytest.mark.parametrize(
    ("typed", "cleaned"),
    [
        ("  Jose\u200b \u00a0Perez\t\n", "Jose Perez"),
        ("Jose\u0301 Pe\u0301rez", "José Pérez"),
        ("Ana\x07 Ruiz", "Ana Ruiz"),
        ("Ana \x1b[2J Ruiz", "Ana [2J Ruiz"),
        ("Ana\nRuiz", "Ana Ruiz"),
        ("Ana\x85Ruiz", "Ana Ruiz"),
        ("Ana\x00Ruiz", "AnaRuiz"),
        ("\u2067Ana Ruiz\u2069", "Ana Ruiz"),
        ("Ma\u00adrí\u200da", "María"),
        ("\ufeffZoë\u3000\u202fO'Brien", "Zoë O'Brien"),
        ("Пётр\u2028Иванов", "Пётр Иванов"),
        ("\u200b\u2060\u00a0", ""),
        (None, ""),
    ],
)
def test_clean_examples(typed, cleaned):
    assert names.clean(typed) == cleaned


def test_the_key_ignores_case_accents_spacing_and_invisible_characters():
    spellings = [
        "José Pérez",
        "JOSE  PEREZ",
        "Jose\u200b Perez",
        "jose\u0301 pe\u0301rez",
        "JoséPérez",
        " josé\u00a0pérez ",
    ]
    assert {names.key(s) for s in spellings} == {"joseperez"}
    assert names.key("Ana Ruis") != names.key("Ana Ruiz")
    assert names.key("Straße") == names.key("STRASSE") == "strasse"
    assert names.key("Iğdır") == names.key("IĞDIR") == "igdir"
    assert names.key("\u200b ") == ""


def test_the_stored_key_fits_its_column():
    assert len(name_key("ß" * 120)) == 120
    assert name_key("José Pérez") == "joseperez"


# --- services ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_clean_name_cleans_instead_of_refusing_and_counts_what_is_stored():
    assert services.clean_name("Ana\x07\t Ruiz\u200b", field="nombre") == "Ana Ruiz"
    # 120 visible letters plus invisible ones: the stored name is 120 long, accepted.
    assert services.clean_name("N\u200b" * 120, field="nombre") == "N" * 120
    with pytest.raises(DomainError) as refused:
        services.clean_name("N\u200b" * 121, field="nombre")
    assert refused.value.code == "name_too_long"
    with pytest.raises(DomainError) as refused:
        services.clean_name("\u200b\ufeff\u00a0\x07", field="nombre")
    assert (refused.value.code, refused.value.message) == ("name_required", "Falta el nombre.")
    assert services.clean_name("\u200b", field="apodo", required=False) == ""


@pytest.mark.django_db
def test_a_player_is_stored_cleaned_with_the_new_key(director):
    player = services.create_player(
        acting_user=director, full_name="  Jose\u0301\u200b  Pe\u0301rez ", nickname="El\tProfe"
    )
    stored = Player.objects.get(pk=player.pk)
    assert (stored.full_name, stored.nickname, stored.name_key) == (
        "José Pérez",
        "El Profe",
        "joseperez",
    )
    services.update_player(acting_user=director, player=stored, full_name="Jose\u2060 Perez")
    stored.refresh_from_db()
    assert (stored.full_name, stored.nickname, stored.name_key) == ("Jose Perez", "", "joseperez")


@pytest.mark.django_db
def test_a_name_whose_key_grows_fits_the_key_column(director):
    """Case folding lengthens "ß" to "ss": the stored key is cut to its column (PostgreSQL
    refuses a longer value), the comparison uses the whole key."""
    long_one = services.create_player(acting_user=director, full_name="ß" * 120)
    assert Player.objects.get(pk=long_one.pk).name_key == "s" * 120
    assert services.similar_players("SS" * 120) == [long_one]
    assert services.similar_players("ß" * 119 + "a") == []


@pytest.mark.django_db
def test_any_save_of_a_player_cleans_the_names():
    """The Django admin and the shell save the model: its save() cleans too."""
    p = Player(full_name="\u2066Rosa\u00a0 Quintana\u2069", nickname="\u200bRo")
    p.save()
    p.refresh_from_db()
    assert (p.full_name, p.nickname, p.name_key) == ("Rosa Quintana", "Ro", "rosaquintana")


@pytest.mark.django_db
def test_tournament_names_and_castigo_reasons_are_stored_cleaned(director):
    t = services.create_tournament(
        acting_user=director,
        name="Copa\u200b  de\u00a0Oton\u0303o",
        date=dt.date(2026, 10, 3),
        mode="single",
        target=100,
        status="running",
    )
    assert Tournament.objects.get(pk=t.pk).name == "Copa de Otoño"
    player = services.create_player(acting_user=director, full_name="Rosa Quintana")
    services.register_entry(acting_user=director, tournament=t, players=[player])
    castigo = services.add_castigo(
        acting_user=director, tournament=t, player=player, tantos=5, reason="Habló\x1b  \tmucho"
    )
    assert Castigo.objects.get(pk=castigo.pk).reason == "Habló mucho"
    with pytest.raises(DomainError) as refused:
        services.add_castigo(
            acting_user=director, tournament=t, player=player, tantos=5, reason="\u200b\u2069"
        )
    assert refused.value.code == "name_required"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    ["José Pérez", "JOSE  PEREZ", "Jose\u200b Perez", "jose\u0301 pe\u0301rez", "JOSÉPÉREZ"],
)
def test_similar_players_ignores_case_accents_spacing_and_invisible_characters(director, query):
    jose = services.create_player(acting_user=director, full_name="José Pérez")
    services.create_player(acting_user=director, full_name="José Pérez Ruiz")
    services.create_player(acting_user=director, full_name="Josefa Pérez")
    assert services.similar_players(query) == [jose]
    assert services.similar_players(query, exclude_id=jose.pk) == []


@pytest.mark.django_db
def test_similar_players_of_a_name_without_key_is_empty(director):
    services.create_player(acting_user=director, full_name="\u0301")
    assert services.similar_players("\u0301") == []


# --- the player form page ----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["José Pérez", "JOSE  PEREZ", "Jose\u200b Perez"])
def test_the_player_form_warns_about_a_duplicate_spelled_otherwise(
    director_client, director, typed
):
    jose = services.create_player(acting_user=director, full_name="José Pérez")
    url = reverse("manage:player_add")
    response = director_client.post(url, {"full_name": typed, "active": "on"})
    assert response.status_code == 200
    body = html.unescape(response.content.decode())
    assert "¿Duplicado?" in body
    assert f'<a href="{reverse("manage:player_edit", args=[jose.pk])}">José Pérez</a>' in body
    assert Player.objects.count() == 1

    confirm = re.search(r'<input type="hidden" name="confirm_duplicate" value="([^"]*)"', body)
    assert confirm, body
    response = director_client.post(
        url, {"full_name": typed, "active": "on", "confirm_duplicate": confirm.group(1)}
    )
    assert response.status_code == 302
    assert Player.objects.exclude(pk=jose.pk).get().full_name == names.clean(typed)


@pytest.mark.django_db
def test_the_player_form_stores_the_cleaned_name_without_asking(director_client):
    response = director_client.post(
        reverse("manage:player_add"),
        {"full_name": " Ana\x07 \u00a0Ruiz\u200b ", "nickname": "El\tProfe", "active": "on"},
    )
    assert response.status_code == 302
    assert Player.objects.values_list("full_name", "nickname", "name_key").get() == (
        "Ana Ruiz",
        "El Profe",
        "anaruiz",
    )


@pytest.mark.django_db
def test_the_player_form_counts_the_cleaned_length(director_client):
    response = director_client.post(
        reverse("manage:player_add"), {"full_name": "Ñ\u200b" * 120, "active": "on"}
    )
    assert response.status_code == 302
    assert Player.objects.get().full_name == "Ñ" * 120


@pytest.mark.django_db
def test_the_player_form_refuses_a_name_of_invisible_characters(director_client):
    response = director_client.post(
        reverse("manage:player_add"), {"full_name": "\u200b\u2066\u2069\u00a0", "active": "on"}
    )
    assert response.status_code == 400
    assert "Este campo es obligatorio." in response.content.decode()
    assert Player.objects.count() == 0


# --- imports -----------------------------------------------------------------------------------

ROSA, TOMAS = "Rosa Quintana", "Tomás Ulloa"
LOOSE = (
    "Línea 2: «{typed}» se tomó como «{name}», que solo difiere en mayúsculas, acentos o espacios."
)
AMBIGUOUS = (
    "«{typed}» no es exactamente el nombre de ningún jugador y solo difiere en mayúsculas, "
    "acentos o espacios del de 2: «Jose Perez» y «José Pérez». Escribe en el archivo el nombre "
    "exacto del que corresponda."
)


#: The tournament of each system the files go to: mano a mano (dominó to 100), running.
COPA = {
    system: {
        "name": f"Copa {system}",
        "date": dt.date(2026, 10, 3),
        "system": system,
        "mode": "single",
        "status": "running",
        **more,
    }
    for system, more in (("domino", {"target": 100}), ("swiss", {}), ("table", {}))
}

#: Each results format: its header and the lines of round 1, table 1 with ``name`` first.
FORMATS = {
    "domino": (
        "round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at",
        lambda name, rnd=1: [f"{rnd},1,{name},{ROSA},100,40,no,no,"],
    ),
    "swiss": (
        "round,table,player_a,player_b,games_a,games_b,games_drawn,drop",
        lambda name, rnd=1: [f"{rnd},1,{name},{ROSA},2,0,,"],
    ),
    "table": (
        "round,table,player,vp,ended_by_time",
        lambda name, rnd=1: [
            f"{rnd},1,{name},10,no",
            f"{rnd},1,{ROSA},8,no",
            f"{rnd},1,{TOMAS},7,no",
        ],
    ),
}


def _file(system: str, *names_by_round: str) -> str:
    header, lines = FORMATS[system]
    body = [line for rnd, name in enumerate(names_by_round, 1) for line in lines(name, rnd)]
    return "\n".join([header, *body]) + "\n"


def _counts():
    return (
        Player.objects.count(),
        Entry.objects.count(),
        Round.objects.count(),
        Table.objects.count(),
        Castigo.objects.count(),
    )


def _entered_names(t: Tournament) -> list[str]:
    return sorted(t.entries.values_list("player1__full_name", flat=True))


@pytest.fixture
def others(db):
    """The other players of the files, registered already (so nobody new is created)."""
    return [services.create_player(acting_user=None, full_name=n) for n in (ROSA, TOMAS)]


@pytest.mark.parametrize("system", sorted(FORMATS))
@pytest.mark.parametrize("typed", ["Jose\u0301\u200b  Pe\u0301rez", "\u2066José\u00a0Pérez\u2069"])
def test_an_import_takes_the_exact_name_after_cleaning_silently(director, others, system, typed):
    jose = services.create_player(acting_user=None, full_name="José Pérez")
    t = builders.tournament(COPA[system], acting_user=director)
    report = imports.import_results(acting_user=director, tournament=t, data=_file(system, typed))
    assert (report.created, report.players_created, report.warnings) == (1, 0, [])
    assert jose.pk in {e.player1_id for e in t.entries.all()}
    assert Player.objects.count() == 3


@pytest.mark.parametrize("system", sorted(FORMATS))
@pytest.mark.parametrize("typed", ["JOSE  PEREZ", "jose perez", "Jose\u200bPérez"])
def test_an_import_takes_a_loose_name_when_one_player_fits_and_says_so(
    director, others, system, typed
):
    jose = services.create_player(acting_user=None, full_name="José Pérez")
    t = builders.tournament(COPA[system], acting_user=director)
    report = imports.import_results(acting_user=director, tournament=t, data=_file(system, typed))
    assert report.warnings == [LOOSE.format(typed=names.clean(typed), name="José Pérez")]
    assert (report.created, report.players_created) == (1, 0)
    assert jose.pk in {e.player1_id for e in t.entries.all()}
    assert Player.objects.count() == 3


@pytest.mark.parametrize("system", sorted(FORMATS))
def test_an_import_prefers_the_loose_candidate_entered_in_the_tournament(director, others, system):
    t = builders.tournament(COPA[system], acting_user=director)
    services.create_player(acting_user=None, full_name="José Pérez")
    entered = services.create_player(acting_user=None, full_name="JOSÉ PÉREZ")
    services.register_entry(acting_user=None, tournament=t, players=[entered])
    report = imports.import_results(
        acting_user=director, tournament=t, data=_file(system, "jose perez")
    )
    assert report.warnings == [LOOSE.format(typed="jose perez", name="JOSÉ PÉREZ")]
    assert report.entries_created == (2 if system == "table" else 1)
    assert _entered_names(t) == sorted(
        ["JOSÉ PÉREZ", ROSA] + ([TOMAS] if system == "table" else [])
    )


@pytest.mark.parametrize("system", sorted(FORMATS))
def test_an_import_refuses_a_loose_name_several_players_fit_and_stores_nothing(
    director, others, system
):
    services.create_player(acting_user=None, full_name="José Pérez")
    services.create_player(acting_user=None, full_name="Jose Perez")
    t = builders.tournament(COPA[system], acting_user=director)
    before = _counts()
    with pytest.raises(ImportRefused) as refused:
        imports.import_results(
            acting_user=director, tournament=t, data=_file(system, "JOSE\u200b  PEREZ")
        )
    assert refused.value.codes == [(2, "ambiguous_player_similar")]
    assert refused.value.errors == [(2, AMBIGUOUS.format(typed="JOSE PEREZ"))]
    assert _counts() == before
    assert t.entries.count() == 0


@pytest.mark.parametrize("system", ["domino", "table"])
def test_a_new_player_named_twice_with_other_case_is_created_once(director, others, system):
    t = builders.tournament(COPA[system], acting_user=director)
    report = imports.import_results(
        acting_user=director, tournament=t, data=_file(system, "Nuevo Núñez", "NUEVO  NUNEZ")
    )
    line = len(FORMATS[system][1]("x")) + 2  # the first line of round 2
    assert report.players_created == 1
    assert Player.objects.filter(name_key="nuevonunez").get().full_name == "Nuevo Núñez"
    assert report.warnings == [
        LOOSE.format(typed="NUEVO NUNEZ", name="Nuevo Núñez").replace("Línea 2", f"Línea {line}")
    ]


def test_the_import_command_prints_the_loose_match_warning(others, tmp_path):
    services.create_player(acting_user=None, full_name="José Pérez")
    t = builders.tournament(COPA["domino"])
    path = tmp_path / "resultados.csv"
    path.write_text(_file("domino", "jose perez"), encoding="utf-8")
    out, err = StringIO(), StringIO()
    call_command("import_results", t.slug, str(path), stdout=out, stderr=err)
    assert err.getvalue() == "aviso: " + LOOSE.format(typed="jose perez", name="José Pérez") + "\n"
    assert Player.objects.count() == 3


def test_the_upload_page_shows_the_loose_match_warning(
    director_client, director, others, django_capture_on_commit_callbacks
):
    services.create_player(acting_user=None, full_name="José Pérez")
    t = builders.tournament(COPA["domino"], acting_user=director)
    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {
                "kind": "results",
                "file": SimpleUploadedFile("r.csv", _file("domino", "JOSE PEREZ").encode()),
            },
        )
    response = director_client.get(response.url)  # the import's page, once it ran
    assert response.status_code == 200
    shown = response.context["report_messages"]
    assert ("warning", LOOSE.format(typed="JOSE PEREZ", name="José Pérez")) in shown


# --- the castigos file -------------------------------------------------------------------------


def _castigos(*lines: str) -> str:
    return "\n".join([",".join(CASTIGOS_HEADER), *lines]) + "\n"


@pytest.fixture
def entered_jose(director, others):
    """A running dominó tournament where "José Pérez" and Rosa are entered."""
    t = builders.tournament(COPA["domino"], acting_user=director)
    jose = services.create_player(acting_user=None, full_name="José Pérez")
    for p in (jose, others[0]):
        services.register_entry(acting_user=None, tournament=t, players=[p])
    return t, jose


def test_castigos_take_the_exact_name_after_cleaning_silently(director, entered_jose):
    t, jose = entered_jose
    warnings: list[str] = []
    created = import_castigos(
        acting_user=director,
        tournament=t,
        data=_castigos(",Jose\u0301\u200b Pérez,5,Habló\u200b  en la mano"),
        warnings=warnings,
    )
    assert (created, warnings) == (1, [])
    assert list(Castigo.objects.values_list("player_id", "tantos", "reason")) == [
        (jose.pk, 5, "Habló en la mano")
    ]
    # The same file again: the castigo is there already (its reason compared cleaned).
    again = import_castigos(
        acting_user=director,
        tournament=t,
        data=_castigos(",Jose\u0301\u200b Pérez,5,Habló\u200b  en la mano"),
    )
    assert again == 0


def test_castigos_take_a_loose_name_of_one_entered_player_and_say_so(director, entered_jose):
    t, jose = entered_jose
    services.create_player(acting_user=None, full_name="Jose Perez")  # not entered: not counted
    warnings: list[str] = []
    created = import_castigos(
        acting_user=director,
        tournament=t,
        data=_castigos(",JOSE PEREZ,5,Hablar", ",jose  perez,3,Tarde"),
        warnings=warnings,
    )
    assert created == 2
    assert list(Castigo.objects.order_by("pk").values_list("player_id", "tantos")) == [
        (jose.pk, 5),
        (jose.pk, 3),
    ]
    assert warnings == [
        LOOSE.format(typed="JOSE PEREZ", name="José Pérez"),
        LOOSE.format(typed="jose perez", name="José Pérez").replace("Línea 2", "Línea 3"),
    ]


def test_castigos_refuse_a_loose_name_of_two_entered_players(director, entered_jose):
    t, _jose = entered_jose
    other = services.create_player(acting_user=None, full_name="Jose Perez")
    services.register_entry(acting_user=None, tournament=t, players=[other])
    before = _counts()
    with pytest.raises(ImportRefused) as refused:
        import_castigos(
            acting_user=director,
            tournament=t,
            data=_castigos(f",{ROSA},2,Hablar", ",JOSE PEREZ,5,Hablar"),
        )
    assert refused.value.codes == [(3, "ambiguous_player_similar")]
    assert refused.value.errors == [(3, AMBIGUOUS.format(typed="JOSE PEREZ"))]
    assert _counts() == before


def test_castigos_refuse_a_name_of_no_entered_player(director, entered_jose):
    t, _jose = entered_jose
    with pytest.raises(ImportRefused) as refused:
        import_castigos(
            acting_user=director,
            tournament=t,
            data=_castigos(f",{TOMAS.upper()},2,Hablar", ",Nadie Nunca,5,Hablar"),
        )
    assert refused.value.codes == [(2, "player_not_entered"), (3, "player_unknown")]
    assert Castigo.objects.count() == 0


# --- the data migration ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_migration_cleans_stored_names_and_recomputes_the_keys():
    migration = importlib.import_module("tournaments.migrations.0011_clean_names")
    # bulk_create skips save(): rows as an older version stored them.
    dirty, kept, clean = Player.objects.bulk_create(
        [
            Player(full_name="  Jose\u200b\u00a0Pe\u0301rez ", nickname="El\tProfe", name_key="x"),
            Player(full_name="\u200b\u2060", name_key="y"),  # empty once cleaned: kept
            Player(full_name="Rosa Quintana", name_key="rosa quintana"),
        ]
    )
    t = Tournament.objects.create(
        name="Copa\u200b  Vieja", slug="copa-vieja", date=dt.date(2026, 1, 3), system="domino"
    )
    castigo = Castigo.objects.create(tournament=t, player=clean, tantos=5, reason="Tarde\x07 ")

    migration.clean_names(apps, None)

    assert list(Player.objects.order_by("pk").values_list("full_name", "nickname", "name_key")) == [
        ("Jose Pérez", "El Profe", "joseperez"),
        ("\u200b\u2060", "", ""),
        ("Rosa Quintana", "", "rosaquintana"),
    ]
    assert Tournament.objects.get(pk=t.pk).name == "Copa Vieja"
    assert Castigo.objects.get(pk=castigo.pk).reason == "Tarde"
    assert {dirty.pk, kept.pk, clean.pk} == set(Player.objects.values_list("pk", flat=True))


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["perez", "PÉREZ", "jose  pe", "Pe\u0301rez", "jo\u200bse"])
def test_the_player_search_ignores_case_accents_spacing_and_invisible_characters(
    director_client, query
):
    services.create_player(acting_user=None, full_name="José Pérez")
    services.create_player(acting_user=None, full_name="Ana Ruiz")
    page = director_client.get(reverse("manage:players"), {"q": query}).content.decode()
    assert "José Pérez" in page
    assert "Ana Ruiz" not in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("stored", "typed"),
    [
        ("Saúl D’Alessandro", "saul d'alessandro"),
        ("Zoë Ní Bhriain-Núñez", "ZOE NI BHRIAIN NUNEZ"),
        ("Dolores «Lola» Echeverri", "dolores lola echeverri"),
        ("Tomasa O'Keeffe", "Tomasa OKeeffe"),
    ],
)
def test_punctuation_is_ignored_when_names_are_compared(stored, typed):
    player = services.create_player(acting_user=None, full_name=stored)
    assert services.similar_players(typed) == [player]
