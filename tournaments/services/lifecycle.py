"""A tournament's life in one place: its states, the steps between them with their guards,
and the order of its rounds (docs/ARCHITECTURE.md, "Lifecycle").

**The tournament** is in one of ``Tournament.Status``:

    draft ──open_signup──▶ registration ──close_signup──▶ ready ──(round 1 paired)──▶ running
      │                      ▲    │                        │  ▲                          │
      └──────publish─────────┼────┼───────────────────────▶┘  │                       finish
                             └reopen_signup◀────────────────┘                            ▼
    any published state ──back_to_draft (reason: hidden again; its games leave the ranking)──▶ draft
    finished ──reopen (reason)──▶ running

A step (``STEPS``) names the states it leaves, the state it reaches, its guard (a refusal in
words, or None) and whether it needs a reason (kept in the tournament's history). Every path
that changes a tournament's status goes through ``check_step``: the steps page
(``take_step``), the settings page, the Django admin (both through
``services.update_tournament``), the commands and the imports. Pairing round 1 is the step
"start": ``_write_round`` takes it (``start``), from draft, registration or ready.

**A round** is paired (tables, no result yet) → playing (some results) → complete (every
table has its result) → closed (``round_state``). The next round is paired only once the one
before it is complete (``check_next_round``): otherwise refused with the tables still missing,
unless the director confirms "pair anyway" (``anyway``; the pairings page says what it costs:
the standings it pairs from are incomplete, and its players are told their tables at once).
The imports apply the same rule to every round of a file (``check_imported_rounds``), the
admin to a round it adds, and no command pairs past it.

``what_next`` is the sentence the director's page shows ("Faltan 3 mesas de la ronda 3:
2, 5, 7."), ``offers`` the steps its buttons offer now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext, gettext_lazy, ngettext

from tournaments import systems
from tournaments.errors import DomainError
from tournaments.models import Round, Table, Tournament
from tournaments.writing import audit, lock_tournament

DRAFT = Tournament.Status.DRAFT
REGISTRATION = Tournament.Status.REGISTRATION
READY = Tournament.Status.READY
RUNNING = Tournament.Status.RUNNING
FINISHED = Tournament.Status.FINISHED

#: The states of a round (``round_state``).
PAIRED, PLAYING, COMPLETE, CLOSED = "paired", "playing", "complete", "closed"
ROUND_STATES = (PAIRED, PLAYING, COMPLETE, CLOSED)


@dataclass(frozen=True)
class Step:
    """One step of a tournament's life: ``name`` (stable, used by the forms and tests),
    ``label`` (its button), from any of ``sources`` to ``target``; ``guard(t)`` returns the
    refusal (DomainError) or None; ``confirmable``: the codes of the refusals the director may
    pass by confirming (finishing with rounds open: "open_rounds"); ``reason``: a reason is required (kept in the
    history); ``by_pairing``: taken by pairing round 1, not by a button (the page links to
    the pairings instead)."""

    name: str
    label: str
    sources: tuple[str, ...]
    target: str
    guard: Callable[[Tournament], DomainError | None] | None = None
    confirmable: tuple[str, ...] = ()
    reason: bool = False
    by_pairing: bool = False


def _enough_entries(t: Tournament) -> DomainError | None:
    """One complete table: 2 entries (pairs, mano a mano, Swiss), 4 players with rotating
    partners, 3 at a table game (``ScoringSystem.seats_per_table``)."""
    count = t.entries.filter(dropped_after_round__isnull=True).count()
    minimum = systems.of(t).seats_per_table(t)[0]
    if count < minimum:
        return DomainError("too_few_entries_to_start", minimum=minimum, count=count)
    return None


def open_rounds_refusal(t: Tournament) -> DomainError | None:
    """The refusal of finishing ``t`` while some of its rounds are open: DomainError
    "open_rounds" whose ``params["rounds"]`` lists their numbers ("4, 5") and
    ``params["open_rounds"]`` says, for each by number, ``(number, tables, missing)``: its
    tables and how many of them have no result. None when every round is closed. One query."""
    rounds = t.open_rounds()
    if not rounds:
        return None
    return DomainError(
        "open_rounds",
        rounds=", ".join(str(r.number) for r in rounds),
        open_rounds=[(r.number, r.n_tables, r.n_tables - r.n_results) for r in rounds],
    )


def _played(t: Tournament) -> DomainError | None:
    """A draft that has rounds (it was played, then taken back to draft)."""
    return None if t.rounds.exists() else DomainError("no_rounds_yet")


def _not_played(t: Tournament) -> DomainError | None:
    """A tournament without rounds: only such a one takes sign-ups or waits to start (a played
    one taken back to draft is published again: "republish", "publish_finished")."""
    count = t.rounds.count()
    return DomainError("rounds_already_played", count=count) if count else None


STEPS: tuple[Step, ...] = (
    Step(
        "open_signup",
        gettext_lazy("Abrir la inscripción"),
        (DRAFT,),
        REGISTRATION,
        guard=_not_played,
    ),
    Step(
        "publish_ready",
        gettext_lazy("Publicar sin inscripción"),
        (DRAFT,),
        READY,
        guard=_not_played,
    ),
    Step(
        "close_signup",
        gettext_lazy("Cerrar la inscripción y pasar lista"),
        (REGISTRATION,),
        READY,
    ),
    Step("reopen_signup", gettext_lazy("Volver a abrir la inscripción"), (READY,), REGISTRATION),
    Step(
        "start",
        gettext_lazy("Emparejar la ronda 1"),
        (DRAFT, REGISTRATION, READY),
        RUNNING,
        guard=_enough_entries,
        by_pairing=True,
    ),
    Step(
        "finish",
        gettext_lazy("Terminar el torneo"),
        (RUNNING,),
        FINISHED,
        guard=open_rounds_refusal,
        confirmable=("open_rounds",),
    ),
    Step("reopen", gettext_lazy("Reabrir el torneo"), (FINISHED,), RUNNING, reason=True),
    # a draft that was played (taken back to draft after its rounds): published again
    Step("republish", gettext_lazy("Publicar de nuevo"), (DRAFT,), RUNNING, guard=_played),
    Step(
        "publish_finished",
        gettext_lazy("Publicar como terminado"),
        (DRAFT,),
        FINISHED,
        guard=lambda t: _played(t) or open_rounds_refusal(t),
        confirmable=("open_rounds",),
    ),
    Step(
        "back_to_draft",
        gettext_lazy("Volver a borrador"),
        (REGISTRATION, READY, RUNNING, FINISHED),
        DRAFT,
        reason=True,
    ),
)
_BY_NAME = {step.name: step for step in STEPS}


def step_named(name: str) -> Step:
    """The step called ``name``. Raises DomainError "unknown_step"."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise DomainError("unknown_step", step=name) from None


def _state_label(state: str) -> str:
    return str(Tournament.Status(state).label)


def steps_from(state: str) -> list[Step]:
    """The steps that leave ``state``, in ``STEPS`` order."""
    return [step for step in STEPS if state in step.sources]


def _not_allowed(state: str, target: str) -> DomainError:
    allowed = ", ".join(f"«{s.label}»" for s in steps_from(state)) or "—"
    return DomainError(
        "step_not_allowed",
        state=_state_label(state),
        target=_state_label(target),
        allowed=allowed,
    )


def step_between(state: str, target: str) -> Step:
    """The step from ``state`` to ``target``. Raises DomainError "step_not_allowed" (no such
    step: the message names the steps that leave ``state``)."""
    for step in STEPS:
        if state in step.sources and step.target == target:
            return step
    raise _not_allowed(state, target)


def check_step(
    t: Tournament,
    step: Step,
    *,
    state: str | None = None,
    reason: str = "",
    confirmed: bool = False,
) -> None:
    """Whether ``step`` may be taken by ``t`` now: its status (``state`` when given: the status
    a settings form is changing) is one of the step's sources, its guard passes (or the step
    is ``confirmable`` and ``confirmed``), and a ``reason`` is given when the step needs one.
    Raises DomainError "step_not_allowed", the guard's refusal ("too_few_entries_to_start",
    "open_rounds"), "step_needs_reason"."""
    state = t.status if state is None else state
    if state not in step.sources:
        raise _not_allowed(state, step.target)
    if step.guard is not None:
        refusal = step.guard(t)
        if refusal is not None and not (confirmed and refusal.code in step.confirmable):
            raise refusal
    if step.reason and not (reason or "").strip():
        raise DomainError("step_needs_reason", step=str(step.label))


#: The statuses a tournament is created in (the others are reached by steps).
FIRST_STATES = (DRAFT, REGISTRATION, READY)


def status_choices(t: Tournament | None) -> list[str]:
    """The statuses a settings form offers for ``t`` (None: a new tournament,
    ``FIRST_STATES``): its status and where the steps ``offers`` offers now lead (not those
    taken by pairing: round 1 is paired on the pairings page), in ``Tournament.Status``
    order."""
    if t is None:
        allowed = set(FIRST_STATES)
    else:
        allowed = {t.status} | {offer.step.target for offer in offers(t)}
    return [value for value in Tournament.Status.values if value in allowed]


def check_status_change(
    t: Tournament, old: str, new: str, *, reason: str = "", confirmed: bool = False
) -> Step | None:
    """The step a settings form, the admin or a command takes by setting ``t``'s status from
    ``old`` to ``new`` (None when it does not change), checked (``check_step``, with ``t``'s
    status read as ``old``). Raises as ``check_step`` and ``step_between``."""
    if old == new:
        return None
    step = step_between(old, new)
    check_step(t, step, state=old, reason=reason, confirmed=confirmed)
    return step


def _save_status(t: Tournament, target: str, acting_user, reason: str = "") -> None:
    t.status = target
    if reason:
        t._change_reason = reason.strip()[:100]
    audit(t, acting_user).save()


@transaction.atomic
def take_step(
    *, acting_user, tournament: Tournament, step: str, reason: str = "", confirmed: bool = False
) -> Tournament:
    """Take the step called ``step`` (``STEPS``) for ``tournament``, under its lock; the
    history names ``acting_user`` and keeps ``reason``. Returns the tournament. Raises
    DomainError "unknown_step", the refusals of ``check_step``; a step taken by pairing
    ("start") is refused here with "step_not_allowed" (pair round 1 instead)."""
    chosen = step_named(step)
    t = lock_tournament(tournament)
    if chosen.by_pairing:
        raise _not_allowed(t.status, chosen.target)
    check_step(t, chosen, reason=reason, confirmed=confirmed)
    _save_status(t, chosen.target, acting_user, reason)
    return t


def start(t: Tournament, acting_user) -> None:
    """The step "start" as pairing round 1 takes it (``t`` locked by the caller): a draft,
    a tournament taking sign-ups or ready becomes running; a running one stays so. Raises
    "tournament_finished_no_pairing" for a finished one, and the guard's refusal."""
    if t.status == RUNNING:
        return
    if t.status == FINISHED:
        raise DomainError("tournament_finished_no_pairing")
    check_step(t, _BY_NAME["start"])
    _save_status(t, RUNNING, acting_user)


# --- rounds ------------------------------------------------------------------------------------


def round_state(rnd: Round) -> str:
    """``rnd``'s state: "closed"; else "complete" (every table has a result, at least one
    table), "playing" (some results), "paired" (none yet). Uses the ``n_tables``/
    ``n_results`` annotations (``Round.completion_counts``) when present, else one query."""
    if rnd.closed:
        return CLOSED
    if hasattr(rnd, "n_tables") and hasattr(rnd, "n_results"):
        tables, results = rnd.n_tables, rnd.n_results
    else:
        tables, results = (
            Round.objects.filter(pk=rnd.pk)
            .annotate(**Round.completion_counts())
            .values_list("n_tables", "n_results")
            .get()
        )
    if tables and results == tables:
        return COMPLETE
    return PLAYING if results else PAIRED


def missing_tables(rnd: Round) -> list[int]:
    """The numbers of ``rnd``'s tables without a result, in order. One query."""
    return list(
        Table.objects.filter(round=rnd)
        .exclude(systems.has_result_q())
        .order_by("number")
        .values_list("number", flat=True)
    )


def _tables_text(numbers: list[int], most: int = 12) -> str:
    shown = ", ".join(str(n) for n in numbers[:most])
    return shown + (" …" if len(numbers) > most else "")


def incomplete_before(t: Tournament, number: int) -> tuple[int, list[int]] | None:
    """``(n, missing)`` when round ``n`` = ``number`` − 1 exists, is not complete and has
    tables without a result (``missing``: their numbers), else None. Two queries at most."""
    if number <= 1:
        return None
    previous = Round.objects.filter(tournament=t, number=number - 1).first()
    if previous is None:
        return None
    missing = missing_tables(previous)
    return (previous.number, missing) if missing else None


def check_next_round(t: Tournament, number: int, *, anyway: bool = False) -> None:
    """Whether round ``number`` of ``t`` may be paired (or re-paired) now: ``t`` is not
    finished, and the round before it has every result, unless ``anyway`` (the director
    confirmed "pair anyway"). Raises DomainError "tournament_finished_no_pairing",
    "previous_round_incomplete" (``number``, ``count``, ``tables``: the tables still
    missing, ``next``)."""
    if t.status == FINISHED:
        raise DomainError("tournament_finished_no_pairing")
    if not anyway:
        _refuse_gap(t, number, "previous_round_incomplete")


def check_imported_rounds(t: Tournament, numbers) -> None:
    """After an import wrote rounds ``numbers`` of ``t`` (inside its transaction): each of
    them after the first round is preceded by a complete round. Raises DomainError
    "import_round_incomplete" for the first that is not (nothing of the file is then kept)."""
    for number in sorted(set(numbers)):
        _refuse_gap(t, number, "import_round_incomplete")


def _refuse_gap(t: Tournament, number: int, code: str) -> None:
    """Raise DomainError ``code`` (``number`` of the round before, ``count`` and ``tables``
    still without a result, ``next``: ``number``) when round ``number`` of ``t`` follows an
    incomplete round (``incomplete_before``)."""
    gap = incomplete_before(t, number)
    if gap is not None:
        previous, missing = gap
        raise DomainError(
            code, number=previous, count=len(missing), tables=_tables_text(missing), next=number
        )


# --- what the director's page says and offers --------------------------------------------------


@dataclass(frozen=True)
class Next:
    """What comes next for a tournament: ``text`` (a sentence for the director), ``round``
    (the round to look at, or None), ``pair`` (the number of the round to pair next, or
    None), ``missing`` (tables of ``round`` without a result)."""

    text: str
    round: int | None = None
    pair: int | None = None
    missing: tuple[int, ...] = ()


def what_next(t: Tournament) -> Next:
    """The next thing to do with ``t``, in words (the director's page): e.g. "Faltan 3 mesas
    de la ronda 3: 2, 5, 7.", "La ronda 3 está completa: empareja la ronda 4.", "Todas las
    rondas están jugadas: termina el torneo.". Three queries at most."""
    if t.status == DRAFT:
        return Next(
            gettext("Borrador: solo lo ven sus directores. Ábrelo a la inscripción o publícalo.")
        )
    if t.status == FINISHED:
        return Next(gettext("Torneo terminado."))
    last = t.rounds.aggregate(last=Max("number"))["last"] or 0
    if last == 0:
        count = t.entries.count()
        too_few = _enough_entries(t)
        if too_few is not None:
            return Next(too_few.message)
        if t.status == REGISTRATION:
            text = ngettext(
                "Inscripción abierta: {count} inscripción. Ciérrala para pasar lista.",
                "Inscripción abierta: {count} inscripciones. Ciérrala para pasar lista.",
                count,
            )
        else:
            text = ngettext(
                "Listo para empezar: {count} inscripción. Pasa lista y empareja la ronda 1.",
                "Listo para empezar: {count} inscripciones. Pasa lista y empareja la ronda 1.",
                count,
            )
        return Next(text.format(count=count), pair=1)
    rnd = Round.objects.get(tournament=t, number=last)
    missing = missing_tables(rnd)
    if missing:
        text = ngettext(
            "Falta {count} mesa de la ronda {number}: {tables}.",
            "Faltan {count} mesas de la ronda {number}: {tables}.",
            len(missing),
        ).format(count=len(missing), number=last, tables=_tables_text(missing))
        return Next(text, round=last, missing=tuple(missing))
    if last < t.rounds_planned:
        text = gettext("La ronda {number} está completa: empareja la ronda {next}.").format(
            number=last, next=last + 1
        )
        return Next(text, round=last, pair=last + 1)
    return Next(gettext("Todas las rondas están jugadas: termina el torneo."), round=last)


@dataclass(frozen=True)
class Offer:
    """A step the director's page offers now: ``step``; ``refusal`` (its guard's message when
    the step is ``confirmable`` and needs the director's confirmation, else "")."""

    step: Step
    refusal: str = ""


def offers(t: Tournament) -> list[Offer]:
    """The steps ``t`` may take now, as the director's page offers them (``STEPS`` order): those
    leaving its status whose guard passes, and the ``confirmable`` ones whose guard refuses
    (with the refusal, to confirm). Steps taken by pairing are left out (the page links to the
    pairings). A query or two per guard."""
    found = []
    for step in steps_from(t.status):
        if step.by_pairing:
            continue
        refusal = step.guard(t) if step.guard is not None else None
        if refusal is None:
            found.append(Offer(step))
        elif refusal.code in step.confirmable:
            found.append(Offer(step, refusal.message))
    return found
