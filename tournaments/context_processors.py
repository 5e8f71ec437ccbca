"""Template context for every page."""

from functools import partial
from urllib.parse import urlsplit

from django.utils.http import url_has_allowed_host_and_scheme

from clubsite.http import page_above
from tournaments.permissions import can_enter_manage_area


def navigation(request) -> dict:
    """``can_enter_manage_area``: whether the header shows the "Gestión" link (a callable, so
    the query runs only on pages of logged-in users, where the header asks).

    ``language_next``: where the language switcher goes back to. The page's own address, except
    on the answer to a form (a refused save comes back on the form's address, which only takes
    forms): there it is the page the form was sent from (the ``Referer``, when it is on this
    site), else the page above (``clubsite.http.page_above``)."""
    return {
        "can_enter_manage_area": partial(can_enter_manage_area, getattr(request, "user", None)),
        "language_next": partial(language_next, request),
    }


def language_next(request) -> str:
    """The address the language switcher returns to (see ``navigation``): a path, never
    another site's address."""
    if request.method in ("GET", "HEAD"):
        return request.get_full_path()
    referer = request.META.get("HTTP_REFERER", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        parts = urlsplit(referer)
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return page_above(request.path_info)
