"""Throughput of ``mlparse.load(...).parse_sents`` beside ``mlparse parse`` (same model, same input).

The input is the words of the ptb-sample dev set, one tokenized sentence per line.  Both sides
are timed in this process from the model on disk to the last tree: ``mlparse parse --model RUN
--input dev.txt --output FILE --format text`` (through typer's test runner: no interpreter start-up
or import of torch counted) and ``mlparse.load(RUN)`` followed by ``list(parse_sents(words))``,
once with nltk trees (the default output, when nltk is installed) and once with mlparse's own
trees.  The runs alternate, ``--repeats`` times each; the best of each is reported.  Target: the
API at >= 90% of the CLI's sentences/s.  The API's trees are checked to equal the CLI's lines.

    python3 benchmarks/api_speed.py --model RUN_DIR [--data DIR] [--repeats 3] [--threads T]

Without ``--model``, it prepares ptb-sample into a temporary folder and trains ``recipes/demo.yaml``
for ``--train-minutes`` (default 2) first.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import mlparse  # noqa: E402
from mlparse.cli import app  # noqa: E402
from mlparse.trees.reader import parse_bracketed  # noqa: E402


def train_demo(work: Path, minutes: float) -> Path:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "mlparse", "prepare", "ptb-sample", "--out", str(work / "data")],
                   check=True, env=env, cwd=REPO)
    subprocess.run([sys.executable, "-m", "mlparse", "run", "demo", "--set", f"data.root={work / 'data'}",
                    "--max-minutes", str(minutes), "--runs-dir", str(work / "runs")], check=True, env=env, cwd=REPO)
    return next((work / "runs" / "demo").iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="a finished run directory (or a model package)")
    parser.add_argument("--data", type=Path, help="prepared data root holding ptb-sample/english/dev.trees")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--train-minutes", type=float, default=2.0)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    work = Path(tempfile.mkdtemp(prefix="mlparse-api-speed-"))
    model = args.model or train_demo(work, args.train_minutes)
    data = args.data or (work / "data" if args.model is None else REPO / "data")
    dev = data / "ptb-sample" / "english" / "dev.trees"
    if not dev.is_file():
        subprocess.run([sys.executable, "-m", "mlparse", "prepare", "ptb-sample", "--out", str(work / "data")],
                       check=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)
        dev = work / "data" / "ptb-sample" / "english" / "dev.trees"
    trees = parse_bracketed(dev.read_text(encoding="utf-8"), source=str(dev)).trees
    words = [[leaf.word for leaf in tree.leaves()] for tree in trees]
    text_file = work / "dev.txt"
    text_file.write_text("".join(" ".join(w) + "\n" for w in words), encoding="utf-8")
    out_file = work / "cli.trees"
    runner = CliRunner()

    def cli() -> List[str]:
        result = runner.invoke(app, ["parse", "--model", str(model), "--input", str(text_file), "--output", str(out_file),
                                     "--format", "text"])
        if result.exit_code != 0:
            raise SystemExit(result.output)
        return out_file.read_text(encoding="utf-8").splitlines()

    def api(output: str) -> Callable[[], List[str]]:
        def run() -> List[str]:
            parsed = mlparse.load(model).parse_sents(words, output=output)
            if output == "tree":
                return [tree.to_bracketed() for tree in parsed]
            return [tree.pformat(margin=10**9) for tree in parsed]
        return run

    sides: Dict[str, Callable[[], List[str]]] = {"mlparse parse (CLI)": cli, "parse_sents, mlparse trees": api("tree")}
    try:
        import nltk  # noqa: F401

        sides["parse_sents, nltk trees"] = api("nltk")
    except ImportError:
        print("(nltk is not installed: the nltk-tree side is left out)")
    best: Dict[str, float] = {name: float("inf") for name in sides}
    reference = cli()  # warm-up, and the trees every side must give
    for name, side in sides.items():
        if side() != reference:
            raise SystemExit(f"{name} gives other trees than mlparse parse")
    names = list(sides)
    for repeat in range(args.repeats):
        for name in names[repeat % len(names):] + names[:repeat % len(names)]:  # each side goes first in turn
            side = sides[name]
            start = time.perf_counter()
            side()
            best[name] = min(best[name], time.perf_counter() - start)
    cpu = platform.processor() or platform.machine()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"machine: {cpu}, {os.cpu_count()} CPUs, torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"device {device}; model {model}")
    print(f"input: ptb-sample dev, {len(words)} sentences, {sum(map(len, words))} words; best of {args.repeats} runs, "
          "model loading included")
    cli_rate = len(words) / best["mlparse parse (CLI)"]
    for name in sides:
        rate = len(words) / best[name]
        print(f"{name:30s} {best[name]:7.3f} s  {rate:8.1f} sentences/s  ratio to CLI {rate / cli_rate:.3f}")


if __name__ == "__main__":
    main()
