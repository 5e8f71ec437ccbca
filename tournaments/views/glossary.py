"""The glossary (/glosario/): what the scoring words mean, in the page's language (es, en, ru).

The Spanish club words (puntos, tantos, castigo, zapato, sorteo ...) keep their Spanish name in
every language, next to the translation, so a player reading in English or Russian still
recognises them on the score sheets and in the standings (docs/SCORING.md has the rules).
"""

from django.shortcuts import render
from django.views.decorators.http import require_safe

from clubsite.pagecache import public_page


@require_safe
@public_page(scopes=[])
def glossary(request):
    return render(request, "tournaments/glossary.html")
