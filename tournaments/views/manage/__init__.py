"""Directors' pages: players, tournaments, entries, pairings, results, castigos, sorteos, imports.

Thin views: a Django form checks the fields, a service does the write, a DomainError becomes
an inline message (HTMX) or a 400/409 page with the values the director typed kept.

One module per area: ``access`` (who may enter, shared helpers), ``players``,
``tournaments`` (settings, entries, imports, sorteos), ``pairings`` and ``results`` (the round
page, results, castigos, closing). ``tournaments/urls_manage.py`` routes to the views in
those modules (nothing is re-exported here: ``pairings`` is both a module and its view).
"""
