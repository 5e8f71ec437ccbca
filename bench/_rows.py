"""The directors' result row as a phone posts it, for the benchmarks that save results through
the real view (bench/correction.py, bench/throughput_writer.py).

The round page (``manage:round``) holds one ``<form>`` per table whose ``action`` is that
table's ``manage:result_save`` URL; the page's JavaScript (HTMX) posts the form's fields with
the header ``HX-Request: true`` and swaps the row the view answers with. Here the fields are
read from the HTML exactly as a browser sends them (text and hidden inputs, checked boxes, the
selected option; no disabled control), the typed values replace the score boxes, and the answer's
row gives the fields of the next save (its new hidden ``version``). Nothing here knows the
scoring system's field names beyond the two score boxes the caller passes.
"""

from __future__ import annotations

import time
from html.parser import HTMLParser


class _Forms(HTMLParser):
    """Every ``<form>`` of a page: {action: [(name, value), ...]} as a browser would submit it
    (no submit button)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: dict[str, list[tuple[str, str]]] = {}
        self._fields: list[tuple[str, str]] | None = None
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._fields = []
            self.forms[a.get("action") or ""] = self._fields
            return
        if self._fields is None or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = (a.get("type") or "text").lower()
            if kind in ("submit", "button", "image", "reset", "file"):
                return
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self._fields.append((name, a.get("value") or "on"))
                return
            self._fields.append((name, a.get("value") or ""))
        elif tag == "select" and name:
            self._select, self._options = name, []
        elif tag == "option" and self._select is not None:
            self._options.append((a.get("value") or "", "selected" in a))
        elif tag == "textarea" and name:
            self._fields.append((name, ""))

    def handle_endtag(self, tag):
        if tag == "select" and self._select is not None and self._fields is not None:
            chosen = [v for v, selected in self._options if selected] or [
                v for v, _ in self._options[:1]
            ]
            if chosen:
                self._fields.append((self._select, chosen[0]))
            self._select = None
        elif tag == "form":
            self._fields = None


def forms_of(html: str) -> dict[str, dict[str, str]]:
    """The forms of ``html`` by their ``action`` URL: {action: {field name: value}} (the last
    value of a repeated name)."""
    parser = _Forms()
    parser.feed(html)
    return {action: dict(fields) for action, fields in parser.forms.items()}


def row_fields(client, round_url: str, save_url: str) -> dict[str, str]:
    """GET the round page ``round_url`` (as the logged-in ``client``) and return the fields of
    the result row whose form posts to ``save_url``. Raises AssertionError when the page does
    not answer 200 or has no such row."""
    response = client.get(round_url)
    assert response.status_code == 200, (round_url, response.status_code)
    fields = forms_of(response.content.decode()).get(save_url)
    assert fields is not None, f"no result row posting to {save_url} on {round_url}"
    return fields


def save_row(client, save_url: str, fields: dict[str, str], a: int, b: int):
    """POST the row ``fields`` with the scores ``a``–``b`` typed in its two score boxes
    (``tantos_a``/``tantos_b``) and the save button (``action=save``), as HTMX does.

    Returns (seconds the request took, HTTP status, the fields of the row the view answered
    with — its new version — or None when the answer holds no row)."""
    data = {**fields, "tantos_a": str(a), "tantos_b": str(b), "action": "save"}
    started = time.perf_counter()
    response = client.post(save_url, data, HTTP_HX_REQUEST="true")
    seconds = time.perf_counter() - started
    after = forms_of(response.content.decode()).get(save_url) if response.content else None
    return seconds, response.status_code, after
