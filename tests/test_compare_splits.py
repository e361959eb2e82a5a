"""``mlparse compare`` of runs scored on other splits says so (issue 34: it said a gold file "is not there" or
that predictions were missing), and a run given twice gets a note."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mlparse.cli import app
from helpers.dep_fixtures import SENTENCES, conllu_text

runner = CliRunner()


def external(tmp_path: Path, name: str, split: str) -> Path:
    """An external run of the gold file ``split.conllu`` scored against itself, on ``split`` only."""
    gold = tmp_path / "data" / "tiny" / "english" / f"{split}.conllu"
    gold.parent.mkdir(parents=True, exist_ok=True)
    gold.write_text(conllu_text(SENTENCES), encoding="utf-8")
    result = runner.invoke(app, ["score", str(gold), "--gold", str(gold), "--name", name,
                                 "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / "runs" / name).iterdir()
    return run


def compare(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["compare", *args, "--samples", "50"], env={"COLUMNS": "300"})


def test_a_run_without_the_split_is_named_with_the_splits_it_has(tmp_path: Path) -> None:
    on_dev, on_test = external(tmp_path, "on-dev", "dev"), external(tmp_path, "on-test", "test")
    result = compare(str(on_dev), str(on_test))
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert f"error: on-dev/{on_dev.name} ({on_dev}) has no test split: it was scored on dev only; the runs given " \
           "share no scored split" in message
    assert "is not there" not in message and "predictions were kept" not in message
    result = compare(str(on_test), str(on_dev), "--split", "dev")
    assert result.exit_code == 1
    assert f"{on_test}) has no dev split: it was scored on test only" in " ".join(result.output.split())
    other = external(tmp_path / "other", "other-dev", "dev")
    result = compare(str(on_dev), str(other))  # both on dev: the way out is named
    assert result.exit_code == 1
    assert "has no test split: it was scored on dev only; compare on dev: --split dev" in " ".join(result.output.split())
    result = compare(str(on_dev), str(other), "--split", "dev", "--format", "json")
    assert result.exit_code == 0, result.output


def test_the_same_run_twice_gets_a_note(tmp_path: Path) -> None:
    run = external(tmp_path, "mine", "test")
    result = compare(str(run), str(run), "--format", "json")
    assert result.exit_code == 0, result.output
    output = json.loads(result.stdout)
    assert f"mine/{run.name} is given twice ({run}): a run compared with itself differs by nothing" in output["notes"][0]
    (row,) = output["comparisons"]
    assert row["delta"] == 0 and row["p_value"] == 1.0
    assert "note: mine/" in compare(str(run), str(run)).stdout  # the table says so too
    other = external(tmp_path / "b", "theirs", "test")
    result = compare(str(run), str(other), "--format", "json")
    assert result.exit_code == 0 and not any("given twice" in note for note in json.loads(result.stdout)["notes"])
