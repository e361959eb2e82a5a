"""The guard against a training-speed regression: updates per minute of `demo`, `demo-dep`, `demo-lal` (the joint
parser and its Label Attention Layer), `tagger` and `ud/english-ewt-bilstm` (gold tags: the BiLSTM biaffine parser's
packed CPU path) under this checkout's defaults beside those of a given commit, side by side in one run.

Run it before changing anything on the training path or the threading (docs/benchmarks.md says so). For each
recipe it alternates this checkout and ``--baseline`` (a git worktree of that commit, its Cython parts built in
place), ``--rounds`` times each, every round a fresh worker process under the code's own defaults (its command
line's wait policy, its own thread count: ``benchmarks/thread_scaling.py``'s ``default``/``auto`` cell), alone;
then prints each recipe's updates per minute, both codes, and their ratio. It exits 1 when a recipe's ratio is
below ``--floor`` (default 0.95), so a script can use it; it is a benchmark, not a test (its figures depend on
the machine and on what else runs: use a quiet one).

    python3 benchmarks/speed_guard.py --baseline COMMIT [--recipes demo,demo-dep,demo-lal,tagger,ud/english-ewt-bilstm]
        [--seconds 20] [--rounds 2] [--floor 0.95] [--data-root DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from thread_scaling import REPO, Cell, checkout, has_recipe, measure  # noqa: E402


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="the commit to compare with (e.g. the last release)")
    parser.add_argument("--recipes", default="demo,demo-dep,demo-lal,tagger,ud/english-ewt-bilstm")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of timed updates per worker")
    parser.add_argument("--rounds", type=int, default=2, help="workers per code and recipe, alternated")
    parser.add_argument("--floor", type=float, default=0.95, help="the lowest acceptable ratio (exit 1 below it)")
    parser.add_argument("--data-root", default=str(REPO / "data"))
    args = parser.parse_args(argv)
    from timing import load_average, machine

    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    here = head + (" with uncommitted changes" if dirty else "")
    print(f"speed_guard {time.strftime('%Y-%m-%d %H:%M')} UTC: this checkout ({here}) against {args.baseline}; "
          f"{machine()}; {load_average()}", flush=True)
    slower: List[str] = []
    with checkout(args.baseline) as tree:
        print("| recipe | this checkout: updates / min (rounds) | baseline: updates / min (rounds) | ratio |")
        print("|---|---|---|---|", flush=True)
        for recipe in args.recipes.split(","):
            if not has_recipe(tree, recipe):
                print(f"| {recipe} | | {args.baseline} has no such recipe | |", flush=True)
                continue
            figures: Dict[str, List[float]] = {"here": [], "base": []}
            for _ in range(args.rounds):
                for code, repo in (("here", str(REPO)), ("base", tree)):
                    cell = Cell(recipe, "default", "auto", False, repo, code)
                    figures[code].append(measure(cell, args.seconds, args.data_root)["per_minute"])
            here_m, base_m = statistics.mean(figures["here"]), statistics.mean(figures["base"])
            ratio = here_m / base_m
            if ratio < args.floor:
                slower.append(f"{recipe} {ratio:.2f}x")
            print(f"| {recipe} | {here_m:.0f} ({', '.join(f'{v:.0f}' for v in figures['here'])}) | {base_m:.0f} "
                  f"({', '.join(f'{v:.0f}' for v in figures['base'])}) | {ratio:.2f}x |", flush=True)
    print(f"done {time.strftime('%H:%M')} UTC; {load_average()}")
    if slower:
        print(f"slower than {args.baseline} beyond the floor of {args.floor}: {', '.join(slower)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
