"""The default time of a game entered without one (SCORING.md §2 orders games by it)."""

import datetime as dt
import zoneinfo

from django.conf import settings
from django.utils import timezone

from tournaments.timing import default_played_at


def club_zone():
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def test_round_three_starts_at_noon_in_the_club_zone():
    when = default_played_at(dt.date(2026, 3, 14), 3)
    assert when == dt.datetime(2026, 3, 14, 12, 0, tzinfo=club_zone())
    assert (when.tzinfo.key, when.hour, when.minute) == (settings.TIME_ZONE, 12, 0)


def test_round_one_starts_at_ten():
    assert default_played_at(dt.date(2026, 3, 14), 1) == dt.datetime(
        2026, 3, 14, 10, 0, tzinfo=club_zone()
    )


def test_the_active_time_zone_does_not_matter():
    club = default_played_at(dt.date(2026, 3, 14), 3)
    with timezone.override("Asia/Tokyo"):
        tokyo = default_played_at(dt.date(2026, 3, 14), 3)
    assert tokyo == club
    assert tokyo.utcoffset() == club.utcoffset()
    assert tokyo.astimezone(dt.UTC) == club.astimezone(dt.UTC)


def test_the_club_zone_follows_the_setting(settings):
    settings.TIME_ZONE = "Europe/Madrid"
    when = default_played_at(dt.date(2026, 7, 4), 2)
    assert when.astimezone(dt.UTC) == dt.datetime(2026, 7, 4, 9, 0, tzinfo=dt.UTC)  # 11:00 CEST
