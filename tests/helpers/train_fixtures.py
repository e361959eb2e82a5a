"""Interrupting a training run and comparing what it left: shared by the trainer, resume and run tests."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from mlparse.run_dir import RunDir
from mlparse.train import checkpoint
from mlparse.train.trainer import Reporter


class Interrupt(Exception):
    pass


class StopAfter(Reporter):
    """Raises after ``steps`` updates (simulates a crash between checkpoints)."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.seen: list = []

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        self.seen.append(info.step)
        if info.step >= self.steps:
            raise Interrupt()


def weights(path: Path) -> dict:
    return checkpoint.load(path)["model"]


def same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def log_without_times(run_dir: RunDir) -> list:
    entries = [json.loads(line) for line in run_dir.log.read_text().splitlines()]
    for entry in entries:
        entry.pop("elapsed_seconds")
    return entries
