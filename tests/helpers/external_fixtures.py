"""Recipes of ``model.kind: external`` over hand-made data, run with the fake peer (tests/helpers/fake_peer.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, Optional

import yaml

from helpers.dep_fixtures import SENTENCES, conllu_text

FAKE_PEER = Path(__file__).with_name("fake_peer.py")
TRAIN = "{python} " + str(FAKE_PEER) + " train --train {train} --dev {dev} --model {workdir}/model.json --seed {seed}"
PREDICT = "{python} " + str(FAKE_PEER) + " predict --model {workdir}/model.json --input {input} --output {output}"


def write_external_recipe(tmp_path: Path, name: str = "fake-peer", train_extra: str = "", predict_extra: str = "",
                          external: Optional[Dict[str, Any]] = None, data: Optional[Dict[str, Any]] = None,
                          train: Optional[Dict[str, Any]] = None) -> Path:
    """A recipe of the fake peer on the hand-made sentences of :mod:`helpers.dep_fixtures` (train = dev = test,
    dev and test with a multiword token)."""
    folder = tmp_path / "data"
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev", "test"):
        (folder / f"{split}.conllu").write_text(conllu_text(with_mwt=split != "train"), encoding="utf-8")
    recipe = {"name": name, "model": {"kind": "external", "use_tags": True},
              "data": {"family": "tiny", "language": "english", "tags": "gold",
                       **{s: str(folder / f"{s}.conllu") for s in ("train", "dev", "test")}, **(data or {})},
              "train": {"seed": 7, "num_threads": 1, **(train or {})},
              "external": {"system": "FakePeer", "version": "0.3", "settings": "left chains",
                           "python": sys.executable, "install": "pip install fake-peer",
                           "version_command": "{python} " + str(FAKE_PEER) + " version",
                           "train": TRAIN + (" " + train_extra if train_extra else ""),
                           "predict": PREDICT + (" " + predict_extra if predict_extra else ""),
                           "task": "dependency", "columns": ["form", "upos"], "stop_seconds": 2, **(external or {})}}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


def chain_uas() -> float:
    """UAS of left chains on :data:`SENTENCES`, counted by hand (word 1 the root, word i headed by i-1)."""
    correct = total = 0
    for _, _, heads, _ in SENTENCES:
        for index, head in enumerate(heads, start=1):
            correct += head == (0 if index == 1 else index - 1)
            total += 1
    return 100.0 * correct / total
