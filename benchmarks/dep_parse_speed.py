"""Parsing speed of the biaffine parser: relations scored for the decoded heads only, against the former
[B, T, T, L] relation tensor of every (dependent, head) pair, side by side.

The same weights (a trained run's ``best.pt``, or an untrained demo-dep model) parse the same sentences
(UD English-EWT dev by default) through ``predict_in_batches`` with the recipe's parse budget, one torch
thread, alternating the two versions ``--repeats`` times; the best time of each is kept (the machine is
shared).  "former" rebuilds the previous code path here: ``scores`` returns the relation log-probabilities
of every pair and ``decode`` gathers the decoded heads' rows, and its memory cost counts the L relation
scores per pair (so its sub-batches are smaller under the same budget).  Both must give the same trees.

    python3 benchmarks/dep_parse_speed.py [--model RUN_DIR] [--conllu FILE] [--repeats 3] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mlparse.config import load_recipe  # noqa: E402
from mlparse.models.dep_parser import BiaffineParser, decode_heads  # noqa: E402
from mlparse.train import checkpoint  # noqa: E402
from mlparse.train.trainer import predict_in_batches  # noqa: E402
from mlparse.trees.dependency import DependencyPrediction, read_conllu  # noqa: E402


class FormerBiaffine(BiaffineParser):
    """The code path before relations were scored per decoded head (kept here for the comparison only)."""

    def scores(self, batch: Any) -> Any:
        arc, relation = self.scorer(self.input(batch))  # relation: [B, T, T, L]
        arc = arc.float().masked_fill(~batch.mask.unsqueeze(1), float("-inf"))
        return arc.log_softmax(-1), relation.float().log_softmax(-1)

    def decode(self, batch: Any, scores: Any, examples: Sequence[Any], decoder: str = "auto") -> List[Any]:
        arc, relation = scores
        heads = decode_heads(arc, batch.lengths, self.dep_config.decoder, "cython")
        index = heads.clamp(min=0).unsqueeze(-1).unsqueeze(-1).expand(-1, -1, 1, relation.shape[-1])
        chosen = relation.gather(2, index).squeeze(2)
        chosen[..., : self.relations.num_specials] = float("-inf")
        labels, heads_np = chosen.argmax(-1).cpu().numpy(), heads.cpu().numpy()
        return [DependencyPrediction(heads=[int(h) for h in heads_np[b, 1:n + 1]],
                                     deprels=[self.relations.token(int(r)) for r in labels[b, 1:n + 1]])
                for b, n in enumerate(batch.lengths)]

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        width = self.input.d_out * 4 * max(1, self.config.num_layers)
        square = self.config.num_heads * max(1, self.config.num_layers) + (0 if training else len(self.relations))
        return lambda n: (n + 1) + (n + 1) ** 2 * square / width


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=None, help="a demo-dep run directory (default: untrained)")
    parser.add_argument("--conllu", type=Path, default=Path("data/ud/UD_English-EWT/dev.conllu"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="parse only the first N sentences")
    parser.add_argument("--budget", type=int, default=5000, help="parse budget (token-equivalents), eval.subbatch_tokens")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    sentences = list(read_conllu(args.conllu).sentences)
    sentences = [s for s in sentences if s.words][: args.limit]
    if args.model is not None:
        saved = checkpoint.load(args.model / "checkpoints" / "best.pt")
        spec, weights = saved["spec"], saved["model"]
    else:
        config = load_recipe("demo-dep")
        torch.manual_seed(1)
        fresh = BiaffineParser.build(config, sentences)
        spec, weights = fresh.spec(), fresh.state_dict()
    current, former = BiaffineParser.from_spec(spec), FormerBiaffine.from_spec(spec)
    for model in (current, former):
        model.load_state_dict(weights)
        model.eval()
    lengths = [len(s.words) for s in sentences]
    best = {"current": float("inf"), "former": float("inf")}
    outputs = {}
    predict_in_batches(current, sentences[:64], lengths[:64], args.budget, "cython")  # warm-up
    for _ in range(args.repeats):
        for name, model in (("former", former), ("current", current)):
            start = time.perf_counter()
            outputs[name] = predict_in_batches(model, sentences, lengths, args.budget, "cython")
            best[name] = min(best[name], time.perf_counter() - start)
    same = [(p.heads, p.deprels) for p in outputs["current"]] == [(p.heads, p.deprels) for p in outputs["former"]]
    words = sum(lengths)
    print(f"machine: {platform.node()} ({os.cpu_count()} cores), torch {torch.__version__}, 1 thread, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {len(sentences)} sentences ({words} words) of "
          f"{args.conllu}; model: {args.model or 'untrained demo-dep'}; {len(current.relations)} relations; "
          f"budget {args.budget}; best of {args.repeats}")
    for name in ("former", "current"):
        print(f"{name:8s} {best[name]:8.2f} s  {len(sentences) / best[name]:8.1f} sentences/s")
    print(f"current / former speed: {best['former'] / best['current']:.2f}x; same trees and relations: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
