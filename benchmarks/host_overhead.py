"""Host-side (Python, CPU) cost per sentence of parsing, apart from the network itself.

On a GPU the network runs fast, and what bounds throughput is the work around it that stays
on the CPU: indexing and padding the batch (``make_batch``), backtracking the batched
decoder's chart into spans (``cky_torch._backtrack``), building the n-ary tree from the spans
(``tree_from_chart``) and writing it out.  This measures each step per sentence on the
ptb-sample dev sentences (repeated), side by side with the reference tree builder (binarized
tree, then ``unbinarize`` and ``expand_unary``), and reports the most sentences per second
one process could reach if the network and the GPU decoder took no time, as a multiple of
the 5,000 sentences/s GPU target.

    python3 benchmarks/host_overhead.py [--copies K] [--repeats R]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Callable, List

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.parse_speed import prepared_split  # noqa: E402
from mlparse.config import load_recipe  # noqa: E402
from mlparse.models.span_parser import build_parser  # noqa: E402
from mlparse.structs import cky_torch  # noqa: E402
from mlparse.structs.chart import LabelVocab, gold_spans, tree_from_chart, tree_from_chart_reference  # noqa: E402
from mlparse.tasks.treebank import read_split, sentence_of  # noqa: E402

GPU_TARGET = 5000.0


def best_seconds(function: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()  # garbage from the last step is not this step's cost
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=4, help="repeat the dev set this many times")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per step; the best counts")
    parser.add_argument("--batch", type=int, default=100, help="sentences per make_batch call")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    train = read_split(prepared_split("train")).trees
    dev = read_split(prepared_split("dev")).trees * args.copies
    sentences = [sentence_of(tree) for tree in dev]
    count = len(sentences)
    model = build_parser(load_recipe(REPO / "recipes" / "demo.yaml").model, train)  # only its vocabularies are used
    labels: LabelVocab = model.labels
    charts = [[(i, j, label) for (i, j), label in gold_spans(tree, labels, unknown="empty").items()] for tree in dev]
    leaves = [tree.leaves() for tree in dev]
    batches = [sentences[k:k + args.batch] for k in range(0, count, args.batch)]

    # the batched decoder's host part: the label and split matrices back on the CPU, then backtracking
    label_mats, split_mats = [], []
    for tree, chart in zip(dev, charts):
        n = len(tree.leaves())
        label_matrix = np.zeros((n + 1, n + 1), dtype=np.int64)
        split_matrix = np.ones((n + 1, n + 1), dtype=np.int64)  # any valid splits will do for timing
        for i, j, label in chart:
            label_matrix[i, j] = label
        label_mats.append(label_matrix)
        split_mats.append(split_matrix)
    trees = [tree_from_chart(chart, labels, leaf) for chart, leaf in zip(charts, leaves)]

    steps = {
        "make_batch (index, pad, to tensors)": lambda: [model.make_batch(batch) for batch in batches],
        "backtrack (batched decoder)": lambda: [cky_torch._backtrack(l, s, l.shape[0] - 1, 0.0)
                                                for l, s in zip(label_mats, split_mats)],
        "tree_from_chart (one pass)": lambda: [tree_from_chart(c, labels, l) for c, l in zip(charts, leaves)],
        "to_bracketed": lambda: [tree.to_bracketed() for tree in trees],
    }
    reference = best_seconds(lambda: [tree_from_chart_reference(c, labels, l) for c, l in zip(charts, leaves)], args.repeats)
    print(f"{count} sentences (ptb-sample dev x{args.copies}), {sum(map(len, sentences))} words, one thread")
    print(f"{'step':<40}{'us/sentence':>12}")
    seconds = {name: best_seconds(step, args.repeats) for name, step in steps.items()}
    for name, value in seconds.items():
        print(f"{name:<40}{1e6 * value / count:>12.1f}")
    total = sum(seconds.values())
    print(f"{'tree_from_chart (reference, not counted)':<40}{1e6 * reference / count:>12.1f}")
    print(f"one-pass tree builder vs reference: {reference / seconds['tree_from_chart (one pass)']:.2f}x faster")
    ceiling = count / total
    print(f"host-side total {1e6 * total / count:.1f} us/sentence: at most {ceiling:,.0f} sentences/s per process "
          f"if the network took no time = {ceiling / GPU_TARGET:.2f}x the {GPU_TARGET:,.0f} sentences/s GPU target")


if __name__ == "__main__":
    main()
