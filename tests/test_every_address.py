"""Every address of the site, walked (issue 25, points 6 and 7): a draft is private on every page
of the tournament, and HEAD answers wherever GET does.

The walks take every URL pattern of the site from ``get_resolver()``, through every include (the
public pages, the ranking, the directors' pages, the accounts, Django's login and password
reset, and the Django admin, every model's pages included), and fill each pattern's arguments
from the club built below (``VALUES``): once with the published tournament's objects, once with
the draft's. A pattern whose arguments the walk cannot fill (a new argument name, a regular
expression it cannot write) fails the walk with the pattern's name: give the argument a value in
``values()`` the day the pattern is added, and the page is covered from then on.

**Drafts** (``test_no_visitor_finds_the_draft_at_any_address``). For anonymous visitors and a
logged-in player, at every address: the draft's address (any argument naming one of its objects)
answers 404 wherever the published tournament's answers 200 (and, where the published one is
refused, the same refusal: nothing tells a draft from a published tournament), and no answer
(pages, CSV, workbooks, PDFs, the calendar feed, JSON, SVG) names the draft, its slug, its venue
or the player who only plays in it. A club director who does not direct the draft gets 404 on
its public pages too. Its own director and a superuser get every public page of it
(``test_the_drafts_directors_see_every_public_page_of_it``). The rule under test is one:
``permissions.can_see`` / ``Tournament.objects.public`` (``tournaments.views.visibility``);
``test_the_walk_finds_a_view_that_forgets_the_rule`` breaks it and checks that the walk names
the pages that then leak, and a page added without the rule.

**HEAD** (``test_head_answers_as_get_at_every_address``): anonymous and as a superuser (who
passes every gate, the admin's too), at every address, HEAD answers with GET's status,
``Content-Type``, ``Location`` and no body. The admin is walked on purpose: directors use it,
and its model admins are this project's. The server leaves the body out of a HEAD answer
(gunicorn; Django's test client as well), so what is compared is what the views decide.
"""

from __future__ import annotations

import io
import json
import re
import types
from dataclasses import dataclass
from types import SimpleNamespace

import openpyxl
import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldError
from django.http import HttpResponse, HttpResponseNotAllowed
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, path, resolve, reverse
from django.urls.resolvers import RoutePattern
from django.utils import timezone
from django.views.decorators.http import require_safe

import clubsite.urls
from rankings import ledger
from tournaments import services
from tournaments.models import ImportJob, Tournament, TournamentQuerySet
from tournaments.permissions import DIRECTORS_GROUP
from tournaments.views import paper

pytestmark = pytest.mark.django_db

PUBLISHED = "Copa Abierta del Puerto"
DRAFT = "Copa Clandestina"
DRAFT_VENUE = "Bodega Subterranea"
HIDDEN = "Zenobio Escondido"  # plays only in the draft
#: What no visitor may read anywhere (compared ignoring case: the draft's slug is
#: "copa-clandestina…"): the draft's name, its venue, the player who only plays in it.
SECRETS = ("clandestina", "subterranea", "zenobio", "escondido")
#: What a club director who does not direct the draft may not read on a public page (club
#: directors manage every player, the draft's too: they may see Zenobio's player page).
TOURNAMENT_SECRETS = ("clandestina", "subterranea")


# --- the club --------------------------------------------------------------------------------------


def build_club() -> SimpleNamespace:
    """The published "Copa Abierta del Puerto" (running, mano a mano: round 1 with two results
    and a castigo, an import job) directed by Clara (a club director); the draft "Copa
    Clandestina" at "Bodega Subterranea" (round 1 with a result, a bye and a castigo, sign-up
    and self check-in open, an import job, the sign-up request of Pablo, who plays in both)
    directed by Dora alone (staff, outside the group); both today and in this year's league;
    Zenobio Escondido plays only in the draft; Sara is a superuser; the ranking replayed."""
    group, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    clara = User.objects.create_user("clara", is_staff=True)
    clara.groups.add(group)
    dora = User.objects.create_user("dora", is_staff=True)
    sara = User.objects.create_superuser("sara")
    pablo_user = User.objects.create_user("pablo")
    today = timezone.localdate()
    names = ("Elena Pública", "Fausto Público", "Gloria Pública", "Pablo Jugador", HIDDEN)
    p = {
        name.split()[0]: services.create_player(
            acting_user=clara, full_name=name, member_number=f"S-{n}"
        )
        for n, name in enumerate(names, start=1)
    }
    services.claim_player(user=pablo_user, player=p["Pablo"])

    def tournament(user, name, venue):
        return services.create_tournament(
            acting_user=user,
            name=name,
            venue=venue,
            date=today,
            system="domino",
            mode="single",
            target=100,
            time_limit=30,
            status="registration",
        )

    published = tournament(clara, PUBLISHED, "Casino del Puerto")
    e = {
        k: services.register_entry(acting_user=clara, tournament=published, players=[p[k]])
        for k in ("Elena", "Fausto", "Gloria", "Pablo")
    }
    r1 = services.set_pairings(
        acting_user=clara,
        tournament=published,
        round_number=1,
        tables=[([e["Elena"]], [e["Fausto"]]), ([e["Gloria"]], [e["Pablo"]])],
    )
    for table in r1.tables.order_by("number"):
        services.record_result(acting_user=clara, table=table, tantos_a=100, tantos_b=40, version=0)
    services.add_castigo(
        acting_user=clara,
        tournament=published,
        player=p["Elena"],
        tantos=5,
        reason="Tarde",
        round=r1,
    )
    ImportJob.objects.create(tournament=published, requested_by=clara, file_name="puerto.csv")

    draft = tournament(None, DRAFT, DRAFT_VENUE)
    services.set_tournament_directors(acting_user=sara, tournament=draft, directors=[dora])
    draft = services.update_signup_settings(
        acting_user=dora,
        tournament=draft,
        signup_open=True,
        max_entries=None,
        signup_closes_at=None,
        signup_needs_approval=False,
    )
    services.sign_up(tournament=draft, name="Pablo Jugador", member_number="S-4")
    d = {
        k: services.register_entry(acting_user=dora, tournament=draft, players=[p[k]])
        for k in ("Zenobio", "Fausto")
    }
    pablo_entry = draft.entries.get(player1=p["Pablo"])
    d1 = services.set_pairings(
        acting_user=dora, tournament=draft, round_number=1, tables=[([d["Zenobio"]], [pablo_entry])]
    )
    services.record_result(
        acting_user=dora, table=d1.tables.get(), tantos_a=100, tantos_b=70, version=0
    )
    services.add_castigo(
        acting_user=dora, tournament=draft, player=p["Zenobio"], tantos=5, reason="Hablar", round=d1
    )
    services.new_check_in_code(acting_user=dora, tournament=draft)
    draft = services.update_tournament(
        acting_user=dora,
        tournament=Tournament.objects.get(pk=draft.pk),
        status="draft",
        reason="Publicado por error",
    )
    ImportJob.objects.create(tournament=draft, requested_by=dora, file_name="clandestina.csv")

    league = services.create_league(
        acting_user=clara, name="Liga del Puerto", season=today.year, tournaments=[published, draft]
    )
    ledger.replay_from(None)
    return SimpleNamespace(
        published=published,
        draft=Tournament.objects.get(pk=draft.pk),
        players=p,
        league=league,
        users={"clara": clara, "dora": dora, "sara": sara, "pablo": pablo_user},
        year=today.year,
    )


@pytest.fixture(scope="module")
def club(module_data):
    yield from module_data(build_club)


# --- the values of the patterns' arguments ---------------------------------------------------------


def _first(qs):
    found = qs.order_by("pk").first()
    assert found is not None, qs.model
    return found


def admin_object(model, t: Tournament):
    """The object of ``model`` an admin address names: one of tournament ``t``'s when the model
    belongs to a tournament, else the first there is (None when there is none)."""
    if model is Tournament:
        return t
    for through in ("tournament", "round__tournament", "table__round__tournament"):
        try:
            return model._default_manager.filter(**{through: t}).order_by("pk").first()
        except FieldError:
            continue
    return model._default_manager.order_by("pk").first()


def values(club, which: str) -> dict:
    """Argument name → value for the ``which`` tournament ("published" or "draft"): its slug,
    round 1, its objects; for the player pages the player only it has (Elena, Zenobio) against
    Fausto (in both); the rest (league, year, tokens, the admin's) the same for both."""
    t = club.published if which == "published" else club.draft
    own = club.players["Elena" if which == "published" else "Zenobio"]
    return {
        "slug": t.slug,
        "number": 1,
        "pk": own.pk,
        "other": club.players["Fausto"].pk,
        "entry_id": _first(t.entries).pk,
        "table_id": _first(t.rounds.get(number=1).tables).pk,
        "castigo_id": _first(t.castigos).pk,
        "job_id": _first(t.import_jobs).pk,
        "league": club.league.slug,
        "year": club.year,
        # claim, unsubscribe and password reset links: a link that does not work
        "token": "enlace-caducado",
        "uidb64": "MQ",
        # the Django admin (``object_id`` of a model's pages: ``admin_object``)
        "app_label": "tournaments",
        "content_type_id": ContentType.objects.get_for_model(Tournament).pk,
        "object_id": t.pk,
        "id": club.users["pablo"].pk,
        "url": "no-existe/",
    }


# --- walking the URLconf ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """One URL pattern with the resolvers above it: ``name`` is its namespaced name
    ("public:round"), or "<unnamed> route" without one; ``model`` the admin model its
    address belongs to (None outside a model's admin)."""

    name: str
    levels: tuple
    model: type | None

    @property
    def leaf(self) -> URLPattern:
        return self.levels[-1]


def every_pattern(resolver=None, levels=(), namespaces=()) -> list[Pattern]:
    """Every URL pattern of the site (``get_resolver()``), through every include."""
    resolver = resolver or get_resolver()
    models = {f"{m._meta.app_label}/{m._meta.model_name}/": m for m in admin.site._registry}
    found = []
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            ns = (*namespaces, p.namespace) if p.namespace else namespaces
            found += every_pattern(p, (*levels, p), ns)
        else:
            route = "".join(str(level.pattern) for level in (*levels, p))
            name = ":".join((*namespaces, p.name)) if p.name else f"<unnamed> {route}"
            model = next(
                (models[str(lv.pattern)] for lv in levels if str(lv.pattern) in models), None
            )
            found.append(Pattern(name, (*levels, p), model))
    return found


class CannotFill(Exception):
    pass


_PLACEHOLDER = re.compile(r"<(?:[^>:]+:)?(?P<name>[^>]+)>")


def _closing(regex: str, start: int) -> int:
    """The index of the parenthesis closing the group opened at ``start``."""
    depth, i = 0, start
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = regex.index("]", i + 1) + 1
            continue
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return i
        i += 1
    raise CannotFill(f"unbalanced {regex!r}")


def _fill_regex(regex: str, named: dict, positional: list) -> str:
    """``regex`` (a ``re_path``'s) written with ``named`` values for its named groups and
    ``positional`` ones, in order, for the others; CannotFill for anything else."""
    out, i, unnamed = [], 0, iter(positional)
    while i < len(regex):
        c = regex[i]
        if c == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            out.append(regex[i + 1])
            i += 2
        elif c in "^$":
            i += 1
        elif c == "(":
            end = _closing(regex, i)
            name = re.match(r"\?P<(\w+)>", regex[i + 1 : end])
            if name:
                if name.group(1) not in named:
                    raise CannotFill(f"no value for «{name.group(1)}»")
                out.append(str(named[name.group(1)]))
            elif regex[i + 1] == "?":
                raise CannotFill(f"a group the walk cannot write: {regex[i : end + 1]!r}")
            else:
                value = next(unnamed, None)
                if value is None:
                    raise CannotFill(f"no value for the group {regex[i : end + 1]!r}")
                out.append(str(value))
            i = end + 1
        elif c in "[]*+?{}|.\\":
            raise CannotFill(f"a regular expression the walk cannot write: {regex!r}")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def address(pattern: Pattern, vals: dict, t: Tournament) -> tuple[str, dict]:
    """The path of ``pattern`` with ``vals`` (admin model pages: the model's object of ``t``),
    and the values it used; CannotFill when an argument has no value."""
    vals = dict(vals)
    positional = []
    if pattern.model is not None:
        obj = admin_object(pattern.model, t)
        vals["object_id"] = obj.pk if obj is not None else 1
        history = getattr(obj, "history", None)
        record = history.order_by("history_id").first() if history is not None else None
        positional = [vals["object_id"], record.history_id if record else 1]
    used, parts = {}, []
    for level in pattern.levels:
        p = level.pattern
        if isinstance(p, RoutePattern):

            def one(m, converters=p.converters):
                name = m.group("name")
                if name not in vals:
                    raise CannotFill(f"no value for «{name}»")
                used[name] = vals[name]
                return str(converters[name].to_url(vals[name]))

            parts.append(_PLACEHOLDER.sub(one, str(p)))
        else:
            regex = str(p)
            used.update({n: vals[n] for n in p.regex.groupindex if n in vals})
            if p.regex.groups > len(p.regex.groupindex):
                used["object_id"], used["history_id"] = positional
            parts.append(_fill_regex(regex, vals, positional))
    url = "/" + "".join(parts)
    if resolve(url).func is not pattern.leaf.callback:
        raise CannotFill(f"{url} leads to another page")
    return url, used


def addresses(club, which: str, patterns=None) -> tuple[dict[str, tuple[str, dict]], list[str]]:
    """``{pattern name: (path, values used)}`` of every pattern for the ``which`` tournament,
    and the problems: the patterns the walk cannot fill, named."""
    t = club.published if which == "published" else club.draft
    vals = values(club, which)
    found, problems = {}, []
    for pattern in patterns or every_pattern():
        try:
            found[pattern.name] = address(pattern, vals, t)
        except CannotFill as exc:
            problems.append(f"{pattern.name}: the walk cannot fill it ({exc}); give it a value")
    return found, problems


class Visitor:
    """A client for one user (None: anonymous), logged in again if a page logged it out, and
    kept in Spanish (the language switcher's address sets a cookie)."""

    def __init__(self, user):
        self.user = user
        self.client = Client()
        if user is not None:
            self.client.force_login(user)

    def __call__(self, method: str, url: str):
        if self.user is not None and not self.client.cookies.get(settings.SESSION_COOKIE_NAME):
            self.client.force_login(self.user)
        response = self.client.generic(method, url)
        self.client.cookies.pop(settings.LANGUAGE_COOKIE_NAME, None)
        return response


#: How the walks' PDFs begin (``pdfs_from_html``).
PDF_OF_HTML = b"%PDF-from-html\n"


@pytest.fixture(autouse=True)
def pdfs_from_html(monkeypatch):
    """The walks' PDFs are the HTML WeasyPrint is given, behind ``PDF_OF_HTML``: what the PDF
    prints, without the 2 to 8 seconds WeasyPrint takes for each (tests/tournaments/
    test_paper.py reads real PDFs back)."""
    monkeypatch.setattr(paper, "render_pdf", lambda html: PDF_OF_HTML + html.encode())


def text_of(response) -> str:
    """What a reader gets out of ``response``, lower case: the cells of a workbook, what a PDF
    prints (``pdfs_from_html``), a JSON document with its characters unescaped, an iCalendar
    feed with its lines unfolded, any other body as text. The address asked for is left out
    (the 404 page's language switcher sends the reader back to it)."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    kind = response.get("Content-Type", "")
    if "spreadsheetml" in kind:
        book = openpyxl.load_workbook(io.BytesIO(body), read_only=True)
        text = "\n".join(
            str(cell) for sheet in book for row in sheet.iter_rows(values_only=True) for cell in row
        )
    elif "pdf" in kind:
        assert body.startswith(PDF_OF_HTML), body[:20]
        text = body.removeprefix(PDF_OF_HTML).decode()
    elif "json" in kind:
        text = json.dumps(json.loads(body), ensure_ascii=False)
    else:
        text = body.decode("utf-8", "replace").replace("\r\n ", "").replace("\n ", "")
    return text.lower().replace(response.wsgi_request.path.lower(), "")


def leaks(text: str, secrets) -> list[str]:
    return [s for s in secrets if s in text]


# --- point 6: drafts are private -------------------------------------------------------------------


def draft_walk(
    club, visitor: Visitor, secrets, *, patterns=None, public_only=None, hiding=None
) -> list[str]:
    """The problems at every address for ``visitor``: an address of the draft (one whose
    arguments name the draft's objects: those named ``hiding``, when given) that answers
    otherwise than 404 where the published tournament's answers 200 (or than the published
    one's refusal where that is refused), and any answer that names one of ``secrets``.
    ``public_only``: the published addresses' anonymous statuses; only the patterns that
    answer 200 there are walked (the public pages)."""
    published, _ = addresses(club, "published", patterns)
    draft, problems = addresses(club, "draft", patterns)
    for name, (url, used) in draft.items():
        if name not in published:
            continue
        if public_only is not None and public_only.get(name) != 200:
            continue
        shown = visitor("GET", url)
        found = leaks(text_of(shown), secrets)
        if found:
            problems.append(f"{name}: GET {url} ({shown.status_code}) shows {found}")
        pub_url, pub_used = published[name]
        of_the_draft = [n for n in used if used[n] != pub_used[n] and n in (hiding or used)]
        if not of_the_draft or shown.status_code == 404:
            continue  # nothing of the draft in the address, or a 404
        expected = visitor("GET", pub_url).status_code
        if shown.status_code != expected or expected == 200:
            problems.append(
                f"{name}: GET {url} answers {shown.status_code} (the published one {expected}; "
                "a draft is 404 for visitors)"
            )
    return problems


@pytest.fixture(scope="module")
def anonymous_statuses(club, django_db_blocker):
    """Each pattern's anonymous status at the published tournament's address (200: a public
    page)."""
    with django_db_blocker.unblock():
        found, _ = addresses(club, "published")
        visitor = Visitor(None)
        return {name: visitor("GET", url).status_code for name, (url, _) in found.items()}


def test_every_pattern_of_the_site_is_walked(club, anonymous_statuses):
    found, problems = addresses(club, "draft")
    assert not problems, "\n".join(problems)
    names = set(found)
    public = {name for name, status in anonymous_statuses.items() if status == 200}
    # the pages of a tournament, its paper, sign-up, check-in and clock, the lists, the
    # ranking and the leagues are all public pages the walk reaches
    assert {
        "public:home",
        "public:tournaments",
        "public:calendar",
        "public:calendar_ics",
        "public:tournament",
        "public:find_table",
        "public:check_in",
        "public:signup",
        "public:standings",
        "public:clock",
        "public:clock_state",
        "public:standings_csv",
        "public:standings_xlsx",
        "public:round",
        "public:round_print",
        "public:qr",
        "public:poster",
        "public:round_by_name",
        "public:leagues",
        "public:league",
        "public:league_csv",
        "public:league_xlsx",
        "rankings:ranking",
        "rankings:ranking_csv",
        "rankings:ranking_xlsx",
        "rankings:ledger_csv",
        "rankings:ledger_xlsx",
        "rankings:player",
        "rankings:player_csv",
        "rankings:head_to_head",
        "rankings:calculator",
        "rankings:player_search",
    } <= public
    assert {"manage:round", "manage:result_save", "admin:index"} <= names
    assert sum(name.startswith("admin:") or "admin/" in name for name in names) > 100


def test_no_visitor_finds_the_draft_at_any_address(club, anonymous_statuses):
    problems = draft_walk(club, Visitor(None), SECRETS)
    problems += draft_walk(club, Visitor(club.users["pablo"]), SECRETS)
    # a club director who does not direct the draft: its public pages are 404 for her too
    problems += draft_walk(
        club,
        Visitor(club.users["clara"]),
        TOURNAMENT_SECRETS,
        public_only=anonymous_statuses,
        hiding=("slug",),
    )
    assert not problems, "\n".join(problems)


def test_a_player_of_both_tournaments_shows_only_the_published_games(club):
    """Pablo played round 1 of both: his pages (the walks show Elena's, who plays only in
    the published one) and his meetings count the published game only."""
    pablo, gloria = club.players["Pablo"].pk, club.players["Gloria"].pk
    visitor = Visitor(None)
    for url in (
        reverse("rankings:player", args=[pablo]),
        reverse("rankings:player_csv", args=[pablo]),
        reverse("rankings:head_to_head", args=[pablo, gloria]),
        reverse("rankings:head_to_head", args=[gloria, pablo]),
        reverse("account:home"),
    ):
        shown = (
            visitor("GET", url) if "cuenta" not in url else Visitor(club.users["pablo"])("GET", url)
        )
        assert shown.status_code == 200, url
        text = text_of(shown)
        assert leaks(text, SECRETS) == [], url
        assert PUBLISHED.lower() in text, url
    zenobio = club.players["Zenobio"].pk
    assert (
        visitor("GET", reverse("rankings:head_to_head", args=[pablo, zenobio])).status_code == 404
    )


def test_the_drafts_directors_see_every_public_page_of_it(club, anonymous_statuses):
    draft, _ = addresses(club, "draft")
    published, _ = addresses(club, "published")
    of_the_draft = [
        name
        for name, status in anonymous_statuses.items()
        if status == 200 and draft[name][1] != published[name][1]
    ]
    assert sorted(of_the_draft) == [
        "public:check_in",
        "public:clock",
        "public:clock_state",
        "public:find_table",
        "public:poster",
        "public:qr",
        "public:round",
        "public:round_by_name",
        "public:round_by_name_pdf",
        "public:round_print",
        "public:signup",
        "public:standings",
        "public:standings_csv",
        "public:standings_pdf",
        "public:standings_xlsx",
        "public:tournament",
        "rankings:head_to_head",
        "rankings:player",
        "rankings:player_csv",
    ]
    wrong = []
    for user in ("dora", "sara"):
        visitor = Visitor(club.users[user])
        for name in of_the_draft:
            url = draft[name][0]
            shown = visitor("GET", url)
            if shown.status_code != 200:
                wrong.append(f"{user}: {name} GET {url} answers {shown.status_code}")
    assert not wrong, "\n".join(wrong)
    # and what they see is the draft: its name on its pages, its players in its files
    dora = Visitor(club.users["dora"])
    for name in ("public:tournament", "public:signup", "public:check_in", "public:poster"):
        assert DRAFT in dora("GET", draft[name][0]).content.decode(), name
    assert HIDDEN in dora("GET", draft["public:standings_csv"][0]).content.decode("utf-8-sig")
    assert HIDDEN in dora("GET", draft["rankings:player"][0]).content.decode()


def test_a_draft_takes_no_sign_up_nor_check_in_from_a_visitor(club):
    draft = club.draft
    requests, present = draft.signups.count(), draft.entries.filter(present=True).count()
    signup = Client().post(
        f"/torneos/{draft.slug}/inscribirse/",
        {"name": "Intrusa Nueva", "email": "intrusa@example.org", "member_number": ""},
    )
    check_in = Client().post(
        f"/torneos/{draft.slug}/presente/", {"name": HIDDEN, "code": draft.check_in_code}
    )
    assert (signup.status_code, check_in.status_code) == (404, 404)
    assert draft.signups.count() == requests
    assert draft.entries.filter(present=True).count() == present


DRAFT_NOTE = (
    "Es un borrador: sus páginas públicas (inscripción, presentes, reloj, resultados) solo las "
    "ven sus directores."
)


def test_a_drafts_directors_are_told_that_its_public_pages_are_theirs_only(club):
    dora, clara = Visitor(club.users["dora"]), Visitor(club.users["clara"])
    for name in ("manage:signups", "manage:check_in"):
        draft = dora("GET", reverse(name, args=[club.draft.slug])).content.decode()
        assert DRAFT_NOTE in draft, name
        settings_page = reverse("manage:tournament_edit", args=[club.draft.slug])
        assert (
            f'<a href="{settings_page}">Publícalo en los ajustes (estado «Inscripción»).</a>'
            in (draft)
        )
        published = clara("GET", reverse(name, args=[club.published.slug])).content.decode()
        assert "borrador" not in published, name
    english = dora.client.get(
        reverse("manage:signups", args=[club.draft.slug]), headers={"accept-language": "en"}
    )
    assert "This is a draft: its public pages (sign-up, check-in, clock, results) are seen by " in (
        english.content.decode()
    )


# --- a view that forgets the rule is found -----------------------------------------------------------


@require_safe
def _forgetful_page(request, slug):
    """A new tournament page that looks its tournament up without the rule."""
    t = Tournament.objects.get(slug=slug)
    return HttpResponse(f"<h1>{t.name}</h1>")


@require_safe
def _forgetful_list(request):
    """A new list that lists every tournament."""
    return HttpResponse(", ".join(Tournament.objects.values_list("name", flat=True)))


def _get_only(request):
    """A new page that answers GET and nothing else (as ``require_GET`` would)."""
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    return HttpResponse("hola")


def _mystery(request, clave):
    return HttpResponse("?")


#: The site's URLconf with four new pages.
NEW_PAGES = types.ModuleType("new_pages")
NEW_PAGES.urlpatterns = [
    *clubsite.urls.urlpatterns,
    path("torneos/<slug:slug>/olvido/", _forgetful_page, name="forgetful_page"),
    path("olvido/", _forgetful_list, name="forgetful_list"),
    path("solo-get/", _get_only, name="get_only"),
    path("misterio/<int:clave>/", _mystery, name="mystery"),
]


def test_the_walk_finds_a_view_that_forgets_the_rule(club, settings, monkeypatch):
    settings.ROOT_URLCONF = NEW_PAGES
    patterns = [p for p in every_pattern() if not p.name.startswith(("admin:", "<unnamed> admin/"))]
    problems = draft_walk(club, Visitor(None), SECRETS, patterns=patterns)
    assert sorted(p.split(":")[0] for p in problems) == [
        "forgetful_list",
        "forgetful_page",
        "forgetful_page",
        "mystery",
    ], problems
    assert "mystery: the walk cannot fill it (no value for «clave»)" in problems[0]
    assert "forgetful_page: GET /torneos/copa-clandestina" in "\n".join(problems)
    assert head_walk(
        club, Visitor(None), patterns=[p for p in patterns if p.name == "get_only"]
    ) == ["get_only: GET /solo-get/ 200, HEAD 405"]

    # The site's own pages, with the rule broken: a draft is shown like any tournament.
    settings.ROOT_URLCONF = "clubsite.urls"
    monkeypatch.setattr("tournaments.views.visibility.can_see", lambda user, t: True)
    monkeypatch.setattr(TournamentQuerySet, "public", lambda self: self.all())
    public = [p for p in every_pattern() if p.name.split(":")[0] in ("public", "rankings")]
    leaking = {p.split(":")[1] for p in draft_walk(club, Visitor(None), SECRETS, patterns=public)}
    assert {
        "tournaments",
        "calendar",
        "calendar_ics",
        "tournament",
        "find_table",
        "check_in",
        "signup",
        "standings",
        "clock",
        "clock_state",
        "standings_csv",
        "standings_xlsx",
        "round",
        "round_print",
        "qr",
        "poster",
        "standings_pdf",
        "round_by_name",
        "round_by_name_pdf",
        "league",
        "league_csv",
        "league_xlsx",
        "partner",
    } == leaking, "\n".join(sorted(leaking))


# --- point 7: HEAD answers wherever GET does ---------------------------------------------------------


def head_walk(club, visitor: Visitor, *, patterns=None) -> list[str]:
    """The addresses (the published tournament's) where ``visitor``'s HEAD answers otherwise
    than GET: another status, ``Content-Type`` or ``Location``, or a body."""
    found, problems = addresses(club, "published", patterns)
    for name, (url, _) in found.items():
        get, head = visitor("GET", url), visitor("HEAD", url)
        if head.status_code != get.status_code:
            problems.append(f"{name}: GET {url} {get.status_code}, HEAD {head.status_code}")
            continue
        for header in ("Content-Type", "Location"):
            if get.get(header) != head.get(header):
                problems.append(f"{name}: {header} {get.get(header)!r} ≠ {head.get(header)!r}")
        if head.content:
            problems.append(f"{name}: HEAD {url} has a body of {len(head.content)} bytes")
    return problems


def test_head_answers_as_get_at_every_address(club):
    problems = head_walk(club, Visitor(None))
    assert not problems, "\n".join(problems)


def test_head_answers_as_get_behind_every_login(club):
    """As a superuser, past every gate (the directors' pages, a player's own, the Django
    admin: every model's pages)."""
    problems = head_walk(club, Visitor(club.users["sara"]))
    assert not problems, "\n".join(problems)


# --- heavy outputs and the page cache: one entry per real variant -------------------------------


def _cached_public_pages(club, anonymous_statuses):
    """``{name: (url, view)}``: the published tournament's public addresses (anonymous 200)
    whose view goes through the page cache (``public_page``: it has ``page_params``)."""
    found, _ = addresses(club, "published")
    pages = {}
    for name, (url, _used) in found.items():
        view = resolve(url.split("?", 1)[0]).func
        if anonymous_statuses.get(name) == 200 and hasattr(view, "page_params"):
            pages[name] = (url, view)
    return pages


@pytest.fixture
def stored_keys(settings, monkeypatch):
    """The page cache on, and the keys of the pages it stores, in order."""
    from clubsite import pagecache

    settings.PAGE_CACHE = True
    pagecache.clear_local()
    keys = []
    real_put = pagecache._put

    def put(key, response):
        keys.append(key)
        real_put(key, response)

    monkeypatch.setattr(pagecache, "_put", put)
    return keys


def _with(url: str, query: str) -> str:
    return url + ("&" if "?" in url else "?") + query


def test_no_unknown_query_parameter_defeats_or_grows_the_page_cache(
    club, anonymous_statuses, stored_keys
):
    """Every cached public page, asked with parameters it does not read: the same page, from
    the same cache entry (its ETag), and nothing more stored."""
    pages = _cached_public_pages(club, anonymous_statuses)
    assert len(pages) >= 25, sorted(pages)
    visitor = Visitor(None)
    problems = []
    for name, (url, _view) in sorted(pages.items()):
        first = visitor("GET", url)
        if not first.has_header("ETag"):
            problems.append(f"{name}: GET {url} was not stored")
            continue
        count = len(stored_keys)
        for junk in ("utm_source=cartel", "zz=8f3a9c", "zz=1&zz=2&fbclid=x" + "y" * 300):
            again = visitor("GET", _with(url, junk))
            if again.status_code != 200 or again.get("ETag") != first["ETag"]:
                problems.append(
                    f"{name}: ?{junk[:20]} answers {again.status_code} "
                    f"with ETag {again.get('ETag')} (the page's is {first['ETag']})"
                )
        if len(stored_keys) != count:
            problems.append(f"{name}: unknown parameters stored {len(stored_keys) - count} pages")
    assert not problems, "\n".join(problems)


def test_a_declared_parameter_with_a_value_no_page_has_is_redirected_never_stored(
    club, anonymous_statuses, stored_keys
):
    """``?page=99999``, ``?year=abc`` ...: a redirect to the page it is (then that page), or a
    page computed but not stored; the cache grows by no entry for such an address."""
    pages = _cached_public_pages(club, anonymous_statuses)
    visitor = Visitor(None)
    problems, redirected = [], 0
    for name, (url, view) in sorted(pages.items()):
        for param in view.page_params:
            for value in ("99999", "abc", "-1", "0"):
                asked = _with(url, f"{param}={value}")
                count = len(stored_keys)
                answer = visitor("GET", asked)
                grew = len(stored_keys) - count
                if answer.status_code == 302:
                    redirected += 1
                    location = answer["Location"]
                    if f"{param}={value}" in location:
                        problems.append(f"{name}: {asked} redirects to itself")
                    elif visitor("GET", location).status_code != 200:
                        problems.append(f"{name}: {asked} redirects to {location}, not a page")
                elif answer.status_code not in (200, 400):
                    problems.append(f"{name}: {asked} answers {answer.status_code}")
                if grew:
                    problems.append(f"{name}: {asked} stored {grew} pages")
    assert not problems, "\n".join(problems)
    assert redirected >= 10
