"""The commands' consoles (issue 40 §21): on a terminal rich lays lines out at the window's width; written to a
file or a pipe, a line is never wrapped (a log read by grep keeps each dev check on one line)."""

from __future__ import annotations

import ast
import io
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.table import Table

CLI = Path(__file__).resolve().parents[1] / "mlparse" / "cli"


def dev_check() -> SimpleNamespace:
    return SimpleNamespace(epoch=0.5, step=196, loss=7.616, metric="tag accuracy", dev_score=89.33, lr=2e-3,
                           sentences_per_second=365.5)


def test_a_dev_check_written_to_a_pipe_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.cli.run import reporter_for

    piped = io.StringIO()  # not a terminal, as a log file or `| tee`
    monkeypatch.setattr(sys, "stderr", piped)
    with reporter_for(SimpleNamespace(train=SimpleNamespace(max_epochs=3))) as reporter:
        reporter.on_eval(dev_check(), True, False)
        reporter.on_note("x" * 300)
    lines = piped.getvalue().splitlines()
    assert lines[0] == "epoch 0.50 step 196: loss 7.616 dev tag accuracy 89.33 (best) lr 2.00e-03 365.5 sent/s"
    assert lines[1] == "note: " + "x" * 300 and len(lines) == 2


def wide_table() -> Table:
    table = Table(title="a wide table")
    for k in range(12):
        table.add_column(f"column number {k}")
    table.add_row(*[f"a value of row 1, column {k}" for k in range(12)])
    return table


def test_a_table_written_to_a_pipe_keeps_its_natural_width() -> None:
    from mlparse.cli.consoles import CliConsole

    piped = io.StringIO()
    CliConsole(file=piped).print(wide_table())
    text = piped.getvalue()
    assert all(f"a value of row 1, column {k}" in text for k in range(12))  # no cell folded over two lines
    assert len({len(line) for line in text.splitlines()[1:]}) == 1  # every line of the grid as wide as the others


def test_on_a_terminal_the_window_width_still_applies() -> None:
    from mlparse.cli.consoles import CliConsole

    screen = io.StringIO()
    console = CliConsole(file=screen, force_terminal=True, width=40, color_system=None)
    console.print("word " * 20)
    assert max(len(line) for line in screen.getvalue().splitlines()) <= 40
    assert len(screen.getvalue().splitlines()) > 1


def console_calls(path: Path) -> list:
    """The lines of ``path`` that construct rich's Console itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name) and node.func.id == "Console"]


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda path: path.name)
def test_every_command_writes_through_a_console_that_does_not_wrap_for_a_pipe(path: Path) -> None:
    assert path.name == "consoles.py" or not console_calls(path), f"{path.name}: use mlparse.cli.consoles.CliConsole"
