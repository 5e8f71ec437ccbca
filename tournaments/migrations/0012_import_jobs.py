"""Import jobs: a results file sent through the import page, imported in the background with
its progress and outcome (``tournaments.models.ImportJob``, ``tournaments.tasks``)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_clean_names"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportJob",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("file_name", models.CharField(max_length=255, verbose_name="archivo")),
                ("data", models.TextField(blank=True)),
                ("language", models.CharField(blank=True, max_length=10)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "en cola"),
                            ("running", "importando"),
                            ("done", "terminada"),
                            ("failed", "rechazada"),
                        ],
                        db_index=True,
                        default="queued",
                        max_length=8,
                        verbose_name="estado",
                    ),
                ),
                ("done", models.PositiveIntegerField(default=0)),
                ("total", models.PositiveIntegerField(default=0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("progress_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("report", models.JSONField(blank=True, null=True)),
                ("refusal", models.JSONField(blank=True, null=True)),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "tournament",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="import_jobs",
                        to="tournaments.tournament",
                    ),
                ),
            ],
            options={
                "verbose_name": "importación",
                "verbose_name_plural": "importaciones",
                "ordering": ["-created_at", "-id"],
            },
        ),
    ]
