"""mlparse/data imports at module top only, and its modules import each other one way (no circle)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Set

DATA = Path(__file__).resolve().parents[1] / "mlparse" / "data"


def imports(path: Path) -> tuple:
    """(mlparse.data modules imported at the top, line numbers of imports inside functions or classes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: Set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mlparse.data."):
            top.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            top.update(a.name.split(".")[2] for a in node.names if a.name.startswith("mlparse.data."))
    nested = [
        inner.lineno
        for outer in tree.body if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for inner in ast.walk(outer) if isinstance(inner, (ast.Import, ast.ImportFrom))
    ]
    return top, nested


def test_data_modules_import_at_the_top_and_without_circles():
    graph: Dict[str, Set[str]] = {}
    for path in sorted(DATA.glob("*.py")):
        top, nested = imports(path)
        assert nested == [], f"{path.name} imports inside a function at line(s) {nested}"
        graph[path.stem] = top
    state: Dict[str, int] = {}

    def visit(module: str, trail: tuple) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, "import circle: " + " -> ".join(trail + (module,))
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            visit(target, trail + (module,))
        state[module] = 2

    for module in graph:
        visit(module, ())
    assert {"catalog", "steps", "prepare", "ud", "specs", "prepared"} <= set(graph)
