"""mlparse's demo-dep beside SuPar's biaffine dependency parser: dev LAS by minute under the same budget.

Runs, one after the other on the same CPU threads and the same prepared UD English-EWT files:

1. ``mlparse run demo-dep --max-minutes M --fresh`` (benchmarks/dep_learning_curve.py), dev checks four
   times per epoch on the recipe's ``eval.max_sentences`` dev sentences;
2. SuPar's ``biaffine-dep`` (Dozat & Manning's BiLSTM parser, SuPar's default sizes) with the gold UPOS
   column as its ``tag`` feature, no pretrained embeddings, punctuation counted (``--punct``) and trees
   enforced (``--tree``), started from the SuPar installed in the virtual environment ``--supar-python``
   (kept outside the repository; SuPar is no dependency of mlparse).  SuPar evaluates dev (the whole
   dev set) and test once per epoch and keeps the best epoch; it is stopped when its training clock
   passes the budget, so the unfinished epoch counts for nothing.

SuPar's training clock is read from its log: wall time from its first epoch on, less its per-epoch
test evaluations (mlparse does none), so both clocks are updates plus dev checks.  The table gives
each parser's dev LAS at the last check before each minute mark; the final rows score the best
checkpoints on the whole dev and test sets, SuPar's with its own metric and both with depeval
(CoNLL 2018 LAS) on the predicted CoNLL-U files (mlparse's results.json holds depeval's).

    python3 benchmarks/dep_vs_supar.py --supar-python /tmp/supar-venv/bin/python [--minutes 20] [--threads 2]
        [--data-root DIR] [--skip-mlparse] [--keep DIR]

Skips (exit status 0, with a message) when ``--supar-python`` cannot import supar.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dep_learning_curve import (REPO, CurvePoint, TrainedRun, by_minute, first_reaching,  # noqa: E402
                                machine_line, train_demo_dep)

TREEBANK = "UD_English-EWT"

# SuPar's published biaffine-dep settings (its PTB config), the tag feature in place of characters.
SUPAR_CONFIG = """\
[Network]
n_embed = 100
n_feat_embed = 100
embed_dropout = .33
n_lstm_hidden = 400
n_lstm_layers = 3
encoder_dropout = .33
n_arc_mlp = 500
n_rel_mlp = 100
mlp_dropout = .33

[Optimizer]
lr = 2e-3
mu = .9
nu = .9
eps = 1e-12
weight_decay = 0
clip = 5.0
min_freq = 2
fix_len = 20
decay = .75
decay_steps = 5000
update_steps = 1
batch_size = 5000
epochs = 5000
patience = 100
"""

LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \w+ (.*)$")
LAS = re.compile(r"LAS:\s*([\d.]+)%")
PROGRESS = re.compile(r"\|\s*(\d+)/(\d+) ")


@dataclass
class SuparClock:
    """SuPar's training clock read from its log: seconds from its first epoch, less its test evaluations."""

    start: Optional[datetime] = None
    test_seconds: float = 0.0
    dev_at: Optional[datetime] = None      # set while the test evaluation after this dev line runs
    saving: bool = False                   # between the test line and the line saying the epoch ended
    epochs_done: int = 0
    curve: List[CurvePoint] = field(default_factory=list)

    def read(self, lines: Sequence[str]) -> None:
        """Rebuild the state from the whole log (the log is small: a few lines per epoch)."""
        self.__init__()
        for line in lines:
            match = LOG_LINE.match(line)
            if not match:
                continue
            stamp, message = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S"), match.group(2)
            if message.startswith("Epoch ") and self.start is None:
                self.start = stamp
            elif message.startswith("dev:") and self.start is not None and self.dev_at is None:
                las = LAS.search(message)
                self.epochs_done += 1
                self.curve.append(CurvePoint(self.seconds(stamp) / 60.0, float(self.epochs_done),
                                             float(las.group(1)) if las else float("nan")))
                self.dev_at = stamp
            elif message.startswith("test:") and self.dev_at is not None:
                self.test_seconds += (stamp - self.dev_at).total_seconds()
                self.dev_at, self.saving = None, True
            elif "elapsed" in message:
                self.saving = False

    def seconds(self, now: datetime) -> float:
        if self.start is None:
            return 0.0
        running_test = (now - self.dev_at).total_seconds() if self.dev_at is not None else 0.0
        return (now - self.start).total_seconds() - self.test_seconds - running_test


@dataclass(frozen=True)
class SuparRun:
    curve: List[CurvePoint]
    training_minutes: float
    own_dev_las: Optional[float]
    own_test_las: Optional[float]
    depeval_dev_las: Optional[float]
    depeval_test_las: Optional[float]
    version: str
    progress: Optional[Tuple[int, int]]    # (done, total) of the last progress bar SuPar drew


def supar_version(python: str) -> Optional[str]:
    """SuPar's version as ``python`` imports it, or ``None`` when it cannot import supar."""
    try:
        probe = subprocess.run([python, "-c", "import importlib.metadata as m, supar; print(m.version('supar'))"],
                               capture_output=True, text=True)
    except OSError:
        return None
    return probe.stdout.strip() if probe.returncode == 0 else None


def supar_env(threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads), CUDA_VISIBLE_DEVICES="")
    # SuPar pickles whole parser objects; torch >= 2.6 loads weights only unless told otherwise.
    # These are files this script has just trained, so loading them in full is safe.
    env["TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"] = "1"
    env.pop("PYTHONPATH", None)
    return env


def supar_command(python: str, mode: str, model: Path, threads: int, *extra: str, conf: Optional[Path] = None) -> List[str]:
    """``biaffine_dep MODE`` on CPU with well-formed trees (MST); ``extra`` are MODE's own options."""
    top = ["--conf", str(conf)] if conf is not None else []
    return [python, "-m", "supar.cmds.biaffine_dep", "--path", str(model), "--device", "-1",
            "--threads", str(threads), "--seed", "1", "--tree", *top, mode, *extra]


def own_las(python: str, model: Path, threads: int, data: Path) -> Optional[float]:
    done = subprocess.run(supar_command(python, "evaluate", model, threads, "--punct", "--data", str(data)),
                          capture_output=True, text=True, env=supar_env(threads))
    found = [LAS.search(line) for line in (done.stdout + done.stderr).splitlines() if line.find("loss:") >= 0]
    found = [match for match in found if match]
    return float(found[-1].group(1)) if found else None


def depeval_las(python: str, model: Path, threads: int, data: Path, pred: Path) -> Optional[float]:
    from depeval.api import evaluate_files

    subprocess.run(supar_command(python, "predict", model, threads, "--data", str(data), "--pred", str(pred)),
                   capture_output=True, text=True, env=supar_env(threads), check=True)
    return 100.0 * evaluate_files(data, pred).las.f1


def train_supar(python: str, minutes: float, threads: int, split_files: Tuple[Path, Path, Path],
                work: Path) -> SuparRun:
    train, dev, test = split_files
    config, model = work / "biaffine-dep.ini", work / "model"
    config.write_text(SUPAR_CONFIG)
    command = supar_command(python, "train", model, threads, "--build", "--feat", "tag", "--punct", "--embed", "",
                            "--train", str(train), "--dev", str(dev), "--test", str(test), conf=config)
    print("$ " + " ".join(repr(part) if part == "" else part for part in command), flush=True)
    log = Path(f"{model}.train.log")
    clock = SuparClock()
    with open(work / "supar-train.out", "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=supar_env(threads), cwd=work)
        while process.poll() is None:
            time.sleep(1.0)
            clock.read(log.read_text(errors="replace").splitlines() if log.exists() else [])
            if clock.start is not None and not clock.saving and clock.seconds(datetime.now()) >= minutes * 60.0:
                process.terminate()
                process.wait()
    clock.read(log.read_text(errors="replace").splitlines() if log.exists() else [])
    output = (work / "supar-train.out").read_text(errors="replace")
    if process.returncode not in (0, -15):
        raise SystemExit("SuPar training failed:\n" + "\n".join(output.splitlines()[-15:]))
    version = supar_version(python) or "?"
    minutes_trained = min(clock.seconds(datetime.now()), minutes * 60.0) / 60.0
    if not model.exists():  # the budget ended inside the first epoch: nothing to score
        return SuparRun(clock.curve, minutes_trained, None, None, None, None, version, last_progress(output))
    return SuparRun(clock.curve, minutes_trained,
                    own_las(python, model, threads, dev), own_las(python, model, threads, test),
                    depeval_las(python, model, threads, dev, work / "dev.pred.conllu"),
                    depeval_las(python, model, threads, test, work / "test.pred.conllu"), version,
                    last_progress(output))


def last_progress(output: str) -> Optional[Tuple[int, int]]:
    """(batches done, batches) of the last progress bar SuPar drew, e.g. ``14/53``; ``None`` without one."""
    bars = PROGRESS.findall(output)
    return (int(bars[-1][0]), int(bars[-1][1])) if bars else None


def ensure_prepared(data_root: Path) -> Tuple[Path, Path, Path]:
    folder = data_root / "ud" / TREEBANK
    files = tuple(folder / f"{split}.conllu" for split in ("train", "dev", "test"))
    if not all(path.exists() for path in files):
        subprocess.run([sys.executable, "-m", "mlparse", "prepare", "ud", "--language", TREEBANK,
                        "--out", str(data_root)], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return files  # type: ignore[return-value]


def fmt(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--supar-python", default=None, help="python of a virtual environment where supar imports")
    parser.add_argument("--minutes", type=float, default=20.0, help="training-time budget of each parser")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for both parsers")
    parser.add_argument("--target", type=float, default=80.0, help="dev LAS whose first minute is reported")
    parser.add_argument("--data-root", type=Path, default=REPO / "data", help="where data/ud/UD_English-EWT is (prepared if missing)")
    parser.add_argument("--skip-mlparse", action="store_true", help="train SuPar only (to check the set-up)")
    parser.add_argument("--keep", type=Path, default=None, help="keep SuPar's model, logs and predictions here")
    args = parser.parse_args(argv)

    version = supar_version(args.supar_python) if args.supar_python else None
    if version is None:
        print(f"skipped: supar is not importable from {args.supar_python or '(no --supar-python given)'}; "
              "install it in a virtual environment outside the repository "
              "(python3 -m venv --system-site-packages /tmp/supar-venv && /tmp/supar-venv/bin/pip install supar) "
              "and pass --supar-python /tmp/supar-venv/bin/python")
        return 0
    files = ensure_prepared(args.data_root.resolve())
    os.environ["OMP_NUM_THREADS"] = str(args.threads)

    mlparse_run: Optional[TrainedRun] = None
    with tempfile.TemporaryDirectory(prefix="mlparse-vs-supar-") as scratch:
        if not args.skip_mlparse:
            mlparse_run = train_demo_dep(args.minutes, Path(scratch) / "runs", args.data_root.resolve())
        work = args.keep or Path(scratch) / "supar"
        work.mkdir(parents=True, exist_ok=True)
        supar = train_supar(args.supar_python, args.minutes, args.threads, files, work.resolve())

    print(f"\nUD English-EWT, gold UPOS input, {args.minutes:g} training minutes each, {args.threads} threads; "
          f"SuPar {supar.version}")
    if mlparse_run is not None:
        print(f"machine: {machine_line(mlparse_run.hardware)}")
    ours = dict(by_minute(mlparse_run.curve, args.minutes)) if mlparse_run else {}
    theirs = dict(by_minute(supar.curve, args.minutes))
    print(f"{'minute':>7}{'mlparse dev LAS':>17}{'SuPar dev LAS':>15}{'difference':>12}")
    for minute in sorted(theirs):
        a, b = ours.get(minute), theirs[minute]
        print(f"{minute:>7}{fmt(a):>17}{fmt(b):>15}{fmt(a - b if a is not None and b is not None else None):>12}")
    print("(mlparse: checks four times per epoch on the recipe's eval.max_sentences dev sentences; "
          "SuPar: once per epoch on the whole dev set)")
    for name, run in (("mlparse", mlparse_run), ("SuPar", supar)):
        if run is None:
            continue
        hit = first_reaching(run.curve, args.target)
        print(f"{name}: {run.training_minutes:.1f} training minutes, {len(run.curve)} dev checks, dev LAS {args.target:g} "
              + (f"first at {hit.minutes:.1f} min" if hit else "not reached"))
    if supar.progress is not None:
        print(f"SuPar finished {len(supar.curve)} epochs; its last progress bar when stopped: "
              f"{supar.progress[0]}/{supar.progress[1]} batches (an unfinished epoch has no dev check)")
    if mlparse_run is not None:
        print(f"mlparse best checkpoint (depeval): dev LAS {fmt(mlparse_run.dev_las)}, test LAS {fmt(mlparse_run.test_las)}")
    print(f"SuPar best epoch, its own metric: dev LAS {fmt(supar.own_dev_las)}, test LAS {fmt(supar.own_test_las)}; "
          f"depeval on its predictions: dev LAS {fmt(supar.depeval_dev_las)}, test LAS {fmt(supar.depeval_test_las)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
