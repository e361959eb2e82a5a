"""Training throughput of the span parser at the paper's size (recipes/base.yaml): tokens/second.

One optimizer update = forward + loss-augmented decoding + backward over a fixed batch of
ptb-sample training sentences, split into sub-batches under the recipe's token budget
(gradient accumulation), then an Adam step.  Paths measured side by side on the same
batch: the Cython per-sentence decoder vs the batched torch decoder, on CPU and (when
present) on the GPU with bf16 autocast.

    python3 benchmarks/train_speed.py [--sentences N] [--updates U] [--threads T] [--budget TOKENS]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.parse_speed import make_model, prepared_split  # noqa: E402
from mlparse.config import load_recipe  # noqa: E402
from mlparse.data.batching import pack_by_tokens  # noqa: E402
from mlparse.models.memory import subbatch_cost  # noqa: E402
from mlparse.train.budget import resolve_budget  # noqa: E402
from mlparse.tasks.treebank import golds_of, read_split, sentence_of  # noqa: E402


def time_updates(device: torch.device, decoder: str, sentences: List, golds: List, budget: int, updates: int) -> Dict[str, float]:
    model = make_model(device)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    lengths = [len(s) for s in sentences]
    groups = pack_by_tokens(lengths, budget, subbatch_cost(model.config, model.span_config, len(model.labels), True, decoder))  # as the trainer
    autocast = device.type == "cuda"

    def update() -> None:
        optimizer.zero_grad(set_to_none=True)
        for group in groups:
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=autocast):
                out = model.loss([sentences[i] for i in group], [golds[i] for i in group], decoder)
            (out.loss / len(sentences)).backward()
        optimizer.step()

    update()  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(updates):
        update()
    if device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    tokens = sum(lengths) * updates
    return {"tokens_per_second": tokens / seconds, "sentences_per_second": len(sentences) * updates / seconds,
            "sub_batches": len(groups)}


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=32, help="sentences per update (the paper: 250)")
    parser.add_argument("--updates", type=int, default=2)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--budget", type=int, default=None, help="sub-batch token budget (default: the recipe's)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    config = load_recipe(REPO / "recipes" / "base.yaml")
    budget = args.budget or resolve_budget(config.train.subbatch_tokens, "train", torch.device("cpu"), None)  # auto: 2000
    train = read_split(prepared_split("train")).trees
    batch = train[: args.sentences]
    labels = make_model(torch.device("cpu")).labels
    golds = golds_of(batch, labels)
    sentences = [sentence_of(t) for t in batch]
    print(f"base model (recipes/base.yaml sizes), {len(sentences)} sentences / {sum(map(len, sentences))} tokens per update, "
          f"sub-batch budget {budget} tokens, {args.updates} timed updates; CPU threads {args.threads}")
    rows = []
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    for device in devices:
        for decoder in ("cython", "torch"):
            rows.append((device.type, decoder, time_updates(device, decoder, sentences, golds, budget, args.updates)))
    reference = rows[0][2]["tokens_per_second"]
    print(f"{'device':<8}{'decoder':<9}{'tokens/s':>10}{'sent/s':>9}{'vs cpu+cython':>15}")
    for device_name, decoder, result in rows:
        print(f"{device_name:<8}{decoder:<9}{result['tokens_per_second']:>10.1f}{result['sentences_per_second']:>9.2f}"
              f"{result['tokens_per_second'] / reference:>14.2f}x")
    for device_name in sorted({r[0] for r in rows}):
        by = {r[1]: r[2]["tokens_per_second"] for r in rows if r[0] == device_name}
        print(f"{device_name}: batched torch decoder / Cython decoder = {by['torch'] / by['cython']:.2f}x (whole update)")


if __name__ == "__main__":
    main()
