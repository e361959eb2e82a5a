"""demo-dep on UD English-EWT under the tag protocols, each row trained to convergence (``mlparse run
--until-converged``: dev LAS not improved for the recipe's ``train.patience_epochs``), with and without character
input; the rows' results and dev curves kept in the repository so that the table is rebuilt without training.

Rows (``--rows``; each without and with ``+chars``, ``model.char_encoder: lstm``):

- ``gold``: the treebank's gold UPOS;
- ``jackknife``: jack-knifed UPOS from the bundled tagger (``tagger.folds`` of ud/base: 10), taggers trained to
  their own patience as well;
- ``joint``: no tag input, UPOS predicted by the parser's own tagging head;
- ``none``: no tag input.

``--seed N`` trains the rows with ``train.seed=N`` instead of the recipe's 1, as rows ``<row>@seedN`` (a second
seed of the rows a conclusion rests on: ``mlparse compare`` of two seeds' runs shows what one seed's luck is worth).

One row after the other (``--threads N``: ``train.num_threads``, default the run's own choice, so that two drivers
can share a machine at one thread each): accuracy at convergence does not depend on the machine's speed, wall time
does, so each saved row says what machine it ran on and what else ran (``--beside``, words). A row is a plain
``mlparse run``, resumable: the same command continues an interrupted row (the thread count is not part of the run).

    python3 benchmarks/tag_protocols_converged.py --runs-dir DIR [--rows gold,none,joint,jackknife]
        [--chars both|no|only] [--seed N] [--threads N] [--beside "what else ran"] [--save benchmarks/results/converged]
    python3 benchmarks/tag_protocols_converged.py --read [--save benchmarks/results/converged]

``--save`` (default ``benchmarks/results/converged``) receives ``<row>/results.json`` and ``<row>/log.jsonl`` of
each finished row (small JSON, no predictions), plus ``<row>/machine.json`` (machine, commit, command, what ran
beside). ``--read`` prints the table from those files alone.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.tag_protocols import chosen_rows  # noqa: E402

RECIPE = "demo-dep"
SAVED = REPO / "benchmarks" / "results" / "converged"
ROWS: Dict[str, List[str]] = {
    "gold": [],
    "jackknife": ["--set", "data.tags=jackknife"],
    "joint": ["--set", "data.tags=none", "--set", "biaffine.predict_tags=true"],
    "none": ["--set", "data.tags=none"],
}
CHARS = ["--set", "model.char_encoder=lstm"]
TITLES = {"gold": "gold UPOS", "jackknife": "jack-knifed UPOS", "joint": "UPOS from the parser's tagging head",
          "none": "no tag input"}


def row_names(rows: Sequence[str], chars: str, seed: Optional[int] = None) -> List[str]:
    """The rows to train: each of ``rows`` without characters, with them (``+chars``), or both; with ``@seedN``
    when ``seed`` is given and not the recipe's 1."""
    tail = f"@seed{seed}" if seed not in (None, 1) else ""
    out = []
    for row in rows:
        if chars in ("both", "no"):
            out.append(row + tail)
        if chars in ("both", "only"):
            out.append(row + "+chars" + tail)
    return out


def row_parts(row: str) -> Tuple[str, bool, int]:
    """``row``'s tag protocol, whether it reads characters, and its seed: ``jackknife+chars@seed2`` is
    ``("jackknife", True, 2)``, ``gold`` is ``("gold", False, 1)``."""
    name, _, seed = row.partition("@seed")
    base, _, extra = name.partition("+")
    return base, extra == "chars", int(seed) if seed else 1


def command_of(row: str, runs_dir: Path, threads: Optional[int] = None) -> List[str]:
    base, chars, seed = row_parts(row)
    sets = [*ROWS[base], *(CHARS if chars else []), *(["--set", f"train.seed={seed}"] if seed != 1 else []),
            *(["--set", f"train.num_threads={threads}"] if threads else [])]
    return ["python3", "-m", "mlparse", "run", RECIPE, *sets, "--until-converged", "--runs-dir", str(runs_dir / row)]


def run_dir_of(runs_dir: Path, row: str) -> Optional[Path]:
    found = sorted((runs_dir / row / RECIPE).glob("*/results.json"), key=lambda p: p.stat().st_mtime)
    return found[-1].parent if found else None


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{cpu}, {os.cpu_count()} cores"


def saved_and_converged(row: str, runs_dir: Path, save: Path, run: Optional[Path] = None) -> bool:
    """Is ``row`` saved already, from the same run (``run``: default, this table's run of the row), finished? Then
    it is not trained again and its record stands."""
    saved, run = save / row / "results.json", run if run is not None else run_dir_of(runs_dir, row)
    if not saved.is_file() or run is None or not (run / "results.json").is_file():
        return False  # nothing saved, or the run is not here (another machine, a fresh runs folder): train it
    mine, theirs = json.loads(saved.read_text(encoding="utf-8")), json.loads((run / "results.json").read_text())
    return mine.get("run_id") == theirs.get("run_id") and mine.get("status") == theirs.get("status") == "complete"


def sessions_of_run(sessions: List[dict], run_id: str) -> List[dict]:
    """The sessions that trained run ``run_id``: its resumes (``run`` is its id) and the fresh start just before
    the first of them (``run`` None), or only the last session when it never resumed; sessions of a row's earlier
    runs (another id: the recipe or its settings changed) are left out. Sessions noted before runs were (no
    ``run`` key at all) are all kept."""
    if not any("run" in session for session in sessions):
        return sessions
    resumes = [i for i, session in enumerate(sessions) if session.get("run") == run_id]
    first = resumes[0] if resumes else len(sessions)
    if first > 0 and sessions[first - 1].get("run") is None:
        first -= 1
    return sessions[first:]


def add_row_arguments(parser: argparse.ArgumentParser, save: Path) -> None:
    """The options every converged table takes: where rows train and are saved, what ran beside, ``--read``."""
    parser.add_argument("--runs-dir", type=Path, help="each row's runs go to DIR/<row>")
    parser.add_argument("--save", type=Path, default=save)
    parser.add_argument("--beside", default="nothing else", help="what else ran on the machine, in words")
    parser.add_argument("--read", action="store_true", help="only print the table of the saved rows")
    parser.add_argument("--threads", type=int, help="train.num_threads of every row (default: the run's own choice)")


def train_rows(rows: Sequence[str], train: Callable[[str], None]) -> int:
    """``train(row)`` for each row in turn; a row whose ``mlparse run`` fails ends them with a line, not a traceback
    (the run said why above it). 0, or 1 after a failed row."""
    for row in rows:
        try:
            train(row)
        except subprocess.CalledProcessError as error:
            print(f"row {row}: `mlparse run` stopped with exit status {error.returncode} (its message is above); "
                  "the same command resumes the row", file=sys.stderr)
            return 1
    return 0


def converged_cell(results: dict) -> str:
    """Whether a saved row converged, as the tables say it, with the patience it stopped on."""
    convergence = results.get("convergence") or {}
    said = {True: "yes", False: "no (epoch bound)", None: "-"}[convergence.get("converged")]
    patience = convergence.get("patience_epochs")
    if said == "yes" and not patience and convergence.get("rule"):  # another toolkit's parser: its own rule
        return f"yes ({convergence['rule'].split(':')[0]})"
    return f"{said} (patience {patience:g} epochs)" if said == "yes" and patience else said


def machine_cell(record: dict) -> str:
    """Where a saved row trained and with which commits, as the tables say it."""
    return f"{record.get('machine', '?')}, {commits_of(record)}"


def commits_of(record: dict) -> str:
    """The commits a saved row trained with, in the order of its sessions (one when it ran in one)."""
    commits = [session["commit"] for session in record.get("sessions", [])] or [record.get("commit", "?")]
    return " then ".join(dict.fromkeys(commits))


def head_commit() -> str:
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def train_row(row: str, runs_dir: Path, save: Path, beside: str, command: Optional[List[str]] = None,
              run: Optional[Path] = None, threads: Optional[int] = None) -> None:
    """Train ``row`` to convergence (or continue it) and save its results, dev curve and machine record. Each
    session of a row (a start or a resume) is noted in ``DIR/<row>/sessions.jsonl`` (the commit its code is, when
    it started, what ran beside), and the record lists them all. ``command`` and ``run`` (its run directory): by
    default this table's (:func:`command_of`, :func:`run_dir_of`); ``benchmarks/headline_converged.py`` gives its own."""
    if saved_and_converged(row, runs_dir, save, run):
        print(f"  {row}: converged and saved already ({save / row})", flush=True)
        return
    command = command or command_of(row, runs_dir, threads)
    print(f"$ {' '.join(command)}", flush=True)
    sessions = runs_dir / row / "sessions.jsonl"
    sessions.parent.mkdir(parents=True, exist_ok=True)
    known = run if run is not None else run_dir_of(runs_dir, row)  # a run being resumed (None: a fresh start)
    session = {"commit": head_commit(), "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "beside": beside,  # the code the row trains with in this session: the commit it started at
               "run": known.name if known is not None and (known / "results.json").is_file() else None}
    with sessions.open("a", encoding="utf-8") as out:
        out.write(json.dumps(session) + "\n")
    started = time.monotonic()
    subprocess.run([sys.executable, *command[1:]], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    run = run if run is not None else run_dir_of(runs_dir, row)
    assert run is not None and (run / "results.json").is_file(), run
    target = save / row
    target.mkdir(parents=True, exist_ok=True)
    for name in ("results.json", "log.jsonl"):  # an external run has no log.jsonl: its peer's own log is its curve
        if (run / name).is_file():
            shutil.copyfile(run / name, target / name)
    for log in sorted((run / "peer").glob("*.train.log")):  # the peer's own log (SuPar's), small: its dev curve
        shutil.copyfile(log, target / f"peer-{log.name}")
    every = [json.loads(line) for line in sessions.read_text(encoding="utf-8").splitlines() if line.strip()]
    every = sessions_of_run(every, run.name)
    record = {"machine": machine(), "commit": every[0]["commit"], "command": " ".join(command),
              "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "beside": beside,
              "sessions": every, "wall_minutes_this_session": round((time.monotonic() - started) / 60.0, 1)}
    (target / "machine.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"  {row}: saved to {target}", flush=True)


def tag_accuracy(results: dict, base: str) -> str:
    if base == "gold":
        return "gold"
    if base == "none":
        return "none read"
    if base == "jackknife":
        accuracy = (results.get("input_tags") or {}).get("accuracy") or {}
        return " / ".join(f"{accuracy[s]:.2f}" if s in accuracy else "-" for s in ("train", "dev", "test"))
    shown = [(results.get(split) or {}).get("tagging_accuracy") for split in ("dev", "test")]
    return "- / " + " / ".join("-" if value is None else f"{value:.2f}" for value in shown)


def table(save: Path, rows: Sequence[str]) -> str:
    """The converged table from the saved files: one line per row, with the gap to the gold row of the same input."""
    header = ["tags", "characters", "seed", "tag accuracy train / dev / test", "converged", "epochs",
              "hours (pauses left out)",
              "dev LAS", "test LAS", "test LAS - gold", "machine, commit"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    saved = {row: save / row for row in rows if (save / row / "results.json").is_file()}
    results = {row: json.loads((path / "results.json").read_text()) for row, path in saved.items()}
    for row in rows:
        base, extra, seed = row_parts(row)
        if row not in results:
            lines.append(f"| {TITLES[base]} | {'CharLSTM' if extra else 'no'} | {seed} | not converged yet |"
                         + " |" * (len(header) - 4))
            continue
        data = results[row]
        record = json.loads((saved[row] / "machine.json").read_text()) if (saved[row] / "machine.json").is_file() else {}
        test = (data.get("test") or {}).get("las")
        gold_row = "gold" + ("+chars" if extra else "")  # the gold row of the same input, the recipe's seed
        gold = (results.get(gold_row, {}).get("test") or {}).get("las")
        gap = "-" if test is None or gold is None or row == gold_row else f"{test - gold:+.2f}"
        cells = [TITLES[base], "CharLSTM" if extra else "no", str(seed), tag_accuracy(data, base),
                 converged_cell(data),
                 f"{data.get('epochs') or 0:.1f}",
                 f"{((data.get('training_seconds') or 0) - 60 * record.get('paused_minutes', 0)) / 3600:.2f}",
                 f"{(data.get('dev') or {}).get('las', float('nan')):.2f}", "-" if test is None else f"{test:.2f}", gap,
                 machine_cell(record)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="gold,none,joint,jackknife", help="of " + ", ".join(ROWS))
    parser.add_argument("--chars", choices=("both", "no", "only"), default="both")
    parser.add_argument("--seed", type=int, help="train.seed of the rows (rows <row>@seedN; default the recipe's 1)")
    add_row_arguments(parser, SAVED)
    args = parser.parse_args(argv)
    rows = row_names(chosen_rows(parser, args.rows, list(ROWS)), args.chars, args.seed)
    if not args.read and args.runs_dir is None:  # `make bench`, say: hours of training are asked for, not assumed
        print("no --runs-dir: the saved rows only (give --runs-dir DIR to train or continue them)")
    elif not args.read and train_rows(rows, lambda row: train_row(row, args.runs_dir, args.save, args.beside,
                                                                  threads=args.threads)):
        return 1
    print(table(args.save, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
