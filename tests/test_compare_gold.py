"""Gold that cannot drift: every run records the sha256 of its gold files; ``mlparse compare``, the report's marks and
``mlparse analyze errors`` refuse a run whose gold file changed, naming the file and both checksums, unless
``--rescore``; runs made before the checksums were recorded are read with a note."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from helpers.run_fixtures import train_tiny_seeds

runner = CliRunner()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """Two tiny span runs differing only by seed, their data folder and runs folder (kept unchanged: tests copy)."""
    tmp = tmp_path_factory.mktemp("gold")
    return tmp, train_tiny_seeds(tmp, train={"max_epochs": 2})


def _relabel_first_np(path: Path) -> None:
    """Edit one bracket label of a gold file (the words stay, so the predictions still pair with it)."""
    text = path.read_text(encoding="utf-8")
    assert "(NP " in text
    path.write_text(text.replace("(NP ", "(XP ", 1), encoding="utf-8")


def test_trained_runs_record_the_sha256_of_their_gold_files(trained: tuple) -> None:
    tmp, (first, _) = trained
    gold = json.loads((first / "results.json").read_text())["gold"]
    for split in ("dev", "test"):
        path = Path(gold[split]["path"])
        assert path == (tmp / "data" / f"{split}.trees").resolve() and gold[split]["sha256"] == _sha(path)


def test_an_edited_gold_file_is_refused_with_both_checksums_and_rescored_on_request(trained: tuple,
                                                                                     tmp_path: Path) -> None:
    """The issue's reproduction: two runs scored against a copy of the gold file, one bracket label edited."""
    tmp, (first, second) = trained
    copy = tmp_path / "test.trees"
    shutil.copyfile(tmp / "data" / "test.trees", copy)
    runs = tmp_path / "runs"
    externals = []
    for name, run in (("one", first), ("two", second)):
        scored = runner.invoke(app, ["score", str(run / "test.pred.trees"), "--gold", str(copy), "--name", name,
                                     "--runs-dir", str(runs)])
        assert scored.exit_code == 0, scored.output
        externals.append(next((runs / name).iterdir()))
    before = _sha(copy)
    _relabel_first_np(copy)
    after = _sha(copy)
    args = ["compare", str(externals[0]), str(externals[1]), "--samples", "100"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1, refused.output
    message = " ".join(refused.output.split())
    assert str(copy.resolve()) in message.replace(" ", "") or str(copy.resolve()) in message
    assert before in message.replace(" ", "") and after in message.replace(" ", "") and "--rescore" in message
    rescored = runner.invoke(app, args + ["--rescore", "--format", "json"])
    assert rescored.exit_code == 0, rescored.output
    data = json.loads(rescored.output)
    (row,) = data["comparisons"]
    recorded = [json.loads((run / "results.json").read_text())["test"]["f1"] for run in externals]
    assert [row["score_a"], row["score_b"]] != recorded  # scored against the edited gold, as asked
    assert sum("re-scored against the gold test file as it is now" in note for note in data["notes"]) == 2


def test_a_trained_runs_changed_gold_is_refused_by_compare_marks_and_analyze_errors(trained: tuple,
                                                                                    tmp_path: Path) -> None:
    tmp, _ = trained
    shutil.copytree(tmp, tmp_path / "copy")
    root = tmp_path / "copy"
    runs = root / "runs"
    for path in runs.rglob("recipe.yaml"):  # the copied runs read the copied data
        path.write_text(path.read_text().replace(str(tmp), str(root)))
    first, second = sorted((runs / "tiny").iterdir())
    gold = root / "data" / "test.trees"
    scored = runner.invoke(app, ["score", str(first / "test.pred.trees"), "--gold", str(gold), "--name", "ext",
                                 "--runs-dir", str(runs), "--family", "tiny", "--language", "english"])
    assert scored.exit_code == 0, scored.output
    recorded = json.loads((first / "results.json").read_text())["gold"]["test"]["sha256"]
    assert recorded == _sha(gold)
    _relabel_first_np(gold)
    now = _sha(gold)
    refused = runner.invoke(app, ["compare", str(first), str(second), "--samples", "100"])
    assert refused.exit_code == 1
    message = "".join(refused.output.split())
    assert recorded in message and now in message and "tiny/" in message
    # the report: the runs are left untested, and its warnings name the file and both checksums
    report = runner.invoke(app, ["report", str(runs), "--format", "json", "--published", "none"])
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout if hasattr(report, "stdout") else report.output)
    cells = [cell for board in data["leaderboards"] for row in board["rows"] for cell in row["scores"].values()]
    assert all(cell.get("significance") is None for cell in cells)
    warnings = " ".join(w for run in data["runs"] for w in run["warnings"])
    assert recorded in warnings and now in warnings and str(gold) in warnings
    rescored = runner.invoke(app, ["report", str(runs), "--format", "json", "--published", "none", "--rescore"])
    data = json.loads(rescored.stdout if hasattr(rescored, "stdout") else rescored.output)
    cells = [cell for board in data["leaderboards"] for row in board["rows"] for cell in row["scores"].values()]
    assert any(cell.get("significance") is not None for cell in cells)
    # analyze errors
    analysed = runner.invoke(app, ["analyze", "errors", str(first), "--format", "json"])
    assert analysed.exit_code == 1 and recorded in "".join(analysed.output.split())
    assert runner.invoke(app, ["analyze", "errors", str(first), "--format", "json", "--rescore"]).exit_code == 0


def test_runs_made_before_checksums_are_read_with_a_note(trained: tuple, tmp_path: Path) -> None:
    tmp, (first, second) = trained
    runs = tmp_path / "runs"
    for run in (first, second):
        target = runs / "tiny" / run.name
        shutil.copytree(run, target)
        data = json.loads((target / "results.json").read_text())
        del data["gold"]  # as an older mlparse wrote it
        (target / "results.json").write_text(json.dumps(data))
    result = runner.invoke(app, ["compare", str(runs / "tiny" / first.name), str(runs / "tiny" / second.name),
                                 "--samples", "100", "--format", "json"])
    assert result.exit_code == 0, result.output
    notes = json.loads(result.output)["notes"]
    assert sum("made before mlparse recorded gold checksums" in note and "cannot be checked" in note
               for note in notes) == 2
