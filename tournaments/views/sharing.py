"""Link cards: what a chat app or a social network shows for a link to a public page (Open
Graph ``og:title``, ``og:description``, ``og:type``; ``templates/_open_graph.html``, included
by ``base.html`` and the paper pages).

A view puts a ``LinkCard`` in its context as ``og``; a page without one gets the site's card
(the club's name and what the site holds). Every card is made from what the view computed
anyway (the standings' lines, the round's tables, the ranking's page): no query of its own.
Words in the active language, like the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext

from clubsite.numbers import format_number
from tournaments.models import Tournament

#: Between the parts of a description.
SEP = " · "
#: More entries than this level at the top are counted, not named.
NAMED_LEADERS = 3


@dataclass(frozen=True)
class LinkCard:
    """``og:title`` and ``og:description`` of a page (plain text, escaped by the template)
    and its ``og:type``."""

    title: str
    description: str
    type: str = "website"


@dataclass(frozen=True)
class Leader:
    """Who heads the standings: ``names`` (one, or several level at the top: position 1
    shared) and ``figure``, the column that ranks first with its value ("Puntos 6")."""

    names: tuple[str, ...]
    figure: str


def leader(system, lines, columns) -> Leader | None:
    """The head of the final places ``lines`` (``Tournament.final_places``: every line,
    placed first; ``columns``: the system's, ``system.presentation.columns(lines)``): the
    entries in 1st place; None while nobody has a place (no result yet) or nobody has scored
    (the first figure, ``system.first_figure()``, is 0 at the top)."""
    if not lines or lines[0].place is None or not lines[0].row.figures.get(system.first_figure()):
        return None
    strong = next((c for c in columns if c.strong), None)
    figure = f"{strong.abbr} {strong.value(lines[0])}" if strong else ""
    names = tuple(line.entry.name for line in lines if line.place == 1)
    return Leader(names=names, figure=figure)


def leader_text(head: Leader | None, *, finished: bool) -> str:
    """ "Líder: Ana & Beto (Puntos 6)"; "Primer puesto: …" once the tournament finished;
    "Empatados en cabeza: A; B (Puntos 6)" for a shared top (more than ``NAMED_LEADERS``:
    counted); "" without a leader."""
    if head is None:
        return ""
    if len(head.names) > NAMED_LEADERS:
        return gettext("{count} empatados en cabeza ({figure})").format(
            count=len(head.names), figure=head.figure
        )
    names = "; ".join(head.names)
    if len(head.names) > 1:
        text = gettext("Empatados en cabeza: {names} ({figure})")
    elif finished:
        text = gettext("Primer puesto: {names} ({figure})")
    else:
        text = gettext("Líder: {names} ({figure})")
    return text.format(names=names, figure=head.figure)


def _dates(t) -> str:
    text = date_format(t.date, "DATE_FORMAT")
    if t.end_date:
        text += " – " + date_format(t.end_date, "DATE_FORMAT")
    return text


def _round_word(number: int) -> str:
    return gettext("Ronda %(number)s") % {"number": number}


def _state(t, head: Leader | None, current_round) -> list[str]:
    """The tournament's status, the round being played (while it runs) and its leader."""

    parts = [str(t.get_status_display())]
    if current_round is not None and t.status == Tournament.Status.RUNNING:
        parts.append(_round_word(current_round.number))
    text = leader_text(head, finished=t.status == Tournament.Status.FINISHED)
    if text:
        parts.append(text)
    return parts


def tournament_card(t, *, head: Leader | None, current_round) -> LinkCard:
    """The tournament page: its name; dates, venue, status, the round being played, the
    leader ("5 de diciembre de 2026 · Casino · En curso · Ronda 2 · Líder: Ana & Beto
    (Puntos 6)")."""
    parts = [_dates(t), *([t.venue] if t.venue else []), *_state(t, head, current_round)]
    return LinkCard(t.name, SEP.join(parts))


def standings_card(t, *, head: Leader | None, current_round) -> LinkCard:
    """The standings: "Clasificación · <name>"; status, round, leader (or "Todavía sin
    resultados")."""
    parts = _state(t, head, current_round)
    if head is None:
        parts.append(gettext("Todavía sin resultados"))
    return LinkCard(f"{gettext('Clasificación')}{SEP}{t.name}", SEP.join(parts))


def round_card(t, rnd, tables, byes) -> LinkCard:
    """A round: "Ronda 2 · <name>"; its tables and how many have a result, "cerrada" once
    closed, who rests ("2 mesas, 1 con resultado · Descansa: Julia Ybarra")."""
    if tables:
        done = sum(1 for table in tables if table.any_result is not None)
        parts = [
            ngettext(
                "%(tables)s mesa, %(done)s con resultado",
                "%(tables)s mesas, %(done)s con resultado",
                len(tables),
            )
            % {"tables": len(tables), "done": done}
        ]
    else:
        parts = [gettext("Todavía sin mesas")]
    if rnd.closed:
        parts.append(gettext("cerrada"))
    if byes:
        rest = ngettext("Descansa", "Descansan", len(byes))
        parts.append(f"{rest}: {'; '.join(entry.name for entry in byes)}")
    return LinkCard(f"{_round_word(rnd.number)}{SEP}{t.name}", SEP.join(parts))


def find_table_card(t, rnd) -> LinkCard:
    """ "Find my table": what it is for, in the round being played."""
    if rnd is None:
        description = gettext(
            "Todavía no hay rondas: las mesas salen aquí cuando el director haga los "
            "emparejamientos."
        )
    else:
        description = gettext(
            "Ronda %(number)s: escribe tu nombre y verás tu mesa, tu lado y tu asiento."
        ) % {"number": rnd.number}
    return LinkCard(f"{gettext('Encuentra tu mesa')}{SEP}{t.name}", description)


def ranking_card(year: int, first_line=None) -> LinkCard:
    """The ranking of ``year``: "Ranking 2026"; its leader when the page shows the top
    (``first_line``: the first line of the first page, unfiltered; else None)."""
    parts = [gettext("El ranking Elo del club en {year}").format(year=year)]
    if first_line is not None:
        parts.append(
            gettext("Líder: {names} ({figure})").format(
                names=first_line.name, figure=format_number(first_line.rating, 1)
            )
        )
    return LinkCard(gettext("Ranking {year}").format(year=year), SEP.join(parts))


def player_card(
    player, *, rating, position, year: int, games_this_year: int, notice: bool = False
) -> LinkCard:
    """A player's page: "<name> · Ranking"; rating, this year's position and games ("Rating
    1612,3 · puesto 3 en 2026 · 12 partidas en 2026"), or that they have no rated game yet;
    while the ranking needs attention (``notice``), no figures."""
    title = f"{player.full_name}{SEP}{gettext('Ranking')}"
    if notice:
        return LinkCard(title, gettext("Su historial en el ranking Elo del club."), "profile")
    if rating is None:
        return LinkCard(title, gettext("Todavía no tiene partidas con ranking."), "profile")
    parts = [f"{gettext('Rating')} {format_number(rating, 1)}"]
    if position:
        parts.append(
            gettext("puesto %(position)s en %(year)s") % {"position": position, "year": year}
        )
    else:
        parts.append(gettext("sin partidas en %(year)s") % {"year": year})
    if games_this_year:
        parts.append(
            ngettext(
                "%(games)s partida en %(year)s", "%(games)s partidas en %(year)s", games_this_year
            )
            % {"games": games_this_year, "year": year}
        )
    return LinkCard(title, SEP.join(parts), "profile")


def poster_card(t) -> LinkCard:
    """The poster: the tournament's name; dates, venue."""
    return LinkCard(t.name, SEP.join([_dates(t), *([t.venue] if t.venue else [])]))


def by_name_card(t, rnd) -> LinkCard:
    """The wall list of a round: "Ronda 2 · Por nombre · <name>"."""
    return LinkCard(
        SEP.join([_round_word(rnd.number), gettext("Por nombre"), t.name]),
        gettext("Cada jugador en orden alfabético, con su mesa y su asiento."),
    )


def signup_card(t) -> LinkCard:
    """The sign-up page: "Inscripción · <name>"; dates, venue."""
    return LinkCard(
        SEP.join([gettext("Inscripción"), t.name]),
        SEP.join([_dates(t), *([t.venue] if t.venue else [])]),
    )


def check_in_card(t) -> LinkCard:
    """The players' own check-in: "Estoy aquí · <name>"."""
    return LinkCard(
        SEP.join([gettext("Estoy aquí"), t.name]),
        gettext("Escribe tu nombre y el código del día que verás en el local."),
    )


def clock_card(t, rnd) -> LinkCard:
    """The round clock: "Reloj · Ronda 2 · <name>" (no round yet: without it)."""
    parts = [gettext("Reloj"), *([_round_word(rnd.number)] if rnd else []), t.name]
    return LinkCard(SEP.join(parts), _dates(t))
