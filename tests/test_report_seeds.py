"""`mlparse report` groups runs of one recipe that differ only by seed: mean ± standard deviation and n."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Optional

import pytest

from mlparse.config import load_recipe
from mlparse.io_utils import atomic_write_text
from mlparse.run_index.collect import collect_runs
from mlparse.report.leaderboard import build_leaderboards, select_runs
from mlparse.report.model import build_report
from mlparse.report.render_csv import render_csv
from mlparse.report.render_json import render_json
from mlparse.report.render_markdown import render_markdown
from mlparse.run_index.seeds import SEED_KEYS, group_by_seed, mean_std, seedless_hash
from mlparse.results import COMPLETE, FAILED, RunResults, SplitScores
from mlparse.run_dir import RunDir


def write_seed_run(runs: Path, seed: int, test_f1: Optional[float], dev_f1: float, finished: str,
                   overrides: tuple = (), status: str = COMPLETE, recipe: str = "free/faroese") -> RunDir:
    """A run directory as the trainer leaves it: recipe.yaml (the resolved recipe) and results.json."""
    config = load_recipe(recipe, [*overrides, f"train.seed={seed}"])
    run = RunDir.for_recipe(runs, config)
    run.path.mkdir(parents=True)
    atomic_write_text(run.recipe, config.to_yaml())
    run.write_results(RunResults(
        status=status, recipe=config.name, run_id=run.path.name, system="mlparse span", dataset="free",
        language=config.data.language, dev=SplitScores(f1=dev_f1), finished_at=finished,
        test=SplitScores(f1=test_f1) if test_f1 is not None else None, error="boom" if status == FAILED else None))
    return run


@pytest.fixture()
def runs(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    # three seeds of one experiment; an older experiment with another learning rate (best on dev);
    # a failed fourth seed, which counts in no mean
    write_seed_run(runs, 1, 80.0, 79.0, "2026-01-02T00:00:00Z")
    write_seed_run(runs, 2, 82.0, 80.0, "2026-01-02T01:00:00Z")
    write_seed_run(runs, 3, 84.0, 81.0, "2026-01-02T02:00:00Z")
    write_seed_run(runs, 4, None, 0.0, "2026-01-02T03:00:00Z", status=FAILED)
    write_seed_run(runs, 1, 90.0, 88.0, "2026-01-01T00:00:00Z", overrides=("train.lr=0.001",))
    write_seed_run(runs, 2, 91.0, 89.0, "2026-01-01T01:00:00Z", overrides=("train.lr=0.001",))
    return runs


def test_mean_sample_deviation_and_n() -> None:
    assert mean_std([80.0, 82.0, 84.0]) == (82.0, 2.0, 3)
    mean, std, n = mean_std([90.0, 91.0])
    assert (mean, n) == (90.5, 2) and std == pytest.approx(0.7071068)
    assert mean_std([77.5]) == (77.5, None, 1)
    assert mean_std([]) == (None, None, 0)


def test_only_the_seed_keys_split_a_group(runs: Path) -> None:
    assert SEED_KEYS == (("train", "seed"),)
    records = collect_runs(runs)
    groups = group_by_seed(records)
    assert sorted(len(group.runs) for group in groups) == [2, 4]
    by_lr = {load_recipe(str(group.runs[0].run_dir / "recipe.yaml")).train.lr: group for group in groups}
    assert sorted(by_lr[0.0008].seeds.values()) == [1, 2, 3, 4]
    hashes = {seedless_hash(record) for record in records}
    assert len(hashes) == 2 and None not in hashes
    # the run ids still differ by seed: seedless_hash is the recipe hash without the seed only
    assert len({record.run_id for record in records}) == 6


def test_each_configuration_is_a_row_named_by_what_differs(runs: Path) -> None:
    """Two configurations of one recipe (another learning rate) are two rows; seeds stay one row each."""
    (board,) = build_leaderboards(collect_runs(runs), None, split="test", select="latest")
    rows = {row.system: row for row in board.measured_rows()}
    assert sorted(rows) == ["mlparse span", "mlparse span (train.lr: 0.001)"]
    cell = rows["mlparse span"].cells["faroese"]
    assert (cell.value, cell.std, cell.n) == (82.0, 2.0, 3)
    assert sorted((score.seed, score.value) for score in cell.seeds) == [(1, 80.0), (2, 82.0), (3, 84.0)]
    assert cell.state is None and len(rows["mlparse span"].source.split(", ")) == 3
    other = rows["mlparse span (train.lr: 0.001)"].cells["faroese"]
    assert (other.value, other.n) == (90.5, 2)


def test_a_run_in_two_folders_counts_once(runs: Path) -> None:
    import shutil

    copy = runs / "copies"
    for record in collect_runs(runs)[:2]:
        shutil.copytree(record.run_dir, copy / record.recipe / record.run_id)
    warnings: list = []
    (board,) = build_leaderboards(collect_runs(runs), None, split="test", warnings=warnings)
    cell = {row.system: row for row in board.measured_rows()}["mlparse span"].cells["faroese"]
    assert cell.n == 3 and (cell.value, cell.std) == (82.0, 2.0)
    assert sum("counted once" in warning for warning in warnings) == 2
    report = build_report(runs, published_mode="none")
    assert len(report.records) == 6 and sum("counted once" in w for w in report.warnings) == 2


def test_best_picks_the_group_best_on_mean_dev(runs: Path) -> None:
    (board,) = build_leaderboards(collect_runs(runs), None, split="test", select="best")
    cell = board.measured_rows()[0].cells["faroese"]
    assert (cell.value, cell.n) == (90.5, 2) and cell.std == pytest.approx(0.7071068)
    assert [run.results.test.f1 for run in select_runs(collect_runs(runs), "best")] == [91.0]


def test_all_seeds_shows_one_row_per_seed(runs: Path) -> None:
    (board,) = build_leaderboards(collect_runs(runs), None, split="test", select="all-seeds")
    rows = {row.system: row.cells["faroese"] for row in board.measured_rows()}
    assert {name: (cell.value, cell.n, cell.std) for name, cell in rows.items()} == {
        "mlparse span (seed 1)": (80.0, 1, None), "mlparse span (seed 2)": (82.0, 1, None),
        "mlparse span (seed 3)": (84.0, 1, None), "mlparse span (train.lr: 0.001) (seed 1)": (90.0, 1, None),
        "mlparse span (train.lr: 0.001) (seed 2)": (91.0, 1, None)}


def test_renderers_show_the_deviation_and_carry_every_seed(runs: Path) -> None:
    report = build_report(runs, published_mode="none")
    markdown = render_markdown(report)
    assert "**82.00 ± 2.00 (n=3)**" in markdown
    lines = list(csv.DictReader(io.StringIO(render_csv(report))))
    board = [line for line in lines if line["section"] == "leaderboard" and line["language"] == "faroese"
             and line["system"] == "mlparse span"]
    assert [(line["kind"], line["value"]) for line in board] == [
        ("measured", "82.00"), ("seed", "80.00"), ("seed", "82.00"), ("seed", "84.00")]
    assert board[0]["note"] == "mean of 3 seeds, standard deviation 2.00"
    assert [line["note"] for line in board[1:]] == ["seed 1", "seed 2", "seed 3"]
    data = json.loads(render_json(report))
    row = next(row for row in data["leaderboards"][0]["rows"] if row["system"] == "mlparse span")
    cell = row["scores"]["faroese"]
    assert (cell["value"], cell["std"], cell["n"]) == (82.0, 2.0, 3)
    assert [score["value"] for score in cell["seeds"]] == [80.0, 82.0, 84.0]
    # every seed of the shown mean is marked as shown in the run list
    assert sum(run["selected"] for run in data["runs"]) == 5  # both configurations' complete seeds


def test_the_bar_plot_draws_one_standard_deviation_as_error_bar(runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.axes import Axes

    from mlparse.report.plots import bar_plot

    drawn = []
    original = Axes.bar

    def bar(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        drawn.append((kwargs.get("label"), kwargs.get("yerr")))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "bar", bar)
    (board,) = build_report(runs, published_mode="none").leaderboards
    plot = bar_plot(board)
    assert plot is not None
    # one bar series per system (every row of the leaderboard), each with its name; a mean over seeds has its sd
    assert [label for label, _ in drawn] == [f"{row.system} (measured)" for row in board.rows] == plot.series
    errors = dict(drawn)
    assert errors["mlparse span (measured)"] == [2.0]


def test_plots_name_runs_by_configuration_and_seed_and_can_use_minutes(runs: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.axes import Axes

    from mlparse.report.plots import dev_curve_plots, run_names

    for record in collect_runs(runs):
        lines = [{"step": 10 * k, "epoch": k / 10, "dev_score": 70.0 + k, "metric": "f1", "lr": 0.001,
                  "elapsed_seconds": 30.0 * k} for k in range(1, 4)]
        (record.run_dir / "log.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = build_report(runs, published_mode="none", curve_x="minutes")
    names = run_names(report)
    assert sorted(set(names.values())) == [
        "mlparse span (train.lr: 0.001), seed 1", "mlparse span (train.lr: 0.001), seed 2",
        "mlparse span, seed 1", "mlparse span, seed 2", "mlparse span, seed 3", "mlparse span, seed 4"]
    drawn = []
    original = Axes.plot

    def plot(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("label"):
            drawn.append((kwargs["label"], list(args[0])))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "plot", plot)
    (figure,) = dev_curve_plots(report)
    assert figure.name == "dev-f1-constituency-free-minutes"
    assert ("mlparse span, seed 1", [0.5, 1.0, 1.5]) in drawn  # minutes, not steps
    assert not any("/" in label for label, _ in drawn)  # no run ids
    report_steps = build_report(runs, published_mode="none")
    drawn.clear()
    (figure,) = dev_curve_plots(report_steps)
    assert figure.name == "dev-f1-constituency-free" and ("mlparse span, seed 1", [10, 20, 30]) in drawn


def test_fold_members_are_named_by_their_fold(tmp_path: Path) -> None:
    """Jack-knifed fold members (taggers, --folds ensembles) read "fold k of n"; the model on all of the data reads
    as its recipe, not as the folds' keys set to none."""
    runs = tmp_path / "runs"
    write_seed_run(runs, 1, 80.0, 79.0, "2026-01-02T00:00:00Z", overrides=("data.folds=2", "data.fold=0"))
    write_seed_run(runs, 1, 81.0, 80.0, "2026-01-02T01:00:00Z", overrides=("data.folds=2", "data.fold=1"))
    write_seed_run(runs, 1, 82.0, 81.0, "2026-01-02T02:00:00Z")
    (board,) = build_leaderboards(collect_runs(runs), None, split="test", select="latest")
    assert sorted(row.system for row in board.measured_rows()) == [
        "mlparse span", "mlparse span (fold 1 of 2)", "mlparse span (fold 2 of 2)"]


def test_runs_with_other_time_budgets_are_other_configurations(tmp_path: Path) -> None:
    """train.max_minutes is not part of the run id, but a 5-minute and a 60-minute run are not two seeds of one
    system: their scores are never pooled, and their rows (and the names `mlparse compare` takes) differ."""
    from mlparse.run_index.systems import index_systems, matching_systems

    runs = tmp_path / "runs"
    for seed, f1 in ((1, 70.0), (2, 71.0)):
        write_seed_run(runs, seed, f1, f1, f"2026-01-0{seed}T00:00:00Z", overrides=("train.max_minutes=5",))
    for seed, f1 in ((3, 88.0), (4, 89.0)):
        write_seed_run(runs, seed, f1, f1, f"2026-01-0{seed}T00:00:00Z", overrides=("train.max_minutes=60",))
    records = collect_runs(runs)
    assert len({seedless_hash(record) for record in records}) == 1  # the run ids' recipe: one
    assert sorted(len(group.runs) for group in group_by_seed(records)) == [2, 2]
    (board,) = build_leaderboards(records, None, split="test", select="latest")
    cells = {row.system: row.cells["faroese"] for row in board.measured_rows()}
    assert {name: (cell.value, cell.n) for name, cell in cells.items()} == {
        "mlparse span (train.max_minutes: 5)": (70.5, 2), "mlparse span (train.max_minutes: 60)": (88.5, 2)}
    systems = index_systems(records)
    assert len(matching_systems(systems, "mlparse span (train.max_minutes: 60)")) == 1


def test_a_jack_knifing_runs_budget_is_read_from_its_results(tmp_path: Path) -> None:
    """A jack-knifing run records its budget in all in results.json (budget.minutes): that is the one it ran under."""
    from mlparse.run_index.seeds import recorded_budget

    runs = tmp_path / "runs"
    run = write_seed_run(runs, 1, 80.0, 79.0, "2026-01-02T00:00:00Z")
    (record,) = collect_runs(runs)
    assert recorded_budget(record) is None
    results = json.loads((run.path / "results.json").read_text(encoding="utf-8"))
    results["budget"] = {"minutes": 20}
    (run.path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    (record,) = collect_runs(runs)
    assert recorded_budget(record) == 20.0


def test_a_run_records_the_budget_it_ran_under(tmp_path: Path) -> None:
    """--max-minutes (RunOptions.max_minutes) wins over the recipe's train.max_minutes: results.json records it, so
    that the report groups the run with runs of its budget; the run id does not change."""
    from helpers.run_fixtures import write_tiny_recipe
    from mlparse.run_index.seeds import recorded_budget
    from mlparse.train.runner import RunOptions, run_recipe

    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs", max_minutes=30))
    run = RunDir.for_recipe(tmp_path / "runs", config)
    assert load_recipe(str(run.recipe)).train.max_minutes is None  # the recipe's own: none
    (record,) = collect_runs(tmp_path / "runs")
    assert recorded_budget(record) == 30.0 and record.run_id == run.path.name
