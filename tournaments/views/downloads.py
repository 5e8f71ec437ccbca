"""The answers of the spreadsheet downloads (standings, ranking, ledger; ``tournaments.exports``):
a CSV (with its UTF-8 byte-order mark) or an .xlsx workbook, as an attachment.

Every CSV link has two forms: for people (figures rounded as on the pages, the default) and
exact (``?precision=full``: the machine format, for checking; ``full_precision``), which saves
under a name ending in "-exacto"."""

from __future__ import annotations

from django.http import HttpResponse

from clubsite.pagecache import settle
from tournaments.exports import BOM, CSV_TYPE, XLSX_TYPE

#: The query that asks a CSV link for its exact form.
FULL_PRECISION = ("precision", "full")
#: The query parameters of a CSV download (``public_page(params=CSV_PARAMS)``).
CSV_PARAMS = (FULL_PRECISION[0],)


def full_precision(request) -> bool:
    """Whether ``request`` asks for the exact form (``?precision=full``; any other value is
    the form for people, and its address is the one without the parameter: ``settle``)."""
    key, value = FULL_PRECISION
    exact = request.GET.get(key) == value
    settle(request, key, value if exact else None)
    return exact


def csv_response(text: str, filename: str, *, exact: bool = False) -> HttpResponse:
    """CSV ``text`` as the attachment ``filename`` (``name.csv``; ``name-exacto.csv`` when
    ``exact``), starting with the UTF-8 byte-order mark."""
    if exact:
        filename = filename.removesuffix(".csv") + "-exacto.csv"
    response = HttpResponse((BOM + text).encode("utf-8"), content_type=CSV_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def xlsx_response(data: bytes, filename: str) -> HttpResponse:
    """Workbook ``data`` as the attachment ``filename``."""
    response = HttpResponse(data, content_type=XLSX_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
