"""``{% form_token %}``: the hidden one-time token of a create form
(``tournaments.views.manage.access.one_submission``)."""

from django import template
from django.utils.html import format_html

from tournaments.views.manage.access import form_token_for

register = template.Library()


@register.simple_tag
def form_token(shown_again=None) -> str:
    """``<input type="hidden" name="form_token" value="…">`` with a new token, or with the token
    of ``shown_again``: the bound form (or the posted data) of a refused post shown again, so
    that its corrected copy is the same submission. An unbound form or an empty GET gives a
    new token."""
    data = getattr(shown_again, "data", shown_again)  # a bound form: what was posted
    return format_html('<input type="hidden" name="form_token" value="{}">', form_token_for(data))
