"""The client's IP address for django-axes (``AXES_CLIENT_IP_CALLABLE``).

Directly exposed (``TRUSTED_PROXY_COUNT = 0``): ``REMOTE_ADDR``. Behind N proxies of our own
(``DJANGO_TRUSTED_PROXY_COUNT``, 1 by default in production): the N-th address from the right of
``X-Forwarded-For``, the one our outermost proxy appended; addresses further left come from the
client and could be forged, so they are never used.
"""

from __future__ import annotations

from django.conf import settings


def client_ip(request) -> str | None:
    """The address login failures are counted against; ``REMOTE_ADDR`` when the header is
    missing or shorter than the number of trusted proxies."""
    count = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if count > 0:
        forwarded = [
            part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        ]
        forwarded = [part for part in forwarded if part]
        if len(forwarded) >= count:
            return forwarded[-count][:100]
    return request.META.get("REMOTE_ADDR")
