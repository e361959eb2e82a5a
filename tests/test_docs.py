"""The documentation: generated reference pages are current, the README is short and lists every
command, every page is in the site's navigation, and DEVELOPERS.md stays within the repository.

``mkdocs build --strict`` itself runs in ``make docs`` (part of ``.ci/run``), not here.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import List, Optional, Set

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"


def load_generator() -> ModuleType:
    """``tools/gen_docs.py`` as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "tools" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_docs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen_docs() -> ModuleType:
    return load_generator()


@pytest.fixture(scope="module")
def pages(gen_docs: ModuleType) -> dict:
    return gen_docs.render_all()


def mlparse_commands() -> Set[str]:
    """The commands of ``mlparse --help``."""
    import typer.main

    from mlparse.cli import app

    return set(typer.main.get_command(app).commands)


def console_scripts() -> Set[str]:
    """The commands pyproject.toml installs besides ``mlparse`` (evalb, evalb_spmrl, depeval)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return {line.split("=")[0].strip() for line in block.splitlines() if "=" in line} - {"mlparse"}


# --------------------------------------------------------------------------- generated pages


def test_the_generated_reference_pages_are_current(gen_docs: ModuleType, pages: dict) -> None:
    stale = [str(path.relative_to(REPO)) for path in gen_docs.stale_pages(pages)]
    assert not stale, f"out of date: {', '.join(stale)}; run `python tools/gen_docs.py` and commit the pages"


def test_a_changed_page_is_reported_stale(gen_docs: ModuleType, tmp_path: Path) -> None:
    current = tmp_path / "current.md"
    changed = tmp_path / "changed.md"
    missing = tmp_path / "missing.md"
    current.write_text("same\n", encoding="utf-8")
    changed.write_text("old\n", encoding="utf-8")
    wanted = {current: "same\n", changed: "new\n", missing: "new\n"}
    assert gen_docs.stale_pages(wanted) == [changed, missing]


def test_the_check_mode_exits_non_zero_on_a_stale_page(gen_docs: ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(gen_docs, "REPO", tmp_path)
    monkeypatch.setattr(gen_docs, "render_all", lambda: {tmp_path / "docs" / "page.md": "text\n"})
    assert gen_docs.main(["--check"]) == 1
    assert "docs/page.md is out of date" in capsys.readouterr().err
    assert not (tmp_path / "docs" / "page.md").exists()
    assert gen_docs.main([]) == 0
    assert (tmp_path / "docs" / "page.md").read_text(encoding="utf-8") == "text\n"
    assert gen_docs.main(["--check"]) == 0


def test_the_recipe_reference_lists_every_key_of_the_schema(pages: dict) -> None:
    from dataclasses import fields

    from mlparse.config.schema import SECTIONS

    text = pages[DOCS / "reference" / "recipe-keys.md"]
    rows = {line.split("|")[1].strip().strip("`") for line in text.splitlines() if line.startswith("| `")}
    expected = {f"{section}.{item.name}" for section, cls in SECTIONS.items() for item in fields(cls)}
    assert rows == expected
    lr = next(line for line in text.splitlines() if line.startswith("| `train.lr`"))
    assert "| float | `0.0008` |" in lr and "base learning rate (Table 9)" in lr
    kind = next(line for line in text.splitlines() if line.startswith("| `model.kind`"))
    assert "`span`, `biaffine`, `joint`" in kind


@dataclass
class _Commented:
    plain: int = 1  # a comment
    none_here: Optional[str] = None
    spread: List[float] = field(
        default_factory=list)  # on the second line


def test_field_comments_are_read_from_the_source(gen_docs: ModuleType) -> None:
    assert gen_docs.field_comments(_Commented) == {
        "plain": "a comment", "none_here": "", "spread": "on the second line"}
    assert gen_docs.type_name(Optional[str]) == "str or null"
    assert gen_docs.type_name(List[float]) == "list of float"
    assert gen_docs.yaml_value([0.9, 0.98]) == "[0.9, 0.98]" and gen_docs.yaml_value(None) == "null"


def test_table_cells_escape_markup_outside_code(gen_docs: ModuleType) -> None:
    assert gen_docs.cell("a <root> | `x|<y>` *b*") == "a &lt;root&gt; \\| `x\\|<y>` \\*b\\*"


def test_the_catalog_and_recipe_pages_name_every_family_and_recipe(pages: dict) -> None:
    from mlparse.config.loading import bundled_recipe_names
    from mlparse.data.catalog import family_names

    catalog = pages[DOCS / "reference" / "treebanks.md"]
    assert all(f"## `{family}`" in catalog for family in family_names())
    recipes = pages[DOCS / "reference" / "recipes.md"]
    assert all(f"| `{name}` |" in recipes for name in bundled_recipe_names())


def test_the_cli_reference_has_every_command_and_option(pages: dict) -> None:
    import typer.main

    from mlparse.cli import app

    text = pages[DOCS / "reference" / "cli.md"]
    for name, command in typer.main.get_command(app).commands.items():
        assert f"## `mlparse {name}`" in text
        section = text.split(f"## `mlparse {name}`", 1)[1].split("\n## ", 1)[0]
        for param in command.params:
            if param.param_type_name == "option" and not getattr(param, "hidden", False):
                assert f"`{param.opts[0]}" in section, (name, param.opts)
    assert "## `depeval`" in text and "`--ptb-punct`" in text


# --------------------------------------------------------------------------- README and site


def readme_command_rows() -> dict:
    """The README's command table: command name -> linked page."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| \[`([^`]+)`\]\(([^)]+)\) \|", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def test_the_readme_is_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail to docs/"


def test_the_readme_command_table_lists_every_command_with_its_page() -> None:
    rows = readme_command_rows()
    expected = {f"mlparse {name}" for name in mlparse_commands()} | console_scripts()
    assert set(rows) == expected, f"missing: {sorted(expected - set(rows))}, unknown: {sorted(set(rows) - expected)}"
    for command, link in rows.items():
        assert (REPO / link).is_file(), f"{command}: {link} does not exist"


def test_the_readme_holds_no_measurement_diary() -> None:
    text = README.read_text(encoding="utf-8")
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", text), "dates belong to the docs' benchmark pages"
    assert not re.findall(r"\bcommit [0-9a-f]{7,40}\b", text), "commit hashes belong to the docs' benchmark pages"


def nav_pages(node: object) -> List[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in nav_pages(value)]
    return []


def test_every_page_is_in_the_navigation_and_every_command_has_a_page() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = nav_pages(config["nav"])
    on_disk = sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))
    assert sorted(nav) == on_disk
    for name in mlparse_commands():
        assert f"commands/{name}.md" in nav or name == "depeval", name
    assert "commands/depeval.md" in nav and "commands/evalb.md" in nav and "commands/evalb_spmrl.md" in nav


def test_developers_md_stays_inside_the_repository() -> None:
    text = (REPO / "DEVELOPERS.md").read_text(encoding="utf-8")
    assert not re.findall(r"\bissues? \d+", text, flags=re.IGNORECASE), "no issue numbers: say what the code does"
    assert "DESIGN.md" not in text and "/work/" not in text, "no pointers outside the repository"
