"""Every CSV the site writes names its columns from one documented set (README, "Files out"):
English words and the dominó terms as the glossary names them, the same in every language."""

import re
from pathlib import Path

import pytest
from django.utils import translation

from rankings.exports import LEDGER_HEADER, RANKING_HEADER
from tournaments import systems

README = Path(__file__).resolve().parents[1] / "README.md"


def documented() -> set[str]:
    text = README.read_text(encoding="utf-8")
    part = text[text.index("Column names, in and out") : text.index("Dominó results CSV:")]
    names = set()
    for code in re.findall(r"`([^`]+)`", part):
        names.update(name for name in code.split(",") if not name.startswith("<slug>"))
    return names


@pytest.mark.parametrize("language", ["es", "en", "ru"])
def test_every_csv_header_is_documented_and_the_same_in_every_language(language):
    with translation.override(language):
        headers = {
            "ranking": list(RANKING_HEADER),
            "ledger": list(LEDGER_HEADER),
            **{
                f"standings {s.key}": [
                    "position",
                    s.presentation.csv_name_column(),
                    *s.presentation.csv_header(),
                ]
                for s in systems.all_systems()
            },
        }
    known = documented()
    assert {what: [c for c in cols if c not in known] for what, cols in headers.items()} == {
        what: [] for what in headers
    }
    assert headers["standings domino"][2:] == [
        "played",
        "won",
        "puntos",
        "tantos_a_favor",
        "tantos_en_contra",
        "castigos",
        "efectividad",
        "byes",
    ]


def test_the_league_csv_columns_are_documented():
    from tournaments.leagues import LeagueTable, league_header

    table = LeagueTable.__new__(LeagueTable)
    table.columns = []
    assert set(league_header(table)) <= documented()
