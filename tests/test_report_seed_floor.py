"""Three seeds a system cannot mark anything in a column of three systems: the exact permutation test over seeds
cannot go below 0.1 with 3 + 3 seeds, 0.2 after Holm's correction over the column's two tests.  The report says so
under its table (:func:`mlparse.compare.marks.unmarkable_lines`), with the fewest seeds that could, and ``mlparse
compare`` under its verdicts; the ``ud-peers`` suite runs that many."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from mlparse.cli.app import app
from mlparse.compare.marks import ALPHA, MARK, legend_lines
from mlparse.compare.seed_permutation import fewest_equal_seeds, permutation_floor, unreachable_text
from mlparse.report.leaderboard import Cell, Leaderboard, LeaderboardRow
from mlparse.results import COMPLETE
from mlparse.run_dispatch import run_recipe
from mlparse.sweep.suite import load_suite
from mlparse.train.runner import RunOptions
from helpers.external_fixtures import write_external_recipe

runner = CliRunner()

#: A peer of one parsing habit (``--kind``: left chains, right chains, or every word on the first), which parses one
#: sentence a seed another way: three systems that differ, and seeds of one system that differ too.
HABIT_PEER = '''
import json, sys
args = sys.argv[2:]
def value(flag):
    return args[args.index(flag) + 1]
if sys.argv[1] == "train":
    with open(value("--model"), "w") as out:
        json.dump({"kind": value("--kind"), "seed": int(value("--seed"))}, out)
    sys.exit(0)
model = json.load(open(value("--model")))
blocks = [b for b in open(value("--input")).read().strip("\\n").split("\\n\\n") if b.strip()]
out = []
for number, block in enumerate(blocks):
    kind = model["kind"]
    if number == model["seed"] % len(blocks):
        kind = {"left": "right", "right": "left", "first": "left"}[kind]
    lines = block.split("\\n")
    size = sum(1 for line in lines if line.split("\\t")[0].isdigit())
    for index, line in enumerate(lines):
        cells = line.split("\\t")
        if line.startswith("#") or not cells[0].isdigit():
            continue
        i = int(cells[0])
        head = {"left": i - 1, "right": (i + 1) % (size + 1), "first": 0 if i == 1 else 1}[kind]
        cells[6], cells[7] = str(head), "root" if head == 0 else "dep"
        lines[index] = "\\t".join(cells)
    out.append("\\n".join(lines))
open(value("--output"), "w").write("\\n\\n".join(out) + "\\n\\n")
'''


def test_ud_peers_runs_the_fewest_seeds_with_which_its_columns_can_be_marked() -> None:
    suite = load_suite("ud-peers")
    systems = {}
    for member in suite.members():
        systems.setdefault(member.config.data.language, set()).add(member.config.name)
    assert len(systems) == 4 and {len(names) for names in systems.values()} == {3}
    tests, seeds = 2, len(suite.seeds or [])  # each column: the best system against the other two
    assert fewest_equal_seeds(ALPHA, tests).m == seeds == 5
    assert unreachable_text([(seeds, seeds)], tests, ALPHA) is None
    assert tests * permutation_floor(seeds - 1, seeds - 1).p >= ALPHA  # one seed fewer could never mark


def test_a_suite_of_three_seeds_a_system_gets_the_note_under_its_table(tmp_path: Path) -> None:
    peer = tmp_path / "habit_peer.py"
    peer.write_text(HABIT_PEER, encoding="utf-8")
    recipes = []
    for kind in ("left", "right", "first"):
        train = (f"{{python}} {peer} train --train {{train}} --model {{workdir}}/model.json --seed {{seed}} "
                 f"--kind {kind}")
        predict = f"{{python}} {peer} predict --model {{workdir}}/model.json --input {{input}} --output {{output}}"
        recipes.append(write_external_recipe(tmp_path / kind, name=f"peer-{kind}", external={
            "settings": f"{kind} chains", "train": train, "predict": predict, "python": sys.executable}))
    suite = tmp_path / "three-seeds.yaml"
    suite.write_text("seeds: [1, 2, 3]\nmembers:\n" + "".join(f"  - {recipe}\n" for recipe in recipes),
                     encoding="utf-8")
    members = load_suite(str(suite)).members()
    assert len(members) == 9
    for member in members:
        assert run_recipe(member.config, RunOptions(runs_dir=tmp_path / "runs")).status == COMPLETE
    result = runner.invoke(app, ["report", str(tmp_path / "runs"), "--format", "markdown", "--published", "none"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "(n=3)" in text and MARK + " worse than the column's best system" in text  # tested, three seeds each
    assert f"{MARK} |" not in text and f"{MARK}**" not in text  # and nothing marked
    assert (f"No {MARK} can appear with these seeds in english: the permutation test over seeds cannot go below "
            "p = 0.1 with 3 + 3 seeds, 0.2 after Holm's correction over 2 tests; 5 seeds a system are the fewest with "
            "which it can (p ≥ 0.007937, 0.01587 after the correction)") in text
    # mlparse compare says the same of its verdicts: two systems against A, three seeds each
    result = runner.invoke(app, ["compare", "peer-left", "peer-right", "peer-first", "--runs-dir",
                                 str(tmp_path / "runs"), "--samples", "200"])
    assert result.exit_code == 0, result.output
    assert ("no verdict can be significant with these seeds: the permutation test over seeds cannot go below p = 0.1 "
            "with 3 + 3 seeds, 0.2 after Holm's correction over 2 tests") in " ".join(result.output.split())


def test_the_note_needs_every_test_of_the_column_to_be_one_over_seeds() -> None:
    def board(*cells: Cell) -> Leaderboard:
        rows = [LeaderboardRow("best", "measured", "r", {"en": Cell(value=90.0)})]
        rows += [LeaderboardRow(f"s{i}", "measured", "r", {"en": cell}) for i, cell in enumerate(cells)]
        return Leaderboard("dependency", "test", "x", "las", ["en"], rows)

    def tested(runs: list, test: str = "groups", tests: int = 2) -> Cell:
        return Cell(value=80.0, significance=0.3, worse=False, significance_test=test, significance_runs=runs,
                    significance_tests=tests)

    lines = legend_lines(board(tested([4, 4]), tested([4, 4])))  # 0.0286 a test, 0.057 after the correction
    assert lines[-1].startswith(f"No {MARK} can appear with these seeds in en: the permutation test over seeds "
                                "cannot go below p = 0.02857 with 4 + 4 seeds, 0.05714 after Holm's correction")
    assert len(legend_lines(board(tested([4, 4], tests=1)))) == 1  # alone in its column, 4 + 4 can mark
    assert len(legend_lines(board(tested([5, 5]), tested([5, 5])))) == 1
    # a pair of single runs is tested over sentences, which can go far lower: no such note
    assert len(legend_lines(board(tested([3, 3]), tested([1, 1], "single-runs")))) == 1
