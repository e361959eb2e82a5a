"""Speed of ``mlparse compare``'s paired randomization test: 10,000 shuffles on a 2,416-sentence test set.

2,416 is the size of PTB section 23.  The test set is built from the ptb-sample trees, repeated in file order
until there are 2,416; system A relabels the first NP of every other sentence, system B the first PP of every
third, so their per-sentence bracket counts (from the evalb port, ``EvalbResult.sentence_counts``) differ.
The randomization runs on one core (BLAS and OpenMP limited to one thread before NumPy is imported).

It prints the time of :func:`mlparse.compare.resampling.randomization` (best of several runs; the target is
under 2 seconds) and, as a reference measured in the same run, a plain Python loop over shuffles that sums the
counts and scores each with evalb's ``SummaryBlock`` (timed on a few hundred shuffles, scaled to the same
number), with the ratio.

Usage: python3 benchmarks/compare_speed.py [--samples 10000] [--sentences 2416] [--runs 3] [--reference 300]
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from timing import best_of, load_average, machine, treebank_dir  # noqa: E402


def test_set(sentences: int) -> list:
    from mlparse.trees.reader import read_bracketed_file

    files = sorted((treebank_dir() / "ptb-sample").rglob("wsj_*.mrg"))
    if not files:
        sys.exit(f"ptb-sample not found under {treebank_dir()}")
    trees = [tree.to_bracketed() for path in files for tree in read_bracketed_file(path)]
    return [trees[k % len(trees)] for k in range(sentences)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--sentences", type=int, default=2416)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reference", type=int, default=300, help="shuffles timed for the Python reference")
    args = parser.parse_args()

    import evalb
    from evalb.results import SummaryBlock
    from mlparse.compare.resampling import randomization
    from mlparse.compare.statistics import stats_from_rows

    gold = test_set(args.sentences)
    system_a = [t.replace("(NP ", "(XP ", 1) if k % 2 else t for k, t in enumerate(gold)]
    system_b = [t.replace("(PP ", "(XP ", 1) if k % 3 == 0 else t for k, t in enumerate(gold)]
    rows_a = evalb.score_trees(gold, system_a, "COLLINS").sentence_counts()
    rows_b = evalb.score_trees(gold, system_b, "COLLINS").sentence_counts()
    a, b = stats_from_rows("f1", rows_a), stats_from_rows("f1", rows_b)

    result = randomization(a, b, args.samples, seed=12345)
    fast = best_of(args.runs, args.samples, "numpy", lambda: randomization(a, b, args.samples, seed=12345),
                   clock=time.process_time)
    wall = best_of(args.runs, args.samples, "numpy", lambda: randomization(a, b, args.samples, seed=12345))

    def reference() -> None:
        rng = random.Random(12345)
        for _ in range(args.reference):
            swapped_a, swapped_b = [], []
            for ra, rb in zip(rows_a, rows_b):
                if rng.random() < 0.5:
                    ra, rb = rb, ra
                swapped_a.append(ra)
                swapped_b.append(rb)
            for rows in (swapped_a, swapped_b):
                SummaryBlock(matched_brackets=sum(r[0] for r in rows), gold_brackets=sum(r[1] for r in rows),
                             test_brackets=sum(r[2] for r in rows)).fmeasure

    slow = best_of(1, args.reference, "python", reference, clock=time.process_time)
    slow_seconds = slow.seconds * args.samples / args.reference
    print(f"{datetime.date.today()}  {machine()}  ({load_average()})")
    print(f"{args.sentences} sentences, F1 A {result.score_a:.2f}, B {result.score_b:.2f}, p = {result.p_value:.4f}")
    print(f"randomization, {args.samples} shuffles, one core (CPU time, best of {args.runs}): {fast.seconds:.3f} s "
          f"(wall {wall.seconds:.3f} s; target < 2 s: {'met' if max(fast.seconds, wall.seconds) < 2 else 'NOT met'})")
    print(f"reference: Python loop, {args.reference} shuffles scaled to {args.samples}: {slow_seconds:.1f} s "
          f"({slow_seconds / fast.seconds:.0f}x slower)")


if __name__ == "__main__":
    main()
