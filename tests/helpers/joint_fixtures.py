"""Hand-made joint data: the tiny trees of helpers/run_fixtures.py with hand-written heads and relations (Collins-style
heads: the verb heads S and VP, the noun NP, the preposition PP), written as a .trees file and the .conllu beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

from helpers.run_fixtures import REPO, TINY_MODEL, TINY_SPAN, TINY_TREES, tiny_trees

#: (heads, relations) of each tree of TINY_TREES, in order.
TINY_HEADS = [
    ([2, 3, 0, 3], "det nsubj root punct"),
    ([2, 0, 4, 2, 2], "nsubj root det obj punct"),
    ([0], "root"),
    ([2, 0, 2], "nsubj root acomp"),
    ([2, 3, 0, 3, 3], "det nsubj root obj punct"),
    ([2, 0, 2], "nsubj root advmod"),
    ([3, 3, 4, 0, 4, 7, 5, 4], "det amod nsubj root prep det pobj punct"),
    ([0, 1, 1, 1], "root nsubj acomp punct"),
]

TINY_LAL: Dict[str, Any] = {"lal_heads": 4, "lal_d_head": 8, "lal_d_ff": 32, "lal_attention_dropout": 0.0,
                            "d_arc": 24, "d_relation": 12, "mlp_dropout": 0.0}
TINY_JOINT_TRAIN: Dict[str, Any] = {
    "lr": 0.01, "batch_size": 4, "warmup_steps": 2, "max_epochs": 40, "patience_epochs": 100, "num_threads": 1,
    "evals_per_epoch": 1, "unk_word_dropout": False, "subbatch_tokens": 30, "device": "cpu"}


def conllu_of(trees_text: List[str] = TINY_TREES, heads=TINY_HEADS) -> str:
    from mlparse.trees.reader import parse_bracketed

    blocks = []
    for k, (text, (head, rels)) in enumerate(zip(trees_text, heads), start=1):
        leaves = parse_bracketed(text).trees[0].leaves()
        lines = [f"# sent_id = {k}"]
        for i, (leaf, h, rel) in enumerate(zip(leaves, head, rels.split()), start=1):
            lines.append(f"{i}\t{leaf.word}\t_\t{leaf.tag}\t{leaf.tag}\t_\t{h}\t{rel}\t_\t_")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"


def write_joint_data(folder: Path, conllu: Optional[str] = None) -> Dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for split in ("train", "dev", "test"):
        (folder / f"{split}.trees").write_text("\n".join(TINY_TREES) + "\n", encoding="utf-8")
        (folder / f"{split}.conllu").write_text(conllu or conllu_of(), encoding="utf-8")
        paths[split] = str(folder / f"{split}.trees")
    return paths


def write_joint_recipe(tmp_path: Path, joint: Optional[dict] = None, train: Optional[dict] = None,
                       model: Optional[dict] = None) -> Path:
    """A tiny joint recipe over hand-made data; ``model``: keys of the model: and span: sections both."""
    from mlparse.config.layout import split_model_settings

    model_keys, span_keys = split_model_settings(model or {})
    paths = write_joint_data(tmp_path / "data")
    recipe = {"base": str(REPO / "recipes" / "base.yaml"), "name": "tiny-joint",
              "data": {"family": "tiny", "language": "english", **paths},
              "model": {**TINY_MODEL, "kind": "joint", **model_keys},
              "span": {**TINY_SPAN, **span_keys},
              "joint": {**TINY_LAL, **(joint or {})},
              "train": {**TINY_JOINT_TRAIN, **(train or {})}}
    path = tmp_path / "tiny-joint.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


__all__ = ["TINY_HEADS", "conllu_of", "tiny_trees", "write_joint_data", "write_joint_recipe"]
