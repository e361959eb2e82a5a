"""Updates per minute of `demo`, `demo-dep` and `tagger` at 1 and 2 torch threads, alone and beside a second training,
with OpenMP's default wait policy (threads spin while they wait for work) and with ``OMP_WAIT_POLICY=PASSIVE``.

For each recipe and thread count, one worker process trains the recipe (``run_recipe``, a fresh temporary
runs folder) and times every optimizer update from the trainer's progress callback, leaving out the
intervals that hold a dev check; it stops after ``--seconds`` of updates. "Beside a second training" starts
another worker of the same recipe and thread count first (its own runs folder), waits until it trains,
measures, then stops it. Both processes get the wait policy of the row (the variable is read when torch's
OpenMP starts, so each worker is a fresh process). Printed: the median update time and updates per minute of
each cell, and the ratio of 2 threads to 1 thread in each setting, measured one after the other in one run.

    python3 benchmarks/thread_scaling.py [--recipes demo,demo-dep,tagger] [--seconds 60] [--data-root DIR]

The recipes read prepared data: ptb-sample (demo) and UD English-EWT (demo-dep, tagger) under ``data/``
(``mlparse prepare ptb-sample``; ``mlparse prepare ud --source ../shared/treebanks/ud``). Meaningful only on
a machine with nothing else running: the load average at the start is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


class Enough(Exception):
    """Raised from the progress callback once the worker has timed enough updates."""


def worker(recipe: str, threads: int, seconds: float, data_root: str, runs: str, quiet_signal: Optional[str]) -> None:
    """Train ``recipe`` and print one JSON line: the update times (seconds) outside dev checks."""
    import torch

    from mlparse.config import load_recipe
    from mlparse.train.runner import RunOptions, run_recipe
    from mlparse.train.trainer import Reporter

    torch.set_num_threads(threads)
    config = load_recipe(recipe, [f"data.root={data_root}", f"train.num_threads={threads}", "train.device=cpu",
                                  "train.max_epochs=1000", "train.patience_epochs=1000"])
    if getattr(config.data, "tags", None) == "jackknife":
        config = load_recipe(recipe, [f"data.root={data_root}", f"train.num_threads={threads}", "train.device=cpu",
                                      "data.tags=gold", "train.max_epochs=1000", "train.patience_epochs=1000"])

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
            if quiet_signal and self.last is None:
                Path(quiet_signal).write_text("training")
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


def measure(recipe: str, threads: int, seconds: float, data_root: str, beside: bool, policy: str) -> Dict[str, float]:
    neighbour = None
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy != "default":
        env["OMP_WAIT_POLICY"] = policy
    with tempfile.TemporaryDirectory() as scratch:
        if beside:
            signal = Path(scratch) / "neighbour-trains"
            neighbour = subprocess.Popen(
                [sys.executable, __file__, "--worker", recipe, str(threads), "0", data_root, f"{scratch}/n", str(signal)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO, env=env)
            while not signal.exists() and neighbour.poll() is None:
                time.sleep(0.5)
        try:
            done = subprocess.run([sys.executable, __file__, "--worker", recipe, str(threads), str(seconds), data_root,
                                   f"{scratch}/m", ""], capture_output=True, text=True, cwd=REPO, check=True, env=env)
        finally:
            if neighbour is not None:
                neighbour.kill()
                neighbour.wait()
    times = json.loads(done.stdout.strip().splitlines()[-1])["times"]
    median = statistics.median(times)
    return {"median_ms": 1000 * median, "per_minute": 60.0 / median, "updates": len(times)}


def main(argv: Optional[List[str]] = None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--worker":
        recipe, threads, seconds, data_root, runs, signal = sys.argv[2:8]
        worker(recipe, int(threads), float(seconds), data_root, runs, signal or None)
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", default="demo,demo-dep,tagger")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of timed updates per cell")
    parser.add_argument("--data-root", default=str(REPO / "data"))
    parser.add_argument("--policies", default="default,PASSIVE", help="OMP_WAIT_POLICY values (default: unset)")
    args = parser.parse_args(argv)
    from benchmarks.timing import load_average, machine

    print(f"thread_scaling {time.strftime('%Y-%m-%d %H:%M')}: {machine()}; {load_average()}", flush=True)
    print("| recipe | wait policy | setting | 1 thread: ms/update | 1 thread: updates/min | 2 threads: ms/update | "
          "2 threads: updates/min | 2 / 1 threads |")
    print("|---|---|---|---|---|---|---|---|")
    for recipe in args.recipes.split(","):
        for policy, beside in ((p, b) for p in args.policies.split(",") for b in (False, True)):
            cells = {t: measure(recipe, t, args.seconds, args.data_root, beside, policy) for t in (1, 2)}
            print(f"| {recipe} | {policy} | {'beside a second training' if beside else 'alone'} | "
                  f"{cells[1]['median_ms']:.0f} | {cells[1]['per_minute']:.0f} | {cells[2]['median_ms']:.0f} | "
                  f"{cells[2]['per_minute']:.0f} | {cells[2]['per_minute'] / cells[1]['per_minute']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
