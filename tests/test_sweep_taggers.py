"""The taggers of a jack-knifing recipe as sweep members of their own: scheduled side by side (local slots; Slurm
jobs that the parser's job depends on, ``--dependency=afterok``), the same runs the parser's process would train
(same run ids, same tag folder), so the parser finds them finished and does not train them again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.results import COMPLETE, FAILED, RunResults
from mlparse.run_dir import RunDir
from mlparse.sweep.driver import SubmissionRefused, SweepRun, member_argv
from mlparse.sweep.local import LocalLauncher
from mlparse.sweep.status import member_statuses
from mlparse.sweep.suite import load_suite
from mlparse.sweep.table import status_table
from mlparse.sweep.taggers import with_taggers
from mlparse.train.jackknife import load_tags, tagger_configs, tags_folder
from helpers.sweep_fakes import Finished
from helpers.dep_fixtures import write_dep_recipe
from helpers.run_fixtures import REPO
from helpers.tagger_fixtures import write_tagger_recipe

runner = CliRunner()


@pytest.fixture(autouse=True)
def member_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Member processes import this checkout's mlparse, on one thread."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def jackknife_suite(tmp_path: Path, seeds: str = "[1]", tagger_epochs: int = 2):  # type: ignore[no-untyped-def]
    recipe = write_dep_recipe(tmp_path, train={"max_epochs": 1})
    tagger = write_tagger_recipe(tmp_path, max_epochs=tagger_epochs)
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"seeds: {seeds}\nset: [data.tags=jackknife, tagger.folds=2, tagger.recipe={tagger}]\n"
                     f"members:\n  - {recipe}\n", encoding="utf-8")
    return with_taggers(load_suite(str(suite)).members())


def test_taggers_are_members_once_with_the_runs_the_parser_would_train(tmp_path: Path) -> None:
    members = jackknife_suite(tmp_path, seeds="[1, 2]")
    taggers, parsers = members[:3], members[3:]
    assert [m.label for m in taggers] == ["tagger-tiny-english fold tagger 1 of 2 (fold 0 held out)", "tagger-tiny-english fold tagger 2 of 2 (fold 1 held out)",
                                          "tagger-tiny-english all of train"]
    assert [m.label for m in parsers] == ["tiny-dep seed 1", "tiny-dep seed 2"]  # both seeds share the taggers
    runs = tmp_path / "runs"
    for parser in parsers:
        assert parser.after == tuple(m.label for m in taggers)
        expected = [RunDir.for_recipe(runs, t).path for t in tagger_configs(parser.config)]
        assert [RunDir.for_recipe(runs, m.config).path for m in taggers] == expected
    argv = member_argv(taggers[2], runs, 5.0)
    assert argv[-2:] == ["--tagger", "all"] and "--max-minutes" not in argv  # a tagger's budget: tagger.max_minutes
    # what the member's command runs is that very tagger run
    from mlparse.cli.run import _one_tagger

    for index, which in enumerate(["0", "1", "all"]):
        chosen, _ = _one_tagger(load_recipe(parsers[0].recipe, list(parsers[0].overrides)), which, None)
        assert chosen.hash() == tagger_configs(parsers[0].config)[index].hash()
    gold = load_suite(str(tmp_path / "suite.yaml")).members(overrides=["data.tags=gold"])
    assert with_taggers(gold) == gold  # no jack-knifing, no taggers


def test_run_tagger_refuses_a_bad_fold_or_a_recipe_without_jackknifing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "demo-dep", "--set", "data.tags=jackknife", "--set", "tagger.folds=2",
                                 "--tagger", "2", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2 and "--tagger takes a fold number from 0 to 1 (tagger.folds=2) or all" in result.output
    result = runner.invoke(app, ["run", "demo", "--tagger", "all", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2 and "has no jack-knifed tags" in result.output


class Watching(LocalLauncher):
    """The local launcher on three slots (CPU processes), noting when each member starts and first shows done, and
    the taggers' results.json when the parser starts."""

    def __init__(self) -> None:
        super().__init__(gpus=["0", "1", "2"])  # three slots; the recipes train on CPU
        self.events: List[Tuple[str, str, float]] = []
        self.taggers_at_parser_start: Dict[str, str] = {}

    def start(self, member, argv, run_dir):  # type: ignore[no-untyped-def]
        if member.tagger is None:
            for config in tagger_configs(member.config):
                tagger_dir = RunDir.for_recipe(Path(argv[argv.index("--runs-dir") + 1]), config)
                self.taggers_at_parser_start[str(tagger_dir.path)] = tagger_dir.results.read_text(encoding="utf-8")
        handle = super().start(member, argv, run_dir)
        if handle is not None:
            self.events.append(("start", member.label, time.monotonic()))
            done, events = handle.done, self.events

            def watched_done() -> bool:
                finished = done()
                if finished and not any(e[:2] == ("done", member.label) for e in events):
                    events.append(("done", member.label, time.monotonic()))
                return finished

            handle.done = watched_done  # type: ignore[method-assign]
        return handle


@pytest.mark.slow  # member processes: three tiny taggers and a tiny parser
def test_local_sweep_runs_taggers_side_by_side_then_the_parser_reuses_them(tmp_path: Path) -> None:
    members = jackknife_suite(tmp_path)
    runs = tmp_path / "runs"
    launcher = Watching()
    rows = SweepRun("suite", members, runs, None, launcher, announce=lambda text: None).run()
    assert {row.label: row.state for row in rows} == {m.label: COMPLETE for m in members}, rows
    starts = [label for kind, label, _ in launcher.events if kind == "start"]
    first_done = min(at for kind, _, at in launcher.events if kind == "done")
    # the taggers started before any member ended: side by side on the slots
    assert [at for kind, _, at in launcher.events if kind == "start"][2] < first_done
    assert starts[-1] == "tiny-dep seed 1"  # the parser last, after every tagger completed
    parser_start = [at for kind, label, at in launcher.events if kind == "start" and label == "tiny-dep seed 1"][0]
    assert all(at <= parser_start for kind, label, at in launcher.events if kind == "done" and label != starts[-1])
    parser = members[-1]
    tagged = load_tags(parser.config)
    assert tagged is not None and tagged.folder == tags_folder(parser.config, tagger_configs(parser.config))
    assert [t["run_dir"] for t in tagged.manifest["taggers"]] == [
        str(RunDir.for_recipe(runs, m.config).path) for m in members[:3]]
    for path, before in launcher.taggers_at_parser_start.items():  # the parser trained none of them again
        assert RunDir(Path(path)).results.read_text(encoding="utf-8") == before
        assert json.loads(before)["status"] == COMPLETE
    results = RunDir.for_recipe(runs, parser.config).read_results()
    assert results.input_tags["source"] == "jackknife" and results.input_tags["folder"] == str(tagged.folder)
    # the status table shows the taggers
    table = status_table("suite", member_statuses(members, runs))
    assert [str(cell) for cell in table.columns[0]._cells][:3] == [m.label for m in members[:3]]


class FakeSlurm:
    """A launcher like Slurm's: every member submitted at once, waiting members given their jobs (``after``);
    ``refuse`` names members whose submission fails (this member only)."""

    name = "slurm"
    dependencies = True

    def __init__(self, refuse: Tuple[str, ...] = ()) -> None:
        self.submitted: List[Tuple[str, Tuple[str, ...], str]] = []
        self.refuse = refuse

    def start(self, member, argv, run_dir, after=()):  # type: ignore[no-untyped-def]
        if member.label in self.refuse:
            raise SubmissionRefused("sbatch refused the job: Socket timed out on send/recv operation", False)
        job = str(101 + len(self.submitted))
        self.submitted.append((member.label, tuple(after), job))
        run_dir.path.mkdir(parents=True, exist_ok=True)
        run_dir.write_results(RunResults(status=COMPLETE, recipe=member.config.name))
        return Finished(f"job {job}")

    def gpus_for(self, member) -> int:  # type: ignore[no-untyped-def]
        return 0

    def close(self) -> None:
        pass


def test_slurm_submits_the_parser_with_a_dependency_on_its_taggers_jobs(tmp_path: Path) -> None:
    members = jackknife_suite(tmp_path, seeds="[1, 2]")
    launcher = FakeSlurm()
    rows = SweepRun("suite", members, tmp_path / "runs", None, launcher, announce=lambda text: None).run()
    assert all(row.state == COMPLETE for row in rows)
    assert launcher.submitted == [
        ("tagger-tiny-english fold tagger 1 of 2 (fold 0 held out)", (), "101"), ("tagger-tiny-english fold tagger 2 of 2 (fold 1 held out)", (), "102"),
        ("tagger-tiny-english all of train", (), "103"),
        ("tiny-dep seed 1", ("101", "102", "103"), "104"), ("tiny-dep seed 2", ("101", "102", "103"), "105")]


def test_a_tagger_that_cannot_run_fails_its_parsers_without_starting_them(tmp_path: Path) -> None:
    members = jackknife_suite(tmp_path)
    launcher = FakeSlurm(refuse=("tagger-tiny-english fold tagger 2 of 2 (fold 1 held out)",))
    said: List[str] = []
    rows = {row.label: row for row in SweepRun("suite", members, tmp_path / "runs", None, launcher,
                                               announce=said.append).run()}
    assert [label for label, _, _ in launcher.submitted] == ["tagger-tiny-english fold tagger 1 of 2 (fold 0 held out)",
                                                             "tagger-tiny-english all of train"]
    assert rows["tiny-dep seed 1"].state == FAILED
    assert rows["tiny-dep seed 1"].reason.startswith("not run: tagger-tiny-english fold tagger 2 of 2 (fold 1 held out) failed (sbatch refused")


def test_a_slurm_job_script_waits_for_the_taggers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("submitit")
    from mlparse.sweep.slurm import SlurmLauncher
    from mlparse.sweep.suite import SlurmSettings

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "sbatch").write_text('#!/bin/sh\nn=$(($(cat "$FAKE_SLURM/next" 2>/dev/null || echo 200) + 1))\n'
                                 'echo "$n" > "$FAKE_SLURM/next"\ncp "$1" "$FAKE_SLURM/job-$n.sh"\n'
                                 'echo "Submitted batch job $n"\n', encoding="utf-8")
    (fake / "sbatch").chmod(0o755)
    (fake / "srun").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")  # submitit 1.5.4 looks for srun first
    (fake / "srun").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM", str(tmp_path))
    members = jackknife_suite(tmp_path)
    launcher = SlurmLauncher(SlurmSettings(cpus_per_task=1))
    runs = tmp_path / "runs"
    tagger = launcher.start(members[0], member_argv(members[0], runs, None), RunDir.for_recipe(runs, members[0].config))
    parser = launcher.start(members[-1], member_argv(members[-1], runs, None),
                            RunDir.for_recipe(runs, members[-1].config), after=["201", "202", "203"])
    assert (tagger.job, parser.job) == ("job 201", "job 202")
    tagger_script = (tmp_path / "job-201.sh").read_text(encoding="utf-8")
    parser_script = (tmp_path / "job-202.sh").read_text(encoding="utf-8")
    assert "--dependency" not in tagger_script and "#SBATCH --job-name=tagger-tiny-english-fold-tagger-1-of-2-fold-0-held-out" in tagger_script
    assert "#SBATCH --dependency=afterok:201:202:203" in parser_script
    assert "#SBATCH --kill-on-invalid-dep=yes" in parser_script  # a failed tagger cancels it, no endless wait


def test_the_status_command_lists_the_taggers(tmp_path: Path) -> None:
    jackknife_suite(tmp_path)
    result = runner.invoke(app, ["sweep", str(tmp_path / "suite.yaml"), "--status", "--runs-dir",
                                 str(tmp_path / "runs")], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    for label in ("tagger-tiny-english fold tagger 1 of 2 (fold 0 held out)", "tagger-tiny-english fold tagger 2 of 2 (fold 1 held out)",
                  "tagger-tiny-english all of train", "tiny-dep seed 1"):
        assert label in result.output
