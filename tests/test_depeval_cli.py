"""The ``depeval`` console script and ``mlparse depeval``: output, exit status, errors without traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from depeval import SCORER_VERSION
from depeval.cli import main
from mlparse.cli import app
from helpers.depeval_fixtures import GOLD, SYSTEM
from helpers.depeval_fixtures import VERBOSE


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    system.write_text(SYSTEM, encoding="utf-8")
    return str(gold), str(system)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plain_and_verbose_output(capsys, files):
    assert run(capsys, *files) == (0, "LAS F1 Score: 75.00\nMLAS Score: 50.00\nBLEX Score: 50.00\n", "")
    assert run(capsys, "-v", *files) == (0, VERBOSE, "")
    code, out, _ = run(capsys, "--ptb-punct", "--punct-column", "upos", *files)
    assert code == 0 and out.startswith("Convention: PTB, punctuation excluded (gold UPOS in `` '' : , .)")


def test_refused_input_prints_the_scripts_message_and_where(capsys, files, tmp_path):
    broken = tmp_path / "broken.conllu"
    broken.write_text(SYSTEM.replace("4\t.\t.\t", "4\t.\t"), encoding="utf-8")
    code, out, err = run(capsys, files[0], str(broken))
    assert (code, out) == (1, "")
    assert err == ("The CoNLL-U line does not contain 10 tab-separated columns: '4\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_'\n"
                   f"(at {broken}, line 4)\n")


def test_missing_file(capsys, files):
    code, out, err = run(capsys, files[0], "/nonexistent/system.conllu")
    assert (code, out, err) == (1, "", "depeval: cannot read /nonexistent/system.conllu: No such file or directory\n")


def test_whole_process_exit_status_and_no_traceback(files, tmp_path):
    cycle = tmp_path / "cycle.conllu"
    cycle.write_text(SYSTEM.replace("\t0\troot", "\t4\troot"), encoding="utf-8")
    command = [sys.executable, "-c", "import sys; from depeval.cli import main; sys.exit(main())"]
    done = subprocess.run(command + [files[0], str(cycle)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"There is a cycle in a sentence\n(at {cycle}, line 2)\n"
    version = subprocess.run(command + ["--version"], capture_output=True, text=True)
    assert version.stdout.strip() == SCORER_VERSION and SCORER_VERSION.startswith("conll18-v1.2+depeval-")


def test_mlparse_depeval_command(files, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["depeval", "-v", *files])
    assert result.exit_code == 0 and result.output == VERBOSE
    result = runner.invoke(app, ["depeval", "--ptb-punct", *files])
    assert result.exit_code == 0 and result.output.splitlines()[0].startswith("Convention: PTB")
    empty = tmp_path / "empty.conllu"
    empty.write_text(GOLD + "\n", encoding="utf-8")
    result = runner.invoke(app, ["depeval", files[0], str(empty)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "error: There are multiple roots in a sentence" in result.output and "line 6" in result.output
