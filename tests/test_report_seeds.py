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
from mlparse.report.collect import collect_runs
from mlparse.report.leaderboard import build_leaderboards, select_runs
from mlparse.report.model import build_report
from mlparse.report.render_csv import render_csv
from mlparse.report.render_json import render_json
from mlparse.report.render_markdown import render_markdown
from mlparse.report.seeds import SEED_KEYS, group_by_seed, mean_std, seedless_hash
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


def test_latest_shows_the_mean_of_the_latest_group(runs: Path) -> None:
    (board,) = build_leaderboards(collect_runs(runs), None, split="test", select="latest")
    (row,) = board.measured_rows()
    cell = row.cells["faroese"]
    assert (cell.value, cell.std, cell.n) == (82.0, 2.0, 3)
    assert sorted((score.seed, score.value) for score in cell.seeds) == [(1, 80.0), (2, 82.0), (3, 84.0)]
    assert cell.state is None and len(row.source.split(", ")) == 3


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
        "mlparse span (seed 3)": (84.0, 1, None)}


def test_renderers_show_the_deviation_and_carry_every_seed(runs: Path) -> None:
    report = build_report(runs, published_mode="none")
    markdown = render_markdown(report)
    assert "**82.00 ± 2.00 (n=3)**" in markdown
    lines = list(csv.DictReader(io.StringIO(render_csv(report))))
    board = [line for line in lines if line["section"] == "leaderboard" and line["language"] == "faroese"]
    assert [(line["kind"], line["value"]) for line in board] == [
        ("measured", "82.00"), ("seed", "80.00"), ("seed", "82.00"), ("seed", "84.00")]
    assert board[0]["note"] == "mean of 3 seeds, standard deviation 2.00"
    assert [line["note"] for line in board[1:]] == ["seed 1", "seed 2", "seed 3"]
    data = json.loads(render_json(report))
    cell = data["leaderboards"][0]["rows"][0]["scores"]["faroese"]
    assert (cell["value"], cell["std"], cell["n"]) == (82.0, 2.0, 3)
    assert [score["value"] for score in cell["seeds"]] == [80.0, 82.0, 84.0]
    # every seed of the shown mean is marked as shown in the run list
    assert sum(run["selected"] for run in data["runs"]) == 3


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
    assert bar_plot(board) is not None
    assert drawn[0] == ("mlparse (measured, mean ± sd over seeds)", [2.0])
