"""Template context for every page."""

from functools import partial

from tournaments.permissions import can_enter_manage_area


def navigation(request) -> dict:
    """``can_enter_manage_area``: whether the header shows the "Gestión" link (a callable, so
    the query runs only on pages of logged-in users, where the header asks)."""
    return {"can_enter_manage_area": partial(can_enter_manage_area, getattr(request, "user", None))}
