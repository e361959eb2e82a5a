"""Updates per minute of `demo`, `demo-dep` and `tagger` under every OpenMP wait policy, at 1 and 2 torch threads
and with mlparse's own choice, alone and beside a second training: the measurement behind the defaults of
``mlparse/train/threads.py``.

A cell is (recipe, wait policy, threads, setting), measured one after the other in one run:

- wait policy: ``default`` (what the command line of the code measured sets: nothing for one commit, ``PASSIVE``
  for another, so the worker calls the pre-torch hooks of that code's ``mlparse.cli`` as ``mlparse`` does),
  ``unset`` (OpenMP's default: 300,000 spin rounds), ``PASSIVE`` (sleep at once), ``ACTIVE`` (spin 30 billion
  rounds), ``spin=N`` (``GOMP_SPINCOUNT=N``, a bounded spin);
- threads: ``1``, ``2``, or ``auto`` (``train.num_threads`` unset: the code's own choice, which adapts while it
  trains in today's code);
- setting: ``alone``, or ``beside`` a second training of the same recipe and cell started first (its own runs
  folder), which the measured one joins once it trains: "a machine already loaded when the command starts".

Each cell is a fresh worker process that trains the recipe from scratch (``run_recipe``, a temporary runs
folder) and times every optimizer update from the trainer's progress callback, leaving out the intervals that
hold a dev check, until ``--seconds`` of updates. Printed per cell: median ms per update and updates per minute
(updates / their summed time, so a few 8-second updates count), and per recipe the ratio of each cell to the
best cell of its setting.

``--baseline COMMIT`` adds the code of COMMIT (a git worktree in a temporary folder, its Cython parts built in
place) under its own defaults (``default`` policy, ``auto`` threads), alone and beside, for the recipes it has.

    python3 benchmarks/thread_scaling.py [--recipes demo,demo-dep,tagger] [--seconds 20]
        [--policies default,unset,PASSIVE,ACTIVE,spin=3000000] [--threads 1,2,auto] [--settings alone,beside]
        [--baseline 995c0e8] [--data-root DIR]

The recipes read prepared data: ptb-sample (demo) and UD English-EWT (demo-dep, tagger) under ``data/``
(``mlparse prepare ptb-sample``; ``mlparse prepare ud --language UD_English-EWT``). Meaningful only on a machine
with nothing else running: the load average at the start and the end is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional

REPO = Path(__file__).resolve().parents[1]
WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
#: The pre-torch hooks a command line may call first thing, by name, in the order mlparse's ``main`` calls them.
CLI_HOOKS = ("prefer_passive_waiting", "apply_waiting", "start_watching")


class Enough(Exception):
    """Raised from the progress callback once the worker has timed enough updates."""


def worker(repo: str, recipe: str, threads: str, seconds: float, data_root: str, runs: str,
           signal: Optional[str], cli_defaults: bool) -> None:
    """Train ``recipe`` with the code under ``repo``; print one JSON line: the update times (s) outside dev checks."""
    sys.path.insert(0, repo)
    if cli_defaults:  # what `mlparse` does before torch loads, with the hooks this code has
        import mlparse.cli as cli

        for name in CLI_HOOKS:
            if hasattr(cli, name):
                getattr(cli, name)()
    import torch

    from mlparse.config import load_recipe
    from mlparse.train.runner import RunOptions, run_recipe
    from mlparse.train.trainer import Reporter

    sets = [f"data.root={data_root}", "train.device=cpu", "train.max_epochs=1000", "train.patience_epochs=1000"]
    if threads != "auto":
        torch.set_num_threads(int(threads))
        sets.append(f"train.num_threads={threads}")
    config = load_recipe(recipe, sets)
    if getattr(config.data, "tags", None) == "jackknife":  # the parser's own updates, not its taggers'
        config = load_recipe(recipe, sets + ["data.tags=gold"])

    class Timer(Reporter):
        def __init__(self) -> None:
            self.last: Optional[float] = None
            self.times: List[float] = []
            self.spent = 0.0

        def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
            now = time.perf_counter()
            if self.last is not None:
                self.times.append(now - self.last)
                self.spent += now - self.last
            if signal and self.last is None:
                Path(signal).write_text("training")
            self.last = now
            if seconds and self.spent >= seconds:
                raise Enough()

        def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
            self.last = None  # the interval with the dev check is not an update's time

    timer = Timer()
    try:
        run_recipe(config, RunOptions(runs_dir=Path(runs)), timer)
    except Enough:
        pass
    print(json.dumps({"times": timer.times}), flush=True)


@dataclass(frozen=True)
class Cell:
    recipe: str
    policy: str  # default, unset, PASSIVE, ACTIVE, spin=N
    threads: str  # 1, 2, auto
    beside: bool
    repo: str = str(REPO)
    code: str = "HEAD"


def cell_environment(policy: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in WAIT_VARIABLES}
    if policy in ("PASSIVE", "ACTIVE"):
        env["OMP_WAIT_POLICY"] = policy
    elif policy.startswith("spin="):
        env["GOMP_SPINCOUNT"] = policy.split("=", 1)[1]
    return env


def _worker_argv(cell: Cell, seconds: float, data_root: str, runs: str, signal: str) -> List[str]:
    return [sys.executable, __file__, "--worker", cell.repo, cell.recipe, cell.threads, str(seconds), data_root, runs,
            signal, "1" if cell.policy == "default" else "0"]


def measure(cell: Cell, seconds: float, data_root: str) -> Dict[str, float]:
    """One cell: median ms per update, updates per minute (updates / their summed time), updates timed."""
    env = cell_environment(cell.policy)
    neighbour = None
    with tempfile.TemporaryDirectory() as scratch:
        if cell.beside:
            signal = Path(scratch) / "neighbour-trains"
            neighbour = subprocess.Popen(_worker_argv(cell, 0, data_root, f"{scratch}/n", str(signal)),
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cell.repo, env=env)
            while not signal.exists() and neighbour.poll() is None:
                time.sleep(0.5)
        try:
            done = subprocess.run(_worker_argv(cell, seconds, data_root, f"{scratch}/m", ""), capture_output=True,
                                  text=True, cwd=cell.repo, env=env)
        finally:
            if neighbour is not None:
                neighbour.kill()
                neighbour.wait()
    if done.returncode != 0:
        raise RuntimeError(f"{cell}: the worker failed:\n{done.stderr[-3000:]}")
    times = json.loads(done.stdout.strip().splitlines()[-1])["times"]
    return {"median_ms": 1000 * statistics.median(times), "per_minute": 60.0 * len(times) / sum(times),
            "updates": len(times)}


@contextmanager
def checkout(commit: str) -> Iterator[str]:
    """A worktree of ``commit`` in a temporary folder, its Cython modules built in place; removed afterwards."""
    folder = tempfile.mkdtemp(prefix="mlparse-baseline-")
    tree = str(Path(folder) / "tree")
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", tree, commit], check=True,
                   capture_output=True)
    try:
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree, check=True,
                       capture_output=True)
        yield tree
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", tree], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def has_recipe(repo: str, recipe: str) -> bool:
    return any((Path(repo) / folder / f"{recipe}.yaml").is_file() for folder in ("recipes", "mlparse/recipes"))


def cells_of(recipes: List[str], policies: List[str], threads: List[str], settings: List[str]) -> List[Cell]:
    """Every (policy, threads) pair asked for, except ``auto`` threads under a policy other than ``default``
    (auto is the command line's choice, so it goes with the command line's policy)."""
    cells = []
    for recipe in recipes:
        for setting in settings:
            for policy in policies:
                for count in threads:
                    if count == "auto" and policy != "default":
                        continue
                    cells.append(Cell(recipe, policy, count, setting == "beside"))
    return cells


def main(argv: Optional[List[str]] = None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--worker":
        repo, recipe, threads, seconds, data_root, runs, signal, cli = sys.argv[2:10]
        worker(repo, recipe, threads, float(seconds), data_root, runs, signal or None, cli == "1")
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", default="demo,demo-dep,tagger")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of timed updates per cell")
    parser.add_argument("--policies", default="default,unset,PASSIVE,ACTIVE,spin=3000000")
    parser.add_argument("--threads", default="1,2,auto")
    parser.add_argument("--settings", default="alone,beside")
    parser.add_argument("--baseline", default=None, help="a commit measured under its own defaults as well")
    parser.add_argument("--data-root", default=str(REPO / "data"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "benchmarks"))
    from timing import load_average, machine

    recipes, settings = args.recipes.split(","), args.settings.split(",")
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"thread_scaling {time.strftime('%Y-%m-%d %H:%M')} UTC, commit {commit}: {machine()}; {load_average()}",
          flush=True)
    print("| recipe | setting | code | wait policy | threads | ms / update (median) | updates / min |")
    print("|---|---|---|---|---|---|---|", flush=True)
    results: List[tuple] = []

    def run(cells: List[Cell]) -> None:
        for cell in cells:
            figures = measure(cell, args.seconds, args.data_root)
            results.append((cell, figures))
            print(f"| {cell.recipe} | {'beside a second training' if cell.beside else 'alone'} | {cell.code} | "
                  f"{cell.policy} | {cell.threads} | {figures['median_ms']:.0f} | {figures['per_minute']:.0f} |",
                  flush=True)

    run(cells_of(recipes, args.policies.split(","), args.threads.split(","), settings))
    if args.baseline:
        with checkout(args.baseline) as tree:
            run([Cell(c.recipe, "default", "auto", c.beside, tree, args.baseline)
                 for c in cells_of([r for r in recipes if has_recipe(tree, r)], ["default"], ["auto"], settings)])
    print()
    print("Each cell against the best of its recipe and setting:")
    for recipe in recipes:
        for beside in (False, True):
            group = [(c, f) for c, f in results if c.recipe == recipe and c.beside == beside]
            if not group:
                continue
            best = max(f["per_minute"] for _, f in group)
            line = ", ".join(f"{c.code} {c.policy}/{c.threads} {f['per_minute'] / best:.2f}x" for c, f in group)
            print(f"- {recipe}, {'beside' if beside else 'alone'} (best {best:.0f}/min): {line}", flush=True)
    print(f"done {time.strftime('%H:%M')} UTC; {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
