"""Joint span + dependency decoding speed: exact (Cython, pure Python) vs separate CKY + MST, side by side.

Sentence lengths are those of the ptb-sample "dev" files wsj_0160-wsj_0179
(words that are not -NONE- empty elements, read with mlparse's reader), then a
fixed length (default 25 words, WSJ's mean).  Span scores are random float32
with L labels (default 100); arc scores are random, log-softmax-normalised over
the heads of each dependent like the biaffine arc softmax, float32.  Every
decoder is timed in the same run on the same arrays, on one core, in CPU time
(best of --repeat passes; the project machine is shared, so the load average is
printed), and the outputs are checked: the Cython and pure-Python exact
decoders return the same trees, and the separate decoding's score bounds the
exact one from above.

    python3 benchmarks/joint_decoder_speed.py [--labels 100] [--repeat 5] [--fixed-length 25] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from mlparse.structs import joint
from mlparse.structs.joint import decode_joint, decode_separate
from mlparse.structs.joint_reference import decode_joint_reference

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/timing.py
import timing  # noqa: E402
from timing import Timing, load_average, machine, ptb_sample_dev_lengths, treebank_dir  # noqa: E402

TARGET = 1000.0  # sentences/s, exact joint decoder at n = 25 on one core (issue 10)

Sentence = Tuple[np.ndarray, np.ndarray]


def dev_lengths() -> Tuple[List[int], str]:
    """Word counts of the ptb-sample dev files, or random lengths 10-40 if the sample is absent."""
    lengths = ptb_sample_dev_lengths()
    if lengths:
        return lengths, "ptb-sample dev (wsj_0160-0179)"
    rng = np.random.default_rng(0)
    return [int(n) for n in rng.integers(10, 41, size=273)], f"273 random lengths 10-40 ({treebank_dir()} has no ptb-sample)"


def random_sentences(rng: np.random.Generator, lengths: Sequence[int], num_labels: int) -> List[Sentence]:
    """(span scores (n+1, n+1, L), arc scores (n+1, n+1) log-softmax over heads) per length, float32."""
    sentences = []
    for n in lengths:
        spans = rng.normal(size=(n + 1, n + 1, num_labels)).astype(np.float32)
        logits = rng.normal(scale=3.0, size=(n + 1, n + 1))
        logits -= logits.max(axis=0, keepdims=True)
        arcs = logits - np.log(np.exp(logits).sum(axis=0, keepdims=True))
        sentences.append((spans, arcs.astype(np.float32)))
    return sentences


def best_of(repeat: int, name: str, decoder: Callable, sentences: Sequence[Sentence]) -> Timing:
    """Best CPU time of ``repeat`` passes of ``decoder`` over the sentences."""
    return timing.best_of(repeat, len(sentences), name, lambda: [decoder(s, a) for s, a in sentences],
                          clock=time.process_time)


def check(sentences: Sequence[Sentence], reference_count: int) -> None:
    """Cython = pure Python on the first sentences; separate >= exact everywhere (it drops a constraint)."""
    for spans, arcs in sentences[:reference_count]:
        fast, slow = decode_joint(spans, arcs), decode_joint_reference(spans, arcs)
        if fast.score != slow.score or fast.spans != slow.spans or (fast.heads != slow.heads).any():
            raise AssertionError("the Cython and pure-Python joint decoders disagree")
    for spans, arcs in sentences:
        if decode_separate(spans, arcs).score < decode_joint(spans, arcs).score - 1e-6:
            raise AssertionError("separate decoding scored below the exact joint decoder")


def table(title: str, sentences: Sequence[Sentence], reference_count: int, repeat: int) -> Timing:
    """Time every decoder on ``sentences``; print the rows and ratios; return the exact Cython timing."""
    check(sentences, reference_count)
    subset = sentences[:reference_count]
    exact = best_of(repeat, "exact joint, Cython (decode_joint)", decode_joint, sentences)
    exact_subset = best_of(repeat, "exact joint, Cython (reference subset)", decode_joint, subset)
    reference = best_of(1, "exact joint, pure Python", decode_joint_reference, subset)
    separate = best_of(repeat, "separate CKY + MST, Cython", decode_separate, sentences)
    projective = best_of(
        repeat, "separate CKY + Eisner, Cython", lambda s, a: decode_separate(s, a, projective=True), sentences
    )
    print(title)
    for timing in (exact, exact_subset, reference, separate, projective):
        print(f"  {timing.name:<42} {timing.per_second:>10.0f} sentences/s  ({timing.sentences} sentences)")
    same = f"(same {len(subset)} sentences)"
    print(f"  exact Cython / pure Python {same}: {exact_subset.per_second / reference.per_second:8.1f}x")
    print(f"  separate CKY + MST / exact Cython:          {separate.per_second / exact.per_second:8.1f}x")
    return exact


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="best of this many passes")
    parser.add_argument("--reference-sentences", type=int, default=20, help="the pure-Python decoder's sentences")
    parser.add_argument("--fixed-length", type=int, default=25)
    parser.add_argument("--fixed-sentences", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="a few short sentences, one pass (the test's smoke run)")
    args = parser.parse_args(argv)
    if not joint.compiled_available():
        print("the Cython joint decoder is not built: run `python3 setup.py build_ext --inplace` first")
        return 1
    lengths, source = dev_lengths()
    if args.quick:
        lengths, args.repeat, args.reference_sentences = [min(n, 12) for n in lengths[:6]], 1, 2
        args.fixed_length, args.fixed_sentences, args.labels = min(args.fixed_length, 8), 5, min(args.labels, 10)

    print(f"machine: {machine()}; one core, CPU time; {load_average()} at the start (the machine is shared)")
    rng = np.random.default_rng(0)
    dev = random_sentences(rng, lengths, args.labels)
    print(
        f"{source}: {len(lengths)} sentences, mean length {np.mean(lengths):.1f}, median {np.median(lengths):.0f}, "
        f"max {max(lengths)}; L = {args.labels}"
    )
    table("dev lengths:", dev, args.reference_sentences, args.repeat)
    n = args.fixed_length
    fixed = random_sentences(rng, [n] * args.fixed_sentences, args.labels)
    exact = table(f"fixed length n = {n}, {len(fixed)} sentences:", fixed, args.reference_sentences, args.repeat)
    speed = exact.per_second
    print(f"  exact joint Cython at n = {n}: {speed:,.0f} sentences/s, {speed / TARGET:.2f}x the target of 1,000")
    print(f"{load_average()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
