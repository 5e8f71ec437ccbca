"""The dominó terms stay as the glossary defines them (issue "The everyday path, second pass",
point 6): in English and Russian every translation that renders a glossary term uses the term
itself, in its Spanish form (Russian: in Latin letters, not declined), never a translation;
only the glossary explains each term, once, in the page's language. And the shorthand a page
shows ("TF", "G–P–E (D)", "T", "NP") is said in words on that page, in a line a phone shows
(an ``<abbr title>`` does not reach a phone)."""

import html
import re
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from tests import builders
from tournaments import systems

LOCALE = Path(settings.BASE_DIR) / "locale"
PO = {lang: polib.pofile(str(LOCALE / lang / "LC_MESSAGES" / "django.po")) for lang in ("en", "ru")}
GLOSSARY = "templates/tournaments/glossary.html"

#: term: (how a msgid says it, how every msgstr says it, the translations a msgstr must not use
#: outside the glossary's own explanations, per language). Found in the catalogues before the
#: decision: "penalty", "Штраф", "draw of lots", "жребий", "«сухая»", "тантос" ...
TERMS = {
    "castigo": (
        r"\bcastigos?\b",
        r"\bcastigos?\b",
        {"en": [r"\bpenalt(?:y|ies)\b"], "ru": [r"штраф"]},
    ),
    "zapato": (
        r"\bzapatos?\b",
        r"\bzapatos?\b",
        {"en": [r"\bshut-?outs?\b"], "ru": [r"сух(?:ая|ие|ой)"]},
    ),
    "sorteo": (
        # "sorteo de parejas" is the random pairing draw, not the glossary's tiebreak
        r"\bsorteos?\b(?! de parejas)",
        r"\bsorteos?\b",
        {"en": [r"\bdraws? of lots\b", r"\bby lot\b"], "ru": [r"жреби"]},
    ),
    "efectividad": (
        r"\befectividad\b",
        r"\befectividad\b",
        {"en": [r"\beffectiveness\b", r"\bnet tantos\b"], "ru": [r"эффективност"]},
    ),
    "diferencial": (
        r"\bdiferencial\b",
        r"\bdiferencial\b",
        {"en": [r"\bhead-to-head\b", r"\bdifferential\b"], "ru": [r"разниц\w* в личн"]},
    ),
    "tantos": (
        # not "mientras tanto" (meanwhile) nor "tanto tiempo" (so much time)
        r"(?<!mientras )\btantos?\b(?! tiempo)",
        r"\btantos?\b",
        {"en": [r"\bpips?\b"], "ru": [r"тантос", r"очк\w* на кост"]},
    ),
    "tantos-a-favor": (
        r"\btantos a favor\b",
        r"\btantos a favor\b",
        {"en": [r"\btantos for\b"], "ru": [r"\btantos за\b"]},
    ),
    "tantos-en-contra": (
        r"\btantos en contra\b",
        r"\btantos en contra\b",
        {"en": [r"\btantos against\b"], "ru": [r"\btantos против\b"]},
    ),
}

#: Where the glossary explains each term in the language: a word its entry must use (one of the
#: translations no other text uses).
EXPLAINED = {
    "en": {
        "tantos": "pips",
        "tantos-a-favor": "tantos for",
        "efectividad": "net tantos",
        "castigo": "penalty",
        "zapato": "shutout",
        "diferencial": "head-to-head",
        "sorteo": "draw of lots",
    },
    "ru": {
        "tantos": "Очки на костях",
        "tantos-a-favor": "«за»",
        "efectividad": "Эффективность",
        "castigo": "Штраф",
        "zapato": "«Сухая»",
        "diferencial": "Разница в личных встречах",
        "sorteo": "Жребий",
    },
}


def _texts(entry) -> list[str]:
    return [entry.msgstr] if not entry.msgid_plural else list(entry.msgstr_plural.values())


def _explains(entry) -> bool:
    """A glossary entry's explanation (not its term, the ``dt``): the one place the term is
    put in the language's own words."""
    in_glossary = any(path == GLOSSARY for path, _line in entry.occurrences)
    return in_glossary and entry.msgctxt != "término del glosario"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_translations_keep_the_glossary_terms(lang):
    problems = []
    for entry in PO[lang]:
        if entry.obsolete:
            continue
        source = entry.msgid + " " + entry.msgid_plural
        for term, (said, kept, forbidden) in TERMS.items():
            for text in _texts(entry):
                if re.search(said, source, re.I) and not re.search(kept, text, re.I):
                    problems.append(f"{term} not kept: {entry.msgid!r} → {text!r}")
                if _explains(entry):
                    continue
                for word in forbidden[lang]:
                    if re.search(word, text, re.I):
                        problems.append(f"{term} translated: {entry.msgid!r} → {text!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_glossary_terms_are_the_terms(lang):
    """The glossary's headings name the term itself (no "Penalty (castigo)")."""
    for entry in PO[lang]:
        if entry.msgctxt == "término del glosario" and entry.msgid != "Puntos":
            if entry.msgid in ("Descanso", "No presentación"):
                continue  # everyday words, translated, with the Spanish in brackets
            assert entry.msgstr == entry.msgid, entry.msgid


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_glossary_explains_every_term_once(client, lang):
    body = client.get("/glosario/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    body = html.unescape(body)
    entries = dict(
        (anchor, (re.sub(r"\s+", " ", dt).strip(), re.sub(r"\s+", " ", dd).strip()))
        for anchor, dt, dd in re.findall(
            r'<dt id="([^"]+)">(.*?)</dt>\s*<dd>(.*?)</dd>', body, re.S
        )
    )
    for term, word in EXPLAINED[lang].items():
        dt, dd = entries[term]
        assert body.count(f'id="{term}"') == 1, term
        assert re.search(TERMS[term][1], dt, re.I), (term, dt)
        assert word.lower() in dd.lower(), (term, dd)


# --- shorthand, said in words where it is shown ------------------------------------------------


def _legend(body: str) -> list[str]:
    return [html.unescape(p) for p in re.findall(r'<p class="hint legend">(.*?)</p>', body, re.S)]


def _columns_in_words(t, lang) -> list[str]:
    system = systems.of(t)
    with translation.override(lang):
        columns = system.presentation.columns(t.final_places())
        return [f"{c.abbr}: {c.title}" for c in columns if c.abbr != c.title]


@pytest.fixture
def dominó(director):
    """A running dominó of pairs: table 1 ended by time (60–40), table 2 a no-show of B."""
    t, e = builders.running_tournament(
        system="domino", mode="pairs", n=4, acting_user=director, time_limit=40
    )
    builders.play(
        t,
        1,
        [(0, 1), (2, 3)],
        [builders.tantos(60, 40, ended_by_time=True), builders.tantos(100, 0, forfeiting_side="B")],
        entries=e,
        acting_user=director,
    )
    return t


@pytest.fixture
def swiss(director):
    """A running Swiss: a match drawn 1–1 with a drawn game, and a bye."""
    t, e = builders.running_tournament(system="swiss", mode="single", n=3, acting_user=director)
    builders.play(
        t,
        1,
        [(0, 1)],
        [{"games_a": 1, "games_b": 1, "games_drawn": 1}],
        entries=e,
        acting_user=director,
    )
    return t


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["es", "en", "ru"])
@pytest.mark.parametrize("which", ["dominó", "swiss"])
def test_standings_say_their_column_shorthand_in_words(client, request, which, lang):
    t = request.getfixturevalue(which)
    body = client.get(
        reverse("public:standings", args=[t.slug]), HTTP_ACCEPT_LANGUAGE=lang
    ).content.decode()
    legend = " ".join(_legend(body))
    expected = _columns_in_words(t, lang)
    assert expected
    for words in expected:
        assert words in legend, (words, legend)
    if which == "swiss" and lang == "es":
        assert "G–P–E (D): Ganados–perdidos–empatados (descansos)" in legend
    if which == "dominó" and lang == "en":
        assert "TF: Tantos a favor" in legend and "TC: Tantos en contra" in legend


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, words",
    [
        ("es", ["T: terminada por tiempo", "NP: no presentación"]),
        ("en", [": ended by time", ": forfeit (no-show)"]),
    ],
)
def test_table_cards_say_their_marks_in_words(client, dominó, lang, words):
    for url in (
        reverse("public:round", args=[dominó.slug, 1]),
        reverse("public:find_table", args=[dominó.slug]),
    ):
        legend = " ".join(_legend(client.get(url, HTTP_ACCEPT_LANGUAGE=lang).content.decode()))
        for said in words:
            assert said in legend, (url, said, legend)


@pytest.mark.django_db
def test_a_drawn_game_mark_is_said_in_words(client, swiss):
    body = client.get(reverse("public:round", args=[swiss.slug, 1])).content.decode()
    assert "(1 emp.): partidas empatadas" in " ".join(_legend(body))


def test_uneven_pairing_is_said_in_words():
    """The director's pairings page: "≠ puntuación" was a badge with its meaning only in a
    ``title``; the badge now says it."""
    source = (Path(settings.BASE_DIR) / "templates/tournaments/manage/pairings.html").read_text()
    badge = re.search(r'<span class="badge uneven"[^>]*>(.*?)</span>', source).group(0)
    assert "title=" not in badge and "≠" not in badge
    assert "Los lados llegan con distinta puntuación" in badge
