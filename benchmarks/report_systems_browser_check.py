"""A report of two configurations (five seeds each) and two external systems, checked in headless Chromium.

Built on the real ptb-sample test split (prepared into the work folder from ``../shared/treebanks``, or
``MLPARSE_SHARED_TREEBANKS``), with predictions made from the gold trees so that nothing is trained:

* configurations ``demo`` (the bundled recipe) and ``demo`` with ``model.d_model: 64``: five seeds each, whose
  trees are the gold trees with a share of their brackets flattened (about 10% for the first configuration, 20% for
  the second, each seed drawing its own share and brackets); every run directory holds what a trained run writes
  for the report and ``mlparse compare`` (``recipe.yaml``, ``results.json`` with the gold checksums, the test
  predictions and the evalb report);
* two external systems scored with ``mlparse score``: ``right-branching`` (a right-branching tree over the words and
  tags) and ``flat-15`` (15% of the brackets flattened).

It runs ``mlparse report --format html`` and checks the page statically and, when Chromium is there, in the browser
(the probe of ``report_browser_check.py``): the leaderboard's bar plot names every system (its alt text, which is
the figure's own description, with "(external, measured)" for the external ones), the table and the plot carry
the same significance marks, the legend names the tests, and every image decodes.  Exit 1 when a check fails.

Usage: python3 benchmarks/report_systems_browser_check.py [--screenshot PATH] [--keep DIR] [--chromium PATH]
"""

from __future__ import annotations

import html as html_module
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_browser_check import (DEFAULT_CHROMIUM, Checks, arguments, in_browser, static_checks,  # noqa: E402
                                  verdict, work_folder)

#: (name, --set overrides, flattened share) of the two configurations, five seeds each (the exact permutation test
#: over seeds of the report's marks goes down to 2/252 with 5 + 5, low enough for Holm's correction over three tests).
CONFIGURATIONS = (("demo", (), 0.10), ("demo", ("model.d_model=64",), 0.20))
SEEDS = (1, 2, 3, 4, 5)
EXTERNALS = ("right-branching", "flat-15")


def shared_treebanks() -> Path:
    return Path(os.environ.get("MLPARSE_SHARED_TREEBANKS", REPO.parent / "shared" / "treebanks"))


def flattened(tree, share: float, rng: random.Random):  # type: ignore[no-untyped-def]
    """A copy of ``tree`` whose phrases below the root are each replaced by their children with probability
    ``share``."""
    from mlparse.trees.tree import Tree

    def visit(node):  # type: ignore[no-untyped-def]
        if node.is_leaf:
            return [node.copy()]
        children = [kid for child in node.children for kid in visit(child)]
        return children if rng.random() < share else [Tree(node.label, children)]

    return Tree(tree.label, [kid for child in tree.children for kid in visit(child)])


def right_branching(tree):  # type: ignore[no-untyped-def]
    """``(TOP (S w1 (NP w2 (NP w3 …))))`` over the tree's leaves."""
    from mlparse.trees.tree import Tree

    leaves = [leaf.copy() for leaf in tree.leaves()]
    node = Tree("NP", leaves[-2:])
    for leaf in reversed(leaves[:-2]):
        node = Tree("NP", [leaf, node])
    return Tree(tree.label, [Tree("S", list(node.children))])


def _configuration_run(runs: Path, data_root: Path, gold_trees: list, overrides: Sequence[str], seed: int,
                       share: float) -> Path:
    """Write one seed of a configuration as a trained run writes it (without training)."""
    import mlparse.version
    from mlparse.config import load_recipe
    from mlparse.io_utils import atomic_write_text
    from mlparse.results import COMPLETE, RunResults
    from mlparse.run_dir import RunDir
    from mlparse.tasks import task_for
    from mlparse.train.split_record import gold_record
    from mlparse.trees.writer import write_trees

    config = load_recipe("demo", [f"data.root={data_root}", f"train.seed={seed}", *overrides])
    run = RunDir.for_recipe(runs, config)
    run.path.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run.recipe, config.to_yaml())
    task = task_for("constituency")
    gold = task.read_split(config.split_path("test"))
    rng = random.Random(f"{overrides}/{seed}")
    seed_share = max(0.0, share + rng.gauss(0.0, 0.02))
    predictions = [flattened(tree, seed_share, rng) for tree in gold_trees]
    write_trees(run.pred("test", task.suffix), predictions)
    outcome = task.score(gold, predictions, config)
    atomic_write_text(run.report("test", task.report_suffix), outcome.report)
    results = RunResults(mlparse_version=mlparse.version.__version__, status=COMPLETE, recipe=config.name,
                         recipe_hash=config.hash(), run_id=run.path.name, task="constituency", model="span",
                         system="mlparse span (CharLSTM + words)", dataset=config.data.family,
                         language=config.data.language, test=outcome.scores, gold=gold_record(task, config, ("test",)),
                         started_at="2026-11-26T10:00:00+00:00", finished_at=f"2026-11-26T1{seed}:00:00+00:00",
                         notes=["predictions made from the gold trees by report_systems_browser_check.py"])
    run.write_results(results)
    return run.path


def build_runs(work: Path) -> Path:
    """Prepare ptb-sample under ``work/data``, write the ten configuration runs and score the two external systems
    into ``work/runs``; returns the runs folder."""
    from mlparse.tasks.treebank import read_split
    from mlparse.trees.writer import write_trees

    data_root = work / "data"
    prepare = subprocess.run([sys.executable, "-m", "mlparse", "prepare", "ptb-sample", "--source",
                              str(shared_treebanks() / "ptb-sample"), "--out", str(data_root)],
                             capture_output=True, text=True, cwd=work)
    if prepare.returncode != 0:
        raise SystemExit(f"mlparse prepare ptb-sample failed:\n{prepare.stdout}{prepare.stderr}")
    gold_path = data_root / "ptb-sample" / "english" / "test.trees"
    gold_trees = list(read_split(gold_path).trees)
    runs = work / "runs"
    for _, overrides, share in CONFIGURATIONS:
        for seed in SEEDS:
            _configuration_run(runs, data_root, gold_trees, overrides, seed, share)
    rng = random.Random(15)
    for name, trees in ((EXTERNALS[0], [right_branching(tree) for tree in gold_trees]),
                        (EXTERNALS[1], [flattened(tree, 0.15, rng) for tree in gold_trees])):
        pred = work / f"{name}.trees"
        write_trees(pred, trees)
        scored = subprocess.run([sys.executable, "-m", "mlparse", "score", str(pred), "--gold", str(gold_path),
                                 "--name", name, "--runs-dir", str(runs),
                                 "--family", "ptb-sample", "--language", "english"],
                                capture_output=True, text=True, cwd=work)
        if scored.returncode != 0:
            raise SystemExit(f"mlparse score failed:\n{scored.stdout}{scored.stderr}")
    return runs


def bar_figure_description(html: str) -> Optional[str]:
    """The alt text of the leaderboard's bar plot on the page."""
    for alt in re.findall(r'<img alt="([^"]*)"', html):
        text = html_module.unescape(alt)
        if text.startswith("constituency · ptb-sample · test · F1:"):
            return text
    return None


def system_checks(html: str, checks: Checks) -> None:
    """Every system on the bar plot by its own name; the marks of the table on the plot too; the legend."""
    description = bar_figure_description(html)
    if not checks.check(description is not None, "the F1 leaderboard has a bar plot whose alt text describes it"):
        return
    assert description is not None
    print(f"  bar plot: {description}")
    checks.check(description.count("measured)") == len(CONFIGURATIONS) + len(EXTERNALS),
                 f"{description.count('measured)')} systems on the plot, one per leaderboard row "
                 f"({len(CONFIGURATIONS)} configurations, {len(EXTERNALS)} external systems)")
    for name in EXTERNALS:
        checks.check(f"{name} (external, measured)" in description, f"{name!r} is named as itself and marked external")
    checks.check("mlparse span (CharLSTM + words) (measured)" in description
                 and "mlparse span (CharLSTM + words) (model.d_model: 64) (measured)" in description,
                 "both configurations are on the plot under their row names")
    checks.check("mlparse (measured)" not in html, "no bar is labelled 'mlparse (measured)'")
    marked_in_table = len(re.findall(r'title="p = [0-9.e-]+">▾', html))
    marked_on_plot = description.count("▾")
    checks.check(marked_in_table >= 1 and marked_on_plot == marked_in_table,
                 f"the table marks {marked_in_table} cell(s) ▾ and the plot the same {marked_on_plot}")
    checks.check("Holm" in html and "10,000" in html and "never tested against each" in html,
                 "the legend names the test, the samples, the correction and the level")


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = arguments(__doc__.split("\n\n")[0], "report_systems_check.png", argv)
    if not (shared_treebanks() / "ptb-sample").is_dir():
        print(f"skipped: {shared_treebanks() / 'ptb-sample'} not found (set MLPARSE_SHARED_TREEBANKS)")
        return 0
    work, temp = work_folder(args.keep, "report-systems-check-")
    checks = Checks()
    try:
        runs = build_runs(work)
        page = work / "report.html"
        result = subprocess.run([sys.executable, "-m", "mlparse", "report", str(runs), "--format", "html",
                                 "--out", str(page)], capture_output=True, text=True, cwd=work)
        if not checks.check(result.returncode == 0 and page.is_file(),
                            f"mlparse report exited {result.returncode} and wrote the page"):
            print(result.stdout[-3000:], result.stderr[-3000:])
            return 1
        html = page.read_text(encoding="utf-8")
        print("static checks:")
        static_checks(html, checks, expect_images=1, min_tables=2)
        system_checks(html, checks)
        in_browser(args, page, work, checks, expect_images=1, min_tables=2)
    finally:
        if temp is not None:
            temp.cleanup()
    return verdict(checks)


if __name__ == "__main__":
    sys.exit(main())
