"""mlparse's bundled tagger beside spaCy's tagger on the same UD files: dev UPOS accuracy by minute.

Runs, one after the other on the same machine and the same prepared CoNLL-U files (``mlparse prepare ud``):

1. ``mlparse run tagger --max-minutes M --fresh`` (``--set data.language=TREEBANK`` for another treebank); its
   curve is the dev tag accuracy of each check in ``log.jsonl`` against the trainer's clock (updates and dev
   checks), its final figures the best checkpoint's dev and test accuracy from ``results.json``;
2. spaCy's tagger from the spaCy installed in the virtual environment ``--spacy-python`` (kept outside the
   repository; spaCy is no dependency of this benchmark's side), its default CPU configuration (``spacy init
   config --pipeline tagger --optimize efficiency``: hash embeddings and a CNN), trained with ``spacy train``
   on ``spacy convert`` of the same CoNLL-U files with the UPOS column copied into the XPOS column (so that the
   tagger's ``tag_`` is UPOS). Its clock starts at its first printed line (after loading and initialisation);
   each evaluation line it prints is stamped with the wall time when it arrives, and the run is stopped when
   the clock passes M minutes. Its best model (``model-best``) is scored on dev and test with ``spacy
   evaluate``, the same files mlparse scores.

Both clocks count updates and dev evaluations. spaCy evaluates the whole dev set every ``eval_frequency``
steps (200 by default) and runs on one core; mlparse uses the torch threads of ``--threads`` (default 2).

    python3 benchmarks/tagger_vs_spacy.py --spacy-python /tmp/spacy-venv/bin/python [--minutes 5]
        [--treebank UD_English-EWT] [--threads 2] [--data-root DIR] [--converge] [--skip-mlparse] [--skip-spacy]

``--converge`` drops the time bound: mlparse's tagger stops on its own patience (the recipe's), spaCy on its
default patience (1,600 steps without a better dev score) or ``max_steps`` (20,000). Skips (exit 0, with a
message) when ``--spacy-python`` cannot import spacy. Printed: the machine, both curves by minute, the
first minute each reached 95%, and final dev and test accuracy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class Check:
    """One dev evaluation: minutes on the system's clock, dev accuracy (0-100)."""

    minutes: float
    accuracy: float


@dataclass
class Curve:
    """A system's dev curve and its best model's final dev and test accuracy."""

    name: str
    checks: List[Check] = field(default_factory=list)
    dev: Optional[float] = None
    test: Optional[float] = None
    note: str = ""


def by_minute(checks: Sequence[Check], minutes: float) -> List[Optional[float]]:
    """The accuracy of the last check at or before each whole minute 1 .. ceil(minutes)."""
    out = []
    for mark in range(1, int(-(-minutes // 1)) + 1):
        seen = [c.accuracy for c in checks if c.minutes <= mark]
        out.append(seen[-1] if seen else None)
    return out


def first_reaching(checks: Sequence[Check], target: float) -> Optional[float]:
    return next((c.minutes for c in checks if c.accuracy >= target), None)


# -- mlparse -------------------------------------------------------------------------------------------

def run_mlparse(treebank: str, minutes: Optional[float], threads: int, data_root: Path, runs: Path) -> Curve:
    command = [sys.executable, "-m", "mlparse", "run", "tagger", "--runs-dir", str(runs), "--fresh",
               "--set", f"data.language={treebank}", "--set", f"data.root={data_root}",
               "--set", f"train.num_threads={threads}"]
    if minutes is not None:
        command += ["--max-minutes", str(minutes)]
    print("$ python3 " + " ".join(command[1:]), flush=True)
    subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    (run_dir,) = [p.parent for p in (runs / "tagger").glob("*/results.json")]
    log = [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines() if line.strip()]
    results = json.loads((run_dir / "results.json").read_text())
    curve = Curve("mlparse tagger", [Check(e["elapsed_seconds"] / 60.0, e["dev_score"]) for e in log])
    curve.dev = (results.get("dev") or {}).get("tagging_accuracy")
    curve.test = (results.get("test") or {}).get("tagging_accuracy")
    curve.note = (f"{results.get('system')}; {results.get('epochs') or 0:.1f} epochs, "
                  f"stopped: {results.get('stop_reason')}")
    return curve


# -- spaCy ----------------------------------------------------------------------------------------------

def upos_as_tag(source: Path, target: Path) -> None:
    """A copy of a CoNLL-U file whose XPOS column holds the UPOS (spaCy's tagger learns ``tag_`` from XPOS)."""
    out = []
    for line in source.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) == 10 and not line.startswith("#"):
            columns[4] = columns[3]
        out.append("\t".join(columns))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")


#: A spaCy evaluation line of ``spacy train``: epoch, step, the losses (tok2vec, tagger), TAG_ACC (0-100), score.
EVAL_LINE = re.compile(r"^\s*\d+\s+\d+(\s+[\d.]+){3,}\s*$")

#: spaCy's language of each treebank this benchmark is run on (its lexical attributes; the data is tokenized).
LANGUAGES = {"UD_English-EWT": "en", "UD_Hungarian-Szeged": "hu", "UD_Basque-BDT": "eu", "UD_Chinese-GSD": "zh"}


def spacy_language(treebank: str) -> str:
    """spaCy's language code of ``treebank`` (a release suffix such as ``-r1.4`` aside); ``xx`` if not known."""
    return next((code for name, code in LANGUAGES.items() if treebank == name or treebank.startswith(name + "-")),
                "xx")


def spacy_command(python: str, *args: str) -> List[str]:
    return [python, "-m", "spacy", *args]


def run_spacy(python: str, treebank: Path, minutes: Optional[float], work: Path) -> Curve:
    corpus = work / "corpus"
    corpus.mkdir(parents=True)
    for split in ("train", "dev", "test"):
        upos_as_tag(treebank / f"{split}.conllu", work / f"{split}.conllu")
        subprocess.run(spacy_command(python, "convert", str(work / f"{split}.conllu"), str(corpus),
                                     "--converter", "conllu", "--n-sents", "10"),
                       check=True, stdout=subprocess.DEVNULL)
    config = work / "config.cfg"
    language = spacy_language(treebank.name)
    subprocess.run(spacy_command(python, "init", "config", str(config), "--lang", language, "--pipeline", "tagger",
                                 "--optimize", "efficiency", "--force"), check=True, stdout=subprocess.DEVNULL)
    command = spacy_command(python, "train", str(config), "--output", str(work / "out"),
                            "--paths.train", str(corpus / "train.spacy"), "--paths.dev", str(corpus / "dev.spacy"))
    print("$ " + " ".join(["spacy"] + command[3:]), flush=True)
    curve = Curve("spaCy tagger (efficiency)")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    start: List[Optional[float]] = [None]
    column: List[int] = [-1]

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            now = time.perf_counter()
            if start[0] is None and line.strip().startswith("E"):  # the table's header: training begins
                start[0] = now
                names = re.split(r"\s{2,}", line.strip())  # E, #, LOSS TOK2VEC, LOSS TAGGER, TAG_ACC, POS_ACC, SCORE
                column[0] = names.index("TAG_ACC") if "TAG_ACC" in names else -1  # the UPOS, converted as the tag
            if EVAL_LINE.match(line) and start[0] is not None and column[0] >= 0:
                curve.checks.append(Check((now - start[0]) / 60.0, float(line.split()[column[0]])))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while process.poll() is None:
        time.sleep(0.5)
        if minutes is not None and start[0] is not None and time.perf_counter() - start[0] > minutes * 60:
            process.terminate()
            process.wait()
            break
    reader.join(timeout=5)
    best = work / "out" / "model-best"
    if not best.is_dir():
        curve.note = "no model-best written"
        return curve
    for split in ("dev", "test"):
        scores = work / f"{split}-scores.json"
        subprocess.run(spacy_command(python, "evaluate", str(best), str(corpus / f"{split}.spacy"),
                                     "--output", str(scores)), check=True, stdout=subprocess.DEVNULL)
        value = 100.0 * json.loads(scores.read_text())["tag_acc"]
        setattr(curve, split, value)
    curve.note = f"{len(curve.checks)} evaluations, spaCy language '{language}'"
    return curve


# -- output ---------------------------------------------------------------------------------------------

def fmt(value: Optional[float]) -> str:
    return "" if value is None else f"{value:.2f}"


def render(curves: Sequence[Curve], minutes: float) -> str:
    lines = ["| minute | " + " | ".join(c.name for c in curves) + " |", "|---" * (len(curves) + 1) + "|"]
    columns = [by_minute(c.checks, minutes) for c in curves]
    for m in range(len(columns[0]) if columns else 0):
        lines.append(f"| {m + 1} | " + " | ".join(fmt(col[m]) for col in columns) + " |")
    lines.append("| first minute at 95% | " + " | ".join(fmt(first_reaching(c.checks, 95.0)) for c in curves) + " |")
    lines.append("| best model: dev | " + " | ".join(fmt(c.dev) for c in curves) + " |")
    lines.append("| best model: test | " + " | ".join(fmt(c.test) for c in curves) + " |")
    return "\n".join(lines) + "\n" + "\n".join(f"{c.name}: {c.note}" for c in curves)


def machine() -> str:
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cpu}, {os.cpu_count()} CPUs, load average {load:.2f} at start"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spacy-python", required=True, help="python of a virtual environment with spaCy 3.x")
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--converge", action="store_true", help="no time bound: each stops on its own patience")
    parser.add_argument("--treebank", default="UD_English-EWT")
    parser.add_argument("--threads", type=int, default=2, help="mlparse's torch threads (spaCy uses one core)")
    parser.add_argument("--data-root", type=Path, default=REPO / "data")
    parser.add_argument("--skip-mlparse", action="store_true")
    parser.add_argument("--skip-spacy", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_spacy:
        found = subprocess.run([args.spacy_python, "-c", "import spacy; print(spacy.__version__)"],
                               capture_output=True, text=True)
        if found.returncode:
            print(f"skipped: {args.spacy_python} cannot import spacy")
            return 0
        spacy_version = found.stdout.strip()
    treebank = args.data_root / "ud" / args.treebank
    if not (treebank / "train.conllu").is_file():
        print(f"skipped: {treebank}/train.conllu not found (run `mlparse prepare ud --source ../shared/treebanks/ud`)")
        return 0
    minutes = None if args.converge else args.minutes
    print(f"tagger_vs_spacy {datetime.now().strftime('%Y-%m-%d %H:%M')}: {args.treebank}, "
          f"{'until each converges' if minutes is None else f'{minutes:g} minutes each'}, one after the other; "
          f"{machine()}" + ("" if args.skip_spacy else f"; spaCy {spacy_version}"), flush=True)
    curves = []
    with tempfile.TemporaryDirectory() as scratch:
        if not args.skip_mlparse:
            curves.append(run_mlparse(args.treebank, minutes, args.threads, args.data_root.resolve(),
                                      Path(scratch) / "runs"))
        if not args.skip_spacy:
            curves.append(run_spacy(args.spacy_python, treebank, minutes, Path(scratch) / "spacy"))
    longest = max((c.checks[-1].minutes for c in curves if c.checks), default=1.0)
    print(render(curves, minutes if minutes is not None else longest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
