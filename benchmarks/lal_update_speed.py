"""The cost of the Label Attention Layer and the dependency scorer: one training update of demo-lal (joint
span + dependency, 16 heads of 16) beside one of demo (the span parser it is built on, same encoder and
inputs), on the same ptb-sample sentences, alternating, in one process.

Prints the seconds of each update kind (median over ``--repeats`` rounds), their ratio, the load average
before and after, and the machine.  Needs ``data/ptb-sample/english`` with its ``.conllu`` files
(``mlparse prepare ptb-sample``).

    python3 benchmarks/lal_update_speed.py [--repeats 5] [--batch 32] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32, help="sentences per update (demo's train.batch_size)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch

    from mlparse.config import load_recipe
    from mlparse.models.joint_parser import JointParser
    from mlparse.models.span_parser import SpanParser
    from mlparse.tasks import DataError, task_for

    torch.set_num_threads(args.threads)
    span_config, joint_config = load_recipe("demo"), load_recipe("demo-lal")
    path = joint_config.split_path("train")
    try:
        split = task_for("joint").read_split(path)
    except DataError as error:
        print(f"skipped: {error}")
        return 0
    examples = split.examples[: args.batch]
    torch.manual_seed(1)
    models = {"demo (span)": SpanParser.build(span_config, [e.tree for e in examples]),
              "demo-lal (joint)": JointParser.build(joint_config, examples)}
    golds = {"demo (span)": [models["demo (span)"].gold(e.tree) for e in examples],
             "demo-lal (joint)": [models["demo-lal (joint)"].gold(e) for e in examples]}
    sentences = [[(leaf.tag, leaf.word) for leaf in e.tree.leaves()] for e in examples]
    times = {name: [] for name in models}
    load_before = os.getloadavg()
    for _ in range(args.repeats + 1):  # the first round warms up and is not counted
        for name, model in models.items():
            model.train()
            start = time.perf_counter()
            out = model(model.make_batch(sentences), golds[name])
            out.loss.backward()
            model.zero_grad()
            times[name].append(time.perf_counter() - start)
    load_after = os.getloadavg()
    cpu = platform.processor() or platform.machine()
    print(f"{platform.node()}: {cpu}, {os.cpu_count()} cores, {args.threads} torch threads, torch {torch.__version__}; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print(f"one update of {args.batch} ptb-sample training sentences ({sum(len(s) for s in sentences)} words), "
          f"median of {args.repeats}:")
    medians = {name: statistics.median(values[1:]) for name, values in times.items()}
    for name, seconds in medians.items():
        parameters = sum(p.numel() for p in models[name].parameters())
        print(f"  {name:<18} {seconds:8.3f} s   {parameters:,} parameters")
    print(f"  ratio joint / span: {medians['demo-lal (joint)'] / medians['demo (span)']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
