"""The mlparse worker of ``benchmarks/train_vs_peers.py``: trains one recipe in a process of its own, times its
updates (:class:`StepClock`) and prints them as one JSON line; optionally profiles the updates after the timed ones.

    python3 benchmarks/train_worker.py '{"recipe": "ud/english-ewt-bilstm", "sets": ["data.tags=gold"],
        "threads": 2, "seconds": 30, "profile": 2, "lstm_kernel": "padded"}'

``sets``: ``--set`` overrides; ``profile``: updates run under torch's profiler after the timed ones (their top
operators in the answer's ``profile``); ``skip_first``: the first update is not counted towards ``seconds``;
``lstm_kernel``: the CPU kernel of every BiLSTM encoder and CharLSTM (``padded``: as before b4f67a2).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

#: Profiler rows printed per system (pair b).
PROFILE_ROWS = 8


class Enough(Exception):
    """Raised from the mlparse worker's progress callback once its updates are timed (and profiled)."""


class StepClock:
    """mlparse's update clock: wraps ``Trainer.train_step`` (the update's start, its sentences and words from
    ``trainer.state.train_sentences`` / ``train_tokens`` differences) and serves as the run's reporter
    (``on_step`` closes an update, ``on_eval`` drops the interval holding a dev check).  An update runs from
    the end of the previous one (or from its own start after a dev check, or at the first) to the trainer's
    progress callback after it.  After ``seconds`` of timed updates (after the first when ``skip_first``), the
    next ``profile_updates`` updates run under torch's profiler, untimed, and the run is stopped."""

    def __init__(self, seconds: float, profile_updates: int, skip_first: bool) -> None:
        self.seconds, self.profile_left, self.skip_first = seconds, profile_updates, skip_first
        self.created = time.perf_counter()
        self.times: List[float] = []
        self.sentences: List[int] = []
        self.words: List[int] = []
        self.started: Optional[float] = None
        self.pending = (0, 0)
        self.to_first: Optional[float] = None  # from the worker's start to the end of the first update
        self.profiling = False
        self.operators: Dict[str, List[float]] = {}  # name -> [self CPU µs, calls] over the profiled updates
        self.profiled = 0
        self.trainer = None

    def step(self, trainer, batch, original: Callable):  # type: ignore[no-untyped-def]
        """``Trainer.train_step`` through the clock."""
        self.trainer = trainer
        if self.started is None:
            self.started = time.perf_counter()
        before = (trainer.state.train_sentences, trainer.state.train_tokens)
        if self.profiling:
            loss = self._profiled(original, trainer, batch)
        else:
            loss = original(trainer, batch)
        self.pending = (trainer.state.train_sentences - before[0], trainer.state.train_tokens - before[1])
        return loss

    def _profiled(self, original: Callable, trainer, batch):  # type: ignore[no-untyped-def]
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]) as profiler:
            loss = original(trainer, batch)
        for event in profiler.key_averages():
            entry = self.operators.setdefault(event.key, [0.0, 0.0])
            entry[0] += event.self_cpu_time_total
            entry[1] += event.count
        return loss

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        now = time.perf_counter()
        if self.profiling:
            self.profiled += 1
            self.profile_left -= 1
        else:
            self.times.append(now - (self.started if self.started is not None else now))
            self.sentences.append(self.pending[0])
            self.words.append(self.pending[1])
            if self.to_first is None:
                self.to_first = now - self.created
            print(json.dumps({"update": [self.times[-1], self.pending[0], self.pending[1]],
                              "to_first": self.to_first}), flush=True)  # what a stopped worker leaves behind
        self.started = now
        timed = self.times[1:] if self.skip_first else self.times
        if timed and sum(timed) >= self.seconds:
            if self.profile_left <= 0:
                raise Enough()
            self.profiling = True

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        self.started = None

    def on_note(self, message: str) -> None:
        pass

    def report(self) -> dict:
        """The worker's JSON answer."""
        import torch

        trainer = self.trainer
        model = trainer.model if trainer is not None else None
        classes = getattr(model, "relations", None) if model is not None else None
        if classes is None and model is not None:
            classes = getattr(model, "labels", None)
        lengths = trainer.train_lengths if trainer is not None else []
        return {"times": self.times, "sentences": self.sentences, "words": self.words,
                "first": self.times[0] if self.times else None, "to_first": self.to_first,
                "classes": len(classes) if classes is not None else None,
                "mean_length": sum(lengths) / len(lengths) if lengths else None,
                "subbatching": getattr(trainer, "subbatching", None), "budget": getattr(trainer, "train_budget", None),
                "threads": torch.get_num_threads(), "profile": self.profile_lines(),
                "parameters": sum(p.numel() for p in model.parameters()) if model is not None else None}

    def profile_lines(self) -> List[str]:
        """The top operators by self CPU time, per profiled update."""
        if not self.profiled:
            return []
        total = sum(entry[0] for entry in self.operators.values()) or 1.0
        top = sorted(self.operators.items(), key=lambda item: -item[1][0])[:PROFILE_ROWS]
        return [f"{name:<34} {100 * us / total:5.1f}%  {us / 1000 / self.profiled:8.1f} ms/update  "
                f"{calls / self.profiled:7.0f} calls/update" for name, (us, calls) in top]


def set_lstm_kernel(kernel: str) -> None:
    """Every BiLSTM encoder and CharLSTM built in this worker runs ``kernel`` on the CPU (``padded``: oneDNN's
    layer for the encoder, ``nn.LSTM`` for the CharLSTM, as before b4f67a2)."""
    from mlparse.modules.bilstm_encoder import BiLSTMEncoder
    from mlparse.modules.char_lstm import CharLSTM

    for cls in (BiLSTMEncoder, CharLSTM):
        built = cls.__init__

        def init(self, *args, _built=built, **kwargs):  # type: ignore[no-untyped-def]
            _built(self, *args, **kwargs)
            if isinstance(self, BiLSTMEncoder):
                self.cpu_kernel = kernel
            else:
                self.packed_on_cpu = kernel == "packed"

        cls.__init__ = init  # type: ignore[method-assign]


def mlparse_worker(spec: dict) -> None:
    """Train ``spec["recipe"]`` with ``spec["sets"]`` on ``spec["threads"]`` threads in a temporary runs folder
    until ``spec["seconds"]`` of timed updates; print the clock's JSON line."""
    import torch

    from mlparse.config import load_recipe
    from mlparse.train.runner import RunOptions, run_recipe
    from mlparse.train.trainer import Reporter, Trainer

    torch.set_num_threads(int(spec["threads"]))
    if spec.get("lstm_kernel"):
        set_lstm_kernel(str(spec["lstm_kernel"]))
    config = load_recipe(spec["recipe"], list(spec["sets"]))
    clock = type("Clock", (StepClock, Reporter), {})(float(spec["seconds"]), int(spec.get("profile", 0)),
                                                     bool(spec.get("skip_first", False)))
    original = Trainer.train_step
    Trainer.train_step = lambda trainer, batch: clock.step(trainer, batch, original)  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory(prefix="train-vs-peers-") as runs:
        try:
            run_recipe(config, RunOptions(runs_dir=Path(runs)), clock)
        except Enough:
            pass
    print(json.dumps(clock.report()), flush=True)


if __name__ == "__main__":
    mlparse_worker(json.loads(sys.argv[1]))
