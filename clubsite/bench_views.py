"""Benchmark-only views, mounted by clubsite/urls.py only when CLUB_BENCH_VIEWS=1
(bench/throughput.sh): the yardstick a real page's requests/s are compared with."""

from django.shortcuts import render
from django.views.decorators.http import require_safe


@require_safe
def trivial(request):
    """A small template with a few variables and no database query: Django's own cost per request."""
    return render(request, "bench/trivial.html", {"title": "trivial", "items": range(10)})
