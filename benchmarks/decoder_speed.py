"""CKY decoder speed: Cython vs pure-Python reference vs batched torch (CPU), side by side.

Sentence lengths are those of the ptb-sample "dev" files wsj_0160-wsj_0179
(words that are not -NONE- empty elements); scores are random float32 with
L labels.  Every decoder is timed in the same run on the same score arrays
and the output is checked to agree.

    python3 benchmarks/decoder_speed.py [--labels 100] [--repeat 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import List

import numpy as np
import torch

from mlparse.structs.cky import compiled_available, decode
from mlparse.structs.cky_reference import decode_reference
from mlparse.structs.cky_torch import decode_batch
from timing import best_of, ptb_sample_dev_lengths, treebank_dir



def dev_lengths() -> List[int]:
    """Word counts of the ptb-sample dev files, or synthetic lengths if the sample is absent."""
    lengths = ptb_sample_dev_lengths()
    if not lengths:
        print(f"note: no ptb-sample in {treebank_dir()}; using 273 synthetic lengths (mean ~23)")
        rng = np.random.default_rng(0)
        lengths = [int(x) for x in np.clip(rng.normal(23, 11, size=273), 2, 60)]
    return lengths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="best of this many passes")
    parser.add_argument("--reference-sentences", type=int, default=60, help="the slow reference decodes only these")
    parser.add_argument("--batch-size", type=int, default=100, help="sentences per torch batch")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 = one core, like Cython)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if not compiled_available():
        print("the Cython decoder is not built: run `python3 setup.py build_ext --inplace` first")
        return 1

    lengths = dev_lengths()
    rng = np.random.default_rng(0)
    charts = [rng.normal(size=(n + 1, n + 1, args.labels)).astype(np.float32) for n in lengths]
    batches = []
    for start in range(0, len(charts), args.batch_size):
        group = charts[start : start + args.batch_size]
        padded = max(c.shape[0] for c in group)
        tensor = torch.zeros((len(group), padded, padded, args.labels))
        for b, chart in enumerate(group):
            tensor[b, : chart.shape[0], : chart.shape[0]] = torch.from_numpy(chart)
        batches.append((tensor, [c.shape[0] - 1 for c in group]))
    print(
        f"{len(lengths)} sentences, mean length {np.mean(lengths):.1f}, max {max(lengths)}, "
        f"L = {args.labels}, torch threads = {args.threads}"
    )

    subset = charts[: args.reference_sentences]
    fast = [decode(c) for c in charts]
    batched = [tree for tensor, sizes in batches for tree in decode_batch(tensor, sizes)]
    assert fast == batched, "Cython and batched torch disagree"
    assert [decode_reference(c) for c in subset] == fast[: len(subset)], "Cython and reference disagree"

    cython = best_of(args.repeat, len(charts), "Cython (cky.decode)", lambda: [decode(c) for c in charts])
    cython_subset = best_of(args.repeat, len(subset), "Cython, reference subset", lambda: [decode(c) for c in subset])
    reference = best_of(1, len(subset), "pure-Python reference", lambda: [decode_reference(c) for c in subset])
    torch_cpu = best_of(
        args.repeat, len(charts), f"torch batched CPU (B={args.batch_size})", lambda: [decode_batch(t, s) for t, s in batches]
    )

    for timing in (cython, cython_subset, reference, torch_cpu):
        print(f"  {timing.name:<40} {timing.per_second:>10.0f} sentences/s  ({timing.sentences} sentences)")
    print(f"  Cython / reference (same {len(subset)} sentences): {cython_subset.per_second / reference.per_second:8.1f}x")
    print(f"  Cython / torch batched CPU:                 {cython.per_second / torch_cpu.per_second:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
