"""One command for the figures of issue 16: GPU speed, its ratio to the CPU, launches and host waits.

    python3 benchmarks/gpu_suite.py [--data DIR] [--threads T] [--quick]

Prints one table. Rows, each measured side by side in this run:

* device-independent (any machine): backend operations dispatched (at least one kernel launch each on
  a GPU), those of them that compute (views aside: the kernel launches) and host synchronisations of
  one demo update of 32 sentences and of one parsed batch of 32 dev sentences, with the CPU's decoder
  (Cython) and the GPU's (batched torch); the CKY width loop's and the CharLSTM's share of that batch,
  beside the figures issue 16 gave before the changes (not a side-by-side comparison: printed as given);
* overlap on vs off (``train.overlap``): demo updates and the dev parse, alternated in one run;
* compiled vs eager encoder (``train.compile: encoder``, inductor): the encoder's forward over the dev
  set, and the graphs compiled for it (length buckets); minutes of compiling on a small CPU, so
  ``--no-compile`` leaves it out (``--quick`` always does);
* CPU: parse speed of the base model (recipes/base.yaml sizes, untrained) on the dev set after a
  warm-up pass, train speed of the base model (32-sentence updates), demo training speed in epochs
  per minute (timed updates; dev checks aside);
* GPU (CUDA only; otherwise listed as skipped): the same figures on the GPU with ``auto`` sub-batches,
  each with its ratio to the CPU figure, and the GPU busy share of the wall time (torch.profiler);
  with two GPUs or more, a short ``--gpus 2`` NCCL run checked against one process.

``--quick`` runs the same code on a small synthetic treebank and a small model (a smoke test, seconds);
its figures mean nothing. Without ``--data`` the WSJ sample is prepared into ``data/`` as the other
benchmarks do.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mlparse.config import RecipeConfig, load_recipe  # noqa: E402
from mlparse.data.batching import pack_by_tokens  # noqa: E402
from mlparse.data.synthetic import generate_treebank  # noqa: E402
from mlparse.models.span_parser import build_parser  # noqa: E402
from mlparse.tasks.constituency import ConstituencyTask  # noqa: E402
from mlparse.train.checkpoint import CheckpointFiles, seed_everything  # noqa: E402
from mlparse.tasks.treebank import TreeSplit, golds_of, read_split, sentence_of  # noqa: E402
from mlparse.structs import cky_torch  # noqa: E402
from mlparse.train.compile import compile_encoder, compiled_graphs, uncompile_encoder  # noqa: E402
from benchmarks.instrumentation.dispatch_count import DispatchCounter  # noqa: E402
from benchmarks.instrumentation.step_count import count_parse, count_update, count_weight_casts  # noqa: E402
from mlparse.train.trainer import Trainer, predict_in_batches  # noqa: E402
from mlparse.trees.tree import Tree  # noqa: E402

#: Model sizes of --quick (and of the demo's shape, smaller).
QUICK_MODEL = {"num_layers": 1, "d_model": 32, "num_heads": 2, "d_kv": 8, "d_ff": 32, "d_char_emb": 8, "max_len": 80}
QUICK_SPAN = {"d_label_hidden": 16}


@dataclass
class Row:
    figure: str
    cpu: Optional[float]
    gpu: Optional[float] = None
    unit: str = ""
    note: str = ""


@dataclass
class Data:
    train: TreeSplit
    dev: TreeSplit


def load_data(folder: Optional[str], quick: bool) -> Data:
    if quick:
        trees = generate_treebank(120, seed=3)
        return Data(TreeSplit(path=Path("synthetic-train"), examples=trees[:96]), TreeSplit(path=Path("synthetic-dev"), examples=trees[96:]))
    if folder is None:
        from benchmarks.parse_speed import prepared_split

        base = prepared_split("train").parent
    else:
        base = Path(folder)
    return Data(read_split(base / "train.trees"), read_split(base / "dev.trees"))


def recipe(name: str, quick: bool, device: torch.device) -> RecipeConfig:
    config = load_recipe(REPO / "recipes" / f"{name}.yaml")
    if quick:
        for key, value in QUICK_MODEL.items():
            setattr(config.model, key, value)
        for key, value in QUICK_SPAN.items():
            setattr(config.span, key, value)
    config.train.device = device.type
    config.train.subbatch_tokens = "auto" if device.type == "cuda" else config.train.subbatch_tokens
    config.eval.subbatch_tokens = "auto"
    return config


def make_trainer(config: RecipeConfig, data: Data, device: torch.device, folder: Path) -> Trainer:
    seed_everything(config.train.seed)
    model = build_parser(config.model, data.train.trees, span=config.span).to(device)
    return Trainer(config, model, ConstituencyTask(), data.train, golds_of(data.train.trees, model.labels), data.dev,
                   CheckpointFiles(folder / "checkpoints"), device)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(device: torch.device, work: Callable[[], object]) -> float:
    synchronize(device)
    start = time.perf_counter()
    work()
    synchronize(device)
    return time.perf_counter() - start


def batches(n: int, size: int, count: int) -> List[List[int]]:
    return [[(k * size + i) % n for i in range(size)] for k in range(count)]


def parse_speed(trainer: Trainer, device: torch.device) -> float:
    """Dev sentences per second of the second of two passes (the first warms up), trees built."""
    def run() -> object:
        return predict_in_batches(trainer.model, trainer.dev_inputs, trainer.dev_lengths, trainer.eval_budget, trainer.decoder)
    run()
    return len(trainer.dev_inputs) / timed(device, run)


def train_speed(trainer: Trainer, device: torch.device, size: int, updates: int) -> float:
    """Sentences per second of ``updates`` timed updates of ``size`` sentences, after one warm-up update."""
    n = len(trainer.train_sentences)
    work = batches(n, size, updates + 1)
    trainer.train_step(work[0])
    seconds = timed(device, lambda: [trainer.train_step(b) for b in work[1:]])
    return updates * size / seconds


def busy_share(trainer: Trainer, device: torch.device, size: int, updates: int) -> float:
    """Share of the wall time of ``updates`` updates during which the GPU ran kernels (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile

    work = batches(len(trainer.train_sentences), size, updates)
    synchronize(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        start = time.perf_counter()
        for batch in work:
            trainer.train_step(batch)
        synchronize(device)
        wall = time.perf_counter() - start
    kernels = [e for e in prof.events() if e.device_type.name == "CUDA"]  # the kernels themselves
    busy_us = sum(e.time_range.elapsed_us() for e in kernels)  # kernels of one stream do not overlap
    return busy_us / 1e6 / wall


def measure_device(device: torch.device, data: Data, args: argparse.Namespace, folder: Path) -> dict:
    out = {}
    base = make_trainer(recipe("base", args.quick, device), data, device, folder / f"base-{device.type}")
    out["parse"] = parse_speed(base, device)
    out["train"] = train_speed(base, device, args.base_sentences, args.updates)
    demo = make_trainer(recipe("demo", args.quick, device), data, device, folder / f"demo-{device.type}")
    per_update = 1.0 / train_speed(demo, device, 32, args.demo_updates) * 32
    updates_per_epoch = -(-len(data.train.trees) // demo.config.train.batch_size)
    out["demo_epochs_per_minute"] = 60.0 / (per_update * updates_per_epoch)
    out["budgets"] = (demo.train_budget, demo.eval_budget, base.train_budget, base.eval_budget)
    if device.type == "cuda":
        out["busy"] = busy_share(base, device, args.base_sentences, 2)
    return out


#: What issue 16 measured on CPU before the changes (commit 42f63c8), printed beside the current counts.
ISSUE_COUNTS = {"update": "11,290 ops in 3 sub-batches", "forward": "2,196 ops per 32-sentence sub-batch",
                "cky": "about 970 ops", "char_lstm": "818 ops"}


def part_counts(trainer: Trainer, sentences: Sequence[object]) -> dict:
    """Operations of the CKY width loop (batched torch decoder) and of the CharLSTM for one parsed batch."""
    model = trainer.model
    model.eval()
    out = {}
    with torch.no_grad():
        batch = model.make_batch(list(sentences))
        chart, _ = model(batch)
        with DispatchCounter() as cky:
            cky_torch.decode_batch(chart.float(), batch.lengths)
        out["cky"] = (cky.total, cky.computing)
        lstm = getattr(model.embedding, "char_lstm", None)
        if lstm is not None:
            with DispatchCounter() as chars:
                lstm(batch.chars, batch.char_lengths, batch.host_char_lengths)
            out["char_lstm"] = (chars.total, chars.computing)
    model.train()
    return out


def counts(data: Data, quick: bool, folder: Path) -> List[Row]:
    rows = []
    for decoder in ("cython", "torch"):
        config = recipe("demo", quick, torch.device("cpu"))
        config.train.decoder = decoder
        trainer = make_trainer(config, data, torch.device("cpu"), folder / f"count-{decoder}")
        trainer.train_step(list(range(32)))
        update = count_update(trainer, list(range(32, 64)))
        parsed = count_parse(trainer.model, [sentence_of(t) for t in data.dev.trees[:32]], decoder)
        rows += [Row(f"demo update, 32 sentences, {decoder} decoder: operations dispatched", update.operations,
                     unit="ops", note=f"{update.subbatches} sub-batches; issue 16: {ISSUE_COUNTS['update']}"),
                 Row(f"demo update, 32 sentences, {decoder} decoder: operations that compute", update.computing,
                     unit="ops", note="views aside: kernel launches on a GPU"),
                 Row(f"demo update, 32 sentences, {decoder} decoder: host syncs", update.host_syncs, unit="syncs"),
                 Row(f"demo update, 32 sentences, {decoder} decoder: uploads that wait", update.blocking_uploads,
                     unit="copies", note="to the device without non_blocking: each a full wait on a GPU"),
                 Row(f"demo update, 32 sentences, {decoder} decoder: reads back to the host", update.host_reads,
                     unit="reads", note=f"one per sub-batch's loss-augmented decoding, one loss; {update.subbatches} sub-batches"),
                 Row(f"demo parse, 32 dev sentences in one batch, {decoder} decoder: operations", parsed.operations,
                     unit="ops", note=f"issue 16: {ISSUE_COUNTS['forward']} (forward only)"),
                 Row(f"demo parse, 32 dev sentences, {decoder} decoder: operations that compute", parsed.computing,
                     unit="ops"),
                 Row(f"demo parse, 32 dev sentences, {decoder} decoder: host syncs", parsed.host_syncs, unit="syncs"),
                 Row(f"demo parse, 32 dev sentences, {decoder} decoder: uploads that wait / reads back",
                     parsed.blocking_uploads, unit="copies", note=f"{parsed.host_reads} read(s) back")]
        if decoder == "torch":
            casts = count_weight_casts(trainer, list(range(64, 96)))
            rows.append(Row("demo update, 32 sentences, under bf16 autocast: weight casts", casts.weight_casts,
                            unit="casts", note=f"{casts.weights_cast} weights, {casts.subbatches} sub-batches "
                                               "(CPU autocast; one block per sub-batch cast each weight per sub-batch)"))
        if decoder == "torch":
            parts = part_counts(trainer, [sentence_of(t) for t in data.dev.trees[:32]])
            names = {"cky": "CKY width loop (batched torch decoder)", "char_lstm": "CharLSTM forward (CPU LSTM: per step)"}
            for key, (total, computing) in parts.items():
                rows.append(Row(f"of that batch: {names[key]}: operations / computing", total, unit="ops",
                                note=f"{computing:,} compute; issue 16: {ISSUE_COUNTS[key]}"))
    return rows


def overlap_rows(data: Data, args: argparse.Namespace, folder: Path, device: torch.device) -> dict:
    """Demo updates per second and dev parse speed with ``train.overlap`` on and off, alternated (best of each)."""
    config = recipe("demo", args.quick, device)
    trainer = make_trainer(config, data, device, folder / f"overlap-{device.type}")
    best = {True: {"train": 0.0, "parse": 0.0}, False: {"train": 0.0, "parse": 0.0}}
    work = batches(len(trainer.train_sentences), 32, 1 + 2 * args.demo_updates * 2)
    trainer.train_step(work[0])
    position = 1
    for _ in range(2):
        for overlap in (True, False):
            trainer.config.train.overlap = overlap
            chunk = work[position:position + args.demo_updates]
            position += args.demo_updates
            seconds = timed(device, lambda: [trainer.train_step(b) for b in chunk])
            best[overlap]["train"] = max(best[overlap]["train"], len(chunk) / seconds)

            def parse() -> object:
                return predict_in_batches(trainer.model, trainer.dev_inputs, trainer.dev_lengths, trainer.eval_budget,
                                          trainer.decoder, overlap)
            best[overlap]["parse"] = max(best[overlap]["parse"], len(trainer.dev_inputs) / timed(device, parse))
    return best


def compile_rows(data: Data, args: argparse.Namespace, folder: Path, device: torch.device) -> dict:
    """The demo encoder's forward over the dev set (eval, no gradient), eager vs compiled (inductor), and the
    graphs compiled for it (a first pass compiles and is not timed)."""
    config = recipe("demo", args.quick, device)
    trainer = make_trainer(config, data, device, folder / f"compile-{device.type}")
    model = trainer.model.eval()
    groups = [[trainer.dev_inputs[i] for i in g] for g in
              pack_by_tokens(trainer.dev_lengths, trainer.eval_budget, model.memory_cost(training=False, decoder=trainer.decoder))]
    with torch.no_grad():
        inputs = []
        for group in groups:
            batch = model.make_batch(group)
            inputs.append((model.embedding(batch.mask, words=batch.words, tags=batch.tags, chars=batch.chars,
                                           char_lengths=batch.char_lengths, host_char_lengths=batch.host_char_lengths),
                           batch.mask))

        def run() -> object:
            return [model.encoder(z, mask) for z, mask in inputs]
        run()
        eager = min(timed(device, run) for _ in range(2))
        before = compiled_graphs()
        start = time.perf_counter()
        compile_encoder(model, "encoder", device)
        run()
        compile_seconds = time.perf_counter() - start
        graphs = compiled_graphs() - before
        compiled = min(timed(device, run) for _ in range(2))
        uncompile_encoder(model)
    return {"eager": len(trainer.dev_inputs) / eager, "compiled": len(trainer.dev_inputs) / compiled,
            "graphs": graphs, "shapes": len({tuple(z.shape) for z, _ in inputs}), "compile_seconds": compile_seconds}


def compiled_table(data: Data, args: argparse.Namespace, folder: Path, gpu: bool) -> List[Row]:
    """The compiled-encoder rows (eager, compiled) on the CPU and, with CUDA, on the GPU; prints the graphs compiled."""
    compiled = {"cpu": compile_rows(data, args, folder, torch.device("cpu"))}
    if gpu:
        compiled["gpu"] = compile_rows(data, args, folder, torch.device("cuda"))
    rows = []
    for key, label in (("eager", "eager"), ("compiled", "compiled (train.compile: encoder, inductor)")):
        rows.append(Row(f"demo encoder forward over dev, {label}", compiled["cpu"][key],
                        compiled["gpu"][key] if gpu else None, "sent/s",
                        "" if key == "eager" else
                        f"compiled/eager CPU {compiled['cpu']['compiled'] / compiled['cpu']['eager']:.2f}x"
                        + (f", GPU {compiled['gpu']['compiled'] / compiled['gpu']['eager']:.2f}x" if gpu else "; GPU: skipped")))
    for name, figures in compiled.items():
        print(f"{name}: {figures['graphs']} graphs compiled for {figures['shapes']} batch shapes over dev "
              f"(length buckets), compiling took {figures['compile_seconds']:.0f} s")
    return rows


def two_gpu_check(folder: Path, data_dir: Optional[str]) -> str:
    """A short demo run under --gpus 2 (NCCL) and in one process: their dev scores must agree."""
    scores = []
    for gpus in (1, 2):
        command = [sys.executable, "-m", "mlparse", "run", "demo", "--gpus", str(gpus), "--runs-dir",
                   str(folder / f"runs{gpus}"), "--set", "train.max_epochs=1", "--set", "train.evals_per_epoch=1"]
        if data_dir:
            command += ["--set", f"data.root={data_dir}"]
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        if done.returncode:
            return f"--gpus {gpus} failed: {done.stderr.strip().splitlines()[-1:]}"
        results = next((folder / f"runs{gpus}").glob("*/*/results.json"))
        scores.append(json.loads(results.read_text())["dev"]["f1"])
    verdict = "agree" if abs(scores[0] - scores[1]) < 0.5 else "DIFFER"
    return f"dev F1 one process {scores[0]:.2f}, --gpus 2 {scores[1]:.2f}: {verdict}"


def render(rows: Sequence[Row], gpu: bool) -> str:
    lines = ["| figure | CPU | GPU | GPU / CPU | note |", "|---|---|---|---|---|"]
    for row in rows:
        cpu = "" if row.cpu is None else f"{row.cpu:,.2f}".rstrip("0").rstrip(".")
        gpu_text = "" if row.gpu is None else f"{row.gpu:,.2f}".rstrip("0").rstrip(".")
        ratio = f"{row.gpu / row.cpu:.2f}x" if row.gpu is not None and row.cpu else ""
        if not gpu and row.gpu is None and row.note.startswith("GPU"):
            gpu_text = "skipped"
        lines.append(f"| {row.figure} | {cpu} {row.unit if cpu else ''} | {gpu_text} | {ratio} | {row.note} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="folder with train.trees and dev.trees (default: the prepared WSJ sample)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="CPU threads for torch")
    parser.add_argument("--quick", action="store_true", help="smoke run: synthetic trees, small model, seconds")
    parser.add_argument("--updates", type=int, default=2, help="timed base-model updates per device")
    parser.add_argument("--base-sentences", type=int, default=32, help="sentences per base-model update")
    parser.add_argument("--demo-updates", type=int, default=5, help="timed demo updates per device")
    parser.add_argument("--no-compile", action="store_true",
                        help="leave out the compiled-encoder rows (inductor compiles for minutes on a small CPU)")
    parser.add_argument("--only-compile", action="store_true",
                        help="only the compiled-encoder rows (to measure them in a run of their own)")
    args = parser.parse_args(argv)
    if args.quick:
        args.updates, args.base_sentences, args.demo_updates = 1, 8, 1
    torch.set_num_threads(args.threads)
    gpu = torch.cuda.is_available()
    data = load_data(args.data, args.quick)
    cpu_name = platform.processor() or platform.machine()
    try:
        cpu_name = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"gpu_suite {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}: torch {torch.__version__}, "
          f"CUDA {torch.version.cuda or 'none'}; CPU {cpu_name}, {args.threads} torch threads; "
          f"GPU {torch.cuda.get_device_name(0) + f' (x{torch.cuda.device_count()})' if gpu else 'none'}"
          f"{'; --quick: figures mean nothing' if args.quick else ''}")
    print(f"data: {len(data.train.trees)} training / {len(data.dev.trees)} dev sentences")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if args.only_compile:
            print(render(compiled_table(data, args, folder, gpu), gpu))
            return 0
        rows = counts(data, args.quick, folder)
        cpu = measure_device(torch.device("cpu"), data, args, folder)
        on_gpu = measure_device(torch.device("cuda"), data, args, folder) if gpu else {}
        rows += [
            Row(f"base parse speed, dev after a warm-up pass", cpu["parse"], on_gpu.get("parse"), "sent/s",
                "GPU: auto eval budget"),
            Row(f"base train speed, {args.base_sentences}-sentence updates", cpu["train"], on_gpu.get("train"),
                "sent/s", "GPU: auto train budget"),
            Row("demo epochs per minute (timed updates, dev checks aside)", cpu["demo_epochs_per_minute"],
                on_gpu.get("demo_epochs_per_minute"), "epochs/min", "GPU: auto train budget"),
        ]
        if gpu:
            rows.append(Row(f"GPU busy share of {args.base_sentences}-sentence base updates", None,
                            100.0 * on_gpu["busy"], "%", "torch.profiler kernel time / wall"))
        overlap = {"cpu": overlap_rows(data, args, folder, torch.device("cpu"))}
        if gpu:
            overlap["gpu"] = overlap_rows(data, args, folder, torch.device("cuda"))
        for what, unit, label in (("train", "updates/s", "demo updates (32 sentences)"), ("parse", "sent/s", "demo dev parse")):
            for on in (True, False):
                rows.append(Row(f"{label}, train.overlap {'on' if on else 'off'}", overlap["cpu"][on][what],
                                overlap["gpu"][on][what] if gpu else None, unit,
                                (f"on/off CPU {overlap['cpu'][True][what] / overlap['cpu'][False][what]:.2f}x"
                                 + (f", GPU {overlap['gpu'][True][what] / overlap['gpu'][False][what]:.2f}x" if gpu
                                    else "; GPU: skipped")) if on else "alternated with the row above"))
        if args.quick or args.no_compile:
            print("compiled-encoder rows skipped" + (" (--quick)" if args.quick else " (--no-compile)"))
        else:
            rows += compiled_table(data, args, folder, gpu)
        print(render(rows, gpu))
        print(f"sub-batch budgets (token-equivalents; demo train/eval, base train/eval): CPU {cpu['budgets']}"
              + (f", GPU {on_gpu['budgets']}" if gpu else ""))
        if not gpu:
            print("GPU rows skipped: no CUDA device visible (torch.cuda.is_available() is False)")
        elif torch.cuda.device_count() >= 2 and not args.quick:
            print("two GPUs:", two_gpu_check(folder, args.data and str(Path(args.data).parents[1])))
        else:
            print("--gpus 2 NCCL check skipped: fewer than two GPUs" if not args.quick else "--gpus 2 check skipped (--quick)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
