"""Access for everyone: text contrast of the stylesheet at WCAG AA, and a label for every form
field on the public and the directors' pages (issue "public site", point 5)."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from rankings import ledger
from tournaments import services

CSS = Path(settings.BASE_DIR, "static/css/site.css").read_text()
AA = 4.5  # normal text; every text colour here meets it, small print included


def _variables() -> dict[str, str]:
    root = re.search(r":root\s*\{(.*?)\}", CSS, re.S).group(1)
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", root))


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula_matches_known_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def _colour(value: str, variables: dict[str, str]) -> str | None:
    value = value.strip()
    m = re.fullmatch(r"var\(--([\w-]+)\)", value)
    if m:
        return variables.get(m.group(1))
    return value if re.fullmatch(r"#[0-9a-fA-F]{6}", value) else None


def text_pairs():
    """(selector, text colour, background) of every rule of site.css that sets a text colour;
    the background is the rule's own, else the page's (and, for table cells, the header's too)."""
    variables = _variables()
    paper, soft = variables["paper"], variables["soft"]
    rules = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", CSS):
        selector = selector.strip()
        if selector.startswith(":root") or selector.startswith("@"):
            continue
        declarations = dict(
            (k.strip(), v.strip()) for k, v in re.findall(r"([\w-]+)\s*:\s*([^;]+)", body)
        )
        fg = _colour(declarations.get("color", ""), variables)
        bg = _colour(
            declarations.get("background", declarations.get("background-color", "")), variables
        )
        rules.append((selector, fg, bg))
    # A descendant rule ("X a") sits on X's background when X sets one.
    container = {sel: bg for sel, _, bg in rules if bg and " " not in sel and "," not in sel}
    for selector, fg, own in rules:
        if fg is None:
            continue
        inherited = container.get(selector.split(",")[0].split()[0]) if " " in selector else None
        if own or inherited:
            backgrounds = [own or inherited]
        else:
            backgrounds = [paper] + ([soft] if "table" in selector or "badge" in selector else [])
        for bg in backgrounds:
            yield selector, fg, bg


def test_every_text_colour_of_the_stylesheet_meets_wcag_aa():
    pairs = list(text_pairs())
    assert len(pairs) >= 15  # the parser found the stylesheet's rules
    failing = [
        (sel, fg, bg, round(contrast(fg, bg), 2)) for sel, fg, bg in pairs if contrast(fg, bg) < AA
    ]
    assert not failing, failing


def test_focus_is_visible_on_every_control():
    rule = re.search(r"([^{}]*:focus-visible[^{}]*)\{([^}]*)\}", CSS)
    assert rule, "no :focus-visible rule"
    for control in ("a", "button", "input", "select"):
        assert f"{control}:focus-visible" in rule.group(1)
    assert "outline" in rule.group(2) and "none" not in rule.group(2)


class _Fields(HTMLParser):
    """Form fields of a page and the ids that a <label for> names."""

    def __init__(self):
        super().__init__()
        self.fields, self.label_for, self.in_label = [], set(), 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "label":
            self.in_label += 1
            if a.get("for"):
                self.label_for.add(a["for"])
        elif tag in ("input", "select", "textarea"):
            if tag == "input" and a.get("type") in ("hidden", "submit", "button"):
                return
            self.fields.append((tag, a, self.in_label > 0))

    def handle_endtag(self, tag):
        if tag == "label":
            self.in_label -= 1


def unlabelled(body: str) -> list[str]:
    parser = _Fields()
    parser.feed(body)
    return [
        f"<{tag} name={a.get('name')!r} id={a.get('id')!r}>"
        for tag, a, wrapped in parser.fields
        if not (
            wrapped
            or a.get("aria-label")
            or a.get("aria-labelledby")
            or a.get("id") in parser.label_for
        )
    ]


@pytest.mark.django_db
def test_every_form_field_has_a_label(client, director):
    t = services.create_tournament(
        acting_user=director,
        name="Copa Etiquetas",
        date=timezone.localdate(),
        mode="pairs",
        status="running",
    )
    players = [
        services.create_player(acting_user=director, full_name=f"Jugadora {c} Lorca")
        for c in "ABCD"
    ]
    e = [
        services.register_entry(acting_user=director, tournament=t, players=players[i : i + 2])
        for i in (0, 2)
    ]
    rnd = services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0]], [e[1]])]
    )
    services.record_result(
        acting_user=director, table=rnd.tables.get(), tantos_a=100, tantos_b=10, version=0
    )
    ledger.replay_from(None)
    public = [
        "/",
        "/torneos/",
        t.get_absolute_url(),
        reverse("public:find_table", args=[t.slug]),
        reverse("public:standings", args=[t.slug]),
        reverse("rankings:ranking"),
        reverse("rankings:calculator"),
        reverse("rankings:player", args=[players[0].pk]),
        "/glosario/",
        reverse("login"),
    ]
    for url in public:
        response = client.get(url)
        assert response.status_code == 200, url
        assert not unlabelled(response.content.decode()), (
            url,
            unlabelled(response.content.decode()),
        )
    client.force_login(director)
    manage = [
        reverse("manage:home"),
        reverse("manage:players"),
        reverse("manage:player_add"),
        reverse("manage:tournament_add"),
        reverse("manage:tournament", args=[t.slug]),
        reverse("manage:tournament_edit", args=[t.slug]),
        reverse("manage:round", args=[t.slug, 1]),
        reverse("manage:pairings", args=[t.slug, 2]),
    ]
    for url in manage:
        response = client.get(url)
        assert response.status_code == 200, url
        assert not unlabelled(response.content.decode()), (
            url,
            unlabelled(response.content.decode()),
        )
