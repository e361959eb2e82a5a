"""Preparation speed on the full Icelandic treebank (IcePaHC: 73k trees, 1M tokens), one core.

Measured side by side in one run, each the best of ``--runs``:

* read        -- the bracketed reader alone (the baseline);
* read+fused  -- read, then the catalog pipeline (drop ID/CODE/LB, strip empty elements,
                 split lemmas, strip function tags, TOP) in mlparse's one-pass executor;
* read+steps  -- read, then the same pipeline as separate pure transforms (the reference);
* prepare     -- what `mlparse prepare` does before writing (read_and_normalize): read+fused,
                 manifest statistics (with collapse_unary) and output lines.

Then the cost of the dependency version (head finding and CoNLL-U blocks) on the treebanks that
have one here, ptb-sample (the Collins table) and Sinica (the treebank's own heads), side by side:
prepare without heads vs prepare with them (read_and_normalize with and without its ``heads``;
the Sinica reader works out the marked heads in both, only the CoNLL-U blocks differ).

Times are CPU seconds of this process pinned to one core. Target: prepare >= 10,000 trees/s.  Usage: python benchmarks/prepare_speed.py [--source DIR] [--runs N] [--heads-only]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable, List

from mlparse.data.catalog import LanguageSpec, load_family
from mlparse.data.dependencies import head_source
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
    parser.add_argument("--heads-only", action="store_true", help="only the dependency version's cost")
    args = parser.parse_args()
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}")
    if not args.heads_only:
        icepahc(args)
    heads(args)
    return 0


def best(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()  # CPU time: other jobs on the machine do not count
        fn()
        times.append(time.process_time() - start)
    return min(times)


def heads(args: argparse.Namespace) -> None:
    """prepare with and without the dependency version, on the treebanks that have one."""
    print(f"\ndependency version (best of {args.runs}; CPU time, one core)")
    print(f"{'treebank':<18} {'heads':<12} {'trees':>6} {'no heads s':>10} {'heads s':>8} {'ratio':>6}")
    specs: List[LanguageSpec] = [load_family("ptb-sample").languages["english"], load_family("free").languages["chinese"]]
    for spec in specs:
        root = args.source / spec.folder
        if not root.is_dir():
            print(f"{spec.family}/{spec.name}: not found at {root}")
            continue
        plan = plan_splits(root, spec.files, spec.split.scheme, spec.split.options)
        source = head_source(spec)
        trees = sum(map(len, read_and_normalize(spec, root, plan, ProgressHook()).lines.values()))
        without = best(args.runs, lambda: read_and_normalize(spec, root, plan, ProgressHook()))
        with_heads = best(args.runs, lambda: read_and_normalize(spec, root, plan, ProgressHook(), source))
        print(f"{spec.family + '/' + spec.name:<18} {spec.heads:<12} {trees:>6,} {without:10.2f} {with_heads:8.2f} "
              f"{with_heads / without:5.2f}x")


def icepahc(args: argparse.Namespace) -> None:
    spec = load_family("free").languages["icelandic"]
    root = args.source / spec.folder
    if not root.is_dir():
        print(f"IcePaHC not found at {root}; pass --source <folder holding is-icepahc>")
        return
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

    timings = {
        "read": best(args.runs, read),
        "read+fused": best(args.runs, read_fused),
        "read+steps": best(args.runs, read_steps),
        "prepare": best(args.runs, prepare),
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


if __name__ == "__main__":
    sys.exit(main())
