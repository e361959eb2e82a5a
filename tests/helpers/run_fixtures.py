"""Tiny hand-written treebank, recipe and recording reporter shared by the span-parser, trainer and run tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import yaml

from mlparse.train.trainer import Reporter, StepInfo
from mlparse.trees.reader import parse_bracketed
from mlparse.trees.tree import Tree

REPO = Path(__file__).resolve().parents[2]

TINY_TREES = [
    "(TOP (S (NP (DT the) (NN dog)) (VP (VBZ barks)) (. .)))",
    "(TOP (S (NP (NNP John)) (VP (VBD saw) (NP (DT a) (NN cat))) (. .)))",
    "(TOP (NP (NN hello)))",
    "(TOP (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ red)))))",
    "(TOP (S (NP (DT a) (NN cat)) (VP (VBD saw) (NP (NNP John))) (. .)))",
    "(TOP (S (NP (PRP he)) (VP (VBZ runs) (ADVP (RB fast)))))",
    "(TOP (S (NP (DT the) (JJ big) (NN dog)) (VP (VBD slept) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))",
    "(TOP (SQ (VBZ is) (NP (PRP it)) (ADJP (JJ red)) (. ?)))",
]

#: A model small enough to train in a second on one CPU thread, no dropout (deterministic comparisons).
TINY_MODEL: Dict[str, Any] = {
    "num_layers": 1, "d_model": 32, "num_heads": 2, "d_kv": 8, "d_ff": 32, "d_char_emb": 8,
    "use_words": True, "max_len": 40, "attention_dropout": 0.0, "relu_dropout": 0.0, "residual_dropout": 0.0,
    "word_emb_dropout": 0.0, "tag_emb_dropout": 0.0, "morpho_emb_dropout": 0.0, "char_input_dropout": 0.0,
}
#: Its span scoring head (the recipe's span: section).
TINY_SPAN: Dict[str, Any] = {"d_label_hidden": 32}
TINY_TRAIN: Dict[str, Any] = {
    "lr": 0.01, "batch_size": 4, "warmup_steps": 2, "max_epochs": 6, "patience_epochs": 100, "num_threads": 1,
    "evals_per_epoch": 1, "unk_word_dropout": False, "subbatch_tokens": 20,
}


class Record(Reporter):
    """A reporter that keeps the step of every update and every note, in order; the note a run starts with on
    its torch threads (mlparse/train/threads.py) is kept apart, in ``threads``."""

    def __init__(self) -> None:
        self.steps: List[int] = []
        self.notes: List[str] = []
        self.threads: List[str] = []

    def on_step(self, info: StepInfo) -> None:
        self.steps.append(info.step)

    def on_note(self, message: str) -> None:
        (self.threads if message.startswith("torch threads: ") else self.notes).append(message)


def tiny_trees() -> List[Tree]:
    return [parse_bracketed(text).trees[0] for text in TINY_TREES]


def write_tiny_recipe(tmp_path: Path, name: str = "tiny", model: Dict[str, Any] | None = None,
                      train: Dict[str, Any] | None = None, dev_trees: List[str] | None = None) -> Path:
    """Write train/dev/test files and a recipe inheriting recipes/base.yaml; returns the recipe path.

    ``model``: settings of the model: and span: sections both (each key goes to its section)."""
    from mlparse.config.layout import split_model_settings

    model_keys, span_keys = split_model_settings(model or {})
    data_dir = tmp_path / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev", "test"):
        lines = TINY_TREES if split == "train" or dev_trees is None else dev_trees
        (data_dir / f"{split}.trees").write_text("\n".join(lines) + "\n", encoding="utf-8")
    recipe = {
        "base": str(REPO / "recipes" / "base.yaml"),
        "data": {"family": "tiny", "language": "english", **{s: str(data_dir / f"{s}.trees") for s in ("train", "dev", "test")}},
        "model": {**TINY_MODEL, **model_keys},
        "span": {**TINY_SPAN, **span_keys},
        "train": {**TINY_TRAIN, **(train or {})},
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


def train_tiny_span_run(tmp_path: Path, max_epochs: int = 8) -> Path:
    """Train the tiny span recipe (:func:`write_tiny_recipe`) for ``max_epochs`` into ``tmp_path / "runs"``;
    returns its run directory (the model the API, export and quantization tests load)."""
    from mlparse.config import load_recipe
    from mlparse.run_dir import RunDir
    from mlparse.train.runner import RunOptions, run_recipe

    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": max_epochs}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    return RunDir.for_recipe(tmp_path / "runs", config).path


def train_tiny_seeds(tmp_path: Path, seeds: Tuple[int, ...] = (1, 2), train: Dict[str, Any] | None = None) -> List[Path]:
    """Train the tiny recipe (:func:`write_tiny_recipe`) once per seed into ``tmp_path / "runs"``; returns the run
    directories, in seed order (the data is under ``tmp_path / "data"``)."""
    from mlparse.config import load_recipe
    from mlparse.run_dir import RunDir
    from mlparse.train.runner import RunOptions, run_recipe

    recipe = write_tiny_recipe(tmp_path, train=train)
    dirs = []
    for seed in seeds:
        config = load_recipe(recipe, [f"train.seed={seed}"])
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
        dirs.append(RunDir.for_recipe(tmp_path / "runs", config).path)
    return dirs
