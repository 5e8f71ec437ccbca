"""The client's IP address for django-axes (``AXES_CLIENT_IP_CALLABLE``).

Directly exposed (``TRUSTED_PROXY_COUNT = 0``): ``REMOTE_ADDR``. Behind N proxies of our own
(``DJANGO_TRUSTED_PROXY_COUNT``, 1 by default in production): the N-th address from the right of
``X-Forwarded-For``, the one our outermost proxy appended; addresses further left come from the
client and could be forged, so they are never used.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings


def _plain(address: str) -> str | None:
    """``address`` as a plain IP address ("203.0.113.9", "2001:db8::3"): a port, brackets or
    an IPv6 zone are dropped; None when it is no address at all ("unknown", a network)."""
    text = address.strip()
    if text.startswith("[") and "]" in text:  # [2001:db8::3]:443
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # 203.0.113.9:5555
        text = text.split(":", 1)[0]
    text = text.split("%", 1)[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def client_ip(request) -> str | None:
    """The address login failures are counted against; ``REMOTE_ADDR`` when the header is
    missing, shorter than the number of trusted proxies, or its hop is not an IP address
    (a port or brackets are dropped first: ``_plain``)."""
    count = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    if count > 0:
        forwarded = [
            part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        ]
        forwarded = [part for part in forwarded if part]
        if len(forwarded) >= count:
            hop = _plain(forwarded[-count][:100])
            if hop is not None:
                return hop
    return request.META.get("REMOTE_ADDR")
