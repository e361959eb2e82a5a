"""Peak memory of a training step and of parsing one long sentence: packed span scoring vs the dense reference.

Base model sizes (recipes/base.yaml, untrained, labels of the ptb-sample training set), one
sentence of 300 and one of 500 words (ptb-sample dev words, a random binary gold tree).
Side by side in the same run, on the same sentence and weights:

* *dense*: the former computation (:mod:`benchmarks.instrumentation.dense_reference`), the label MLP over
  the whole ``[N+1, N+1, d_hidden]`` square with gradient, the loss through that chart;
* *packed*: the current one, the decoder's chart scored without gradient over the upper
  triangle in chunks, the label MLP with gradient on the predicted and gold spans only.

Figures: the autograd graph (bytes of the tensors saved for backward, parameters excluded)
at the end of the forward pass, the peak of torch's CPU allocations during the whole training
step (forward, loss-augmented decoding, backward, into parameter gradients that already
exist, as from the second sub-batch of an update on) and during
parsing (``torch.profiler`` with ``profile_memory``: its running total of allocated bytes),
each beside the cost model's estimate (:mod:`mlparse.models.memory`). Then the time of a
training step (forward, decoding, backward) and of parsing, dense and packed alternately
(best of ``--repeats``), for the long sentences and for 32 ordinary ptb-sample training
sentences in one sub-batch.

    python3 benchmarks/span_memory.py [--lengths 300,500] [--threads T] [--repeats R] [--no-timing] [--device cuda]

On CUDA the peaks come from the caching allocator's statistics (fp32, no autocast).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.parse_speed import make_model  # noqa: E402
from benchmarks.instrumentation.dense_reference import dense_loss, dense_parse  # noqa: E402
from mlparse.models.memory import parsing_memory, training_memory  # noqa: E402
from benchmarks.instrumentation.memory_meter import peak_allocated_bytes, saved_tensor_bytes  # noqa: E402
from mlparse.models.span_parser import SpanParser  # noqa: E402
from mlparse.tasks.treebank import golds_of, read_split, sentence_of  # noqa: E402

MIB = 2.0 ** 20


def random_gold(length: int, n_labels: int, rng: random.Random) -> Dict[Tuple[int, int], int]:
    """A random binary bracketing of ``length`` words, about half of its spans labelled (the root always)."""
    gold: Dict[Tuple[int, int], int] = {}
    stack = [(0, length)]
    while stack:
        i, j = stack.pop()
        if (i, j) == (0, length) or rng.random() < 0.5:
            gold[i, j] = rng.randrange(1, n_labels)
        if j - i > 1:
            k = rng.randrange(i + 1, j)
            stack += [(i, k), (k, j)]
    return gold


def long_sentence(words: List[Tuple[str, str]], length: int) -> List[Tuple[str, str]]:
    return [words[k % len(words)] for k in range(length)]


def measure(model: SpanParser, sentence: List[Tuple[str, str]], gold: Dict[Tuple[int, int], int], dense: bool) -> Dict[str, float]:
    """Graph bytes and peak allocations of one training step and one parse, dense or packed, Cython decoder."""
    loss_of = (lambda: dense_loss(model, [sentence], [gold]).loss) if dense else (lambda: model.loss([sentence], [gold]).loss)
    model.train()
    model.zero_grad(set_to_none=True)
    graph, loss = saved_tensor_bytes(loss_of, exclude=model.parameters())  # the graph after the forward pass and decoding
    loss.backward()
    del loss
    model.zero_grad(set_to_none=False)  # gradients held at 0, as from the second sub-batch of an update on
    train_peak, _ = peak_allocated_bytes(lambda: loss_of().backward(), model.device())
    model.zero_grad(set_to_none=True)
    model.eval()
    parse = (lambda: dense_parse(model, [sentence])) if dense else (lambda: model.parse([sentence]))
    parse_peak, _ = peak_allocated_bytes(parse, model.device())
    return {"graph": graph, "train_peak": train_peak, "parse_peak": parse_peak}


def step_and_parse(model: SpanParser, sentences: Sequence, golds: Sequence, dense: bool) -> Tuple[Callable[[], None], Callable[[], None]]:
    """A training step (forward, decoding, backward) and a parse of ``sentences``, dense or packed."""
    def step() -> None:
        model.train()
        model.zero_grad(set_to_none=True)
        (dense_loss(model, sentences, golds) if dense else model.loss(sentences, golds)).loss.backward()

    def parse() -> None:
        model.eval()
        dense_parse(model, sentences) if dense else model.parse(sentences)

    return step, parse


def best_seconds(functions: Sequence[Callable[[], None]], repeats: int) -> List[float]:
    """Best wall time of each function over ``repeats`` rounds, the functions alternating within a round."""
    best = [float("inf")] * len(functions)
    for _ in range(repeats):
        for k, function in enumerate(functions):
            start = time.perf_counter()
            function()
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", default="300,500", help="sentence lengths, comma-separated")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--repeats", type=int, default=2, help="timed rounds (dense and packed alternate); the best counts")
    parser.add_argument("--no-timing", action="store_true", help="memory only")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    lengths = [int(x) for x in args.lengths.split(",")]
    device = torch.device(args.device)
    model = make_model(device)
    if max(lengths) > model.max_words:
        raise SystemExit(f"the base model's position table allows {model.max_words} words")
    from benchmarks.parse_speed import prepared_split

    words = [pair for tree in read_split(prepared_split("dev")).trees for pair in sentence_of(tree)]
    n_labels = len(model.labels)
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else \
        f"CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores), {args.threads} threads"
    print(f"base model (recipes/base.yaml sizes, untrained), {n_labels} labels, parameters {params / MIB:.0f} MiB; "
          f"{where}, torch {torch.__version__}")
    print("MiB above the memory held before (weights, their gradients); train peak = forward + decoding + backward; "
          "model = the cost model's estimate")
    header = f"{'words':>5} {'what':<14}{'dense':>9}{'packed':>9}{'ratio':>8}{'model':>8}"
    print(header)
    training = training_memory(model.config, model.span_config, n_labels, "cython")
    parsing = parsing_memory(model.config, model.span_config, n_labels, "cython")
    cases = []
    for length in lengths:
        sentence = long_sentence(words, length)
        gold = random_gold(length, n_labels, random.Random(length))
        cases.append((f"one of {length} words", [sentence], [gold]))
        torch.manual_seed(0)
        dense = measure(model, sentence, gold, dense=True)
        torch.manual_seed(0)
        packed = measure(model, sentence, gold, dense=False)
        estimates = {"graph": None, "train_peak": training.subbatch_bytes([length]),
                     "parse_peak": parsing.subbatch_bytes([length])}
        for key, label in (("graph", "autograd graph"), ("train_peak", "train peak"), ("parse_peak", "parse peak")):
            estimate = estimates[key]
            shown = f"{estimate / MIB:>8.0f}" if estimate is not None else f"{'':>8}"
            print(f"{length:>5} {label:<14}{dense[key] / MIB:>9.0f}{packed[key] / MIB:>9.0f}"
                  f"{dense[key] / max(packed[key], 1.0):>7.1f}x{shown}")
    print("ratio = dense / packed")
    if args.no_timing:
        return
    train = read_split(prepared_split("train")).trees[:32]
    cases.insert(0, (f"32 sentences, {sum(len(t.leaves()) for t in train)} words", [sentence_of(t) for t in train],
                     golds_of(train, model.labels)))
    print(f"seconds, best of {args.repeats}, Cython decoder; ratio = dense / packed")
    print(f"{'case':<26}{'train dense':>12}{'packed':>8}{'ratio':>7}{'parse dense':>13}{'packed':>8}{'ratio':>7}")
    for name, sentences, golds in cases:
        dense_step, dense_parse_all = step_and_parse(model, sentences, golds, dense=True)
        packed_step, packed_parse_all = step_and_parse(model, sentences, golds, dense=False)
        train_dense, train_packed = best_seconds([dense_step, packed_step], args.repeats)
        parse_dense, parse_packed = best_seconds([dense_parse_all, packed_parse_all], args.repeats)
        print(f"{name:<26}{train_dense:>12.2f}{train_packed:>8.2f}{train_dense / train_packed:>6.2f}x"
              f"{parse_dense:>13.2f}{parse_packed:>8.2f}{parse_dense / parse_packed:>6.2f}x")


if __name__ == "__main__":
    main()
