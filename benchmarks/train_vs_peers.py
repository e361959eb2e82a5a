"""Training speed of mlparse beside its peers on a CPU: the same data, batch sizes and threads, each system in a
fresh worker process of its own (each peer from its own virtual environment), the systems of a pair taking
turns round after round (issue 46, item 1).

Pairs (``--pairs``):

a. the BiLSTM biaffine parser (``ud/english-ewt-bilstm``, ``data.tags=gold``: words + gold UPOS, BiLSTM 3 x 400,
   arc MLP 500, relation MLP 100, 300-sentence updates, sub-batches of 5,000 tokens) beside SuPar 1.1.4's
   ``biaffine-dep`` of the same sizes (``benchmarks/supar_train_worker.py``: the gold tag column as its
   ``tag`` feature, no pretrained embeddings, 5,000-token batches in 32 length buckets) on EWT's prepared
   train.conllu;
b. the self-attentive biaffine parser (``ud/english-ewt``, ``data.tags=gold``): mlparse alone (SuPar 1.1.4
   has no transformer encoder for biaffine-dep but BERT), with a per-update profile (torch.profiler's top
   operators by self CPU time, over ``--profile-updates`` updates after the timed ones);
c. the span parser at the base sizes (``base`` on ptb-sample: 8 x 1024 partitioned layers, CharLSTM,
   250-sentence updates, the CPU's 2,000 token-equivalents a sub-batch) beside benepar 0.2.0's ChartParser
   of the same sizes (``benchmarks/benepar_train_worker.py``: its ``compute_loss`` per
   ``encode_and_collate_subbatches`` sub-batch of ``subbatch_max_tokens`` 2,000, Adam, the clipping of its
   ``main.py``) on the WSJ sample;
d. (``--compiled``) ``demo`` eager beside ``demo`` with ``train.step=graph`` and ``train.compile=encoder``;
   the compiled worker is bounded by ``--compile-timeout``.

mlparse runs twice in each pair. In b and c: ``train.subbatching=fill`` (the fewest sub-batches: the code before
issue 46) and the default (``auto``: least_work on a CPU). In a: the BiLSTM as it trained before its packed CPU
kernel (oneDNN's padded layer in ``least_work`` sub-batches, the heads on padded positions; denormals flushed
as in every run now), the packed kernel in float32 (the heads on the words, ``fill``) and, on a CPU with AMX
(bf16 matrix units), ``train.cpu_bf16=true`` (the packed kernel's products in bfloat16; its share is also given of the
bfloat16 matmul rate, measured beside the float32 one).

Each worker trains from scratch and times its updates from the first one on (data, vocabularies and model
build left out; mlparse's dev checks left out: the interval holding one is not an update's) until
``--seconds`` of updates; in pair d the first update (where compilation happens) is reported alone and the
rates are over the updates after it, for both systems.  Figures per system, medians over ``--rounds``
rounds (round r starts with the r-th system of the pair, the others following in turn): training
sentences/s and words/s (over the timed updates: their sentences and words over their summed time),
median seconds per update, the first update's seconds, the share of the training set's words the timed
updates covered, words/s over the peer's (round by round, then the median), and **useful GFLOP/s**:
words/s x the architecture's training FLOPs per real word, counted from the sizes
(``benchmarks/useful_flops.py``), and that as a share of this machine's dense matrix-multiply rate at the
model's shapes, measured in the same run on the same threads: the one figure that compares across machines.

    python3 benchmarks/train_vs_peers.py [--pairs a,b,c] [--seconds 60] [--rounds 2] [--threads 2]
        [--supar-python /tmp/supar-venv/bin/python] [--benepar-python /tmp/benepar-venv/bin/python]
        [--data-root DIR] [--compiled] [--profile-updates 3] [--wait-policy unset]

The workers are ``benchmarks/train_worker.py`` (mlparse), ``supar_train_worker.py`` and ``benepar_train_worker.py``;
the tables are printed by ``benchmarks/train_report.py``. A pair whose peer is not given (or does not import) runs
mlparse alone, with a message.  Meaningful only
on a machine with nothing else running: the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
for _path in (str(BENCH), str(REPO)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from train_worker import mlparse_worker  # noqa: E402
from train_report import figures_of, print_pair  # noqa: E402
from useful_flops import (bilstm_biaffine_flops_per_word, matmul_rate, span_parser_flops_per_word,  # noqa: E402
                          transformer_biaffine_flops_per_word)

EWT = "UD_English-EWT"
#: Settings of every mlparse worker besides its pair's: no early stop, no time limit, on the CPU.
MLPARSE_SETS = ("train.device=cpu", "train.max_epochs=1000", "train.patience_epochs=1000", "train.max_minutes=null")
# -- figures ----------------------------------------------------------------------------------------

def rotated(items: Sequence, index: int) -> List:
    """``items`` starting at ``items[index % len]``, the others following in turn."""
    shift = index % len(items) if items else 0
    return list(items[shift:]) + list(items[:shift])


def conllu_words(path: Path) -> Tuple[int, int]:
    """(sentences, syntactic words) of a CoNLL-U file: word lines have an integer ID (no ranges, no empty nodes)."""
    sentences = words = 0
    in_sentence = False
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            first = line.split("\t", 1)[0]
            if first.isdigit():
                words += 1
                in_sentence = True
            elif not line.strip():
                sentences += in_sentence
                in_sentence = False
    return sentences + in_sentence, words


def tree_words(path: Path) -> Tuple[int, int, int]:
    """(sentences, words, characters of the words) of a one-tree-per-line file, read by mlparse's reader."""
    from mlparse.tasks.treebank import read_split

    trees = read_split(path).trees
    words = [leaf.word for tree in trees for leaf in tree.leaves()]
    return len(trees), len(words), sum(len(word) for word in words)


# -- systems and pairs ------------------------------------------------------------------------------

@dataclass(frozen=True)
class System:
    """A timed system: its label, the kind of worker (mlparse, supar, benepar) and mlparse's recipe and settings."""

    label: str
    kind: str
    recipe: str = ""
    sets: Tuple[str, ...] = ()
    timeout: Optional[float] = None  # None: the default
    options: Tuple[str, ...] = ()  # a peer worker's own options
    lstm_kernel: Optional[str] = None  # mlparse: the CPU kernel of its LSTMs (None: its default; "padded": before 14fb8df)


@dataclass
class Pair:
    """A comparison: its systems, the peer's label (None: mlparse alone) and how to count its useful FLOPs."""

    key: str
    title: str
    systems: List[System]
    peer: Optional[str]
    flops: Callable[[dict], float]  # training FLOPs per word, from the data's statistics and the model's classes
    shape: Tuple[int, int, int]  # the matmul shape of the rate
    shape_note: str
    skip_first: bool = False
    profile: int = 0
    notes: List[str] = field(default_factory=list)


def mlparse_pair_systems(recipe: str, sets: Sequence[str]) -> List[System]:
    """mlparse with ``train.subbatching=fill`` and with its default, on ``recipe`` and ``sets``."""
    return [System("mlparse fill", "mlparse", recipe, tuple(sets) + ("train.subbatching=fill",)),
            System("mlparse default", "mlparse", recipe, tuple(sets))]


#: The label of the system that trains with bfloat16 products (``train.cpu_bf16``), where the CPU has AMX.
BF16_LABEL = "mlparse train.cpu_bf16 (bf16 products)"


def bilstm_systems(recipe: str, sets: Sequence[str], bf16: bool) -> List[System]:
    """mlparse as it trained a BiLSTM before its packed CPU kernel (oneDNN's padded layer in ``least_work``
    sub-batches, the heads on padded positions: commits before b4f67a2), with the packed kernel in float32 and,
    when ``bf16`` (a CPU with AMX), with ``train.cpu_bf16`` (the packed kernel's products in bfloat16: the
    recipe's default there). Each names ``train.cpu_bf16``, which the recipe sets."""
    systems = [System("mlparse padded layer, least_work (before b4f67a2)", "mlparse", recipe,
                      tuple(sets) + ("train.subbatching=least_work", "train.cpu_bf16=false"), lstm_kernel="padded"),
               System("mlparse packed kernel, float32", "mlparse", recipe, tuple(sets) + ("train.cpu_bf16=false",))]
    if bf16:
        systems.append(System(BF16_LABEL, "mlparse", recipe, tuple(sets) + ("train.cpu_bf16=true",)))
    return systems


def bilstm_pair(args: argparse.Namespace, peer: bool) -> Pair:
    """Pair a: mlparse's BiLSTM biaffine parser (before the packed kernel, default) and SuPar's biaffine-dep."""
    from mlparse.config import load_recipe

    config = load_recipe("ud/english-ewt-bilstm", ["data.tags=gold"])
    b = config.biaffine
    from mlparse.train.cpu_bf16 import cpu_has_amx

    systems = bilstm_systems("ud/english-ewt-bilstm", ["data.tags=gold"], cpu_has_amx())
    if peer:
        systems.append(System("SuPar 1.1.4 biaffine-dep", "supar"))

    def flops(stats: dict) -> float:
        return bilstm_biaffine_flops_per_word(b.d_word_emb + b.d_tag_emb, b.lstm_hidden, b.lstm_layers, b.d_arc,
                                              b.d_relation, stats["classes"], stats["mean_length"])

    shape = (config.train.batch_size, 3 * b.lstm_hidden, 4 * b.lstm_hidden)
    notes = ["SuPar: 5,000-token batches of one length bucket each, in an order drawn from the epoch number (the "
             "same in every run); a bucket of long sentences costs it far more a word (relation scores for every "
             "pair of words), so its figures hold for the part of its epoch covered (epoch share)"] if peer else []
    return Pair("a", f"BiLSTM biaffine parser ({b.lstm_layers} x {b.lstm_hidden}, arc {b.d_arc}, rel {b.d_relation}), "
                f"UD English-EWT train, gold UPOS", systems, "SuPar 1.1.4 biaffine-dep" if peer else None, flops,
                shape, "[sentences of a batch x (2 x hidden + hidden)] @ [.. x 4 x hidden]: "
                "an upper BiLSTM layer's gates", notes=notes)


def transformer_pair(args: argparse.Namespace) -> Pair:
    """Pair b: mlparse's self-attentive biaffine parser (fill, default), with a per-update profile."""
    from mlparse.config import load_recipe

    config = load_recipe("ud/english-ewt", ["data.tags=gold"])
    m, b = config.model, config.biaffine

    def flops(stats: dict) -> float:
        return transformer_biaffine_flops_per_word(b.d_word_emb + b.d_tag_emb, m.d_model, m.num_layers, m.num_heads,
                                                   m.d_kv, m.d_ff, b.d_arc, b.d_relation, stats["classes"],
                                                   stats["mean_length"])

    return Pair("b", f"self-attentive biaffine parser ({m.num_layers} x {m.d_model}, {m.num_heads} heads, "
                f"d_ff {m.d_ff}), "
                f"UD English-EWT train, gold UPOS", mlparse_pair_systems("ud/english-ewt", ["data.tags=gold"]), None,
                flops, (int(config.train.subbatch_tokens), m.d_model, m.d_ff),
                "[sub-batch tokens x d_model] @ [d_model x d_ff]: the feed-forward's first product",
                profile=args.profile_updates,
                notes=["SuPar 1.1.4's biaffine-dep has no transformer encoder but BERT: mlparse alone"])


def span_pair(args: argparse.Namespace, peer: bool) -> Pair:
    """Pair c: mlparse's span parser at the base sizes on ptb-sample (fill, default) and benepar's ChartParser."""
    from mlparse.config import load_recipe

    sets = ["data.family=ptb-sample"]
    config = load_recipe("base", sets)
    systems = mlparse_pair_systems("base", sets)
    if peer:
        t = config.train
        options = ("--batch-size", str(t.batch_size), "--budget", str(args.benepar_budget), "--lr", str(t.lr),
                   "--clip", str(t.clip_grad_norm or 0))
        systems.append(System("benepar 0.2.0 ChartParser", "benepar", options=options))
    return Pair("c", f"span parser, base sizes ({config.model.num_layers} x {config.model.d_model}, CharLSTM), "
                f"{config.train.batch_size}-sentence updates, WSJ sample (ptb-sample) train", systems,
                "benepar 0.2.0 ChartParser" if peer else None, span_flops(config),
                span_shape(config, args.benepar_budget),
                "[sub-batch tokens x d_model/2] @ [d_model/2 x d_ff/2]: a partitioned feed-forward half")


def compiled_pair(args: argparse.Namespace) -> Pair:
    """Pair d: ``demo`` eager and with the whole step as one graph and the encoder compiled."""
    from mlparse.config import load_recipe

    config = load_recipe("demo", [])
    systems = [System("mlparse demo eager", "mlparse", "demo", ()),
               System("mlparse demo graph + compile", "mlparse", "demo", ("train.step=graph", "train.compile=encoder"),
                      timeout=args.compile_timeout)]
    return Pair("d", f"demo span parser ({config.model.num_layers} x {config.model.d_model}), eager vs compiled, "
                f"ptb-sample train", systems, None, span_flops(config),
                span_shape(config, int(config.train.subbatch_tokens)),
                "[sub-batch tokens x d_model/2] @ [d_model/2 x d_ff/2]", skip_first=True,
                notes=["rates over the updates after the first; the first update (compilation) in its own column"])


def span_flops(config) -> Callable[[dict], float]:  # type: ignore[no-untyped-def]
    """Training FLOPs per word of a span recipe's sizes (word and tag embeddings cost no products)."""
    m = config.model

    def flops(stats: dict) -> float:
        return span_parser_flops_per_word(m.d_model, m.num_layers, m.num_heads, m.d_kv, m.d_ff, m.d_char_emb,
                                          stats["chars_per_word"], config.span.d_label_hidden, stats["classes"],
                                          stats["mean_length"], factored=m.factored)
    return flops


def span_shape(config, tokens: int) -> Tuple[int, int, int]:  # type: ignore[no-untyped-def]
    m = config.model
    return (tokens, m.d_model // 2, m.d_ff // 2) if m.factored else (tokens, m.d_model, m.d_ff)


# -- running workers --------------------------------------------------------------------------------

def worker_command(system: System, pair: Pair, args: argparse.Namespace, files: dict) -> List[str]:
    """The command line of ``system``'s worker."""
    threads, seconds = str(args.threads), str(args.seconds)
    if system.kind == "supar":
        return [args.supar_python, str(BENCH / "supar_train_worker.py"), "--train", str(files["ewt"] / "train.conllu"),
                "--dev", str(files["ewt"] / "dev.conllu"), "--test", str(files["ewt"] / "test.conllu"),
                "--conf", str(files["supar_conf"]), "--threads", threads, "--seconds", seconds]
    if system.kind == "benepar":
        from parse_speed import model_sizes

        return [args.benepar_python, str(BENCH / "benepar_train_worker.py"),
                "--train", str(files["ptb"] / "train.trees"),
                "--sizes", json.dumps(model_sizes()), "--threads", threads, "--seconds", seconds, *system.options]
    sets = [f"data.root={args.data_root}", f"train.num_threads={args.threads}", *MLPARSE_SETS, *system.sets]
    spec = {"recipe": system.recipe, "sets": sets, "threads": args.threads, "seconds": args.seconds,
            "profile": pair.profile, "skip_first": pair.skip_first, "lstm_kernel": system.lstm_kernel}
    return [sys.executable, str(BENCH / "train_worker.py"), json.dumps(spec)]


def run_worker(system: System, pair: Pair, args: argparse.Namespace, files: dict) -> Optional[dict]:
    """Run one worker to its end; its JSON answer, or None (with a message) when it failed.  A worker past its
    time limit is killed with everything it started (its own process group); the updates it had printed by
    then make a partial answer (``"partial": true``)."""
    from benchmarks.instrumentation.side_by_side import worker_environment

    env = worker_environment(args.threads, args.wait_policy)
    if system.kind != "mlparse":
        env.pop("PYTHONPATH", None)  # a peer sees nothing of mlparse
    timeout = system.timeout or args.worker_timeout
    process = subprocess.Popen(worker_command(system, pair, args, files), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate()
        partial = partial_answer(stdout)
        done = f"{len(partial['times'])} updates timed before" if partial["times"] else "no update timed"
        print(f"  {system.label}: stopped after {timeout:.0f} s, the worker's time limit ({done})", flush=True)
        return partial
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines or "times" not in json.loads(lines[-1]):
        tail = "\n    ".join(stderr.strip().splitlines()[-8:])
        print(f"  {system.label}: the worker failed (exit status {process.returncode}):\n    {tail}", flush=True)
        return None
    return json.loads(lines[-1])


def partial_answer(stdout: str) -> dict:
    """A stopped mlparse worker's answer from the update lines it printed (``"partial": true``; no times when
    it printed none)."""
    updates, to_first = [], None
    for line in stdout.splitlines():
        if line.startswith('{"update"'):
            entry = json.loads(line)
            updates.append(entry["update"])
            to_first = entry["to_first"] if to_first is None else to_first
    times = [u[0] for u in updates]
    return {"times": times, "sentences": [u[1] for u in updates], "words": [u[2] for u in updates],
            "first": times[0] if times else None, "to_first": to_first, "partial": True}


def run_pair(pair: Pair, args: argparse.Namespace, files: dict) -> Dict[str, List[Optional[dict]]]:
    """Every system of ``pair`` once per round, round r starting with its r-th system."""
    results: Dict[str, List[Optional[dict]]] = {system.label: [] for system in pair.systems}
    for index in range(args.rounds):
        for system in rotated(pair.systems, index):
            started = time.perf_counter()
            result = run_worker(system, pair, args, files)
            results[system.label].append(result)
            figures = figures_of(result, pair.skip_first) if result else None
            said = f"{figures.words_per_second:.0f} words/s over {figures.updates} updates" if figures else "no figures"
            print(f"  round {index + 1}, {system.label}: {said} ({time.perf_counter() - started:.0f} s in all)",
                  flush=True)
    return results


# -- main -------------------------------------------------------------------------------------------

def peer_usable(python: Optional[str], module: str, name: str) -> bool:
    """Whether ``python`` imports ``module``; says why not when it does not."""
    from benchmarks.instrumentation.side_by_side import python_usable

    if not python:
        print(f"{name}: no --{module}-python given: its pair runs mlparse alone", flush=True)
        return False
    why = python_usable(python, module)
    if why is not None:
        print(f"{name}: {python} cannot import {module} ({why}): its pair runs mlparse alone", flush=True)
    return why is None


def data_files(args: argparse.Namespace, scratch: Path) -> dict:
    """The prepared data, SuPar's INI file, and the training sets' statistics."""
    from dep_vs_supar import SUPAR_CONFIG

    root = Path(args.data_root)
    ewt, ptb = root / "ud" / EWT, root / "ptb-sample" / "english"
    files = {"ewt": ewt, "ptb": ptb, "threads": args.threads, "supar_conf": scratch / "biaffine-dep.ini"}
    files["supar_conf"].write_text(SUPAR_CONFIG)
    if (ewt / "train.conllu").is_file():
        sentences, words = conllu_words(ewt / "train.conllu")
        files["stats_ewt"] = {"mean_length": words / sentences, "words": words}
    if (ptb / "train.trees").is_file():
        sentences, words, chars = tree_words(ptb / "train.trees")
        files["stats_ptb"] = {"mean_length": words / sentences, "words": words, "chars_per_word": chars / words}
    return files


def pairs_of(args: argparse.Namespace) -> List[Pair]:
    """The pairs asked for, with their peers where usable."""
    keys = [key.strip() for key in args.pairs.split(",") if key.strip()]
    if args.compiled and "d" not in keys:
        keys.append("d")
    unknown = [key for key in keys if key not in "abcd" or len(key) != 1]
    if unknown:
        raise SystemExit(f"--pairs: unknown pair(s) {', '.join(unknown)}; choose among a, b, c, d")
    pairs = []
    for key in keys:
        if key == "a":
            pairs.append(bilstm_pair(args, peer_usable(args.supar_python, "supar", "SuPar")))
        elif key == "b":
            pairs.append(transformer_pair(args))
        elif key == "c":
            pairs.append(span_pair(args, peer_usable(args.benepar_python, "benepar", "benepar")))
        else:
            pairs.append(compiled_pair(args))
    return pairs


def check_data(pairs: Sequence[Pair], files: dict) -> None:
    """Refuse, with the command that prepares it, when a pair's data is missing."""
    if any(p.key in ("a", "b") for p in pairs) and "stats_ewt" not in files:
        raise SystemExit(f"no {files['ewt']}/train.conllu: mlparse prepare ud --language {EWT} --out DATA_ROOT")
    if any(p.key in ("c", "d") for p in pairs) and "stats_ptb" not in files:
        raise SystemExit(f"no {files['ptb']}/train.trees: mlparse prepare ptb-sample --out DATA_ROOT")


def header(args: argparse.Namespace) -> str:
    from timing import load_average, machine

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    return (f"train_vs_peers {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, commit {commit}: {machine()}; "
            f"{args.threads} threads, OMP_WAIT_POLICY {args.wait_policy}; {load_average()}\n"
            f"command: python3 benchmarks/train_vs_peers.py {shlex.join(sys.argv[1:])}")


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", default="a,b,c", help="comma-separated: a, b, c, d")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of timed updates per worker")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--supar-python", default=None, help="python of a virtual environment where supar imports")
    parser.add_argument("--benepar-python", default=None, help="python of a virtual environment where benepar imports")
    parser.add_argument("--data-root", default=str(REPO / "data"))
    parser.add_argument("--compiled", action="store_true", help="add pair d (demo eager vs graph + compile)")
    parser.add_argument("--compile-timeout", type=float, default=900.0, help="seconds the compiled worker may take")
    parser.add_argument("--worker-timeout", type=float, default=None,
                        help="seconds any other worker may take (default: 900 + 4 x --seconds)")
    parser.add_argument("--profile-updates", type=int, default=3, help="pair b: updates profiled after the timed ones")
    parser.add_argument("--benepar-budget", type=int, default=None,
                        help="benepar's subbatch_max_tokens (default: mlparse's CPU training budget, 2000)")
    parser.add_argument("--wait-policy", default="unset", help="OMP_WAIT_POLICY of every worker (unset, the default: OpenMP's own spin-then-sleep, which mlparse keeps; PASSIVE, ACTIVE)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0 or args.threads < 1:
        parser.error("--rounds and --threads take at least 1, --seconds a positive number")
    args.data_root = str(Path(args.data_root).resolve())
    if args.worker_timeout is None:
        args.worker_timeout = 900.0 + 4 * args.seconds
    if args.benepar_budget is None:
        from mlparse.train.budget import CPU_BUDGETS

        args.benepar_budget = int(CPU_BUDGETS["train"])
    return args


def main(argv: Optional[List[str]] = None) -> int:
    if argv is None and len(sys.argv) > 2 and sys.argv[1] == "--worker":
        mlparse_worker(json.loads(sys.argv[2]))
        return 0
    args = parse_args(argv)
    print(header(args), flush=True)
    pairs = pairs_of(args)
    with tempfile.TemporaryDirectory(prefix="train-vs-peers-") as scratch:
        files = data_files(args, Path(scratch))
        check_data(pairs, files)
        for pair in pairs:
            print(f"\npair {pair.key}: {', '.join(s.label for s in pair.systems)}; {args.rounds} round(s) of "
                  f"{args.seconds:g} s of updates each", flush=True)
            bf16 = any("train.cpu_bf16=true" in system.sets for system in pair.systems)
            before = matmul_rate(pair.shape, args.threads)
            bf16_before = matmul_rate(pair.shape, args.threads, dtype="bfloat16") if bf16 else None
            results = run_pair(pair, args, files)
            bf16_rate = max(bf16_before, matmul_rate(pair.shape, args.threads, dtype="bfloat16")) if bf16 else None
            print_pair(pair, results, files, max(before, matmul_rate(pair.shape, args.threads)), bf16_rate)
    from timing import load_average

    print(f"\ndone {time.strftime('%H:%M', time.gmtime())} UTC; {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
