"""benepar 0.2.0's ChartParser training, timed update by update, as a worker of ``benchmarks/train_vs_peers.py``;
runs in benepar's own virtual environment and imports nothing from mlparse.

It builds an untrained ChartParser of the sizes given (``--sizes``, JSON, as ``benchmarks/benepar_worker.py``
takes them: CharLSTM input, the partitioned encoder, no tag prediction), its vocabularies from the training
trees (one tree per line), nothing downloaded, and trains it the way benepar's ``main.py`` does: the
training trees shuffled once per epoch, ``--batch-size`` trees an update, each batch split by the parser's
own ``encode_and_collate_subbatches(examples, subbatch_max_tokens=--budget)``, ``compute_loss`` and
``backward`` per sub-batch (the loss divided by the whole batch's size inside ``compute_loss``), the
gradient norm clipped (``--clip``; 0 clips at infinity, as ``main.py`` does when ``clip_grad_norm`` is 0,
which still computes the norm), then one Adam step (betas 0.9/0.98, eps 1e-9, as ``main.py``).

An update's time runs from the end of the previous one (the first: from the start of its batch; the model
build and the reading of the trees are left out) to the end of its Adam step, and includes the encoding of
its batch.  Updates run until their times pass ``--seconds``.  Printed: one JSON line ``{"times",
"sentences", "words", "first", ...}``.

    /path/to/benepar-venv/bin/python benchmarks/benepar_train_worker.py --train TRAIN --sizes JSON
        [--threads T] [--seconds S] [--batch-size 250] [--budget 2000] [--lr 0.0008] [--clip 0] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Iterator, List, Optional

import nltk
import torch
from benepar import parse_base

from benepar_worker import build_parser, read_trees


class TrainingExample(parse_base.BaseInputExample):
    """A training sentence: its words (no spaces known: each followed by one), its gold tree and tags."""

    def __init__(self, tree: nltk.Tree) -> None:
        self.tree = tree
        self._pos = tree.pos()
        self.words = [word for word, _ in self._pos]
        self.space_after = [True] * len(self.words)

    def leaves(self) -> List[str]:
        return self.words

    def pos(self) -> List[tuple]:
        return self._pos


def batches(examples: List[TrainingExample], size: int, seed: int) -> Iterator[List[TrainingExample]]:
    """Batches of ``size`` examples, the examples shuffled anew at each epoch (``main.py``'s order), endlessly."""
    rng = random.Random(seed)
    order = list(range(len(examples)))
    while True:
        rng.shuffle(order)
        for start in range(0, len(order), size):
            yield [examples[i] for i in order[start:start + size]]


def update(parser, optimizer, batch: List[TrainingExample], budget: int,  # type: ignore[no-untyped-def]
           clip: float) -> float:
    """One optimizer update over ``batch``, sub-batch by sub-batch; returns the batch's loss."""
    optimizer.zero_grad()
    parser.train()
    total = 0.0
    for _, subbatch in parser.encode_and_collate_subbatches(batch, subbatch_max_tokens=budget):
        loss = parser.compute_loss(subbatch)
        value = float(loss.detach())
        total += value
        if value > 0:
            loss.backward()
        del loss
    torch.nn.utils.clip_grad_norm_(parser.parameters(), clip if clip > 0 else math.inf)
    optimizer.step()
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True, help="training trees, one per line")
    ap.add_argument("--sizes", required=True, help="JSON object of model sizes (benepar_worker.py's)")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--seconds", type=float, default=60.0, help="seconds of timed updates")
    ap.add_argument("--batch-size", type=int, default=250, help="trees per update")
    ap.add_argument("--budget", type=int, default=2000, help="subbatch_max_tokens")
    ap.add_argument("--lr", type=float, default=0.0008)
    ap.add_argument("--clip", type=float, default=0.0, help="gradient norm bound (0: none, as main.py)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    import benepar

    trees = read_trees(args.train)
    parser = build_parser(trees, json.loads(args.sizes), args.seed)
    optimizer = torch.optim.Adam([p for p in parser.parameters() if p.requires_grad], lr=args.lr, betas=(0.9, 0.98),
                                 eps=1e-9)
    times: List[float] = []
    sentences: List[int] = []
    words: List[int] = []
    first: Optional[float] = None
    examples = [TrainingExample(tree) for tree in trees]
    last = time.perf_counter()
    for batch in batches(examples, args.batch_size, args.seed):
        update(parser, optimizer, batch, args.budget, args.clip)
        now = time.perf_counter()
        times.append(now - last)
        sentences.append(len(batch))
        words.append(sum(len(example.words) for example in batch))
        first = times[0] if first is None else first
        last = now
        if sum(times) >= args.seconds:
            break
    print(json.dumps({"times": times, "sentences": sentences, "words": words, "first": first,
                      "version": getattr(benepar, "__version__", "0.2.0"), "torch": torch.__version__,
                      "threads": torch.get_num_threads(), "classes": len(parser.label_vocab),
                      "parameters": sum(p.numel() for p in parser.parameters())}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
