"""Paper for the venue: the QR code at the door, a poster with it, the by-name list of a round
for the wall (with the round's tables), and PDFs of that list and of the standings.

Public pages like their neighbours in ``views.public``: no login, drafts only for those who
manage them (``visibility.tournament_or_404``), and the shared page cache with the tournament's scope
(``pagecache.tournament_pages``), so a save anywhere in the tournament renews them.

The PDFs are made by WeasyPrint from the same templates as the pages (``pdf`` set in their
context: no links, no stylesheet to fetch; ``static/css/paper.css`` is handed over as text).
WeasyPrint needs Pango from the operating system; without it a PDF address answers 503 with a
page that says so in words (``tournaments/pdf_unavailable.html``), never a 500.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, field

import segno
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_safe

from clubsite.pagecache import public_page, tournament_pages
from tournaments import names, systems
from tournaments.models import Round, Tournament
from tournaments.views import sharing
from tournaments.views.public import seat_number, standings_context
from tournaments.views.visibility import round_back_url, tournament_or_404

log = logging.getLogger(__name__)

#: The stylesheet of the paper pages and of the PDFs (path under ``static/``).
PAPER_CSS = "css/paper.css"
#: The QR code: error correction level M (15 % of the code may be lost: a creased or
#: scratched poster still reads), a quiet zone of 4 modules (the standard's minimum), and 10
#: SVG units a module (the poster's stylesheet sets the printed size).
QR_ERROR = "m"
QR_BORDER = 4
QR_SCALE = 10
PDF_TYPE = "application/pdf"


# --- addresses and the QR code -----------------------------------------------------------------


def tournament_address(request, t: Tournament) -> str:
    """The absolute address of ``t``'s public page as this request reached the site
    ("https://club.example.org/torneos/copa-faro/"): scheme and host of the request (behind
    the proxy, its ``X-Forwarded-Proto`` and ``Host``)."""
    return request.build_absolute_uri(reverse("public:tournament", args=[t.slug]))


def short_address(url: str) -> str:
    """``url`` as a person types it from a poster: without the scheme and the last slash
    ("club.example.org/torneos/copa-faro"; the site adds the slash by itself)."""
    return url.split("://", 1)[-1].rstrip("/")


def qr_svg(url: str, *, title: str = "") -> bytes:
    """The QR code of ``url`` as an SVG document (UTF-8 bytes, no XML declaration): black
    modules on white (the quiet zone too, so it reads on any background), ``QR_SCALE`` units a module, ``QR_BORDER`` modules of
    quiet zone, error correction ``QR_ERROR``; ``title`` becomes its ``<title>``. Made by
    segno; the smallest version that holds ``url``."""
    code = segno.make(url, error=QR_ERROR, micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=QR_SCALE,
        border=QR_BORDER,
        dark="#000",
        light="#fff",
        xmldecl=False,
        title=title or None,
        desc=url,
    )
    return out.getvalue()


@require_safe
@public_page(scopes=tournament_pages)
def qr(request, slug):
    """``image/svg+xml``: the QR code of the tournament's public page, by its absolute address
    (``tournament_address``)."""
    t = tournament_or_404(request, slug)
    return HttpResponse(
        qr_svg(tournament_address(request, t), title=t.name), content_type="image/svg+xml"
    )


@require_safe
@public_page(scopes=tournament_pages)
def poster(request, slug):
    """A poster for the door, one A4 sheet: the tournament's name, dates and venue, its QR code
    (``qr``) and the short address (``short_address``) for those who type it."""
    t = tournament_or_404(request, slug)
    url = tournament_address(request, t)
    return render(
        request,
        "tournaments/poster.html",
        {"t": t, "url": url, "short_url": short_address(url), "og": sharing.poster_card(t)},
    )


# --- the round by name -------------------------------------------------------------------------


@dataclass
class NameLine:
    """One player of a round on the wall list: ``name``; ``table_number``, ``side`` ("A"/"B",
    "" at a table game), ``position`` (the seat's number where it tells where to sit:
    ``public.seat_number``; else None) and ``partners`` (the names on their side, without
    them; none at a table game); or ``rests`` (a bye), with the partner of their pair."""

    name: str
    table_number: int | None = None
    side: str = ""
    position: int | None = None
    partners: list[str] = field(default_factory=list)
    rests: bool = False


def name_order(name: str) -> tuple:
    """Sort key of a person's name in an alphabetical list: word by word, each word by its
    comparison key (``names.key``: case, accents and punctuation ignored), so "Ana Zeta" comes
    before "Anabel" and "Íñigo" among the I's; the name itself breaks a tie."""
    return tuple(names.key(word) for word in names.clean(name).split()), name


def round_players(t: Tournament, tables, byes) -> list[NameLine]:
    """Every player of the round, each on a line of their own (a pair's two players
    separately, each with the other as partner), in alphabetical order (``name_order``):
    seated players with their table, side and seat as "find my table" names them
    (``public.find_players``), resting ones (``byes``: entries) as ``rests``. Pure: reads the
    prefetched seats (``Round.tables_with_results``) only."""
    table_game = not systems.of(t).has_sides
    lines: list[NameLine] = []
    for table in tables:
        seats = list(table.seats.all())
        for seat in seats:
            for player in (seat.entry.player1, seat.entry.player2):
                if player is None:
                    continue
                partners = []
                if not table_game:
                    partners = [
                        p.full_name
                        for other in seats
                        if other.side == seat.side
                        for p in (other.entry.player1, other.entry.player2)
                        if p is not None and p.pk != player.pk
                    ]
                lines.append(
                    NameLine(
                        name=player.full_name,
                        table_number=table.number,
                        side="" if table_game else seat.side,
                        position=seat_number(seat, seats, table_game),
                        partners=partners,
                    )
                )
    for entry in byes:
        players = [p for p in (entry.player1, entry.player2) if p is not None]
        for player in players:
            lines.append(
                NameLine(
                    name=player.full_name,
                    partners=[p.full_name for p in players if p.pk != player.pk],
                    rests=True,
                )
            )
    lines.sort(key=lambda line: (name_order(line.name), line.table_number or 0))
    return lines


def _round_context(request, slug, number) -> dict:
    t = tournament_or_404(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    tables = rnd.tables_with_results()
    byes = rnd.bye_entries()
    return {
        "t": t,
        "round": rnd,
        "tables": tables,
        "byes": byes,
        "lines": round_players(t, tables, byes),
        "system": systems.of(t),
        "og": sharing.by_name_card(t, rnd),
        "back_url": round_back_url(request, t, rnd.number),
    }


@require_safe
@public_page(scopes=tournament_pages)
def round_by_name(request, slug, number):
    """The wall list of a round: every player in alphabetical order with their table and seat
    (``round_players``), in columns that fill an A4 sheet; then, on a sheet of its own, the
    round's tables with their sides. Five queries whatever the number of players
    (tournament, round, tables with results, seats with players, byes)."""
    return render(request, "tournaments/round_by_name.html", _round_context(request, slug, number))


@require_safe
@public_page(scopes=tournament_pages, heavy=True)
def round_by_name_pdf(request, slug, number):
    """``round_by_name`` as a PDF (A4), ``<slug>-ronda-<n>-por-nombre.pdf``; 503 in words when
    the server cannot make PDFs (``pdf_response``)."""
    context = _round_context(request, slug, number)
    t, rnd = context["t"], context["round"]
    return pdf_response(
        request,
        "tournaments/round_by_name.html",
        context,
        filename=f"{t.slug}-ronda-{rnd.number}-por-nombre.pdf",
        page=reverse("public:round_by_name", args=[t.slug, rnd.number]),
    )


# --- the standings as a PDF --------------------------------------------------------------------


@require_safe
@public_page(scopes=tournament_pages, heavy=True)
def standings_pdf(request, slug):
    """The standings as a PDF (A4): every line, with every column of the page
    (``public.standings_context``), ``<slug>-clasificacion.pdf``; 503 in words when the
    server cannot make PDFs (``pdf_response``)."""
    t = tournament_or_404(request, slug)
    context = {"t": t, "live": False, **standings_context(t)}
    return pdf_response(
        request,
        "tournaments/standings_paper.html",
        context,
        filename=f"{t.slug}-clasificacion.pdf",
        page=reverse("public:standings", args=[t.slug]),
    )


# --- making a PDF ------------------------------------------------------------------------------


class PdfUnavailable(Exception):
    """The server cannot make PDFs: WeasyPrint, or the libraries it loads from the operating
    system (Pango), are missing."""


def _weasyprint():
    """The ``weasyprint`` module; raises ``PdfUnavailable`` when it cannot be loaded (it loads
    Pango with ``dlopen`` on import: ``OSError`` when the library is missing)."""
    try:  # inside: a missing Pango must not stop the site, only its PDFs
        import weasyprint
    except (ImportError, OSError) as exc:
        raise PdfUnavailable(str(exc)) from exc
    return weasyprint


def render_pdf(html: str) -> bytes:
    """The PDF of the HTML document ``html`` (a page rendered with ``pdf`` set: it refers to
    no other file), styled by ``PAPER_CSS``. Raises ``PdfUnavailable``."""
    weasyprint = _weasyprint()
    with open(finders.find(PAPER_CSS), encoding="utf-8") as css:
        stylesheet = weasyprint.CSS(string=css.read())
    return weasyprint.HTML(string=html).write_pdf(stylesheets=[stylesheet])


def pdf_response(request, template: str, context: dict, *, filename: str, page: str):
    """``template`` rendered with ``context`` (and ``pdf``) as the PDF ``filename``, shown in
    the browser (``inline``). When the server cannot make PDFs: 503, a page that says so and
    links to ``page`` (the same on screen, to print from the browser)."""
    html = render_to_string(template, {**context, "pdf": True}, request=request)
    try:
        data = render_pdf(html)
    except PdfUnavailable as exc:
        log.warning("PDF unavailable: %s", exc)
        return render(request, "tournaments/pdf_unavailable.html", {"page": page}, status=503)
    response = HttpResponse(data, content_type=PDF_TYPE)
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
