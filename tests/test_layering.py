"""The layering of the design, checked over the import graph of every module of mlparse/.

Every import counts: at module level, inside functions, under ``if TYPE_CHECKING:``, and in the Cython
sources (``*.pyx``, read line by line).  Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py``
too, but those implicit imports of the enclosing packages are not edges: an edge is what a module names.
Two rules hold: no import circle between modules, and no module imports a layer above its own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mlparse"

#: The layers, top first.  A module may import its own layer and any layer below it, never one above.  A module
#: belongs to the first entry whose name is the module or a package above it.
LAYERS: List[Tuple[str, Tuple[str, ...]]] = [
    ("command line", ("mlparse.__main__", "mlparse.cli")),
    ("integrations", ("mlparse.integrations",)),  # the spaCy component: on top of the Python API
    # the Python API: `mlparse.load` (the package's lazy attribute), its parser object, model packages
    ("python api", ("mlparse.api", "mlparse.package", "mlparse.package_ensemble", "mlparse.package_info", "mlparse")),
    # `mlparse run`'s dispatch: a recipe to mlparse's trainer or to another toolkit's runner, above both
    ("run dispatch", ("mlparse.run_dispatch",)),
    # the applications of parsers: training and runs, the report, analyses, comparisons, benchmark suites
    ("applications", ("mlparse.train", "mlparse.report", "mlparse.analysis", "mlparse.compare", "mlparse.sweep",
                      "mlparse.external")),  # and other toolkits' parsers run as runs
    # the runs of a runs folder, as the report and the comparisons both read them (found, grouped by seed, named)
    ("run index", ("mlparse.run_index",)),
    ("parsers and tasks", ("mlparse.models", "mlparse.tasks")),
    ("building blocks", ("mlparse.modules", "mlparse.structs")),  # neural modules; algorithms (no nn.Module)
    # the low shared layers, top first: the run directory's layout; recipes (whose defaults may come from the
    # treebank catalog); treebank data (catalog, prepare pipeline, vocabularies, batching); trees and results
    ("run directory", ("mlparse.run_dir", "mlparse.run_lock")),
    ("recipes", ("mlparse.config",)),
    ("data", ("mlparse.data",)),
    # trees; the results schema and the one budget rule every system's results follow
    ("trees and results", ("mlparse.trees", "mlparse.results", "mlparse.budget_rule")),
    ("foundations", ("mlparse.io_utils", "mlparse.version")),
]

#: Upward imports that are still there, each named with the work that removes it.  Do not add to this list.
KNOWN_UPWARD: Dict[Tuple[str, str], str] = {
    # (importer, imported): why, for an upward import that cannot move yet. None today; keep it that way.
}

_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(mlparse(?:\.\w+)*)\s+c?import\s+(.+)|c?import\s+(mlparse(?:\.\w+)*))")

Edge = Tuple[str, str, int]  # importer, imported, line


def modules(package: Path = PACKAGE) -> Dict[str, Path]:
    """Every module of ``package`` (``.py`` and ``.pyx``) by its dotted name; a package is its ``__init__``."""
    found: Dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")) + sorted(package.rglob("*.pyx")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.setdefault(".".join(parts), path)
    return found


def _target(name: str, known: Dict[str, Path]) -> Optional[str]:
    """The module that importing ``name`` names: ``name`` itself or the nearest package above it in ``known``."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def imports(module: str, path: Path, known: Dict[str, Path]) -> List[Edge]:
    """The modules of ``known`` that ``module`` (the file ``path``) imports, with the line of each import."""
    base = module if path.stem == "__init__" else module.rpartition(".")[0]
    named: List[Tuple[str, List[str], int]] = []  # (module named, names imported from it, line)
    if path.suffix == ".pyx":
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = _PYX_IMPORT.match(line)
            if match and match.group(1):
                named.append((match.group(1), [n.strip().split(" ")[0] for n in match.group(2).split(",")], number))
            elif match:
                named.append((match.group(3), [], number))
    else:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                named.extend((alias.name, [], node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base.split(".")[: len(base.split(".")) - (node.level - 1)]
                    source = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                named.append((source, [alias.name for alias in node.names], node.lineno))
    edges: List[Edge] = []
    for source, names, line in named:
        if source != "mlparse" and not source.startswith("mlparse."):
            continue
        targets = [f"{source}.{name}" for name in names if f"{source}.{name}" in known]  # submodules imported by name
        if len(targets) < len(names) or not names:
            targets.append(_target(source, known) or source)
        edges.extend((module, target, line) for target in targets if target != module)
    return edges


def import_graph(package: Path = PACKAGE) -> List[Edge]:
    known = modules(package)
    return [edge for module, path in known.items() for edge in imports(module, path, known)]


def layer_of(module: str) -> int:
    """The index of ``module``'s layer in :data:`LAYERS` (0 is the top)."""
    for index, (_, members) in enumerate(LAYERS):
        if any(module == member or module.startswith(member + ".") for member in members if member != "mlparse"):
            return index
    for index, (_, members) in enumerate(LAYERS):
        if module in members:
            return index
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS in {Path(__file__).name}")


def cycles(edges: List[Edge]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    graph: Dict[str, Set[str]] = {}
    for source, target, _ in edges:
        graph.setdefault(source, set()).add(target)
        graph.setdefault(target, set())
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


# -- the checker itself ----------------------------------------------------------------------------------

def _write(root: Path, files: Dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "mlparse" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "mlparse"


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "__init__.py": "",
        "a/__init__.py": "from mlparse.a.inner import thing\n",
        "a/inner.py": "import os\nfrom . import sibling\nfrom .sibling import name\n",
        "a/sibling.py": "def f():\n    from mlparse.b import x\n    import mlparse.c.deep\n",
        "a/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mlparse.b import Y\n",
        "b.py": "from mlparse.c import deep, helper_name\n",
        "c/__init__.py": "",
        "c/deep.py": "",
        "c/fast.pyx": "from mlparse.a.inner import thing\ncimport numpy\n",
    })
    edges = {(source, target) for source, target, _ in import_graph(package)}
    assert edges == {
        ("mlparse.a", "mlparse.a.inner"), ("mlparse.a.inner", "mlparse.a.sibling"),
        ("mlparse.a.sibling", "mlparse.b"), ("mlparse.a.sibling", "mlparse.c.deep"), ("mlparse.a.typed", "mlparse.b"),
        ("mlparse.b", "mlparse.c.deep"), ("mlparse.b", "mlparse.c"), ("mlparse.c.fast", "mlparse.a.inner"),
    }


def test_cycles_are_found_through_function_level_imports(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "__init__.py": "", "x.py": "import mlparse.y\n", "y.py": "def f():\n    from mlparse import z\n",
        "z.py": "from mlparse.x import *\n", "w.py": "import mlparse.x\n",
    })
    assert cycles(import_graph(package)) == [["mlparse.x", "mlparse.y", "mlparse.z"]]


def test_every_module_has_a_layer_in_the_design_order() -> None:
    names = [name for name, _ in LAYERS]
    assert names.index("command line") < names.index("applications") < names.index("parsers and tasks") < \
        names.index("building blocks") < names.index("trees and results")
    assert layer_of("mlparse.cli.parse") < layer_of("mlparse.train.runner") < layer_of("mlparse.models.registry")
    assert layer_of("mlparse.tasks.dependency") == layer_of("mlparse.models.span_parser")
    assert layer_of("mlparse") == layer_of("mlparse.api") and layer_of("mlparse.version") == len(LAYERS) - 1
    for module in modules():
        layer_of(module)  # raises for a module outside every layer


# -- the package -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def graph() -> List[Edge]:
    return import_graph()


def test_no_import_circles(graph: List[Edge]) -> None:
    found = cycles(graph)
    lines = []
    for component in found:
        members = set(component)
        lines.append(" ↔ ".join(component))
        lines += [f"    {source} (line {line}) imports {target}" for source, target, line in graph
                  if source in members and target in members]
    assert not found, "import circles (move the shared piece down to the layer where it belongs):\n" + "\n".join(lines)


def test_no_module_imports_a_layer_above_its_own(graph: List[Edge]) -> None:
    upward = [f"{source} (line {line}, layer {LAYERS[layer_of(source)][0]}) imports {target} "
              f"(layer {LAYERS[layer_of(target)][0]})"
              for source, target, line in graph
              if layer_of(target) < layer_of(source) and (source, target) not in KNOWN_UPWARD]
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_the_known_upward_imports_are_few_and_point_upwards() -> None:
    assert len(KNOWN_UPWARD) <= 5
    for source, target in KNOWN_UPWARD:
        assert layer_of(target) < layer_of(source), f"{source} → {target} is no upward import: remove it from the list"


@pytest.mark.parametrize("name", ["evalb", "depeval"])
def test_the_scorers_import_nothing_from_mlparse(name: str) -> None:
    known = {**modules(ROOT / name), **modules()}
    edges = [f"{source} (line {line}) imports {target}"
             for module, path in modules(ROOT / name).items() for source, target, line in imports(module, path, known)
             if target == "mlparse" or target.startswith("mlparse.")]
    assert not edges, "\n".join(edges)
