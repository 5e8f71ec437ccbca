"""Paper for the venue (tournaments/views/paper.py) and the link cards (views/sharing.py): the QR
code at the door decodes back to the tournament's address, the poster, a round's players by
name for the wall, the PDFs (their text read back), and the Open Graph tags of every public
page."""

import datetime as dt
import html
import re
import sys

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from clubsite import pagecache
from tournaments import services
from tournaments.views import paper
from tournaments.views.paper import name_order

pytestmark = pytest.mark.django_db

# Pairs, in entry order: (Óscar, Beatriz) (Ana Zeta, Anabel) (Íñigo, Elena) (Zoë, Carmen)
# (Nadia, Ulises). Alphabetically, word by word and ignoring accents: "Ana Zeta" before
# "Anabel", "Íñigo" among the I's, "Óscar" among the O's, "Zoë" last.
NAMES = [
    "Óscar Núñez",
    "Beatriz Ortega",
    "Ana Zeta",
    "Anabel Ruiz",
    "Íñigo Alcázar",
    "Elena Ibáñez",
    "Zoë Díaz",
    "Carmen Ávila",
    "Nadia Pérez",
    "Ulises Vega",
]
ALPHABETICAL = [
    "Ana Zeta",
    "Anabel Ruiz",
    "Beatriz Ortega",
    "Carmen Ávila",
    "Elena Ibáñez",
    "Íñigo Alcázar",
    "Nadia Pérez",
    "Óscar Núñez",
    "Ulises Vega",
    "Zoë Díaz",
]


def _year() -> int:
    return timezone.localdate().year


@pytest.fixture
def copa(director, django_capture_on_commit_callbacks):
    """ "Copa Puerta" (pairs to 100, 15 January of this year, rated), round 1: table 1 Óscar &
    Beatriz (A) beat Ana Zeta & Anabel (B) 100–40; table 2 Íñigo & Elena (A) against Zoë &
    Carmen (B), no result yet; Nadia & Ulises rest. The ledger is replayed (ranking pages)."""
    with django_capture_on_commit_callbacks(execute=True):
        t = services.create_tournament(
            acting_user=director, name="Copa Puerta", date=dt.date(_year(), 1, 15), mode="pairs"
        )
        players = [services.create_player(acting_user=director, full_name=n) for n in NAMES]
        e = [
            services.register_entry(acting_user=director, tournament=t, players=players[i : i + 2])
            for i in range(0, len(players), 2)
        ]
        rnd = services.set_pairings(
            acting_user=director,
            tournament=t,
            round_number=1,
            tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
        )
        services.record_result(
            acting_user=director,
            table=rnd.tables.get(number=1),
            tantos_a=100,
            tantos_b=40,
            version=0,
        )
    t.refresh_from_db()
    return t, players


def _url(name, t, *args):
    return reverse(name, args=[t.slug, *args])


# --- the QR code and the poster ----------------------------------------------------------------


def _dark_modules(svg: str) -> set[tuple[int, int]]:
    """The dark modules (column, row) of a segno SVG: its "qrline" path is one horizontal
    stroke per run of dark modules ("M4 4.5h7m2 0h1..."), in module units."""
    d = re.search(r'<path[^>]*class="qrline"[^>]*\sd="([^"]+)"', svg).group(1)
    dark, x, y = set(), 0.0, 0.0
    for command, args in re.findall(r"([MmHh])([-\d.\s]+)", d):
        numbers = [float(n) for n in args.split()]
        if command == "M":
            x, y = numbers
        elif command == "m":
            x, y = x + numbers[0], y + numbers[1]
        else:  # h: a run of dark modules
            dark.update((int(x) + i, int(y)) for i in range(int(numbers[0])))
            x += numbers[0]
    return dark


def decode_qr(svg: str) -> list[str]:
    """The texts of the QR codes in ``svg``, decoded by zxing-cpp from a picture of its
    modules drawn with Pillow (8 pixels a module, a white quiet zone of 4)."""
    import zxingcpp
    from PIL import Image  # Pillow comes with WeasyPrint

    dark = _dark_modules(svg)
    size = max(max(c for c, _ in dark), max(r for _, r in dark)) + 1 + paper.QR_BORDER
    scale = 8
    picture = Image.new("L", (size * scale, size * scale), 255)
    for column, row in dark:
        picture.paste(0, (column * scale, row * scale, (column + 1) * scale, (row + 1) * scale))
    return [found.text for found in zxingcpp.read_barcodes(picture)]


def test_the_qr_code_is_an_svg_that_decodes_to_the_tournaments_address(client, copa):
    t, _ = copa
    response = client.get(_url("public:qr", t))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    svg = response.content.decode()
    assert svg.startswith("<svg") and "<title>Copa Puerta</title>" in svg
    assert decode_qr(svg) == [f"http://testserver/torneos/{t.slug}/"]


def test_the_qr_code_follows_the_address_the_site_is_reached_at(client, copa, settings):
    t, _ = copa
    settings.ALLOWED_HOSTS = ["club.example.org"]
    svg = client.get(_url("public:qr", t), HTTP_HOST="club.example.org", secure=True)
    assert decode_qr(svg.content.decode()) == [f"https://club.example.org/torneos/{t.slug}/"]


def test_the_poster_shows_the_name_the_qr_code_and_the_short_address(client, copa):
    t, _ = copa
    body = client.get(_url("public:poster", t)).content.decode()
    assert "<h1>Copa Puerta</h1>" in body
    assert f'<p class="short-url">testserver/torneos/{t.slug}</p>' in body
    assert f'<img class="qr" src="/torneos/{t.slug}/qr.svg"' in body
    assert f"15 de enero de {_year()}" in body
    assert paper.short_address("https://club.example.org/torneos/copa/") == (
        "club.example.org/torneos/copa"
    )


def test_the_tournament_page_links_to_the_poster_and_the_standings_pdf(client, copa):
    t, _ = copa
    body = client.get(_url("public:tournament", t)).content.decode()
    assert f'href="/torneos/{t.slug}/cartel/"' in body
    assert f'href="/torneos/{t.slug}/clasificacion.pdf"' in body
    standings = client.get(_url("public:standings", t)).content.decode()
    assert f'href="/torneos/{t.slug}/clasificacion.pdf"' in standings
    rnd = client.get(_url("public:round", t, 1)).content.decode()
    assert f'href="/torneos/{t.slug}/ronda/1/por-nombre/"' in rnd


# --- the round by name -------------------------------------------------------------------------


def test_name_order_is_word_by_word_ignoring_case_and_accents():
    shuffled = ["Zoë Díaz", "óscar núñez", "Anabel Ruiz", "Íñigo Alcázar", "Ana Zeta", "Ana  Ávila"]
    assert sorted(shuffled, key=name_order) == [
        "Ana  Ávila",
        "Ana Zeta",
        "Anabel Ruiz",
        "Íñigo Alcázar",
        "óscar núñez",
        "Zoë Díaz",
    ]


def test_by_name_lists_every_player_alphabetically_with_table_side_and_partner(client, copa):
    t, _ = copa
    response = client.get(_url("public:round_by_name", t, 1))
    assert response.status_code == 200
    lines = response.context["lines"]
    assert [line.name for line in lines] == ALPHABETICAL
    where = {
        line.name: (line.table_number, line.side, line.position, line.partners, line.rests)
        for line in lines
    }
    assert where == {
        "Óscar Núñez": (1, "A", None, ["Beatriz Ortega"], False),
        "Beatriz Ortega": (1, "A", None, ["Óscar Núñez"], False),
        "Ana Zeta": (1, "B", None, ["Anabel Ruiz"], False),
        "Anabel Ruiz": (1, "B", None, ["Ana Zeta"], False),
        "Íñigo Alcázar": (2, "A", None, ["Elena Ibáñez"], False),
        "Elena Ibáñez": (2, "A", None, ["Íñigo Alcázar"], False),
        "Zoë Díaz": (2, "B", None, ["Carmen Ávila"], False),
        "Carmen Ávila": (2, "B", None, ["Zoë Díaz"], False),
        "Nadia Pérez": (None, "", None, ["Ulises Vega"], True),
        "Ulises Vega": (None, "", None, ["Nadia Pérez"], True),
    }
    body = response.content.decode()
    shown = re.findall(r'<li class="name-line[^"]*"><span class="who">([^<]+)</span>', body)
    assert shown == ALPHABETICAL
    assert (
        '<li class="name-line"><span class="who">Ana Zeta</span> <span class="where">Mesa 1 · '
        'Lado B</span> <span class="with">Con: Anabel Ruiz</span></li>'
    ) in body
    assert (
        '<li class="name-line rests"><span class="who">Nadia Pérez</span> <span class="where">'
        'descansa</span> <span class="with">Con: Ulises Vega</span></li>'
    ) in body
    # the round's tables by number, on a sheet of their own
    assert "<th>Mesas de la ronda 1</th>" not in body and "Mesas de la ronda 1" in body
    assert (
        '<tr><th scope="row">2</th><td>Íñigo Alcázar &amp; Elena Ibáñez</td>'
        "<td>Zoë Díaz &amp; Carmen Ávila</td></tr>"
    ) in body
    assert "Descansa: Nadia Pérez &amp; Ulises Vega" in body
    assert f'href="/torneos/{t.slug}/ronda/1/por-nombre.pdf"' in body


def test_by_name_numbers_the_seats_of_rotating_partners_and_of_a_table_game(client, director):
    t = services.create_tournament(
        acting_user=director, name="Individual", date=dt.date(2026, 12, 5), mode="individual"
    )
    e = [
        services.register_entry(
            acting_user=director,
            tournament=t,
            players=[services.create_player(acting_user=director, full_name=name)],
        )
        for name in ("Ana Ruiz", "Beto Sanz", "Carla Vela", "Dani Yuste")
    ]
    services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0], e[1]], [e[2], e[3]])]
    )
    lines = client.get(_url("public:round_by_name", t, 1)).context["lines"]
    assert [(ln.name, ln.side, ln.position, ln.partners) for ln in lines] == [
        ("Ana Ruiz", "A", 1, ["Beto Sanz"]),
        ("Beto Sanz", "A", 3, ["Ana Ruiz"]),
        ("Carla Vela", "B", 2, ["Dani Yuste"]),
        ("Dani Yuste", "B", 4, ["Carla Vela"]),
    ]
    body = client.get(_url("public:round_by_name", t, 1)).content.decode()
    assert '<span class="where">Mesa 1 · Lado A · asiento 3</span>' in body

    game = services.create_tournament(
        acting_user=director, name="Mesa", date=dt.date(2026, 12, 6), system="table"
    )
    g = [
        services.register_entry(
            acting_user=director,
            tournament=game,
            players=[services.create_player(acting_user=director, full_name=name)],
        )
        for name in ("Kira Nieto", "Inés Lago", "Juan Mora")
    ]
    services.update_tournament(acting_user=director, tournament=game, status="running")
    services.set_seating(acting_user=director, tournament=game, round_number=1, tables=[g])
    response = client.get(_url("public:round_by_name", game, 1))
    assert [(ln.name, ln.side, ln.position, ln.partners) for ln in response.context["lines"]] == [
        ("Inés Lago", "", 2, []),
        ("Juan Mora", "", 3, []),
        ("Kira Nieto", "", 1, []),
    ]
    body = response.content.decode()
    assert '<span class="where">Mesa 1 · Asiento 1</span>' in body
    assert "<td>1. Kira Nieto · 2. Inés Lago · 3. Juan Mora</td>" in body


def test_by_name_runs_a_fixed_number_of_queries(client, copa, django_assert_max_num_queries):
    t, _ = copa
    with django_assert_max_num_queries(5):
        assert client.get(_url("public:round_by_name", t, 1)).status_code == 200


# --- the PDFs ----------------------------------------------------------------------------------


def pdf_pages(response) -> list[str]:
    """The text of each page of a PDF answer, as pypdf extracts it (a line per line)."""
    import io

    from pypdf import PdfReader

    return [page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages]


def pdf_text(response) -> str:
    """The text of a PDF answer, whitespace collapsed."""
    return " ".join(" ".join(pdf_pages(response)).split())


def test_the_by_name_pdf_holds_every_player_in_order(client, copa):
    t, _ = copa
    response = client.get(_url("public:round_by_name_pdf", t, 1))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'inline; filename="{t.slug}-ronda-1-por-nombre.pdf"'
    assert response.content.startswith(b"%PDF-")
    by_name, by_table = pdf_pages(response)
    lines = by_name.splitlines()
    assert lines[:2] == [
        "Copa Puerta",
        "Ronda 1 · Cada jugador en orden alfabético, con su mesa y su asiento.",
    ]
    players = [lines[i : i + 3] for i in range(2, len(lines), 3)]  # name, where, partner
    assert [name for name, _, _ in players] == ALPHABETICAL
    assert players[0] == ["Ana Zeta", "Mesa 1 · Lado B", "Con: Anabel Ruiz"]
    assert players[6] == ["Nadia Pérez", "descansa", "Con: Ulises Vega"]
    assert by_table.splitlines()[:2] == ["Mesas de la ronda 1", "Copa Puerta"]
    assert "Íñigo Alcázar & Elena Ibáñez" in by_table


def test_the_standings_pdf_holds_every_player(client, copa):
    t, _ = copa
    response = client.get(_url("public:standings_pdf", t))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'inline; filename="{t.slug}-clasificacion.pdf"'
    text = pdf_text(response)
    assert "Copa Puerta" in text and "Clasificación" in text
    for name in NAMES:
        assert name in text, name
    assert text.index("Óscar Núñez") < text.index("Ana Zeta")  # the winners first


def test_without_the_pdf_library_a_pdf_address_answers_503_in_words(client, copa, monkeypatch):
    t, _ = copa
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # "import weasyprint" fails
    for url, page in (
        (_url("public:standings_pdf", t), _url("public:standings", t)),
        (_url("public:round_by_name_pdf", t, 1), _url("public:round_by_name", t, 1)),
    ):
        response = client.get(url)
        assert response.status_code == 503
        assert response["Content-Type"].startswith("text/html")
        body = response.content.decode()
        assert "El PDF no está disponible" in body and "Pango" in body
        assert f'href="{page}"' in body


def test_a_draft_has_no_paper_for_visitors(client, director):
    t = services.create_tournament(
        acting_user=director, name="Borrador", date=dt.date(2026, 12, 5), status="draft"
    )
    for url in (
        _url("public:qr", t),
        _url("public:poster", t),
        _url("public:standings_pdf", t),
    ):
        assert client.get(url).status_code == 404, url


def test_the_paper_pages_use_the_tournaments_page_cache_scope():
    for view in (
        paper.qr,
        paper.poster,
        paper.round_by_name,
        paper.round_by_name_pdf,
        paper.standings_pdf,
    ):
        assert view.page_scopes is pagecache.tournament_pages, view.__name__


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_a_cached_pdf_is_renewed_when_a_result_is_saved(
    client, copa, director, django_capture_on_commit_callbacks
):
    t, _ = copa
    url = _url("public:standings_pdf", t)
    first = client.get(url)
    assert client.get(url)["ETag"] == first["ETag"]  # stored
    table = t.rounds.get(number=1).tables.get(number=2)
    with django_capture_on_commit_callbacks(execute=True):
        services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=0, version=0
        )
    again = client.get(url)
    assert again["ETag"] != first["ETag"] and again.content != first.content


@pytest.mark.parametrize("lang", ["es", "en", "ru"])
def test_the_paper_pages_answer_in_each_language(client, copa, lang):
    t, _ = copa
    client.cookies["django_language"] = lang
    for url in (
        _url("public:poster", t),
        _url("public:round_by_name", t, 1),
        _url("public:round_by_name_pdf", t, 1),
        _url("public:standings_pdf", t),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        if response["Content-Type"].startswith("text/html"):
            assert f'<html lang="{lang}">' in response.content.decode(), url
    with translation.override(lang):
        text = pdf_text(client.get(_url("public:round_by_name_pdf", t, 1)))
    assert "Óscar Núñez" in text


# --- link cards (Open Graph) -------------------------------------------------------------------


def og_tags(response) -> dict[str, str]:
    """The Open Graph and Twitter meta tags of a page: {"og:title": ..., "twitter:card": ...}."""
    body = response.content.decode()
    return {
        name: html.unescape(content)
        for name, content in re.findall(
            r'<meta (?:property|name)="((?:og|twitter):\w+)" content="([^"]*)">', body
        )
    }


def test_a_page_without_a_card_gets_the_sites(client):
    assert og_tags(client.get("/")) == {
        "og:site_name": "Club de dominó",
        "og:title": "Club de dominó",
        "og:description": "Torneos del club: mesas, resultados, clasificaciones y ranking.",
        "og:type": "website",
        "og:url": "http://testserver/",
        "twitter:card": "summary",
    }


def test_each_public_page_has_its_card(client, copa):
    t, players = copa
    year = _year()
    base = f"http://testserver/torneos/{t.slug}/"
    leader = "Líder: Óscar Núñez & Beatriz Ortega (Puntos 2)"
    expected = {
        _url("public:tournament", t): (
            "Copa Puerta",
            f"15 de enero de {year} · En curso · Ronda 1 · {leader}",
            base,
        ),
        _url("public:standings", t): (
            "Clasificación · Copa Puerta",
            f"En curso · Ronda 1 · {leader}",
            base + "clasificacion/",
        ),
        _url("public:round", t, 1): (
            "Ronda 1 · Copa Puerta",
            "2 mesas, 1 con resultado · Descansa: Nadia Pérez & Ulises Vega",
            base + "ronda/1/",
        ),
        _url("public:find_table", t): (
            "Encuentra tu mesa · Copa Puerta",
            "Ronda 1: escribe tu nombre y verás tu mesa, tu lado y tu asiento.",
            base + "mesa/",
        ),
        _url("public:poster", t): ("Copa Puerta", f"15 de enero de {year}", base + "cartel/"),
        _url("public:round_by_name", t, 1): (
            "Ronda 1 · Por nombre · Copa Puerta",
            "Cada jugador en orden alfabético, con su mesa y su asiento.",
            base + "ronda/1/por-nombre/",
        ),
        reverse("rankings:ranking"): (
            f"Ranking {year}",
            # 1500 + 32 × (0.55 + 0.45 × 60/100 − 0.5) = 1510.24 (SCORING.md §2)
            f"El ranking Elo del club en {year} · Líder: Beatriz Ortega (1510,2)",
            "http://testserver/ranking/",
        ),
    }
    for url, (title, description, address) in expected.items():
        tags = og_tags(client.get(url))
        assert tags == {
            "og:site_name": "Club de dominó",
            "og:title": title,
            "og:description": description,
            "og:type": "website",
            "og:url": address,
            "twitter:card": "summary",
        }, url
    beatriz = players[1]
    tags = og_tags(client.get(reverse("rankings:player", args=[beatriz.pk])))
    assert (tags["og:title"], tags["og:description"], tags["og:type"]) == (
        "Beatriz Ortega · Ranking",
        f"Rating 1510,2 · puesto 1 en {year} · 1 partida en {year}",
        "profile",
    )
    ana = players[2]  # lost: 1500 − 10.24
    tags = og_tags(client.get(reverse("rankings:player", args=[ana.pk])))
    assert tags["og:description"] == f"Rating 1489,8 · puesto 3 en {year} · 1 partida en {year}"


def test_the_card_names_a_shared_top(client, copa, director):
    t, _ = copa
    table = t.rounds.get(number=1).tables.get(number=2)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=40, version=0)
    tags = og_tags(client.get(_url("public:standings", t)))  # level on every tiebreak
    assert tags["og:description"] == (
        "En curso · Ronda 1 · Empatados en cabeza: Óscar Núñez & Beatriz Ortega; "
        "Íñigo Alcázar & Elena Ibáñez (Puntos 2)"
    )


def test_a_finished_tournaments_card_names_its_winner(client, copa, director):
    t, _ = copa
    table = t.rounds.get(number=1).tables.get(number=2)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=60, version=0)
    services.update_tournament(
        acting_user=director, tournament=t, status="finished", open_rounds_ok=True
    )
    tags = og_tags(client.get(_url("public:tournament", t)))
    assert tags["og:description"] == (
        f"15 de enero de {_year()} · Terminado · Primer puesto: Óscar Núñez & Beatriz Ortega "
        "(Puntos 2)"
    )


def test_before_any_result_the_card_has_no_leader(client, director):
    t = services.create_tournament(
        acting_user=director,
        name="Copa Nueva",
        date=dt.date(2026, 12, 5),
        mode="pairs",
        status="registration",
    )
    tags = og_tags(client.get(_url("public:standings", t)))
    assert tags["og:description"] == "Inscripción · Todavía sin resultados"
    tags = og_tags(client.get(_url("public:find_table", t)))
    assert tags["og:description"] == (
        "Todavía no hay rondas: las mesas salen aquí cuando el director haga los emparejamientos."
    )


#: A name in each script people type, as a player would enter it.
NAMES_IN_EVERY_SCRIPT = {
    "Latin": "Nguyễn Văn Ánh",
    "Cyrillic": "Ёлкина Жанна",
    "Greek": "Νίκος Παπαδόπουλος",
    "Chinese": "王小明",
    "Japanese": "山田はなこ",
    "Korean": "김민준",
    "Arabic": "محمد علي",
}


@pytest.mark.parametrize("address", ["public:standings_pdf", "public:round_by_name_pdf"])
def test_the_pdfs_print_a_name_in_every_script_with_a_real_glyph(client, director, address, caplog):
    """Fonts for every script (Makefile PDF_PACKAGES: Noto, Noto CJK, DejaVu): WeasyPrint warns
    ".notdef glyph rendered" for a character no installed font has (an empty box on paper);
    none may be drawn, and the text of the PDF holds every name."""
    t = services.create_tournament(
        acting_user=director, name="Copa Alfabetos", date=dt.date(_year(), 2, 1), mode="single"
    )
    players = [
        services.create_player(acting_user=director, full_name=name)
        for name in NAMES_IN_EVERY_SCRIPT.values()
    ]
    players.append(services.create_player(acting_user=director, full_name="Ana Zeta"))
    entries = [
        services.register_entry(acting_user=director, tournament=t, players=[p]) for p in players
    ]
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([entries[i]], [entries[i + 1]]) for i in range(0, 8, 2)],
    )
    args = [t.slug] if address == "public:standings_pdf" else [t.slug, 1]
    with caplog.at_level("WARNING", logger="weasyprint"):
        response = client.get(reverse(address, args=args))
    assert response.status_code == 200
    assert [r.getMessage() for r in caplog.records if "notdef" in r.getMessage()] == []
    text = pdf_text(response)
    for script, name in NAMES_IN_EVERY_SCRIPT.items():
        assert name in text, script


@pytest.mark.parametrize("address", ["public:round_print", "public:round_by_name"])
def test_back_to_the_round_leads_a_director_to_the_directors_round_page(
    director_client, copa, address
):
    from django.test import Client

    t, _ = copa
    url = reverse(address, args=[t.slug, 1])
    back = '<a href="{}">← Volver a la ronda</a>'
    assert (
        back.format(f"/gestion/torneos/{t.slug}/ronda/1/")
        in director_client.get(url).content.decode()
    )
    assert back.format(f"/torneos/{t.slug}/ronda/1/") in Client().get(url).content.decode()
