"""What a run records about how its prepared splits were made: a dev split carved from train.

``mlparse prepare ud`` carves a dev split from train for a treebank released without one
(:mod:`mlparse.data.ud_dev`) and writes the rule and counts into the manifest's ``ud.dev_carved``;
every run on that data copies them into ``results.json`` (``dev_carved``) and adds a note, so that a
score on such a dev split is never mistaken for one on an official dev split.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from mlparse.config import RecipeConfig


def carved_dev(config: RecipeConfig) -> Optional[Dict[str, Any]]:
    """The manifest's ``ud.dev_carved`` of the run's prepared data; None for explicit split paths, other
    treebanks, or a manifest that cannot be read."""
    if any(getattr(config.data, split) for split in ("train", "dev", "test")):
        return None
    path = config.split_path("train").parent / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ud = data.get("ud") if isinstance(data, dict) else None
    record = ud.get("dev_carved") if isinstance(ud, dict) else None
    return dict(record) if isinstance(record, dict) else None


def carved_dev_note(record: Dict[str, Any]) -> str:
    return (f"no official dev split: dev was carved from train by `mlparse prepare` ({record.get('rule')}; "
            f"{record.get('dev_sentences')} of {record.get('train_sentences_before')} training sentences)")
