"""``mlparse analyze errors A B`` where its tables do not fit (issue 34: piped to a file at 80 columns, every cell
was cut to '…'): Markdown on a pipe, a file or a narrow terminal; rich tables only where each fits."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import mlparse.cli.analyze as analyze
from mlparse.cli import app
from helpers.dep_fixtures import conllu_text

runner = CliRunner()


@pytest.fixture()
def two_runs(tmp_path: Path) -> list:
    """Two external runs on one tiny gold file (the gold itself, and predictions with other relations)."""
    gold = tmp_path / "data" / "tiny" / "english" / "test.conllu"
    gold.parent.mkdir(parents=True)
    text = conllu_text()
    gold.write_text(text, encoding="utf-8")
    other = tmp_path / "other.conllu"
    other.write_text(text.replace("\tnsubj\t", "\tobj\t"), encoding="utf-8")
    runs = []
    for name, pred in (("gold", gold), ("other", other)):
        result = runner.invoke(app, ["score", str(pred), "--gold", str(gold), "--name", name,
                                     "--runs-dir", str(tmp_path / "runs")])
        assert result.exit_code == 0, result.output
        runs.append(next((tmp_path / "runs" / name).iterdir()))
    return runs


def test_side_by_side_tables_go_out_as_markdown_on_a_pipe(two_runs: list) -> None:
    result = runner.invoke(app, ["analyze", "errors", *map(str, two_runs)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout and "┃" not in result.stdout
    assert "## By relation" in result.stdout
    header = next(line for line in result.stdout.splitlines() if line.startswith("|  | gold | P A | P B | Δ P"))
    rows = [line for line in result.stdout.splitlines() if line.startswith("| nsubj |")]
    assert rows and rows[0].count("|") == header.count("|")  # every cell whole
    assert rows[0].startswith("| nsubj | 7 | 100.00 | 100.00 | +0.00 | 100.00 | 14.29 | -85.71 |")


@pytest.mark.parametrize("width, table", [(80, False), (400, True)])
def test_a_terminal_gets_tables_only_where_they_fit(two_runs: list, monkeypatch: pytest.MonkeyPatch, width: int,
                                                   table: bool) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(analyze, "out", Console(file=screen, force_terminal=True, width=width, color_system=None))
    result = runner.invoke(app, ["analyze", "errors", *map(str, two_runs)])
    assert result.exit_code == 0, result.output
    shown = screen.getvalue()
    assert "…" not in shown
    assert ("┃" in shown) is table and ("## By relation" in shown) is not table
