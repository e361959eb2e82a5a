"""Parsing speed of the span parser at the paper's size on a CPU, beside benepar 0.2.0's ChartParser.

The base model (recipes/base.yaml: 8 layers x 1024, 8 heads, CharLSTM; untrained, seed 0) parses the
ptb-sample dev sentences (their words and gold tags) the way ``mlparse parse`` does (``parse_input``:
sub-batches under the token budget, the Cython CKY, trees written out), in a worker process of its
own.  benepar 0.2.0's ``ChartParser`` of the same sizes, also untrained, parses the same sentences in
another worker started from benepar's virtual environment (``--benepar-python``, kept outside the
repository: benchmarks/benepar_worker.py), with ``subbatch_max_tokens`` = ``--benepar-budget``.  Both
workers get the same threads (``--threads``, also ``OMP_NUM_THREADS``) and the same ``OMP_WAIT_POLICY``
(``--wait-policy``; PASSIVE, as ``mlparse`` sets it: idle OpenMP threads sleep), load their model once,
warm up, and then parse the whole set in turns, ``--rounds`` times (the order rotates each round).
Printed: each system's sentences/s (median over the rounds, wall clock; CPU seconds beside), and the
median over the rounds of benepar's time / mlparse's time (the target: at least 3.0x).

``--quantize`` adds mlparse with its linear layers quantized to int8 (``mlparse parse --quantize``) to the
same rounds, and prints the dev F1 (evalb, COLLINS.prm) of the float and the int8 trees, their difference,
and the F1 of the int8 trees against the float trees.  With untrained weights F1 is near zero, so the
difference says little: ``--f1-model RUN_OR_PACKAGE`` also parses the dev set with a trained model,
float and int8.  The mlparse worker also checks its trees against the reference computation (the encoder
on the padded batch, the CharLSTM over every occurrence of a word).

``--baseline REPO`` adds, to the same rounds, the float model parsed by the mlparse of another checkout
(e.g. ``git worktree add /tmp/before COMMIT``, its Cython modules built), so that a change is measured
beside benepar and beside the code before it in one run.

``--details`` then times, in this process, the Cython and the batched torch decoders on the CPU (and the
GPU when there is one) and the resident memory of one 300-word sentence, as before.

    python3 benchmarks/parse_speed.py --benepar-python /path/to/benepar-venv/bin/python [--threads 2]
        [--rounds 5] [--quantize] [--f1-model RUN] [--baseline REPO] [--limit N] [--budget 5000]
        [--benepar-budget 5000] [--wait-policy PASSIVE|ACTIVE|unset] [--details]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.instrumentation.side_by_side import (System, print_table, python_usable, serve, start,  # noqa: E402
                                                      timed, timed_rounds, worker_environment)

BENEPAR = "benepar 0.2.0 ChartParser"

#: The model sizes both parsers are built with, read from the recipe (benepar's names).
SIZE_KEYS = ("d_model", "num_layers", "num_heads", "d_kv", "d_ff", "d_char_emb", "max_len")


# -- data ------------------------------------------------------------------------------------------

def prepared_split(split: str) -> Path:
    path = REPO / "data" / "ptb-sample" / "english" / f"{split}.trees"
    if not path.is_file():
        from mlparse.data.prepare import prepare_family

        prepare_family("ptb-sample", languages=["english"], out=REPO / "data")
    return path


def model_sizes() -> Dict[str, int]:
    """The base recipe's sizes, under benepar's hyperparameter names."""
    from mlparse.config import load_recipe

    config = load_recipe(REPO / "recipes" / "base.yaml")
    sizes = {key: int(getattr(config.model, key)) for key in SIZE_KEYS}
    sizes["d_label_hidden"] = int(config.span.d_label_hidden)
    return sizes


def make_model(device, seed: int = 0):  # type: ignore[no-untyped-def]
    """The base model, untrained (``seed``), built from the ptb-sample training trees."""
    import torch

    from mlparse.config import load_recipe
    from mlparse.models.span_parser import build_parser
    from mlparse.tasks.treebank import read_split

    torch.manual_seed(seed)
    config = load_recipe(REPO / "recipes" / "base.yaml")
    model = build_parser(config.model, read_split(prepared_split("train")).trees, span=config.span)
    return model.to(device).eval()


# -- the mlparse worker ----------------------------------------------------------------------------

class MlparseWorker:
    """Parses the dev sentences as ``mlparse parse`` does, float and (``quantize``) int8."""

    def __init__(self, threads: int, budget: int, limit: Optional[int], quantize: bool, f1_model: Optional[str]) -> None:
        import torch

        from mlparse.models.inference import InputSentence
        from mlparse.tasks.treebank import read_split, sentence_of

        torch.set_num_threads(threads)
        self.budget = budget
        self.gold = read_split(prepared_split("dev")).trees[:limit]
        self.inputs = [InputSentence(k + 1, sentence_of(tree)) for k, tree in enumerate(self.gold)]
        self.f1_model = f1_model
        self.models = {"float": make_model(torch.device("cpu"))}
        if quantize:
            from mlparse.modules.quantize import quantize_linear_layers

            self.models["int8"] = quantize_linear_layers(make_model(torch.device("cpu")))
        self.trees: Dict[str, List[str]] = {}
        for name in self.models:  # warm-up
            self.parse(name, self.inputs[:8])

    def parse(self, name: str, inputs: Optional[list] = None) -> List[str]:
        from mlparse.models.inference import parse_input

        trees = parse_input(self.models[name], self.inputs if inputs is None else inputs, budget=self.budget)
        return [tree.to_bracketed() for tree in trees]

    def timed(self, name: str) -> dict:
        return timed(lambda: self.trees.__setitem__(name, self.parse(name)))

    def reference_check(self) -> dict:
        """The float model's trees against the reference computation's (padded encoder, every occurrence)."""
        from mlparse.modules.char_lstm import CharLSTM

        model = self.models["float"]
        fast = self.parse("float")
        model.encoder.pack_positions = False
        for module in model.modules():
            if isinstance(module, CharLSTM):
                module.share_words = False
        try:
            reference = self.parse("float")
        finally:
            model.encoder.pack_positions = True
            for module in model.modules():
                if isinstance(module, CharLSTM):
                    module.share_words = True
        return {"same": sum(a == b for a, b in zip(fast, reference)), "of": len(fast)}

    def scores(self) -> dict:
        """Dev F1 of the float and int8 trees, and of the int8 trees against the float ones; with ``f1_model``
        the same for that trained model."""
        out: dict = {"untrained": self._f1s(self.parse("float"), self.parse("int8") if "int8" in self.models else None)}
        if self.f1_model:
            import mlparse

            exact = mlparse.load(self.f1_model, device="cpu")
            rounded = mlparse.load(self.f1_model, quantize=True)
            trees = [[tree.to_bracketed() for tree in parser.parse_sents(
                [[(leaf.word, leaf.tag) for leaf in gold.leaves()] for gold in self.gold], output="tree")]
                for parser in (exact, rounded)]
            out["trained"] = self._f1s(trees[0], trees[1])
        return out

    def _f1s(self, exact: List[str], rounded: Optional[List[str]]) -> dict:
        from evalb import score_trees

        gold = [tree.to_bracketed() for tree in self.gold]
        out = {"float": score_trees(gold, exact, "COLLINS").all.fmeasure}
        if rounded is not None:
            out["int8"] = score_trees(gold, rounded, "COLLINS").all.fmeasure
            out["int8_vs_float"] = score_trees(exact, rounded, "COLLINS").all.fmeasure
            out["identical"] = sum(a == b for a, b in zip(exact, rounded))
        return out


def serve_worker(worker: MlparseWorker) -> None:
    """Answer the parent's commands (benchmarks/instrumentation/side_by_side.py): ``parse float|int8``,
    ``check``, ``scores``."""
    import torch

    import mlparse

    serve({"torch": torch.__version__, "threads": torch.get_num_threads(),
           "mlparse": str(Path(mlparse.__file__).resolve().parents[1]),
           "parameters": sum(p.numel() for p in worker.models["float"].parameters()),
           "sentences": len(worker.inputs), "words": sum(len(i.sentence) for i in worker.inputs)},
          {"parse": lambda words: worker.timed(words[0]), "check": lambda words: worker.reference_check(),
           "scores": lambda words: worker.scores()})


# -- the parent ------------------------------------------------------------------------------------

def compare(args: argparse.Namespace, tmp: Path) -> None:
    env = worker_environment(args.threads, args.wait_policy)
    dev, train = prepared_split("dev"), prepared_split("train")
    own = [sys.executable, str(Path(__file__).resolve()), "--worker", "--threads", str(args.threads),
           "--budget", str(args.budget)] + (["--limit", str(args.limit)] if args.limit else [])
    workers = {"mlparse": start("mlparse", own + (["--quantize"] if args.quantize else []) + (
        ["--f1-model", args.f1_model] if args.f1_model else []), env, REPO)}
    systems = [System("mlparse (default)", workers["mlparse"], "parse float")]
    if args.quantize:
        systems.append(System("mlparse --quantize (int8)", workers["mlparse"], "parse int8"))
    try:
        if args.baseline:
            workers["baseline"] = start("baseline", own + ["--repo", args.baseline], env, REPO)
            systems.insert(0, System("mlparse of --baseline", workers["baseline"], "parse float"))
        why_not = python_usable(args.benepar_python, "benepar, torch_struct, nltk") if args.benepar_python else \
            "no --benepar-python given"
        if why_not is None:
            sentences_file = dev
            if args.limit:
                sentences_file = tmp / "dev.trees"
                sentences_file.write_text("".join(dev.read_text(encoding="utf-8").splitlines(True)[: args.limit]),
                                          encoding="utf-8")
            workers["benepar"] = start("benepar", [
                args.benepar_python, str(REPO / "benchmarks" / "benepar_worker.py"), "--train", str(train),
                "--sentences", str(sentences_file), "--sizes", json.dumps(model_sizes()), "--threads", str(args.threads),
                "--budget", str(args.benepar_budget)], env, REPO)
            systems.insert(0, System(BENEPAR, workers["benepar"]))
        hello = workers["mlparse"].hello
        sizes = model_sizes()
        print(f"ptb-sample dev: {hello['sentences']} sentences, {hello['words']} words; base model (recipes/base.yaml: "
              f"{sizes['num_layers']} layers x {sizes['d_model']}, CharLSTM), untrained; {args.threads} threads each, "
              f"OMP_WAIT_POLICY={env.get('OMP_WAIT_POLICY', 'unset')}; torch {hello['torch']}")
        print(f"mlparse ({hello['mlparse']}): {hello['parameters']:,} parameters, budget {args.budget} "
              "token-equivalents (as mlparse parse)")
        if "baseline" in workers:
            print(f"--baseline: mlparse imported from {workers['baseline'].hello['mlparse']}")
        if "benepar" in workers:
            b = workers["benepar"].hello
            print(f"benepar {b['version']} ChartParser: {b['parameters']:,} parameters, subbatch_max_tokens "
                  f"{args.benepar_budget}; torch {b['torch']} ({args.benepar_python})")
        else:
            print(f"benepar: not run ({why_not})")
        timings = timed_rounds(systems, args.rounds)
        check = workers["mlparse"].ask("check")
        scores = workers["mlparse"].ask("scores") if args.quantize else None
    finally:
        for worker in workers.values():
            worker.close()
    print()
    print_table(hello["sentences"], timings, BENEPAR if "benepar" in workers else None)
    report(args, hello["sentences"], check, scores)


def report(args: argparse.Namespace, count: int, check: dict, scores: Optional[dict]) -> None:
    print(f"\nmlparse's trees = the reference computation's (padded encoder, CharLSTM over every occurrence): "
          f"{check['same']} of {check['of']}")
    if scores:
        for which, s in scores.items():
            what = "untrained weights (F1 near zero: says little)" if which == "untrained" else f"trained model {args.f1_model}"
            print(f"dev F1, {what}: float {s['float']:.2f}, int8 {s['int8']:.2f}, difference {s['int8'] - s['float']:+.2f}; "
                  f"int8 trees scored against the float trees: F1 {s['int8_vs_float']:.2f}, {s['identical']} of {count} identical")


# -- details: decoders and memory, in this process (as before) ----------------------------------------

def time_parse(model, sentences: Sequence, budget: int, decoder: str) -> Dict[str, float]:  # type: ignore[no-untyped-def]
    """Seconds to parse all sentences, and the part of it spent decoding."""
    import torch

    from mlparse.data.batching import map_in_batches
    from mlparse.models.memory import subbatch_cost
    from mlparse.structs import cky, cky_torch

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
    cost = subbatch_cost(model.config, model.span_config, len(model.labels), training=False, decoder=decoder)
    try:
        map_in_batches(list(sentences[:4]), [len(s) for s in sentences[:4]], budget, lambda g: model.parse(g, decoder), cost)
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


def cpu_peak_memory_mib(model) -> Dict[str, float]:  # type: ignore[no-untyped-def]
    """Resident memory before parsing one 300-word sentence and its peak during the parse (sampled every ms)."""
    import gc
    import threading

    import torch

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


def gpu_peak_memory_mib(model) -> float:  # type: ignore[no-untyped-def]
    import torch

    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    model.parse([[("NN", f"word{k % 50}") for k in range(300)]], decoder="torch")
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - before) / 2**20


def details(args: argparse.Namespace) -> None:
    import torch

    from mlparse.tasks.treebank import read_split, sentence_of

    torch.set_num_threads(args.threads)
    sentences = [sentence_of(t) for t in read_split(prepared_split("dev")).trees][: args.limit]
    rows = []
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    for device in devices:
        model = make_model(device)
        best: Dict[str, Dict[str, float]] = {}
        with torch.no_grad():
            for _ in range(2):  # alternate the decoders; keep each one's best run
                for decoder in ("cython", "torch"):
                    result = time_parse(model, sentences, args.budget, decoder)
                    if decoder not in best or result["seconds"] < best[decoder]["seconds"]:
                        best[decoder] = result
        rows.extend((device.type, decoder, best[decoder]) for decoder in ("cython", "torch"))
    reference = rows[0][2]["sentences_per_second"]
    print(f"\n{'device':<8}{'decoder':<9}{'sent/s':>10}{'decode share':>14}{'vs cpu+cython':>15}")
    for device_name, decoder, result in rows:
        share = result["decode_seconds"] / result["seconds"]
        print(f"{device_name:<8}{decoder:<9}{result['sentences_per_second']:>10.1f}{share:>13.1%}"
              f"{result['sentences_per_second'] / reference:>14.2f}x")
    memory = cpu_peak_memory_mib(make_model(torch.device("cpu")))
    print(f"CPU resident memory, one 300-word sentence: peak {memory['peak_mib']:.0f} MiB, "
          f"{memory['parse_mib']:.0f} MiB above the {memory['before_mib']:.0f} MiB before the parse")
    if torch.cuda.is_available():
        with torch.no_grad():
            print(f"GPU peak allocation for one 300-word sentence: {gpu_peak_memory_mib(make_model(torch.device('cuda'))):.0f} MiB")


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benepar-python", help="the Python of a virtual environment with benepar 0.2.0 installed")
    parser.add_argument("--threads", type=int, default=2, help="torch threads of each parser (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="timed parses of the whole set per system, in turns")
    parser.add_argument("--limit", type=int, default=None, help="parse only the first N dev sentences")
    parser.add_argument("--budget", type=int, default=5000, help="mlparse's token-equivalents per forward pass")
    parser.add_argument("--benepar-budget", type=int, default=5000, help="benepar's subbatch_max_tokens")
    parser.add_argument("--quantize", action="store_true", help="also time mlparse --quantize and print the F1 difference")
    parser.add_argument("--f1-model", help="a trained run or package: its dev F1 float and int8 (with --quantize)")
    parser.add_argument("--wait-policy", default="PASSIVE", choices=["PASSIVE", "ACTIVE", "unset"],
                        help="OMP_WAIT_POLICY of both workers (default PASSIVE, as mlparse's CLI sets it)")
    parser.add_argument("--details", action="store_true", help="then the decoders and the memory of one long sentence")
    parser.add_argument("--baseline", help="another checkout of mlparse whose float model joins the rounds")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--repo", help=argparse.SUPPRESS)  # a worker importing mlparse from this checkout
    args = parser.parse_args(argv)
    if args.worker:
        if args.repo:
            sys.path.insert(0, str(Path(args.repo).resolve()))
        serve_worker(MlparseWorker(args.threads, args.budget, args.limit, args.quantize, args.f1_model))
        return
    os.environ.pop("OMP_WAIT_POLICY", None)
    os.environ.update(worker_environment(args.threads, args.wait_policy))  # before this process imports torch
    with tempfile.TemporaryDirectory() as tmp:
        compare(args, Path(tmp))
    if args.details:
        details(args)


if __name__ == "__main__":
    main()
