"""Shared fixtures: users with each role, built with the project's own services."""
import pytest
from django.contrib.auth.models import Group, User

from tournaments.permissions import DIRECTORS_GROUP


@pytest.fixture
def director(db):
    """A staff user in the "Directores" group."""
    user = User.objects.create_user("directora", password="clave-de-prueba-1", is_staff=True)
    group, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    user.groups.add(group)
    return user


@pytest.fixture
def director_client(client, director):
    client.force_login(director)
    return client
