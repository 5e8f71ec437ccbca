"""The layout's rules, checked on the source (docs/ARCHITECTURE.md): only the registry knows
which scoring systems exist, and the rule modules stay pure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "tournaments" / "systems"
CODE_DIRS = ("tournaments", "rankings", "clubsite", "templates", "bench")

#: A branch on a tournament's scoring system: a comparison with ``system``, membership of a
#: system key in a list, or the old enumeration.
BRANCH = re.compile(
    r"""\bsystem\s*(==|!=)"""
    r"""|(==|!=)\s*(\w+\.)*system\b(?![.\w])"""
    r"""|\bsystem\s+(not\s+)?in\s*[\(\[\{]"""
    r"""|\bSystem\.(DOMINO|SWISS|TABLE|values|choices)\b"""
    r"""|\.get_system_display\(\)\s*=="""
)


def _code_files():
    for top in CODE_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in (".py", ".html") or "migrations" in path.parts:
                continue
            if REGISTRY in path.parents:
                continue
            yield path


def test_the_check_catches_a_branch():
    assert BRANCH.search('if t.system == "swiss":')
    assert BRANCH.search("{% if t.system == 'table' %}")
    assert BRANCH.search("if tournament.system in ('swiss', 'table'):")
    assert BRANCH.search("Tournament.System.SWISS")
    assert not BRANCH.search("system = systems.of(t)")
    assert not BRANCH.search("if t.system not in systems.keys():")
    assert not BRANCH.search("if (sides is not None) != system.has_sides:")
    assert BRANCH.search('if "swiss" == tournament.system:')


def test_outside_the_registry_no_file_branches_on_the_scoring_system():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _code_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if BRANCH.search(line)
    ]
    assert found == []


PURE = [
    *sorted((ROOT / "tournaments" / "scoring").glob("*.py")),
    *sorted((ROOT / "tournaments" / "pairing").glob("*.py")),
    ROOT / "rankings" / "elo.py",
    ROOT / "tournaments" / "errors.py",
]


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_rule_modules_never_import_django_or_the_models(path):
    source = path.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+django\b", source, re.MULTILINE)
    assert not re.search(r"^\s*from\s+tournaments\.(models|services|systems)\b", source, re.M)
