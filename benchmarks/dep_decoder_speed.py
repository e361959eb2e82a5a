"""Dependency decoder speed: MST and Eisner, Cython vs pure Python vs batched torch (CPU), side by side.

Sentence lengths are those of a UD dev file (default: English-EWT dev, words =
lines with an integer ID); arc scores are random, log-softmax-normalised over the
heads of each dependent like the biaffine arc softmax, float32.  Every decoder is
timed in the same run on the same arrays, one core (``torch.set_num_threads(1)``),
in CPU time (best of --repeat passes; the project machine is shared), and the
outputs are checked to agree.  A second table times Eisner at a fixed
length (default 25 words).

    python3 benchmarks/dep_decoder_speed.py [--conllu FILE] [--repeat 5] [--fixed-length 25]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
import torch

from mlparse.structs import eisner, mst
from mlparse.structs.eisner import decode_eisner
from mlparse.structs.eisner_reference import decode_eisner_reference
from mlparse.structs.eisner_torch import decode_batch
from mlparse.structs.mst import decode_mst
from mlparse.structs.mst_reference import decode_mst_reference
from timing import Timing, machine
from timing import best_of as best_of_wall

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CONLLU = Path("ud") / "UD_English-EWT" / "en_ewt-ud-dev.conllu"


def treebank_dir() -> Path:
    env = os.environ.get("MLPARSE_SHARED_TREEBANKS")
    return Path(env) if env else REPO.parent / "shared" / "treebanks"


def conllu_lengths(path: Path) -> List[int]:
    """Words per sentence (lines whose ID is an integer: no multiword ranges, no empty nodes)."""
    lengths, words = [], 0
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if words:
                lengths.append(words)
            words = 0
        elif not line.startswith("#") and line.split("\t", 1)[0].isdigit():
            words += 1
    return lengths


def dev_lengths(path: Optional[Path]) -> Tuple[List[int], str]:
    path = path or treebank_dir() / DEFAULT_CONLLU
    if path.is_file():
        return conllu_lengths(path), str(path)
    rng = np.random.default_rng(0)
    synthetic = [int(x) for x in np.clip(rng.normal(16, 12, size=2000), 1, 100)]
    return synthetic, f"2000 synthetic lengths ({path} not found)"


def random_charts(rng: np.random.Generator, lengths: Sequence[int]) -> List[np.ndarray]:
    """Arc scores (n+1, n+1), head first, log-softmax over the heads of each dependent."""
    charts = []
    for n in lengths:
        logits = rng.normal(scale=3.0, size=(n + 1, n + 1))
        logits -= logits.max(axis=0, keepdims=True)
        charts.append((logits - np.log(np.exp(logits).sum(axis=0, keepdims=True))).astype(np.float32))
    return charts


def torch_batches(charts: Sequence[np.ndarray], batch_size: int) -> List[Tuple[torch.Tensor, List[int]]]:
    batches = []
    for start in range(0, len(charts), batch_size):
        group = charts[start : start + batch_size]
        padded = max(c.shape[0] for c in group)
        tensor = torch.zeros((len(group), padded, padded))
        for b, chart in enumerate(group):
            tensor[b, : chart.shape[0], : chart.shape[0]] = torch.from_numpy(chart)
        batches.append((tensor, [c.shape[0] - 1 for c in group]))
    return batches


def best_of(repeat: int, sentences: int, name: str, run: Callable[[], object]) -> Timing:
    """Best CPU time of ``repeat`` passes (the project machine is shared)."""
    return best_of_wall(repeat, sentences, name, run, clock=time.process_time)


def report(timings: Sequence[Timing]) -> None:
    for timing in timings:
        print(f"  {timing.name:<46} {timing.per_second:>10.0f} sentences/s  ({timing.sentences} sentences)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conllu", type=Path, default=None, help="CoNLL-U file whose sentence lengths to use")
    parser.add_argument("--repeat", type=int, default=5, help="best of this many passes")
    parser.add_argument("--reference-sentences", type=int, default=200, help="the pure-Python twins decode only these")
    parser.add_argument("--batch-size", type=int, default=100, help="sentences per torch batch")
    parser.add_argument("--fixed-length", type=int, default=25)
    parser.add_argument("--fixed-sentences", type=int, default=2000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not (mst.compiled_available() and eisner.compiled_available()):
        print("the Cython decoders are not built: run `python3 setup.py build_ext --inplace` first")
        return 1

    lengths, source = dev_lengths(args.conllu)
    rng = np.random.default_rng(0)
    charts = random_charts(rng, lengths)
    subset = charts[: args.reference_sentences]
    batches = torch_batches(charts, args.batch_size)
    torch_name = f"Eisner, torch batched CPU (B={args.batch_size})"
    print(f"machine: {machine()}; one thread, CPU time")
    print(
        f"{source}: {len(lengths)} sentences, mean length {np.mean(lengths):.1f}, "
        f"median {np.median(lengths):.0f}, max {max(lengths)}"
    )

    fast_mst = [decode_mst(c) for c in charts]
    fast_eisner = [decode_eisner(c) for c in charts]
    batched = [row[: n + 1] for tensor, sizes in batches for row, n in zip(decode_batch(tensor, sizes).numpy(), sizes)]
    assert all((a == b).all() for a, b in zip(fast_eisner, batched)), "Cython and batched torch Eisner disagree"
    assert all((decode_mst_reference(c) == h).all() for c, h in zip(subset, fast_mst)), "MST twins disagree"
    assert all((decode_eisner_reference(c) == h).all() for c, h in zip(subset, fast_eisner)), "Eisner twins disagree"

    def each(decode: Callable[[np.ndarray], object], items: Sequence[np.ndarray]) -> Callable[[], object]:
        return lambda: [decode(c) for c in items]

    repeat = args.repeat
    mst_all = best_of(repeat, len(charts), "MST, Cython", each(decode_mst, charts))
    mst_sub = best_of(repeat, len(subset), "MST, Cython (reference subset)", each(decode_mst, subset))
    mst_ref = best_of(1, len(subset), "MST, pure Python", each(decode_mst_reference, subset))
    eis_all = best_of(repeat, len(charts), "Eisner, Cython", each(decode_eisner, charts))
    eis_sub = best_of(repeat, len(subset), "Eisner, Cython (reference subset)", each(decode_eisner, subset))
    eis_ref = best_of(1, len(subset), "Eisner, pure Python", each(decode_eisner_reference, subset))
    eis_torch = best_of(repeat, len(charts), torch_name, lambda: [decode_batch(t, s) for t, s in batches])
    report([mst_all, mst_sub, mst_ref, eis_all, eis_sub, eis_ref, eis_torch])
    same = f"(same {len(subset)} sentences)"
    print(f"  MST Cython / pure Python {same}:    {mst_sub.per_second / mst_ref.per_second:8.1f}x")
    print(f"  Eisner Cython / pure Python {same}: {eis_sub.per_second / eis_ref.per_second:8.1f}x")
    print(f"  Eisner Cython / torch batched CPU:                  {eis_all.per_second / eis_torch.per_second:8.1f}x")
    print(f"  MST Cython / Eisner Cython:                         {mst_all.per_second / eis_all.per_second:8.1f}x")

    n = args.fixed_length
    fixed = random_charts(rng, [n] * args.fixed_sentences)
    fixed_batches = torch_batches(fixed, args.batch_size)
    print(f"fixed length n = {n}, {len(fixed)} sentences:")
    eis_fixed = best_of(repeat, len(fixed), "Eisner, Cython", each(decode_eisner, fixed))
    mst_fixed = best_of(repeat, len(fixed), "MST, Cython", each(decode_mst, fixed))
    torch_fixed = best_of(repeat, len(fixed), torch_name, lambda: [decode_batch(t, s) for t, s in fixed_batches])
    report([eis_fixed, mst_fixed, torch_fixed])
    ratio = eis_fixed.per_second / torch_fixed.per_second
    print(f"  Eisner Cython / torch batched CPU:                  {ratio:8.1f}x")
    print(
        f"  Eisner Cython: {eis_fixed.per_second:,.0f} sentences/s, "
        f"{eis_fixed.per_second / 20000:.2f}x the target of 20,000"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
