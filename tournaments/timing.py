"""When a game was played, if nobody said: the one rule, shared by every writer and the ledger.

The yearly ranking orders games by the local date-time they were played (SCORING.md §2,
"Order"); a result entered without a time takes the default below. Pure (no database): the
services, the CSV imports, the Django admin and ``rankings.ledger`` all call it, so they agree.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.conf import settings

#: The first round of a tournament day starts at 10:00 local time.
FIRST_ROUND_AT = dt.time(10, 0)


def default_played_at(date: dt.date, round_number: int) -> dt.datetime:
    """The tournament ``date`` at 10:00 in the club's time zone, plus one hour per round after
    the first (round 1 → 10:00, round 3 → 12:00): an aware datetime.

    The zone is the club's (the ``TIME_ZONE`` setting, as ``rankings.ledger.local_zone``),
    never the zone active in the request, so the same game always gets the same time and the
    same place in the ledger order (SCORING.md §2, "Order": date-time played, round, table).
    """
    start = dt.datetime.combine(date, FIRST_ROUND_AT, tzinfo=zoneinfo.ZoneInfo(settings.TIME_ZONE))
    return start + dt.timedelta(hours=round_number - 1)
