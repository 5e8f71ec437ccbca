"""The layout's rules, checked on the source (docs/ARCHITECTURE.md): only the registry knows
which scoring systems exist, and the rule modules stay pure."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
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
    *sorted((ROOT / "tournaments" / "errors").glob("*.py")),
    ROOT / "rankings" / "elo.py",
]


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_rule_modules_never_import_django_or_the_models(path):
    source = path.read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+django\b", source, re.MULTILINE)
    assert not re.search(r"^\s*from\s+tournaments\.(models|services|systems)\b", source, re.M)


# --- the import graph: one direction (docs/ARCHITECTURE.md, "Layers") ---------------------------

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_the_import_graph_counting_imports_inside_functions_has_no_cycle():
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "import_graph.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cycles: none" in run.stdout


def _lint_copy(tmp_path, change=None):
    """``lint-imports`` over a copy of the site's packages (``change(root)`` edits it first)."""
    for package in ("tournaments", "rankings", "clubsite"):
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    if change is not None:
        change(tmp_path)
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", "pyproject.toml"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")
def test_lint_imports_refuses_an_import_inside_a_function_that_goes_up_a_layer(tmp_path):
    def model_reads_a_service(root):
        models = root / "tournaments" / "models.py"
        models.write_text(
            models.read_text(encoding="utf-8")
            + "\n\ndef _shortcut():\n    from tournaments import services\n\n    return services\n",
            encoding="utf-8",
        )

    clean = _lint_copy(tmp_path / "clean")
    assert clean.returncode == 0, clean.stdout
    broken = _lint_copy(tmp_path / "broken", model_reads_a_service)
    assert broken.returncode == 1
    assert "tournaments.models is not allowed to import tournaments.services" in broken.stdout
    assert "Tournaments: one direction, from the pages down to the rules BROKEN" in broken.stdout
