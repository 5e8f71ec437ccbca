"""Directors' pages: players, tournaments, entries, pairings, results, castigos, sorteos, imports.

Thin views: a Django form checks the fields, a service does the write, a DomainError becomes
an inline message (HTMX) or a 400/409 page with the values the director typed kept.
"""
from __future__ import annotations

import re
import secrets
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tournaments import services
from tournaments.errors import DomainError
from tournaments.forms import (
    CastigoForm,
    EntryForm,
    ImportForm,
    MatchResultForm,
    PlayerForm,
    ResultForm,
    TournamentForm,
)
from tournaments.models import Castigo, Entry, Player, Round, Table, Tournament
from tournaments.permissions import can_enter_manage_area, can_manage, is_director
from tournaments.scoring import domino
from tournaments.views.public import standings_context

# --- access ------------------------------------------------------------------------------------


def director_required(view):
    """Login required; then the user must be a director (group "Directores"), a superuser, or a
    director of at least one tournament. Each view then checks the object: ``managed_tournament``
    (a tournament's own directors and superusers) or ``is_director`` (players, new tournaments)."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not can_enter_manage_area(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def managed_tournament(request, slug) -> Tournament:
    """The tournament ``slug`` if the user may manage it; 404 / 403 otherwise."""
    t = get_object_or_404(Tournament, slug=slug)
    if not can_manage(request.user, t):
        raise PermissionDenied
    return t


def _status_for(exc: DomainError) -> int:
    return 409 if exc.code in {"stale_version", "round_closed"} else 400


# --- home and players --------------------------------------------------------------------------


@director_required
@require_GET
def home(request):
    tournaments = Tournament.objects.order_by("-date", "name")
    if not request.user.is_superuser:
        tournaments = tournaments.filter(directors=request.user)
    return render(request, "tournaments/manage/home.html", {
        "tournaments": tournaments, "is_director": is_director(request.user),
    })


@director_required
@require_GET
def player_list(request):
    if not is_director(request.user):
        raise PermissionDenied
    q = request.GET.get("q", "").strip()[:100]
    players = Player.objects.all()
    if q:
        players = players.filter(
            Q(full_name__icontains=q) | Q(nickname__icontains=q) | Q(member_number__iexact=q)
        )
    return render(request, "tournaments/manage/player_list.html", {"players": players[:500], "q": q})


def _player_form_page(request, form, player, duplicates, status=200):
    return render(
        request, "tournaments/manage/player_form.html",
        {"form": form, "player": player, "duplicates": duplicates}, status=status,
    )


@director_required
@require_http_methods(["GET", "POST"])
def player_edit(request, pk=None):
    """Add (pk None) or edit a player. A name equal to another after NFC and case folding asks
    for confirmation first (duplicate warning); the name is stored exactly as typed."""
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk) if pk else None
    if request.method == "GET":
        initial = {"active": True}
        if player:
            initial = {f: getattr(player, f) for f in ("full_name", "nickname", "member_number", "email", "phone", "active")}
        return _player_form_page(request, PlayerForm(initial=initial), player, [])
    form = PlayerForm(request.POST)
    if not form.is_valid():
        return _player_form_page(request, form, player, [], status=400)
    data = form.cleaned_data
    duplicates = services.similar_players(data["full_name"], exclude_id=player.pk if player else None)
    if duplicates and not data["confirm_duplicate"]:
        form.data = form.data.copy()
        form.data["confirm_duplicate"] = "on"
        return _player_form_page(request, form, player, duplicates, status=200)
    fields = {k: data[k] for k in ("full_name", "nickname", "member_number", "email", "phone")}
    try:
        if player:
            player = services.update_player(acting_user=request.user, player=player, active=data["active"], **fields)
            messages.success(request, _("Jugador «{name}» guardado.").format(name=player.full_name))
        else:
            player = services.create_player(acting_user=request.user, **fields)
            messages.success(request, _("Jugador «{name}» registrado.").format(name=player.full_name))
    except DomainError as exc:
        form.add_error(None, exc.message)
        return _player_form_page(request, form, player, [], status=400)
    return redirect("manage:players")


@director_required
@require_POST
def player_set_active(request, pk):
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk)
    active = request.POST.get("active") == "1"
    services.set_player_active(acting_user=request.user, player=player, active=active)
    text = _("«{name}» activado.") if active else _("«{name}» desactivado.")
    messages.success(request, text.format(name=player.full_name))
    return redirect("manage:players")


@director_required
@require_POST
def player_delete(request, pk):
    if not is_director(request.user):
        raise PermissionDenied
    player = get_object_or_404(Player, pk=pk)
    try:
        services.delete_player(acting_user=request.user, player=player)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:players")
    messages.success(request, _("«{name}» borrado.").format(name=player.full_name))
    return redirect("manage:players")


# --- tournaments and entries -------------------------------------------------------------------


FORM_TOKEN_SECONDS = 24 * 60 * 60
_FORM_TOKEN = re.compile(r"[0-9a-f]{32}")


def _submission_key(request) -> str | None:
    token = request.POST.get("form_token", "")
    return f"clubsite:form:{token}" if _FORM_TOKEN.fullmatch(token) else None


def _first_submission(request) -> bool:
    """Whether this POST is the first one of its form (the ``form_token`` the GET handed out):
    a double click, a reload of the answer or two taps on a slow phone send the same form
    twice, and only the first may create. The token is claimed in the shared cache with an
    atomic ``add``, so two copies arriving at once on two app servers still create once. A POST
    without a token (a script) is always a first."""
    key = _submission_key(request)
    return key is None or cache.add(key, True, FORM_TOKEN_SECONDS)


def _release_submission(request) -> None:
    """The claimed submission created nothing (refused): the corrected form may be sent again."""
    key = _submission_key(request)
    if key:
        cache.delete(key)


@director_required
@require_http_methods(["GET", "POST"])
def tournament_edit(request, slug=None):
    """Create (slug None) or change a tournament's settings."""
    t = managed_tournament(request, slug) if slug else None
    if not t and not is_director(request.user):
        raise PermissionDenied
    if request.method == "GET":
        form = TournamentForm(instance=t) if t else TournamentForm(initial={"status": "registration"})
        return render(request, "tournaments/manage/tournament_form.html",
                      {"form": form, "t": t, "form_token": secrets.token_hex(16)})
    form = TournamentForm(request.POST, instance=t) if t else TournamentForm(request.POST)
    context = {"form": form, "t": t, "form_token": request.POST.get("form_token", "")}
    if not form.is_valid():
        return render(request, "tournaments/manage/tournament_form.html", context, status=400)
    if not t and not _first_submission(request):
        messages.info(request, _("Ese formulario ya se había enviado: el torneo se creó una sola vez."))
        return redirect("manage:home")
    fields = {f: form.cleaned_data[f] for f in services.TOURNAMENT_FIELDS}
    try:
        if t:
            with transaction.atomic():  # the settings and the director list, or neither
                t = services.update_tournament(acting_user=request.user, tournament=t, **fields)
                t = services.set_tournament_directors(
                    acting_user=request.user, tournament=t, directors=form.cleaned_data["directors"],
                )
        else:
            t = services.create_tournament(acting_user=request.user, **fields)
    except DomainError as exc:
        if not t:
            _release_submission(request)
        form.add_error(None, exc.message)
        return render(request, "tournaments/manage/tournament_form.html", context, status=400)
    messages.success(request, _("Torneo «{name}» guardado.").format(name=t.name))
    return redirect("manage:tournament", slug=t.slug)


def _tournament_page(request, t, *, entry_form=None, import_form=None, import_errors=None, status=200):
    lines = t.standings()
    rounds = list(t.rounds.order_by("number"))
    return render(request, "tournaments/manage/tournament.html", {
        "t": t,
        "entries": list(t.entries.select_related("player1", "player2")),
        "rounds": rounds,
        "next_round": (rounds[-1].number + 1) if rounds else 1,
        "entry_form": entry_form or EntryForm(tournament=t),
        "import_form": import_form or ImportForm(),
        "import_errors": import_errors or [],
        "tied_groups": _tied_groups(lines),
    }, status=status)


def _tied_groups(lines) -> list[list]:
    """Groups of standings lines that share a position (candidates for a sorteo)."""
    groups: dict[int, list] = {}
    for line in lines:
        if line.row.shared:
            groups.setdefault(line.row.position, []).append(line)
    return [g for g in groups.values() if len(g) > 1]


@director_required
@require_GET
def tournament_manage(request, slug):
    return _tournament_page(request, managed_tournament(request, slug))


@director_required
@require_POST
def entry_add(request, slug):
    t = managed_tournament(request, slug)
    form = EntryForm(request.POST, tournament=t)
    if not form.is_valid():
        return _tournament_page(request, t, entry_form=form, status=400)
    players = [form.cleaned_data["player1"]]
    if form.cleaned_data.get("player2"):
        players.append(form.cleaned_data["player2"])
    try:
        entry = services.register_entry(acting_user=request.user, tournament=t, players=players)
    except DomainError as exc:
        form.add_error(None, exc.message)
        return _tournament_page(request, t, entry_form=form, status=400)
    messages.success(request, _("Inscrito: {name}.").format(name=entry.name))
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def entry_remove(request, slug, entry_id):
    t = managed_tournament(request, slug)
    entry = get_object_or_404(Entry, pk=entry_id, tournament=t)
    try:
        services.remove_entry(acting_user=request.user, entry=entry)
        messages.success(request, _("Inscripción de {name} quitada.").format(name=entry.name))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def entry_drop(request, slug, entry_id):
    """Drop an entry after the last round so far (``undo=1`` takes the drop back)."""
    t = managed_tournament(request, slug)
    entry = get_object_or_404(Entry, pk=entry_id, tournament=t)
    if request.POST.get("undo") == "1":
        services.undrop_entry(acting_user=request.user, entry=entry)
        messages.success(request, _("{name} vuelve a emparejarse.").format(name=entry.name))
    else:
        last = t.rounds.order_by("-number").values_list("number", flat=True).first() or 0
        services.drop_entry(acting_user=request.user, entry=entry, after_round=last)
        messages.success(request, _("{name} se retira después de la ronda {round}.").format(name=entry.name, round=last))
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def round_robin(request, slug):
    t = managed_tournament(request, slug)
    next_only = request.POST.get("next") == "1"
    try:
        created = services.generate_round_robin(acting_user=request.user, tournament=t, next_only=next_only)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:tournament", slug=t.slug)
    numbers = ", ".join(str(r.number) for r in created)
    messages.success(request, _("Rondas creadas: {numbers}.").format(numbers=numbers))
    return redirect("manage:round", slug=t.slug, number=created[0].number)


@director_required
@require_POST
def import_file(request, slug):
    """Upload form of the CSV imports (results or castigos); all-or-nothing."""
    t = managed_tournament(request, slug)
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _tournament_page(request, t, import_form=form, status=400)
    from tournaments import imports

    upload = form.cleaned_data["file"]
    if upload.size > 5 * 1024 * 1024:
        form.add_error("file", _("El archivo pasa de 5 MB."))
        return _tournament_page(request, t, import_form=form, status=400)
    data = upload.read()
    try:
        if form.cleaned_data["kind"] == "results":
            importer = {
                Tournament.System.SWISS: imports.import_match_results,
                Tournament.System.TABLE: imports.import_table_results,
            }.get(t.system, imports.import_domino_results)
            report = importer(acting_user=request.user, tournament=t, data=data)
            messages.success(request, _(
                "Resultados importados: creados {created}, cambiados {changed}, sin cambios {unchanged}."
            ).format(created=report.created, changed=report.changed, unchanged=report.unchanged))
            for warning in report.warnings:
                messages.warning(request, warning)
        else:
            n = imports.import_castigos(acting_user=request.user, tournament=t, data=data)
            messages.success(request, _("Castigos importados: {count}.").format(count=n))
    except DomainError as exc:
        errors = list(getattr(exc, "errors", []) or [])
        form.add_error(None, exc.message)
        return _tournament_page(request, t, import_form=form, import_errors=errors, status=400)
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def sorteo(request, slug):
    """Record a draw of lots for a tied group: POST ``entry`` ids in the drawn order."""
    t = managed_tournament(request, slug)
    ids = request.POST.getlist("entry")
    try:
        entry_ids = [int(x) for x in ids]
    except ValueError:
        messages.error(request, _("Orden de sorteo no válido."))
        return redirect("manage:tournament", slug=t.slug)
    if len(set(entry_ids)) != len(entry_ids):
        messages.error(request, _("En el sorteo cada competidor debe aparecer una sola vez."))
        return redirect("manage:tournament", slug=t.slug)
    entries = {e.pk: e for e in Entry.objects.filter(tournament=t, pk__in=entry_ids)}
    if len(entries) != len(entry_ids):
        messages.error(request, _("El sorteo incluye competidores que no son de este torneo."))
        return redirect("manage:tournament", slug=t.slug)
    try:
        services.record_sorteo(acting_user=request.user, tournament=t, entries_in_order=[entries[i] for i in entry_ids])
        messages.success(request, _("Sorteo registrado."))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:tournament", slug=t.slug)


# --- pairings ----------------------------------------------------------------------------------


def _pairing_slots(t: Tournament) -> list[str]:
    """The seat fields of one table on the pairings page. Individual dominó: seats 1 & 3 (side
    A) against 2 & 4 (side B); table games: seats 1–4 (the 4th may stay empty)."""
    if t.system == Tournament.System.TABLE:
        return ["s1", "s2", "s3", "s4"]
    if t.mode == Tournament.Mode.INDIVIDUAL:
        return ["a1", "b1", "a2", "b2"]
    return ["a1", "b1"]


SLOT_LABELS = {
    "a1": gettext_lazy("Lado A"), "b1": gettext_lazy("Lado B"), "a2": gettext_lazy("Lado A"),
    "b2": gettext_lazy("Lado B"), "s1": gettext_lazy("Asiento 1"), "s2": gettext_lazy("Asiento 2"),
    "s3": gettext_lazy("Asiento 3"), "s4": gettext_lazy("Asiento 4 (opcional)"),
}


def _rows_from_round(t: Tournament, rnd: Round) -> list[dict]:
    rows = []
    for table in rnd.tables_with_results():
        row = {}
        for seat in table.seats.all():
            key = f"s{seat.position}" if t.system == Tournament.System.TABLE else f"{seat.side.lower()}{seat.position}"
            row[key] = str(seat.entry_id)
        rows.append(row)
    return rows


def _proposal(t: Tournament, number: int, seed: int, by_id: dict):
    """Rows, the bye(s) and the score of each entry for a proposed round (Swiss pairing, or
    4-at-a-table seating). Raises DomainError."""
    if t.system == Tournament.System.TABLE or t.mode == Tournament.Mode.INDIVIDUAL:
        seating, lines = t.propose_seating(number, seed=seed)
        if t.system == Tournament.System.TABLE:
            rows = [{f"s{i}": str(e) for i, e in enumerate(table, start=1)} for table in seating.tables]
            key = "points"
        else:
            rows = [{"a1": str(s1), "b1": str(s2), "a2": str(s3), "b2": str(s4)} for s1, s2, s3, s4 in seating.tables]
            key = "puntos"
        byes = [by_id[e] for e in seating.byes if e in by_id]
    else:
        pairing, lines = t.propose_pairings(number, seed=seed)
        rows = [{"a1": str(a), "b1": str(b)} for a, b in pairing.tables]
        byes = [by_id[pairing.bye]] if pairing.bye in by_id else []
        key = "match_points" if t.system == Tournament.System.SWISS else "puntos"
    scores = {pk: line.row.figures.get(key) for pk, line in lines.items()}
    return rows, byes, scores


@director_required
@require_http_methods(["GET", "POST"])
def pairings(request, slug, number):
    """Build a round's tables by choosing who sits where (side A / side B, or seats 1–4 of a
    table game), by hand or from a proposal (``?proponer=1``: Swiss pairing by standings, or
    the 4-at-a-table seating engine) that the director can change before publishing.

    Unseated entries rest (byes). Refused with a message, values kept: an entry twice, an
    incomplete table, a round that already has results.
    """
    t = managed_tournament(request, slug)
    entries = list(t.entries.select_related("player1", "player2").order_by("player1__full_name"))
    by_id = {e.pk: e for e in entries}
    slots = _pairing_slots(t)
    table_system = t.system == Tournament.System.TABLE
    per_table = len(slots)
    n_tables = max(1, -(-len(entries) // 4) if table_system else len(entries) // per_table)
    rnd = Round.objects.filter(tournament=t, number=number).first()
    rows: list[dict] = []
    error = None
    status = 200
    proposed_seed = None
    proposal_byes: list = []
    scores: dict[int, object] = {}
    if request.method == "POST":
        tables = []
        # Every row first, so the choices of all tables come back on a refusal.
        rows = [{s: request.POST.get(f"t{i}_{s}", "") for s in slots} for i in range(n_tables)]
        for i, chosen in enumerate(rows):
            if not any(chosen.values()):
                continue
            try:
                picked = {s: by_id[int(v)] for s, v in chosen.items() if v}
            except (ValueError, KeyError):
                error = _("Hay un competidor que no es de este torneo.")
                break
            if table_system:
                if len(picked) < 3:
                    error = _("La mesa {table} tiene {count} jugador(es): una mesa lleva 3 o 4.").format(
                        table=i + 1, count=len(picked))
                    break
                tables.append([picked[s] for s in slots if s in picked])
                continue
            if len(picked) != per_table:
                error = _("La mesa {table} está incompleta: elige todos sus asientos.").format(table=i + 1)
                break
            tables.append(([picked[s] for s in ("a1", "a2") if s in picked],
                           [picked[s] for s in ("b1", "b2") if s in picked]))
        seed_text = request.POST.get("seed", "")
        seed = int(seed_text) if seed_text.isdigit() and len(seed_text) < 12 else None
        if error is None:
            try:
                write = services.set_seating if table_system else services.set_pairings
                write(acting_user=request.user, tournament=t, round_number=number, tables=tables, seed=seed)
            except DomainError as exc:
                error = exc.message
        if error is None:
            messages.success(request, _("Mesas de la ronda {number} guardadas.").format(number=number))
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
        seat_scores = [scores.get(int(v)) for v in row.values() if v.isdigit() and int(v) in scores]
        table_rows.append({
            "number": i + 1, "index": i,
            "slots": [(s, SLOT_LABELS[s], row.get(s, "")) for s in slots],
            "scores": " vs ".join(str(x) for x in seat_scores) if seat_scores else "",
            "uneven": len(set(seat_scores)) > 1,
        })
    return render(request, "tournaments/manage/pairings.html", {
        "t": t, "number": number, "round": rnd, "entries": entries, "table_rows": table_rows,
        "error": error, "seed": proposed_seed if proposed_seed is not None else request.POST.get("seed", ""),
        "proposal_byes": proposal_byes, "proposed": proposed_seed is not None,
    }, status=status)


# --- round page: results and castigos ----------------------------------------------------------


def _match_summary(result, table) -> str:
    """Words for a saved match result: who won and the match points (SCORING.md §3)."""
    a, b = table.side_name("A"), table.side_name("B")
    if result.games_a > result.games_b:
        return _("Gana {name} · puntos de encuentro 3–0").format(name=a)
    if result.games_b > result.games_a:
        return _("Gana {name} · puntos de encuentro 0–3").format(name=b)
    return _("Empate · puntos de encuentro 1–1")


def _table_game_context(table: Table, t: Tournament, *, typed: dict | None, error: str | None) -> dict:
    """Context of a 3–4 player table's row: each seat with the VP typed (or stored) and the
    tournament points the stored result gives (``scoring.table.tournament_points``)."""
    from tournaments.scoring import table as table_scoring

    result = table.table_result_or_none
    seats = list(table.seats.all())
    points: list = [None] * len(seats)
    if result is not None and all(s.vp is not None for s in seats) and 3 <= len(seats) <= 4:
        points = table_scoring.tournament_points([s.vp for s in seats], ended_by_time=result.ended_by_time)
    rows = []
    for seat, pts in zip(seats, points):
        value = typed.get(f"vp_{seat.entry_id}", "") if typed is not None else ("" if seat.vp is None else seat.vp)
        rows.append({"entry_id": seat.entry_id, "name": seat.entry.name, "position": seat.position,
                     "value": value, "points": pts})
    ended = (typed.get("ended_by_time") in ("on", "true", "1")) if typed is not None else bool(result and result.ended_by_time)
    version = typed.get("version", table.version) if typed is not None else table.version
    return {"table": table, "seats": rows, "ended_by_time": ended, "version": version, "error": error,
            "result": result, "t": t}


def _row_context(table: Table, t: Tournament, *, form=None, error: str | None = None) -> dict:
    """Context of one result row: the table, the form (bound with what was typed, or from the
    stored result), and the derived figures of the stored result (dominó puntos or the match)."""
    if t.system == Tournament.System.TABLE:
        return _table_game_context(table, t, typed=form, error=error)
    if t.system == Tournament.System.SWISS:
        result = table.match_result_or_none
        if form is None:
            initial = {"version": table.version}
            if result:
                initial.update(games_a=result.games_a, games_b=result.games_b, games_drawn=result.games_drawn)
            form = MatchResultForm(initial=initial)
        figures = _match_summary(result, table) if result else None
        return {"table": table, "form": form, "error": error, "figures": figures, "result": result, "t": t}
    result = table.result_or_none
    if form is None:
        initial = {"version": table.version}
        if result:
            initial.update(tantos_a=result.tantos_a, tantos_b=result.tantos_b, ended_by_time=result.ended_by_time)
        form = ResultForm(initial=initial)
    figures = None
    if result is not None:
        figures = domino.game_figures(result.tantos_a, result.tantos_b, target=t.target, ended_by_time=result.ended_by_time)
    return {"table": table, "form": form, "error": error, "figures": figures, "result": result, "t": t}


def _round_page_context(request, t: Tournament, rnd: Round) -> dict:
    tables = rnd.tables_with_results()
    return {
        "t": t, "round": rnd,
        "rows": [_row_context(table, t) for table in tables],
        "byes": rnd.bye_entries(),
        "castigo_form": CastigoForm(tournament=t),
        "castigos": list(rnd.castigos.select_related("player", "entered_by").order_by("created_at", "id")),
        "missing": sum(1 for table in tables if table.any_result is None),
        **standings_context(t),
    }


@director_required
@require_GET
def round_manage(request, slug, number):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    return render(request, "tournaments/manage/round.html", _round_page_context(request, t, rnd))


def _table_of(t: Tournament, table_id: int) -> Table:
    table = Table.with_results().filter(pk=table_id, round__tournament=t).select_related("round").first()
    if table is None:
        raise Http404(_("No existe esa mesa en este torneo."))
    return table


@director_required
@require_POST
def result_save(request, slug, table_id):
    """HTMX: save one table's result. Answers the row (with derived puntos) plus the standings
    out of band; on error the row again with the typed values and a message in words."""
    t = managed_tournament(request, slug)
    table = _table_of(t, table_id)
    if t.system == Tournament.System.TABLE:
        return _table_result_save(request, t, table)
    swiss_system = t.system == Tournament.System.SWISS
    form = MatchResultForm(request.POST) if swiss_system else ResultForm(request.POST)
    status, error = 200, None
    if not form.is_valid():
        error = _("Revisa los datos de la mesa: {errors}").format(errors="; ".join(
            str(e) for errs in form.errors.values() for e in errs
        ))
        status = 400
    else:
        data = form.cleaned_data
        try:
            if request.POST.get("action") == "delete":
                services.delete_result(acting_user=request.user, table=table, version=data["version"])
            elif swiss_system:
                services.record_match_result(
                    acting_user=request.user, table=table, games_a=data["games_a"], games_b=data["games_b"],
                    games_drawn=data["games_drawn"], version=data["version"],
                )
            else:
                services.record_result(
                    acting_user=request.user, table=table, tantos_a=data["tantos_a"], tantos_b=data["tantos_b"],
                    ended_by_time=data["ended_by_time"], forfeiting_side=data["forfeit"] or None,
                    version=data["version"],
                )
        except DomainError as exc:
            error, status = exc.message, _status_for(exc)
        else:
            table = _table_of(t, table_id)
            form = None
    if not request.htmx:
        if error:
            messages.error(request, _("Mesa {table}: {error}").format(table=table.number, error=error))
        else:
            messages.success(request, _("Mesa {table} guardada.").format(table=table.number))
        return HttpResponseRedirect(reverse("manage:round", args=[t.slug, table.round.number]) + f"#mesa-{table.number}")
    if error and status == 409:
        # Stale: the row shows what is stored now; what this director typed is only quoted in
        # the message, so saving again means typing it again on purpose.
        fresh = _table_of(t, table_id)
        context = _row_context(fresh, t, error=f"{error} {_typed_summary(request.POST)}")
    else:
        context = _row_context(table, t, form=form, error=error)
    context.update(standings_context(t))
    context.update(oob=True, round=table.round, missing=table.round.missing_results())
    response = render(request, "tournaments/manage/round.html#result_row_response", context)
    response.status_code = status
    return response


def _table_result_save(request, t: Tournament, table: Table):
    """The table-game branch of ``result_save``: VP per seat (``vp_<entry id>``) and "ended by time"."""
    typed = {k: v for k, v in request.POST.items() if k.startswith("vp_") or k in ("ended_by_time", "version")}
    error, status = None, 200
    version = request.POST.get("version", "")
    try:
        if not version.isdigit() or len(version) > 9:
            raise DomainError("stale_version", table=table.number)
        if request.POST.get("action") == "delete":
            services.delete_result(acting_user=request.user, table=table, version=int(version))
        else:
            scores = {}
            for key, value in request.POST.items():
                if key.startswith("vp_"):
                    entry_id = key[3:]
                    if not entry_id.isdigit():
                        raise DomainError("foreign_entry", name=entry_id[:20])
                    scores[int(entry_id)] = value
            services.record_table_result(
                acting_user=request.user, table=table, scores=scores,
                ended_by_time=request.POST.get("ended_by_time") in ("on", "true", "1"), version=int(version),
            )
    except DomainError as exc:
        error, status = exc.message, _status_for(exc)
    fresh = _table_of(t, table.pk)
    if not request.htmx:
        if error:
            messages.error(request, _("Mesa {table}: {error}").format(table=table.number, error=error))
        else:
            messages.success(request, _("Mesa {table} guardada.").format(table=table.number))
        return HttpResponseRedirect(reverse("manage:round", args=[t.slug, fresh.round.number]) + f"#mesa-{table.number}")
    if error and status == 409:
        context = _table_game_context(fresh, t, typed=None, error=f"{error} {_typed_summary(request.POST)}")
    else:
        context = _table_game_context(fresh, t, typed=typed if error else None, error=error)
    context.update(standings_context(t))
    context.update(oob=True, round=fresh.round, missing=fresh.round.missing_results())
    return render(request, "tournaments/manage/round.html#result_row_response", context, status=status)


def _typed_summary(post) -> str:
    """"Tus valores: 200–50" from a posted row, for the "this table changed" message."""
    if "games_a" in post:
        values = "–".join(post.get(k, "") or "0" for k in ("games_a", "games_b", "games_drawn"))
    elif "tantos_a" in post:
        values = f"{post.get('tantos_a', '')}–{post.get('tantos_b', '')}"
    else:
        values = ", ".join(v for k, v in post.items() if k.startswith("vp_"))
    return _("Lo que escribiste: {values}.").format(values=values[:60])


def _castigos_response(request, t, rnd, *, form=None, error=None, status=200):
    context = {
        "t": t, "round": rnd, "castigo_form": form or CastigoForm(tournament=t), "castigo_error": error,
        "castigos": list(rnd.castigos.select_related("player", "entered_by").order_by("created_at", "id")),
        "oob": True, **standings_context(t),
    }
    response = render(request, "tournaments/manage/round.html#castigos_response", context, status=status)
    return response


@director_required
@require_POST
def castigo_add(request, slug, number):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    form = CastigoForm(request.POST, tournament=t)
    error, status = None, 200
    if not form.is_valid():
        error = "; ".join(str(e) for errs in form.errors.values() for e in errs)
        status = 400
    else:
        try:
            services.add_castigo(acting_user=request.user, tournament=t, round=rnd, **form.cleaned_data)
            form = None
        except DomainError as exc:
            error, status = exc.message, _status_for(exc)
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or _("Castigo registrado."))
        return redirect("manage:round", slug=t.slug, number=number)
    return _castigos_response(request, t, rnd, form=form, error=error, status=status)


@director_required
@require_POST
def castigo_remove(request, slug, number, castigo_id):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    castigo = get_object_or_404(Castigo, pk=castigo_id, tournament=t)
    error, status = None, 200
    try:
        services.remove_castigo(acting_user=request.user, castigo=castigo)
    except DomainError as exc:
        error, status = exc.message, _status_for(exc)
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or _("Castigo quitado."))
        return redirect("manage:round", slug=t.slug, number=number)
    return _castigos_response(request, t, rnd, error=error, status=status)


@director_required
@require_POST
def round_close(request, slug, number):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    try:
        if request.POST.get("reopen") == "1":
            services.reopen_round(acting_user=request.user, round=rnd)
            messages.success(request, _("Ronda {number} reabierta.").format(number=number))
        else:
            services.close_round(acting_user=request.user, round=rnd)
            messages.success(request, _("Ronda {number} cerrada.").format(number=number))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:round", slug=t.slug, number=number)
