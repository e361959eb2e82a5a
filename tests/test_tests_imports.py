"""The test modules import no other test module: shared code lives in ``tests/helpers/`` or in ``conftest.py``.

Every import statement of every ``.py`` file under ``tests/`` is parsed (those inside functions too, and
``importlib.import_module``/``__import__`` calls with a literal name): a module of ``tests/`` may be reached
only as ``helpers`` or ``helpers.<module>``, never as ``test_x``, ``tests.x``, ``conftest`` or a flat module
beside the tests.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, List, Set, Tuple

TESTS = Path(__file__).resolve().parent


def local_names(folder: Path) -> Set[str]:
    """The top-level names that modules and packages directly in ``folder`` would be imported by."""
    names = {p.stem for p in folder.glob("*.py")}
    names |= {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    return names


def imported_modules(source: str, filename: str) -> Iterator[Tuple[int, str]]:
    """``(line, dotted module name)`` of every import in ``source``: ``import a.b``, ``from a.b import c``
    (absolute only), ``importlib.import_module("a")`` and ``__import__("a")`` with a literal string."""
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__"):
                yield node.lineno, node.args[0].value


def forbidden_imports(source: str, filename: str, local: Set[str]) -> List[str]:
    """``file:line: module`` for each import of a test module or of a module of ``tests/`` other than ``helpers``."""
    problems = []
    for line, module in sorted(imported_modules(source, filename)):
        top = module.split(".")[0]
        if top == "tests" or top.startswith("test_") or top == "conftest" or (top in local and top != "helpers"):
            problems.append(f"{filename}:{line}: {module}")
    return problems


def test_no_test_module_imports_another() -> None:
    local = local_names(TESTS)
    files = sorted(TESTS.rglob("*.py"))
    assert TESTS / "helpers" / "__init__.py" in files and len(files) > 100  # the walk sees the suite
    problems = [p for f in files
                for p in forbidden_imports(f.read_text(encoding="utf-8"), str(f.relative_to(TESTS)), local)]
    assert problems == [], "import shared code from tests/helpers/ instead:\n" + "\n".join(problems)


def test_the_only_modules_beside_the_tests_are_conftest_and_the_helpers_package() -> None:
    flat = sorted(p.name for p in TESTS.glob("*.py") if not p.name.startswith("test_") and p.name != "conftest.py")
    assert flat == [], "move shared code into tests/helpers/"


def test_the_check_sees_every_kind_of_forbidden_import() -> None:
    local = {"test_run_cli", "conftest", "helpers", "old_fixtures"}
    source = "\n".join([
        "import os",
        "from helpers.run_fixtures import write_tiny_recipe",
        "import helpers",
        "from mlparse.tests_util import x",
        "from test_run_cli import something",
        "from tests.helpers.run_fixtures import REPO",
        "import old_fixtures",
        "from conftest import TINY_WORDPIECES",
        "def f():",
        "    from test_train_loop import weights",
        "    importlib.import_module('test_api')",
        "    __import__('old_fixtures.sub')",
        "    importlib.import_module('dep_learning_curve')",
        "from . import sibling",
    ])
    assert forbidden_imports(source, "t.py", local) == [
        "t.py:5: test_run_cli", "t.py:6: tests.helpers.run_fixtures", "t.py:7: old_fixtures",
        "t.py:8: conftest", "t.py:10: test_train_loop", "t.py:11: test_api", "t.py:12: old_fixtures.sub"]
