"""The shared cache's table (``django_cache``), made by ``migrate`` itself: the public pages'
cache (clubsite/pagecache.py) needs it whenever DJANGO_CACHE_URL names no Redis server, and a
forgotten ``createcachetable`` must not break every public page. Idempotent: an existing table
is left alone; nothing to do with Redis."""
from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0005_member_number_ci")]
    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop, elidable=True)]
