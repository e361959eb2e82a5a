"""SuPar 1.1.4's biaffine-dep training, timed update by update, as a worker of ``benchmarks/train_vs_peers.py``;
runs in SuPar's own virtual environment and imports nothing from mlparse.

It builds an untrained ``BiaffineDependencyParser`` as ``biaffine-dep train --build`` does (its fields and
vocabularies from the training file; the sizes from the ``--conf`` INI file; the gold tag column as its
``tag`` feature; no pretrained embeddings; nothing downloaded), then calls SuPar's own ``parser.train`` on
the files given, with two pieces of instrumentation and no change to SuPar:

- a forward pre-hook on the model records each training batch: its sentences (``words.shape[0]``) and its
  real words (the non-padding positions less the root of each sentence);
- a global optimizer step post-hook (``torch.optim.optimizer.register_optimizer_step_post_hook``) records
  the time of each update.

An update's time runs from one optimizer step to the next (SuPar's decode and training metric, the next
batch's loading, forward and backward); the first update's runs from its forward (data loading, the
vocabularies and the model build are left out), and is also reported alone (``first``).  Once the timed
updates pass ``--seconds`` the hook raises a private exception, so only first-epoch updates count (SuPar
evaluates dev and test after each epoch).  SuPar's batches are length buckets of about ``--batch-size``
tokens in an order its sampler draws from the epoch number (the same in every run), and a bucket of long
sentences costs far more per word (its relation scores cover every pair of words), so a short window sees
the same few buckets each time: the parent reports how much of the epoch the window covered.
Printed: one JSON line ``{"times", "sentences", "words", "first", ...}``.

    /path/to/supar-venv/bin/python benchmarks/supar_train_worker.py --train TRAIN --dev DEV --test TEST
        --conf INI [--threads T] [--seconds S] [--batch-size TOKENS] [--buckets N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from typing import List, Optional

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook


class Enough(Exception):
    """Raised from the optimizer hook once enough updates are timed."""


class UpdateClock:
    """Per-update wall seconds, sentences and real words, from the model's forward and the optimizer's step."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.times: List[float] = []
        self.sentences: List[int] = []
        self.words: List[int] = []
        self.first: Optional[float] = None
        self.started: Optional[float] = None  # the first update's forward
        self.last: Optional[float] = None  # the last optimizer step
        self.pending = [0, 0]  # sentences, words of the forwards since the last step

    def on_forward(self, module: torch.nn.Module, inputs: tuple) -> None:
        """Forward pre-hook: ``inputs[0]`` is ``words: LongTensor[B, T]`` (position 0 the root)."""
        words = inputs[0]
        mask = words.ne(module.args.pad_index) if words.dim() < 3 else words.ne(module.args.pad_index).any(-1)
        self.pending[0] += int(words.shape[0])
        self.pending[1] += int(mask.sum()) - int(words.shape[0])
        if self.started is None:
            self.started = time.perf_counter()

    def on_step(self, optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
        """Optimizer post-hook: close the update; raise :class:`Enough` after ``seconds`` of timed updates."""
        now = time.perf_counter()
        start = self.last if self.last is not None else (self.started if self.started is not None else now)
        self.times.append(now - start)
        self.sentences.append(self.pending[0])
        self.words.append(self.pending[1])
        if self.first is None:
            self.first = now - start
        self.last, self.pending = now, [0, 0]
        if self.times and sum(self.times) >= self.seconds:
            raise Enough()


def build_parser(conf: str, train: str, threads: int, seed: int):  # type: ignore[no-untyped-def]
    """An untrained BiaffineDependencyParser of the INI's sizes, its vocabularies from ``train``."""
    from supar import BiaffineDependencyParser
    from supar.utils import Config

    with tempfile.TemporaryDirectory() as tmp:
        config = Config.load(conf=conf, path=os.path.join(tmp, "model"), build=True, train=train, feat=["tag"],
                             encoder="lstm", embed="", unk="unk", n_embed=100, bert="bert-base-cased", tree=False,
                             proj=False, partial=False, punct=True, max_len=None, buckets=32, mode="train",
                             device="cpu", seed=seed, threads=threads, local_rank=-1, checkpoint=False)
        return BiaffineDependencyParser.build(**config), config


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--conf", required=True, help="SuPar's INI configuration (sizes, optimizer)")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--seconds", type=float, default=60.0, help="seconds of timed updates")
    ap.add_argument("--batch-size", type=int, default=5000, help="tokens per batch, SuPar's default")
    ap.add_argument("--buckets", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    parser, config = build_parser(args.conf, args.train, args.threads, args.seed)
    clock = UpdateClock(args.seconds)
    parser.model.register_forward_pre_hook(clock.on_forward)
    handle = register_optimizer_step_post_hook(clock.on_step)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            parser.train(train=args.train, dev=args.dev, test=args.test, buckets=args.buckets,
                         batch_size=args.batch_size, update_steps=1, clip=config.clip, punct=True, tree=False,
                         proj=False, partial=False, verbose=False, path=os.path.join(tmp, "model"))
        except Enough:
            pass
    handle.remove()
    import importlib.metadata as metadata

    print(json.dumps({"times": clock.times, "sentences": clock.sentences, "words": clock.words, "first": clock.first,
                      "version": metadata.version("supar"), "torch": torch.__version__,
                      "threads": torch.get_num_threads(),
                      "parameters": sum(p.numel() for p in parser.model.parameters())}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
