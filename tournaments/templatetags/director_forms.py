"""Focus on a refused director's form (templates/tournaments/manage/_form_fields.html):
``{% first_invalid form as name %}`` and ``{{ field|autofocused }}``."""

from django import template

register = template.Library()


@register.simple_tag
def first_invalid(form) -> str:
    """The name of the first visible field of ``form`` (in the order shown) with errors; ""
    when none has (an unbound form, a form refused only as a whole)."""
    if not form.is_bound:
        return ""
    for field in form.visible_fields():
        if field.errors:
            return field.name
    return ""


@register.filter
def autofocused(field) -> str:
    """The field's widget with ``autofocus`` (and Django's own attributes: aria-invalid,
    aria-describedby pointing at its errors)."""
    return field.as_widget(attrs={"autofocus": True})
