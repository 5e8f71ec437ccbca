"""Site-wide views that belong to no app: the language switcher."""

from django.conf import settings
from django.http import HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_safe


@require_safe
def set_language(request):
    """The language switcher (the header's form, ``GET /idioma/?language=en&next=/torneos/``):
    remember the language in the ``django_language`` cookie and go back to ``next``.

    A GET form, so the public pages carry no CSRF token and can be served from the page cache
    to every reader (clubsite.pagecache); choosing a language changes nothing else. An unknown
    language leaves the cookie as it was; a ``next`` that leaves the site becomes "/"."""
    next_url = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = "/"
    response = HttpResponseRedirect(next_url)
    code = request.GET.get("language", "")
    if code in dict(settings.LANGUAGES):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            code,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response
