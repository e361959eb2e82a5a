"""How long a CPU dropout mask takes to draw: torch's ``bernoulli_`` (what ``nn.Dropout``, ``F.dropout`` and SDPA's
dropout use on a CPU) beside ``mlparse.modules.dropout.kept_on_cpu`` (numpy's PCG64, 16-bit draws), and the whole
dropout of each (mask, scale, product), at shapes of the demo's update, side by side in one run.

    python3 benchmarks/dropout_masks.py [--threads 2] [--repeats 200]

Prints, per shape, microseconds per call (the median of 5 timings of ``--repeats`` calls) and nanoseconds per
element, and the ratio. Meaningful only on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: The demo's large masks: attention probabilities [B, H, T, T], the CharLSTM's characters [words, C, d_char_emb],
#: and a [words, d_model]-sized activation.
SHAPES = ((16, 4, 50, 50), (800, 12, 32), (800, 128))


def per_call(function: Callable[[], object], repeats: int) -> float:
    """Seconds per call: the median of 5 timings of ``repeats`` calls, after 10 warm-up calls."""
    for _ in range(10):
        function()
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            function()
        timings.append((time.perf_counter() - start) / repeats)
    return statistics.median(timings)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--p", type=float, default=0.1)
    args = parser.parse_args(argv)
    import torch

    from mlparse.modules.dropout import element_dropout, kept_on_cpu

    torch.set_num_threads(args.threads)
    print(f"dropout_masks {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, torch {torch.__version__}, "
          f"{args.threads} threads, p = {args.p}")
    print("| shape | elements | bernoulli_ mask µs (ns/element) | kept_on_cpu mask µs (ns/element) | ratio | "
          "F.dropout µs | element_dropout µs | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in SHAPES:
        x = torch.randn(*shape)
        n = x.numel()
        torch_mask = per_call(lambda: torch.empty_like(x).bernoulli_(1 - args.p), args.repeats)
        numpy_mask = per_call(lambda: kept_on_cpu(shape, args.p), args.repeats)
        torch_dropout = per_call(lambda: torch.nn.functional.dropout(x, args.p, True), args.repeats)
        ours = per_call(lambda: element_dropout(x, args.p), args.repeats)
        print(f"| {' x '.join(map(str, shape))} | {n:,} | {1e6 * torch_mask:.0f} ({1e9 * torch_mask / n:.1f}) | "
              f"{1e6 * numpy_mask:.0f} ({1e9 * numpy_mask / n:.1f}) | {torch_mask / numpy_mask:.1f}x | "
              f"{1e6 * torch_dropout:.0f} | {1e6 * ours:.0f} | {torch_dropout / ours:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
