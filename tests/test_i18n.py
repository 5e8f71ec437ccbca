"""Languages (issue "languages"): Spanish (default), English and Russian.

The browser's Accept-Language picks the first page's language, <html lang> says which, the
switcher (/idioma/) remembers a choice in a cookie, domain messages are translated where
they are shown, dates and numbers follow the language, the .po files are complete, and the
glossary page exists in the three languages.
"""

import datetime as dt
import gettext as gnu_gettext
import re
import shutil
from fractions import Fraction
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from tournaments import errors, services
from tournaments.errors import DomainError, gettext_noop
from tournaments.templatetags.club import pct

LOCALE = Path(settings.BASE_DIR) / "locale"
PO_FILES = {lang: LOCALE / lang / "LC_MESSAGES" / "django.po" for lang in ("en", "ru")}
PLACEHOLDER = re.compile(r"%\([a-z_]+\)s|\{[a-z_]+(?:![rs])?\}|%%|</?[a-z]+>")


@pytest.fixture(autouse=True)
def spanish_afterwards():
    """A request with Accept-Language activates its language on the test thread; leave the
    thread in the default language so the other tests (Spanish messages) are not affected."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


def lang_of(response) -> str:
    match = re.search(r'<html lang="([^"]+)"', response.content.decode())
    assert match, "no <html lang> on the page"
    return match.group(1)


@pytest.fixture
def tournament(director):
    """A running pairs tournament on 5 March 2026 with one result in round 1."""
    t = services.create_tournament(
        acting_user=director,
        name="Copa de Marzo",
        date=dt.date(2026, 3, 5),
        mode="pairs",
        target=100,
        time_limit=30,
        status="registration",
    )
    players = [
        services.create_player(acting_user=director, full_name=f"Jugador {c}") for c in "ABCD"
    ]
    a = services.register_entry(acting_user=director, tournament=t, players=players[:2])
    b = services.register_entry(acting_user=director, tournament=t, players=players[2:])
    rnd = services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([a], [b])]
    )
    table = rnd.tables.get()
    services.record_result(
        acting_user=director, table=table, tantos_a=100, tantos_b=0, version=table.version
    )
    t.refresh_from_db()
    return t


# --- the language of the first page ------------------------------------------------------------


@pytest.mark.django_db
def test_no_accept_language_means_spanish(client, tournament):
    home = client.get("/")
    assert lang_of(home) == "es"
    body = home.content.decode()
    assert "Torneos" in body and "En curso" in body
    page = client.get(tournament.get_absolute_url())
    assert lang_of(page) == "es"
    assert "Clasificación" in page.content.decode()


@pytest.mark.django_db
def test_accept_language_english(client, tournament):
    home = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert lang_of(home) == "en"
    body = home.content.decode()
    assert "Tournaments" in body and "In progress" in body
    assert "En curso" not in body
    assert "Accept-Language" in home["Vary"]
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
    body = page.content.decode()
    assert lang_of(page) == "en"
    assert "Standings" in body and "Tournament rules" in body and "Fixed pairs" in body
    assert "Reglas del torneo" not in body


@pytest.mark.django_db
def test_accept_language_russian(client, tournament):
    home = client.get("/", HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9,en;q=0.5")
    assert lang_of(home) == "ru"
    assert "Турниры" in home.content.decode()
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ru")
    body = page.content.decode()
    assert lang_of(page) == "ru"
    assert "Турнирная таблица" in body and "Правила турнира" in body
    standings = client.get(
        reverse("public:standings", args=[tournament.slug]), HTTP_ACCEPT_LANGUAGE="ru"
    )
    assert "Efectividad" in standings.content.decode()  # a dominó term: glossary


@pytest.mark.django_db
def test_unknown_language_falls_back_to_spanish(client):
    assert lang_of(client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")) == "es"


# --- the switcher ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_switcher_form_is_in_the_header(client):
    body = client.get("/").content.decode()
    form = re.search(r'<form method="get" action="/idioma/".*?</form>', body, re.S)
    assert form, "no language form sent to /idioma/"
    form = form.group(0)
    # One tap per language: a submit button each, the page's own marked current.
    assert re.findall(r'<button type="submit" name="language" value="(\w+)"', form) == [
        "es",
        "en",
        "ru",
    ]
    assert '<button type="submit" name="language" value="es" aria-current="true">' in form
    assert form.count("aria-current") == 1
    assert 'role="group" aria-label="Idioma"' in form
    assert 'name="next" value="/"' in form
    assert "<script" not in form and "onchange" not in form


@pytest.mark.django_db
def test_switcher_remembers_the_choice(client, tournament):
    url = tournament.get_absolute_url()
    response = client.get("/idioma/", {"language": "en", "next": url})
    assert response.status_code == 302 and response["Location"] == url
    cookie = client.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "en" and cookie["max-age"] == 365 * 24 * 60 * 60
    # Later requests, without and even with another Accept-Language, stay in English.
    assert lang_of(client.get("/")) == "en"
    assert lang_of(client.get(url, HTTP_ACCEPT_LANGUAGE="ru")) == "en"
    client.get("/idioma/", {"language": "ru", "next": "/"})
    assert lang_of(client.get("/torneos/")) == "ru"
    client.get("/idioma/", {"language": "es", "next": "/"})
    assert lang_of(client.get("/torneos/", HTTP_ACCEPT_LANGUAGE="en")) == "es"


@pytest.mark.django_db
def test_switcher_ignores_an_unknown_language_and_a_next_outside_the_site(client):
    client.get("/idioma/", {"language": "en", "next": "/"})
    response = client.get("/idioma/", {"language": "xx", "next": "https://example.com/"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert client.post("/idioma/", {"language": "ru"}).status_code == 405


# --- domain messages ---------------------------------------------------------------------------


def test_domain_error_is_translated_where_it_is_shown():
    exc = DomainError("both_reached_target", target=100, tantos_a=100, tantos_b=120)
    assert exc.message.startswith("Los dos lados llegaron a la meta de 100 tantos (100–120)")
    with translation.override("en"):
        assert exc.message == (
            "Both sides reached the target of 100 tantos (100–120); only the winner can reach it. "
            "Check the score sheet."
        )
        assert str(exc) == exc.message
    with translation.override("ru"):
        assert exc.message.startswith("Обе стороны достигли цели в 100 tantos (100–120)")
    assert exc.code == "both_reached_target"


def test_domain_error_module_stays_pure():
    source = Path(errors.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+django", source, re.M)
    # Outside Django the hook is the identity; the app sets it to gettext when it is ready.
    assert errors.translate is translation.gettext


def test_word_parameters_are_translated_too():
    exc = DomainError("name_required", field=gettext_noop("nombre"))
    assert exc.message == "Falta el nombre."
    with translation.override("en"):
        assert exc.message == "The name is missing."
    with translation.override("ru"):
        assert exc.message == "Не заполнено поле «имя»."


def test_custom_message_templates_are_translated():
    exc = DomainError("not_integer", message=errors.MESSAGES["not_integer_games"], value="x")
    with translation.override("en"):
        assert exc.message == "Games must be a whole number, 0 or more; got “x”."


@pytest.mark.django_db
def test_import_messages_are_translated():
    from tournaments.imports import MATCH_MESSAGES

    exc = DomainError("bad_drop", message=MATCH_MESSAGES["bad_drop"], value="z")
    with translation.override("en"):
        assert exc.message == "“drop” must be empty or “a”, “b” or “both”; got “z”."


@pytest.mark.django_db
def test_manage_messages_follow_the_language(director_client, tournament):
    url = reverse("manage:round_close", args=[tournament.slug, 1])
    page = director_client.post(url, follow=True, HTTP_ACCEPT_LANGUAGE="en")
    assert "Round 1 closed." in page.content.decode()


# --- dates and numbers -------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, date_text",
    [
        ("es", "5 de marzo de 2026"),
        ("en", "March 5, 2026"),
        ("ru", "5 марта 2026"),
    ],
)
def test_tournament_date_in_the_language(client, tournament, lang, date_text):
    headers = {"HTTP_ACCEPT_LANGUAGE": lang} if lang != "es" else {}
    body = client.get(tournament.get_absolute_url(), **headers).content.decode()
    assert date_text in body


@pytest.mark.parametrize(
    "lang, number, percent",
    [
        ("es", "1512,35", "61,65"),
        ("en", "1512.35", "61.65"),
        ("ru", "1512,35", "61,65"),
    ],
)
def test_numbers_in_the_language(lang, number, percent):
    with translation.override(lang):
        assert Template("{{ x|floatformat:2 }}").render(Context({"x": 1512.345})) == number
        assert pct(Fraction(1233, 2000)) == percent


# --- the translation files ---------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_po_file_is_complete(lang):
    po = polib.pofile(str(PO_FILES[lang]))
    assert po.metadata["Language"] == lang
    assert not po.metadata_is_fuzzy
    entries = [e for e in po if not e.obsolete]
    assert len(entries) > 400
    for entry in entries:
        assert "fuzzy" not in entry.flags, entry.msgid
        if entry.msgid_plural:
            forms = entry.msgstr_plural
            assert forms and all(f.strip() for f in forms.values()), entry.msgid
            assert len(forms) == (2 if lang == "en" else 4), entry.msgid
            texts = list(forms.values())
            source = entry.msgid_plural
        else:
            assert entry.msgstr.strip(), entry.msgid
            texts = [entry.msgstr]
            source = entry.msgid
        for text in texts:
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), (
                entry.msgid
            )
            if '"' not in source:
                assert '"' not in text, entry.msgid  # translations go into HTML attributes too
    assert po.percent_translated() == 100


def test_every_domain_message_is_in_the_catalogues():
    for lang, path in PO_FILES.items():
        msgids = {e.msgid for e in polib.pofile(str(path))}
        missing = [code for code, text in errors.MESSAGES.items() if text not in msgids]
        assert not missing, (lang, missing)


def test_compile_translations_needs_no_gnu_gettext(tmp_path, settings):
    for lang, path in PO_FILES.items():
        target = tmp_path / lang / "LC_MESSAGES"
        target.mkdir(parents=True)
        shutil.copy(path, target / "django.po")
    settings.LOCALE_PATHS = [tmp_path]
    call_command("compile_translations", verbosity=0)
    with open(tmp_path / "ru" / "LC_MESSAGES" / "django.mo", "rb") as mo:
        catalogue = gnu_gettext.GNUTranslations(mo)
    assert catalogue.gettext("Clasificación") == "Турнирная таблица"
    assert catalogue.ngettext("{n} punto", "{n} puntos", 5) == "{n} очков"


# --- the glossary ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, texts",
    [
        ("es", ["Glosario", "Efectividad", "Zapato", "Diferencial", "Sorteo", "OMW, GWP y OGW"]),
        (
            "en",
            [
                "Glossary",
                "Points (puntos)",
                '<dt id="tantos">Tantos</dt>',
                '<dt id="efectividad">Efectividad</dt>',
                '<dt id="zapato">Zapato</dt>',
                "Bye (descanso)",
                "VP (victory points)",
            ],
        ),
        (
            "ru",
            [
                "Словарь терминов",
                "Очки (puntos)",
                '<dt id="castigo">Castigo</dt>',
                '<dt id="sorteo">Sorteo</dt>',
                "Пропуск тура (descanso)",
                "ПО (победные очки, VP)",
            ],
        ),
    ],
)
def test_glossary_in_each_language(client, lang, texts):
    headers = {"HTTP_ACCEPT_LANGUAGE": lang} if lang != "es" else {}
    response = client.get("/glosario/", **headers)
    assert response.status_code == 200
    assert lang_of(response) == lang
    body = response.content.decode()
    for text in texts:
        assert text in body, text
    for anchor in (
        "puntos",
        "tantos",
        "efectividad",
        "castigo",
        "zapato",
        "diferencial",
        "sorteo",
        "descanso",
        "omw",
        "vp",
        "rating",
        "k",
        "ng",
    ):
        assert f'id="{anchor}"' in body


@pytest.mark.django_db
def test_glossary_is_linked_from_every_page(client):
    assert 'href="/glosario/"' in client.get("/").content.decode()
    assert 'href="/glosario/"' in client.get("/ranking/").content.decode()
