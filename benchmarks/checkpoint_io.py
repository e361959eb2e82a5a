"""What safe checkpoints cost, side by side, for the base model (recipes/base.yaml sizes, ptb-sample vocabulary).

- reading: mlparse's reader (archive checksums verified, then ``torch.load(weights_only=True)``)
  vs ``torch.load(weights_only=True)`` alone vs the old ``torch.load(weights_only=False)``;
- writing best.pt at an improving check: a hard link to the last.pt just written vs a second write;
- disk: best.pt now carries the full training state (weights, Adam moments, RNG): its size vs a
  weights-only best.pt of the old format.

Files are read right after being written, so from the page cache (what a resume or a parse after
training sees); each timing is the best of ``--repeat``.

    python3 benchmarks/checkpoint_io.py [--repeat N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable, List

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.parse_speed import make_model  # noqa: E402
from mlparse.train import checkpoint  # noqa: E402
from mlparse.train.schedule import WarmupPlateauSchedule  # noqa: E402
from mlparse.train.trainer import TrainState  # noqa: E402


def best_of(repeat: int, action: Callable[[], object], before: Callable[[], object] = lambda: None) -> float:
    times: List[float] = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the files go (default: a temporary folder)")
    args = parser.parse_args(argv)
    model = make_model(torch.device("cpu")).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for parameter in model.parameters():  # one step, so that Adam holds its two moments per parameter
        parameter.grad = torch.randn_like(parameter) * 1e-3
    optimizer.step()
    payload = {"spec": model.spec(), "model": model.state_dict(), "optimizer": optimizer.state_dict(),
               "schedule": WarmupPlateauSchedule(1e-4, 160, 20).state_dict(), "state": asdict(TrainState()),
               "rng": checkpoint.rng_state(), "recipe_hash": "-", "recipe": {}}
    parameters = sum(p.numel() for p in model.parameters())
    folder = Path(tempfile.mkdtemp(prefix="checkpoint_io.", dir=args.dir))
    last, best, old_best = folder / "last.pt", folder / "best.pt", folder / "old_best.pt"
    print(f"base model: {parameters / 1e6:.1f}M parameters; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, torch {torch.__version__}, {torch.get_num_threads()} threads; files in {folder}")

    save = best_of(args.repeat, lambda: checkpoint.save(payload, last))
    second = best_of(args.repeat, lambda: checkpoint.save(payload, best))
    link = best_of(args.repeat, lambda: checkpoint.save_copy(last, best, payload))
    torch.save({"spec": payload["spec"], "model": payload["model"], "step": 0, "dev_f1": 0.0}, old_best)
    mib = 1024 * 1024
    print(f"write last.pt: {save:.3f} s ({last.stat().st_size / mib:.0f} MiB)")
    print(f"best.pt at an improving check: a hard link, {link * 1000:.2f} ms, instead of a second write, {second:.3f} s")
    print(f"disk: best.pt {best.stat().st_size / mib:.0f} MiB with the training state vs {old_best.stat().st_size / mib:.0f} "
          f"MiB weights only ({best.stat().st_size / old_best.stat().st_size:.2f}x)")

    verified = best_of(args.repeat, lambda: checkpoint.load(last))
    checks = best_of(args.repeat, lambda: checkpoint.verify(last))
    safe = best_of(args.repeat, lambda: torch.load(last, map_location="cpu", weights_only=True))
    unsafe = best_of(args.repeat, lambda: torch.load(last, map_location="cpu", weights_only=False))
    print(f"read last.pt: mlparse (checksums + weights_only) {verified:.3f} s = checksums {checks:.3f} s + reading; "
          f"torch.load weights_only=True {safe:.3f} s; weights_only=False (the old reader) {unsafe:.3f} s")
    print(f"ratios: mlparse reader / old reader = {verified / unsafe:.2f}x; weights_only=True / False = "
          f"{safe / unsafe:.2f}x; checksums / whole read = {checks / verified:.2f}")
    old_parse = best_of(args.repeat, lambda: torch.load(old_best, map_location="cpu", weights_only=False))
    print(f"what `mlparse parse` reads: best.pt now {verified:.3f} s vs the old weights-only best.pt with the old reader "
          f"{old_parse:.3f} s ({verified / old_parse:.1f}x)")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
