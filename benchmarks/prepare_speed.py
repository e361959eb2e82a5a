"""Preparation speed on the full Icelandic treebank (IcePaHC: 73k trees, 1M tokens), one core.

Measured side by side in one run, each the best of ``--runs``:

* read        -- the bracketed reader alone (the baseline);
* read+fused  -- read, then the catalog pipeline (drop ID/CODE/LB, strip empty elements,
                 split lemmas, strip function tags, TOP) in mlparse's one-pass executor;
* read+steps  -- read, then the same pipeline as separate pure transforms (the reference);
* prepare     -- what `mlparse prepare` does before writing (read_and_normalize): read+fused,
                 manifest statistics (with collapse_unary) and output lines.

Times are CPU seconds of this process pinned to one core. Target: prepare >= 10,000 trees/s.  Usage: python benchmarks/prepare_speed.py [--source DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable, List

from mlparse.data.catalog import load_family
from mlparse.data.formats import FORMATS
from mlparse.data.prepare import ProgressHook, read_and_normalize
from mlparse.data.sources import find_files
from mlparse.data.splits import plan_splits
from mlparse.data.steps import build_pipeline, run_fused, run_pipeline
from mlparse.trees.tree import Tree

TARGET = 10_000


def default_source() -> Path:
    env = os.environ.get("MLPARSE_SHARED_TREEBANKS") or os.environ.get("MLPARSE_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "treebanks"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=default_source())
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    spec = load_family("free").languages["icelandic"]
    root = args.source / spec.folder
    if not root.is_dir():
        print(f"IcePaHC not found at {root}; pass --source <folder holding is-icepahc>")
        return 0
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    files = find_files(root, spec.files)
    reader = FORMATS[spec.reader.format]
    steps = build_pipeline(spec.pipeline)

    def read() -> List[Tree]:
        trees: List[Tree] = []
        for path in files:
            trees.extend(reader(path, path.name, spec.reader.options).trees)
        return trees

    def read_fused() -> int:
        return sum(1 for tree in read() if run_fused(steps, tree)[0] is not None)

    def read_steps() -> int:
        return sum(1 for tree in read() if run_pipeline(steps, tree)[0] is not None)

    def prepare() -> int:
        """What `mlparse prepare` does before writing: the real read_and_normalize."""
        plan = plan_splits(root, spec.files, spec.split.scheme, spec.split.options)
        lines = read_and_normalize(spec, root, plan, ProgressHook()).lines
        return sum(len(split_lines) for split_lines in lines.values())

    n_trees = len(read())

    def best(fn: Callable[[], object]) -> float:
        times = []
        for _ in range(args.runs):
            start = time.process_time()  # CPU time: other jobs on the machine do not count
            fn()
            times.append(time.process_time() - start)
        return min(times)

    timings = {
        "read": best(read),
        "read+fused": best(read_fused),
        "read+steps": best(read_steps),
        "prepare": best(prepare),
    }
    print(f"IcePaHC: {len(files)} files, {n_trees:,} trees; best of {args.runs}; CPU time, one core")
    print(f"{'stage':<12} {'seconds':>8} {'trees/s':>10} {'vs read':>8}")
    for name, seconds in timings.items():
        print(f"{name:<12} {seconds:8.2f} {n_trees / seconds:10,.0f} {seconds / timings['read']:7.2f}x")
    fused_rate = n_trees / timings["read+fused"]
    print(f"fused pipeline is {timings['read+steps'] / timings['read+fused']:.2f}x faster than separate transforms")
    print(f"read+fused: {fused_rate:,.0f} trees/s (target {TARGET:,}): {'met' if fused_rate >= TARGET else 'NOT met'}")
    prepare_rate = n_trees / timings["prepare"]
    print(f"prepare (read, pipeline, statistics, lines): {prepare_rate:,.0f} trees/s "
          f"(target {TARGET:,}): {'met' if prepare_rate >= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
