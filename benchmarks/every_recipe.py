"""Every bundled recipe, run for a few updates and one dev check at a tiny model size.

A check that no bundled recipe is broken by its data (issue 14: ``free/icelandic`` could never
finish, because its dev split has punctuation-only sentences that strict evalb refused).  For each
``recipes/*.yaml``, ``recipes/free/*.yaml`` and ``recipes/lal/*.yaml`` it runs the real command,

    python -m mlparse run RECIPE --fresh --runs-dir RUNS --set data.root=DATA --set <tiny sizes>

with the recipe's own data, parameter file and switches but a 1-layer, d_model 32 model trained on
its first ``--updates`` x ``--batch`` training trees in one epoch: that many updates, one dev check
over the whole dev split, then the final dev and test parse.  The command prepares the data itself
(``ensure_prepared``) when the treebank is found (``$MLPARSE_DATA``, ``../shared/treebanks``); the
synthetic demo treebank is generated.  Licensed treebanks that are not here (the PTB, SPMRL, the CTB of
``lal/chinese``) are reported as skipped, and so are recipes whose pretrained encoder is a model hub name.
``lal/*.yaml`` (joint parsers) also get tiny Label Attention sizes.  ``base.yaml`` is runnable on its own (the
PTB), so it is not left out.

Prints one line per recipe: ran (updates, dev checks, dev sentences and how many evalb skipped,
seconds), failed (the command's last message line), or skipped (why); exits 1 if any failed.

    python3 benchmarks/every_recipe.py [--data DIR] [--runs-dir DIR] [--updates 3] [--batch 8] [RECIPE...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from timing import machine

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: A model small enough that a dev check over 7,500 sentences takes seconds on one CPU core.
TINY = {
    "model.num_layers": 1, "model.d_model": 32, "model.num_heads": 2, "model.d_kv": 8, "model.d_ff": 32,
    "span.d_label_hidden": 16, "model.d_char_emb": 8, "span.d_tag_hidden": 16,
    "train.max_epochs": 1, "train.evals_per_epoch": 1, "train.warmup_steps": 1, "train.subbatch_tokens": 500,
    # the joint parser's own section (unread by the other kinds, so harmless there)
    "joint.lal_heads": 2, "joint.lal_d_head": 8, "joint.lal_d_ff": 16, "joint.d_arc": 16, "joint.d_relation": 8,
}


@dataclass
class Outcome:
    recipe: str
    state: str  # ran | failed | skipped
    detail: str


def bundled_recipes() -> List[str]:
    names = [p.stem for p in sorted((REPO / "recipes").glob("*.yaml"))]
    return names + [f"{folder}/{p.stem}" for folder in ("free", "lal")
                    for p in sorted((REPO / "recipes" / folder).glob("*.yaml"))]


def data_missing(family: str, language: str, data: Path) -> Optional[str]:
    """Why the recipe's data cannot be had here (None: prepared already, generated, or its source is found)."""
    from mlparse.data.catalog import family_names, load_family
    from mlparse.data.prepare import locate_languages
    from mlparse.data.sources import SourceNotFoundError, candidate_bases

    prepared = data / family / language
    if (prepared / "manifest.json").is_file() or (family == "synthetic" and (prepared / "train.trees").is_file()):
        return None
    if family == "synthetic":
        from mlparse.data.synthetic import write_synthetic_treebank

        write_synthetic_treebank(prepared)
        return None
    if family not in family_names():
        return f"no catalog entry for family {family!r}"
    spec = load_family(family)
    try:
        found, not_found = locate_languages(spec, [language], None)
    except SourceNotFoundError as error:
        return str(error)
    if found:
        return None
    places = [str(c.path) for c in candidate_bases(None, spec.source.search_shared) if c.path.is_dir()]
    where = f"in {', '.join(places)}" if places else "($MLPARSE_DATA unset, no --source)"
    hint = spec.source.required_hint.split(";")[0] if spec.source.required_hint else ""
    return f"data not here: no {family}/{language} treebank {where}" + (f"; {hint}" if hint else "")


def run_one(recipe: str, data: Path, runs: Path, updates: int, batch: int) -> Outcome:
    from mlparse.config import ConfigError, load_recipe

    try:
        config = load_recipe(recipe)
    except ConfigError as error:
        return Outcome(recipe, "failed", f"recipe: {error}")
    why = data_missing(config.data.family, config.data.language, data)
    if why is not None:
        return Outcome(recipe, "skipped", why)
    pretrained = config.pretrained.model
    if pretrained is not None and not Path(pretrained).expanduser().is_dir():
        return Outcome(recipe, "skipped", f"its pretrained model {pretrained} is a hub name (this check fetches "
                                          "nothing; the tests train these recipes on a tiny local model)")
    sets = {**TINY, "train.batch_size": batch, "data.max_train_sentences": updates * batch, "data.root": str(data)}
    command = [sys.executable, "-m", "mlparse", "run", recipe, "--fresh", "--runs-dir", str(runs)]
    for key, value in sets.items():
        command += ["--set", f"{key}={value}"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    results = sorted(runs.glob(f"{config.name}/*/results.json"), key=lambda p: p.stat().st_mtime)
    if proc.returncode != 0 or not results:
        lines = [line.strip() for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
        reason = next((line for line in reversed(lines) if "rror" in line), lines[-1] if lines else "no output")
        return Outcome(recipe, "failed", f"exit {proc.returncode}: {reason[:300]}")
    run_dir = results[-1].parent
    summary = json.loads(results[-1].read_text())
    log = [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines() if line.strip()]
    dev, test = summary.get("dev") or {}, summary.get("test") or {}
    if summary.get("status") != "complete" or not (run_dir / "checkpoints" / "best.pt").is_file():
        return Outcome(recipe, "failed", f"status {summary.get('status')}: {summary.get('error')}")
    steps = log[-1]["step"] if log else 0
    return Outcome(recipe, "ran", (
        f"{steps} updates, {len(log)} dev check(s); dev {dev.get('sentences', 0):,} sentences "
        f"({dev.get('skip_sentences', 0)} skipped, {dev.get('error_sentences', 0)} errors), "
        f"test {test.get('sentences', 0):,} ({test.get('skip_sentences', 0)} skipped); "
        f"{config.data.evalb_params}; {seconds:.0f} s"))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("recipes", nargs="*", help="recipe names (default: every bundled recipe)")
    parser.add_argument("--data", type=Path, default=Path("/tmp/mlparse-every-recipe/data"),
                        help="prepared data root (reused between runs; prepared there when missing)")
    parser.add_argument("--runs-dir", type=Path, default=Path("/tmp/mlparse-every-recipe/runs"))
    parser.add_argument("--updates", type=int, default=3, help="optimizer updates per recipe")
    parser.add_argument("--batch", type=int, default=8, help="sentences per update")
    args = parser.parse_args(argv)

    print(f"{datetime.date.today().isoformat()}; {machine()}", flush=True)
    outcomes = []
    for recipe in args.recipes or bundled_recipes():
        outcome = run_one(recipe, args.data.resolve(), args.runs_dir.resolve(), args.updates, args.batch)
        outcomes.append(outcome)
        print(f"{outcome.recipe:<20} {outcome.state:<8} {outcome.detail}", flush=True)
    counts = {state: sum(o.state == state for o in outcomes) for state in ("ran", "failed", "skipped")}
    print(f"{len(outcomes)} recipes: {counts['ran']} ran, {counts['failed']} failed, {counts['skipped']} skipped "
          "(data not here)")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
