"""Damaged checkpoints are named as such, and a run resumes from the other file to the uninterrupted result;
a run killed between its two checkpoint writes resumes exactly (issue 14, item 6)."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import List

import pytest
import torch
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.results import COMPLETE, RunResults
from mlparse.train import checkpoint
from mlparse.train.resume import ResumeError
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.train.trainer import Reporter
from helpers.checkpoint_fixtures import truncate
from helpers.run_fixtures import Record, write_tiny_recipe

#: 8 tiny trees, batches of 4, two dev checks per epoch: checks at steps 1..8; the check at step 7 is
#: the only one that does not improve (asserted by the ``reference`` fixture).
# On the CPU: resuming is checked to the bit, and on a GPU the auto sub-batch budget that the log records
# follows the memory free at the time (other processes on the GPU change it).
TRAIN = {"max_epochs": 4, "evals_per_epoch": 2, "device": "cpu"}


class Interrupt(Exception):
    pass


class StopAt(Record):
    """Raises at update ``step``, before its dev check: the checkpoints are those of the check before."""

    def __init__(self, step: int) -> None:
        super().__init__()
        self.stop = step

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        super().on_step(info)
        if info.step >= self.stop:
            raise Interrupt()


def log_without_times(run_dir: RunDir) -> List[dict]:
    entries = [json.loads(line) for line in run_dir.log.read_text().splitlines()]
    for entry in entries:
        entry.pop("elapsed_seconds")
    return entries


def weights(path: Path) -> dict:
    return checkpoint.load(path)["model"]


def same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """(recipe, run directory, results) of the run trained without interruption."""
    root = tmp_path_factory.mktemp("reference")
    recipe = write_tiny_recipe(root, train=TRAIN)
    config = load_recipe(recipe)
    results = run_recipe(config, RunOptions(runs_dir=root / "runs"))
    run_dir = RunDir.for_recipe(root / "runs", config)
    best = [entry["best"] for entry in log_without_times(run_dir)]
    assert best == [True] * 6 + [False, True], best  # the premise of the tests below
    return recipe, run_dir, results


def interrupted(reference: tuple, tmp_path: Path, stop: int) -> tuple:
    """The reference recipe, trained in ``tmp_path/runs`` until update ``stop`` and interrupted there."""
    config = load_recipe(reference[0])
    with pytest.raises(Interrupt):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), StopAt(stop))
    return config, RunDir.for_recipe(tmp_path / "runs", config)


def assert_same_as_reference(reference: tuple, run_dir: RunDir, results: RunResults) -> None:
    _, ref_dir, ref_results = reference
    assert results.status == COMPLETE
    assert results.dev == ref_results.dev and results.test == ref_results.test
    assert log_without_times(run_dir) == log_without_times(ref_dir)
    assert same_weights(weights(run_dir.best), weights(ref_dir.best))
    assert same_weights(weights(run_dir.last), weights(ref_dir.last))


def test_damaged_files_are_named_as_such(reference: tuple, tmp_path: Path) -> None:
    source = reference[1].last.read_bytes()
    cut, empty, text, flipped = (tmp_path / name for name in ("cut.pt", "empty.pt", "text.pt", "flipped.pt"))
    cut.write_bytes(source[: len(source) // 2])
    empty.write_bytes(b"")
    text.write_text("not a checkpoint")
    with zipfile.ZipFile(reference[1].last) as archive:  # one byte of a weight tensor's data, changed
        record = next(info for info in archive.infolist() if "/data/" in info.filename and info.file_size >= 64)
    start = record.header_offset + 30 + len(record.filename.encode()) + len(record.extra)
    damaged = bytearray(source)
    with zipfile.ZipFile(reference[1].last) as archive, archive.open(record) as member:
        start = source.index(member.read(64), start)  # where the record's data begins (after the local header)
    damaged[start + 10] ^= 0xFF
    flipped.write_bytes(bytes(damaged))
    torch.load(flipped, weights_only=True)  # torch reads the damaged weights without a word
    expected = {cut: "is truncated or damaged", empty: "is empty (0 bytes): truncated",
                text: "not an mlparse checkpoint", flipped: f"is corrupted: the checksum of its part {record.filename}"}
    for path, message in expected.items():
        with pytest.raises(checkpoint.CorruptCheckpoint, match=message.replace("(", r"\(").replace(")", r"\)")):
            checkpoint.load(path)
    result = CliRunner().invoke(app, ["parse", "--model", str(cut)], input="a b\n")
    assert result.exit_code == 1 and f"{cut}: is truncated" in result.output and "Traceback" not in result.output


def test_a_truncated_last_pt_resumes_from_best_pt_to_the_same_result(reference: tuple, tmp_path: Path) -> None:
    config, run_dir = interrupted(reference, tmp_path, stop=8)  # last.pt: check 7; best.pt: check 6
    assert checkpoint.load(run_dir.last)["state"]["step"] == 7 and checkpoint.load(run_dir.best)["state"]["step"] == 6
    truncate(run_dir.last)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert any(f"{run_dir.last} is truncated" in note and f"resuming from {run_dir.best}" in note and "step 6" in note
               for note in record.notes), record.notes
    assert record.steps[0] == 7  # the update after best.pt's check is trained again
    assert_same_as_reference(reference, run_dir, results)


def test_a_truncated_best_pt_is_rewritten_from_last_pt_holding_the_same_check(reference: tuple, tmp_path: Path) -> None:
    config, run_dir = interrupted(reference, tmp_path, stop=7)  # last.pt and best.pt: check 6
    truncate(run_dir.best)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert any(f"{run_dir.best} is truncated" in note and f"rewritten from {run_dir.last}" in note
               for note in record.notes), record.notes
    assert record.steps[0] == 7
    assert_same_as_reference(reference, run_dir, results)


def test_a_lost_best_checkpoint_is_reported_and_the_next_best_check_replaces_it(reference: tuple, tmp_path: Path) -> None:
    config, run_dir = interrupted(reference, tmp_path, stop=8)  # best.pt (check 6) cannot be rebuilt from last.pt (7)
    truncate(run_dir.best)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert any("are lost" in note and "step 6" in note for note in record.notes), record.notes
    assert_same_as_reference(reference, run_dir, results)  # check 8 beats check 6 and writes best.pt again


def test_without_a_good_best_pt_the_final_scores_are_last_pt_s_and_say_so(reference: tuple, tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={**TRAIN, "patience_epochs": 0.5})  # stops at the first check without gain
    config = load_recipe(recipe)
    first = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    assert first.stop_reason == "patience" and first.best_step == 6
    truncate(run_dir.best)
    saved = json.loads(run_dir.results.read_text())
    run_dir.results.write_text(json.dumps({**saved, "status": "running"}))  # as if killed before the end
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    last_check = log_without_times(run_dir)[-1]
    assert last_check["step"] == 7 and not last_check["best"]
    assert results.best_step == 7 and results.dev.f1 == pytest.approx(last_check["dev_score"])
    assert any(f"{run_dir.best} is truncated" in note and f"final scores are those of {run_dir.last}" in note
               for note in results.notes), results.notes


def test_two_damaged_checkpoints_stop_the_resume_with_both_named(reference: tuple, tmp_path: Path) -> None:
    config, run_dir = interrupted(reference, tmp_path, stop=8)
    truncate(run_dir.last)
    run_dir.best.write_bytes(b"")
    with pytest.raises(ResumeError, match="cannot resume") as refused:
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    message = str(refused.value)
    assert f"{run_dir.last} is truncated" in message and f"{run_dir.best} is empty" in message and "--fresh" in message


class KilledBetweenWrites(BaseException):
    """Stands for SIGKILL: not an Exception, so nothing on the way up handles it as an error."""


def test_a_run_killed_between_its_two_checkpoint_writes_resumes_exactly(reference: tuple, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14, item 6: at an improving check both best.pt and last.pt are written; a kill after the first
    of the two is in place must not change the resumed run's log, schedule or final scores."""
    config = load_recipe(reference[0])
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    checkpoints = str(run_dir.checkpoints.folder)
    # checks 1..6 improve: each puts two checkpoint files in place; the kill comes after the first one of check 6
    kill_at, seen = 2 * 5 + 1, []
    real_replace = os.replace

    def replace(source, target, **kwargs):  # type: ignore[no-untyped-def]
        real_replace(source, target, **kwargs)
        if str(target).startswith(checkpoints):
            seen.append(Path(target).name)
            if len(seen) == kill_at:
                raise KilledBetweenWrites()

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KilledBetweenWrites):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), Reporter())
    monkeypatch.setattr(os, "replace", real_replace)
    assert seen[-1] in ("best.pt", "last.pt") and len(seen) == kill_at
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert_same_as_reference(reference, run_dir, results)
