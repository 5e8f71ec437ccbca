"""Directors' pages: a round's pairings / seating, by hand or from a proposal."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubsite.http import form_page
from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.forms import table_seats_formset
from tournaments.models import Round, Tournament
from tournaments.services import lifecycle
from tournaments.systems.base import versus
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    say_if_published,
    submitted_once,
)

SLOT_LABELS = {
    "a1": gettext_lazy("Lado A"),
    "b1": gettext_lazy("Lado B"),
    "a2": gettext_lazy("Lado A"),
    "b2": gettext_lazy("Lado B"),
    "s1": gettext_lazy("Asiento 1"),
    "s2": gettext_lazy("Asiento 2"),
    "s3": gettext_lazy("Asiento 3"),
    "s4": gettext_lazy("Asiento 4 (opcional)"),
}


def _rows_from_round(t: Tournament, rnd: Round) -> list[dict]:
    rows = []
    for table in rnd.tables_with_results():
        row = {}
        for seat in table.seats.all():
            key = (
                f"{seat.side.lower()}{seat.position}"
                if systems.of(t).has_sides
                else f"s{seat.position}"
            )
            row[key] = str(seat.entry_id)
        rows.append(row)
    return rows


def _proposal(t: Tournament, number: int, seed: int, by_id: dict):
    """Rows, the bye(s) and the score of each entry for a proposed round (Swiss pairing, or
    4-at-a-table seating). Raises DomainError."""
    system = systems.of(t)
    actions = system.actions(t)
    key = system.first_figure()
    if systems.SEATING_PROPOSAL in actions:
        seating, lines = t.propose_seating(number, seed=seed)
        if system.has_sides:  # rotating partners: seats 1 & 3 against 2 & 4
            rows = [
                {"a1": str(s1), "b1": str(s2), "a2": str(s3), "b2": str(s4)}
                for s1, s2, s3, s4 in seating.tables
            ]
        else:
            rows = [
                {f"s{i}": str(e) for i, e in enumerate(table, start=1)} for table in seating.tables
            ]
        byes = [by_id[e] for e in seating.byes if e in by_id]
    elif systems.SWISS_PROPOSAL in actions:
        pairing, lines = t.propose_pairings(number, seed=seed)
        rows = [{"a1": str(a), "b1": str(b)} for a, b in pairing.tables]
        byes = [by_id[pairing.bye]] if pairing.bye in by_id else []
    else:
        raise DomainError("action_not_applicable", system=system.label)
    scores = {pk: line.row.figures.get(key) for pk, line in lines.items()}
    return rows, byes, scores


def _scores_text(seat_scores: dict, has_sides: bool) -> str:
    """The standings score of each proposed seat ({slot: score}), as the table plays: side A
    against side B ("2 & 4 vs 2 & 3", ``systems.base.versus``), or every seat of a table game
    against the others ("2 vs 4 vs 3"); "" without scores."""
    if not seat_scores:
        return ""
    if not has_sides:
        return " vs ".join(str(x) for x in seat_scores.values())
    return versus(
        [x for s, x in seat_scores.items() if s.startswith("a")],
        [x for s, x in seat_scores.items() if s.startswith("b")],
    )


def _row_of_error(exc: DomainError, rows: list[dict], by_id: dict) -> int | None:
    """The index of the posted table ``exc`` is about, if any: the table where the entry it
    names sits (for "entry_twice", its second seat). None for a refusal of the whole round."""
    name = exc.params.get("name")
    if not name:
        return None
    seen = False
    for i, chosen in enumerate(rows):
        for value in chosen.values():
            entry = by_id.get(int(value)) if value.isdigit() else None
            if entry is None or entry.name != name:
                continue
            if exc.code != "entry_twice" or seen:
                return i
            seen = True
    return None


@director_required
@form_page
@submitted_once
def pairings(request, slug, number):
    """Build a round's tables by choosing who sits where (side A / side B, or seats 1–4 of a
    table game), by hand or from a proposal (``?proponer=1``: Swiss pairing by standings, or
    the 4-at-a-table seating engine) that the director can change before publishing.

    Unseated entries rest (byes). Refused (400) with every table's choices kept and the
    message inside the table it is about, its first seat focused (an entry twice, an
    incomplete table), or above the tables (a round that already has results).

    The form carries a one-time token (``access.one_submission``): a second copy of a post
    that saved stores nothing (the round is not written again) and shows the round.

    The order of play (``lifecycle.check_next_round``): while the round before has tables
    without a result, the page names them and offers no form, only "Emparejar igualmente"
    (``?igualmente=1``), which shows the form under a warning of what it costs (the
    standings it pairs from are incomplete; its players are told their tables at once) and
    posts ``anyway=1``. A finished tournament pairs no round.
    """
    t = managed_tournament(request, slug)
    entries = list(t.entries.select_related("player1", "player2").order_by("player1__full_name"))
    by_id = {e.pk: e for e in entries}
    system = systems.of(t)
    slots = system.presentation.slots(t)
    table_system = not system.has_sides
    formset = table_seats_formset(t, entries, request.POST if request.method == "POST" else None)
    n_tables = formset.total_form_count()
    rnd = Round.objects.filter(tournament=t, number=number).first()
    try:  # a round that cannot be made now: no form to fill in vain
        if rnd is None:
            services.check_new_round(t, number)
        lifecycle.check_next_round(t, number, anyway=True)  # a finished tournament
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:tournament", slug=t.slug)
    anyway = (request.POST if request.method == "POST" else request.GET).get(
        "anyway" if request.method == "POST" else "igualmente"
    ) == "1"
    gap = lifecycle.incomplete_before(t, number)
    if gap is not None and not anyway and request.method != "POST":
        previous, missing = gap
        return render(
            request,
            "tournaments/manage/pairings_wait.html",
            {"t": t, "number": number, "previous": previous, "missing": missing},
        )
    rows: list[dict] = []
    error = None
    error_row: int | None = None  # the index of the table the error is about
    status = 200
    proposed_seed = None
    proposal_byes: list = []
    scores: dict[int, object] = {}
    if request.method == "POST" and request.submission.repeated:
        return request.submission.answer(request, reverse("manage:round", args=[t.slug, number]))
    if request.method == "POST":
        # Every table's choices come back on a refusal, the message in the first bad table.
        rows = [{s: form.data.get(form.add_prefix(s), "") for s in slots} for form in formset]
        formset.is_valid()
        bad = next((i for i, form in enumerate(formset) if form.errors), None)
        if bad is not None:
            error, error_row = formset[bad].first_error(), bad
        tables = [table for form in formset if not form.errors for table in [form.table()] if table]
        seed_text = request.POST.get("seed", "")
        seed = int(seed_text) if seed_text.isdigit() and len(seed_text) < 12 else None
        if error is None:
            try:
                write = services.set_seating if table_system else services.set_pairings
                write(
                    acting_user=request.user,
                    tournament=t,
                    round_number=number,
                    tables=tables,
                    seed=seed,
                    seen=request.POST.get("seen") or None,
                    anyway=anyway,
                )
            except DomainError as exc:
                if exc.code == "stale_pairings":  # show the round as it is now
                    messages.error(request, exc.message)
                    return redirect("manage:pairings", slug=t.slug, number=number)
                error, error_row = exc.message, _row_of_error(exc, rows, by_id)
        if error is None:
            request.submission.saved(reverse("manage:round", args=[t.slug, number]))
            messages.success(
                request, _("Mesas de la ronda {number} guardadas.").format(number=number)
            )
            say_if_published(request, t)
            return redirect("manage:round", slug=t.slug, number=number)
        status = 400
    elif request.GET.get("proponer") == "1":
        seed = secrets.randbits(31)
        try:
            rows, proposal_byes, scores = _proposal(t, number, seed, by_id)
        except DomainError as exc:
            error, status = exc.message, 400
        else:
            proposed_seed = seed
    elif rnd is not None:
        rows = _rows_from_round(t, rnd)
    while len(rows) < n_tables:
        rows.append({s: "" for s in slots})
    table_rows = []
    for i, row in enumerate(rows[:n_tables]):
        seat_scores = {
            s: scores.get(int(v)) for s, v in row.items() if v.isdigit() and int(v) in scores
        }
        table_rows.append(
            {
                "number": i + 1,
                "index": i,
                "slots": [(s, SLOT_LABELS[s], row.get(s, "")) for s in slots],
                "scores": _scores_text(seat_scores, system.has_sides),
                "uneven": len(set(seat_scores.values())) > 1,
                "error": error if i == error_row else None,
            }
        )
    return render(
        request,
        "tournaments/manage/pairings.html",
        {
            "t": t,
            "number": number,
            "round": rnd,
            "entries": entries,
            "table_rows": table_rows,
            "error": error if error_row is None or error_row >= n_tables else None,
            "seed": proposed_seed if proposed_seed is not None else request.POST.get("seed", ""),
            "proposal_byes": proposal_byes,
            "proposed": proposed_seed is not None,
            "has_sides": system.has_sides,
            "per_side": system.entries_per_side(t),
            "seating_proposal": systems.SEATING_PROPOSAL in system.actions(t),
            "swiss_proposal": systems.SWISS_PROPOSAL in system.actions(t),
            # the round as this form found it (a refused post keeps the one it was made from)
            "seen": request.POST.get("seen") or services.pairing_fingerprint(t, number),
            # "pair anyway": the round before still misses these tables (lifecycle)
            "anyway": anyway and gap is not None,
            "gap": gap,
        },
        status=status,
    )
