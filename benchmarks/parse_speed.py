"""Parsing speed of the span parser at the paper's size (recipes/base.yaml), untrained weights.

Measures, in the same run and on the same sentences (ptb-sample dev):

* sentences/second with the Cython per-sentence CKY decoder and with the batched torch
  decoder, on CPU (and on the GPU when one is present), and their ratios;
* the share of parsing time spent in the decoder;
* peak memory for one 300-word sentence (GPU: ``max_memory_allocated``; CPU: peak RSS of a
  child process that parses it, minus the peak RSS of a child that only loads the model).

    python3 benchmarks/parse_speed.py [--limit N] [--threads T] [--budget TOKENS] [--repeats R]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Sequence

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mlparse.config import load_recipe  # noqa: E402
from mlparse.data.batching import map_in_batches  # noqa: E402
from mlparse.models.memory import subbatch_cost  # noqa: E402
from mlparse.models.span_parser import SpanParser, build_parser  # noqa: E402
from mlparse.structs import cky, cky_torch  # noqa: E402
from mlparse.tasks.treebank import read_split, sentence_of  # noqa: E402


def prepared_split(split: str) -> Path:
    path = REPO / "data" / "ptb-sample" / "english" / f"{split}.trees"
    if not path.is_file():
        from mlparse.data.prepare import prepare_family

        prepare_family("ptb-sample", languages=["english"], out=REPO / "data")
    return path


def make_model(device: torch.device, seed: int = 0) -> SpanParser:
    torch.manual_seed(seed)
    config = load_recipe(REPO / "recipes" / "base.yaml")
    model = build_parser(config.model, read_split(prepared_split("train")).trees, span=config.span)
    return model.to(device).eval()


def time_parse(model: SpanParser, sentences: Sequence, budget: int, decoder: str) -> Dict[str, float]:
    """Seconds to parse all sentences, and the part of it spent decoding."""
    decode_seconds = [0.0]
    original_batch, original_cky = cky_torch.decode_batch, cky.decode

    def timed(function):  # type: ignore[no-untyped-def]
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            if model.device().type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            out = function(*args, **kwargs)
            decode_seconds[0] += time.perf_counter() - start
            return out
        return wrapper

    cky_torch.decode_batch, cky.decode = timed(original_batch), timed(original_cky)
    cost = subbatch_cost(model.config, model.span_config, len(model.labels), training=False, decoder=decoder)  # as the trainer packs
    try:
        map_in_batches(list(sentences[:4]), [len(s) for s in sentences[:4]], budget, lambda g: model.parse(g, decoder), cost)  # warm-up
        decode_seconds[0] = 0.0
        if model.device().type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        map_in_batches(list(sentences), [len(s) for s in sentences], budget, lambda g: model.parse(g, decoder), cost)
        if model.device().type == "cuda":
            torch.cuda.synchronize()
        total = time.perf_counter() - start
    finally:
        cky_torch.decode_batch, cky.decode = original_batch, original_cky
    return {"seconds": total, "decode_seconds": decode_seconds[0], "sentences_per_second": len(sentences) / total}


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cpu_peak_memory_mib(model: SpanParser) -> Dict[str, float]:
    """Resident memory before parsing one 300-word sentence and its peak during the parse (sampled every ms)."""
    sentence = [("NN", f"word{k % 50}") for k in range(300)]
    gc.collect()
    baseline = _rss_bytes()
    peak = [baseline]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_bytes())
            time.sleep(0.001)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        with torch.no_grad():
            model.parse([sentence], decoder="cython")
    finally:
        done.set()
        thread.join()
    peak[0] = max(peak[0], _rss_bytes())
    return {"before_mib": baseline / 2**20, "peak_mib": peak[0] / 2**20, "parse_mib": (peak[0] - baseline) / 2**20}


def gpu_peak_memory_mib(model: SpanParser) -> float:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    model.parse([[("NN", f"word{k % 50}") for k in range(300)]], decoder="torch")
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - before) / 2**20


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="parse only the first N dev sentences")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--budget", type=int, default=5000, help="token-equivalents per forward pass")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per path (alternating); the best counts")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    dev = read_split(prepared_split("dev")).trees
    sentences = [sentence_of(t) for t in dev][: args.limit]
    print(f"base model (recipes/base.yaml sizes, untrained), ptb-sample dev: {len(sentences)} sentences, "
          f"{sum(map(len, sentences))} words; CPU threads {args.threads}")
    rows = []
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    for device in devices:
        model = make_model(device)
        best: Dict[str, Dict[str, float]] = {}
        with torch.no_grad():
            for _ in range(args.repeats):  # alternate the paths; keep each one's best run
                for decoder in ("cython", "torch"):
                    result = time_parse(model, sentences, args.budget, decoder)
                    if decoder not in best or result["seconds"] < best[decoder]["seconds"]:
                        best[decoder] = result
        rows.extend((device.type, decoder, best[decoder]) for decoder in ("cython", "torch"))
    reference = rows[0][2]["sentences_per_second"]
    print(f"{'device':<8}{'decoder':<9}{'sent/s':>10}{'decode share':>14}{'vs cpu+cython':>15}")
    for device_name, decoder, result in rows:
        share = result["decode_seconds"] / result["seconds"]
        print(f"{device_name:<8}{decoder:<9}{result['sentences_per_second']:>10.1f}{share:>13.1%}"
              f"{result['sentences_per_second'] / reference:>14.2f}x")
    for device_name in sorted({r[0] for r in rows}):
        by = {r[1]: r[2]["sentences_per_second"] for r in rows if r[0] == device_name}
        print(f"{device_name}: batched torch decoder / Cython decoder = {by['torch'] / by['cython']:.2f}x (whole parse)")
    if not args.skip_memory:
        memory = cpu_peak_memory_mib(make_model(torch.device("cpu")))
        print(f"CPU resident memory, one 300-word sentence: peak {memory['peak_mib']:.0f} MiB, "
              f"{memory['parse_mib']:.0f} MiB above the {memory['before_mib']:.0f} MiB before the parse")
        if torch.cuda.is_available():
            model = make_model(torch.device("cuda"))
            with torch.no_grad():
                print(f"GPU peak allocation for one 300-word sentence: {gpu_peak_memory_mib(model):.0f} MiB")


if __name__ == "__main__":
    main()
