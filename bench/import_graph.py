"""The site's import graph, counting the imports written inside functions, and its cycles.

    .venv/bin/python bench/import_graph.py            # summary; exit 1 if there is a cycle
    .venv/bin/python bench/import_graph.py --edges    # also every import between the modules

The graph is grimp's (the library behind import-linter, ``make lint``), over the packages
``tournaments``, ``rankings`` and ``clubsite``: an import inside a function is an edge like any
other; one under ``if TYPE_CHECKING:`` is not (it never runs). A cycle is a strongly connected
set of two or more modules, leaving out the one kind Python resolves by design: a package's
own ``__init__`` importing its submodules (which import their package back).

It prints how many modules and imports there are, the imports written inside functions (each
must be the documented way to break a start-up order: an app's ``ready``), and the cycles
(none expected). docs/ARCHITECTURE.md says which layer may import which.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tournaments", "rankings", "clubsite")


def build() -> grimp.ImportGraph:
    """grimp's graph of the site's packages (run from the checkout: it is on ``sys.path``)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)


def edges(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Every (importer, imported) pair of the site's modules, a package's own ``__init__``
    importing one of its submodules left out."""
    out = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported.startswith(importer + "."):
                continue
            out.append((importer, imported))
    return out


def cycles(pairs: list[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules, largest first."""
    g = nx.DiGraph(pairs)
    found = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    return sorted(found, key=len, reverse=True)


def imports_inside_functions() -> list[tuple[str, int, str]]:
    """(file, line, module) of each import of a site module written inside a function (not
    under ``if TYPE_CHECKING``)."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for func in ast.walk(tree):
                if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(func):
                    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                        names = [node.module]
                    elif isinstance(node, ast.Import):
                        names = [a.name for a in node.names]
                    else:
                        continue
                    for name in names:
                        if name.split(".")[0] in PACKAGES:
                            found.append((str(path.relative_to(ROOT)), node.lineno, name))
    return sorted(set(found))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", action="store_true", help="print every import")
    args = parser.parse_args(argv)
    graph = build()
    pairs = edges(graph)
    print(f"modules: {len(graph.modules)}, imports between them: {len(pairs)}")
    inside = imports_inside_functions()
    print(f"imports written inside functions: {len(inside)}")
    for path, line, name in inside:
        print(f"  {path}:{line}: {name}")
    if args.edges:
        for importer, imported in pairs:
            print(f"  {importer} -> {imported}")
    found = cycles(pairs)
    if not found:
        print("cycles: none")
        return 0
    print(f"cycles: {len(found)}")
    for modules in found:
        print(f"  {len(modules)} modules: {', '.join(modules)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
