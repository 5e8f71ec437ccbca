"""Stored names cleaned and player name keys recomputed (``tournaments.names``).

Names typed before were stored "as typed": they may hold zero-width or other invisible
characters, control characters, runs of spaces or NBSPs, a decomposed (NFD) form. This migration
stores them as the services now do (``names.clean``): players' full names and nicknames,
tournaments' names and castigos' reasons; and recomputes every ``Player.name_key`` with the new
key (``names.key``: case, accents, spacing and invisible characters ignored), which the player
form's duplicate warning and the imports' matching query.

A value left empty or too long for its column by the cleaning is kept as it was. History rows
are not touched (they keep what was stored then). Reversing does nothing: the removed invisible
characters cannot come back, and the old values still match the new rules' results.
"""

from django.db import migrations

from tournaments import names

BATCH = 500

#: model name -> (field, max length) of the names to clean.
NAME_FIELDS = {
    "Player": (("full_name", 120), ("nickname", 60)),
    "Tournament": (("name", 120),),
    "Castigo": (("reason", 200),),
}


def _cleaned(value: str, max_length: int) -> str:
    new = names.clean(value)
    return new if new and len(new) <= max_length else value


def clean_names(apps, schema_editor):
    for model_name, fields in NAME_FIELDS.items():
        model = apps.get_model("tournaments", model_name)
        changed_fields = [f for f, _ in fields]
        if model_name == "Player":
            changed_fields.append("name_key")
        batch = []
        for obj in model.objects.order_by("pk").iterator(chunk_size=2000):
            before = [getattr(obj, f) for f in changed_fields]
            for field, max_length in fields:
                value = getattr(obj, field)
                if value:
                    setattr(obj, field, _cleaned(value, max_length))
            if model_name == "Player":
                obj.name_key = names.key(obj.full_name)[:120]
            if [getattr(obj, f) for f in changed_fields] != before:
                batch.append(obj)
            if len(batch) >= BATCH:
                model.objects.bulk_update(batch, changed_fields)
                batch = []
        if batch:
            model.objects.bulk_update(batch, changed_fields)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0010_tournament_end_date"),
    ]

    operations = [
        migrations.RunPython(clean_names, migrations.RunPython.noop, elidable=True),
    ]
