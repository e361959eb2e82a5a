"""Trainers of tiny span, biaffine and joint models on hand-made data, several sub-batches per update: shared by
the host-sync, mixed-precision, overlap and target tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import torch

from helpers.run_fixtures import tiny_trees, write_tiny_recipe
from mlparse.config import load_recipe
from mlparse.models.span_parser import build_parser
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.tasks.treebank import TreeSplit, golds_of
from mlparse.train.trainer import Trainer


def tiny_trainer(tmp_path: Path, decoder: str, device: str = "cpu", train: Optional[Dict[str, Any]] = None,
                 **model: object) -> Trainer:
    """A Trainer of a tiny span parser on hand-made trees, several sub-batches per update, on ``device``
    (``train``: more train settings of its recipe)."""
    settings = {"decoder": decoder, "subbatch_tokens": 30, "device": device, **(train or {})}
    config = load_recipe(write_tiny_recipe(tmp_path, model=dict(model), train=settings))
    trees = tiny_trees()
    torch.manual_seed(0)
    parser = build_parser(config.model, trees, span=config.span).to(device)
    split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
    return Trainer(config, parser, ConstituencyTask(), split, golds_of(trees, parser.labels), split,
                   CheckpointFiles(tmp_path / "checkpoints"), torch.device(device, 0) if device == "cuda" else torch.device(device))


def generic_trainer(tmp_path: Path, kind: str, overrides: Sequence[str] = ()) -> Trainer:
    """A Trainer for a tiny biaffine or joint model on hand-made data, several sub-batches per update."""
    from helpers.joint_fixtures import write_joint_recipe
    from helpers.dep_fixtures import write_dep_recipe
    from mlparse.models.registry import parser_class
    from mlparse.tasks import task_for

    path = write_dep_recipe(tmp_path) if kind == "biaffine" else write_joint_recipe(tmp_path)
    config = load_recipe(path, ["train.subbatch_tokens=30", *overrides])
    task = task_for(config.task)
    train = task.read_split(Path(config.data.train))
    torch.manual_seed(0)
    model = parser_class(kind).build(config, train.examples)
    return Trainer(config, model, task, train, [model.gold(e) for e in train.examples], train,
                   CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"))
