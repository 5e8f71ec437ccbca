"""Content-Security-Policy (clubsite/settings.py SECURE_CSP, Django's CSP middleware): sent on the
site's pages in debug too, and the templates keep to it — no inline <script>, no <style>
element, no style="..." attribute, no on...= handler, no hx-on / js: code for htmx to eval."""

import pytest
from django.urls import reverse

from tests.helpers import ROOT, offences

TEMPLATE_DIRS = [ROOT / "templates", *ROOT.glob("*/templates")]

EXPECTED = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'", "data:"},
    "frame-ancestors": {"'none'"},
    "form-action": {"'self'"},
    "base-uri": {"'self'"},
}


def policy(header: str) -> dict[str, set[str]]:
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = set(values)
    return directives


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["public:home", "public:tournaments", "rankings:ranking", "login"])
def test_public_pages_send_the_policy(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 200
    assert policy(response["Content-Security-Policy"]) == EXPECTED


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    [
        "public:home",
        "public:tournaments",
        "rankings:ranking",
        "rankings:calculator",
        "login",
        "glossary",
    ],
)
def test_rendered_public_pages_keep_to_the_policy(client, name):
    assert offences(client.get(reverse(name)).content.decode()) == []


def test_no_template_has_inline_scripts_or_styles():
    templates = [p for d in TEMPLATE_DIRS for p in d.rglob("*.html")]
    assert len(templates) > 10
    bad = {str(p.relative_to(ROOT)): offences(p.read_text(encoding="utf-8")) for p in templates}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_patterns_catch_what_they_should():
    assert offences("<script>alert(1)</script>")
    assert not offences('<script src="/static/js/live.js" defer></script>')
    assert offences('<body style="padding: 1rem">') and offences("<style>.x{}</style>")
    assert offences('<button onclick="go()">') and offences('<a href="javascript:go()">')
    assert offences('<form hx-on:submit="go()">') and offences("<a hx-vals='js:{a: 1}'>")
    assert not offences('<span class="htmx-indicator">…</span>') and not offences(
        "<a hx-vals='{\"a\": 1}'>"
    )


def test_htmx_does_not_inject_its_indicator_style():
    base = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    assert '"includeIndicatorStyles":false' in base.replace(" ", "")
    assert ".htmx-indicator" in (ROOT / "static" / "css" / "site.css").read_text(encoding="utf-8")
