"""What a run records about its prepared splits: how they were made, and the gold files it is scored against.

``mlparse prepare ud`` carves a dev split from train for a treebank released without one
(:mod:`mlparse.data.ud_dev`) and writes the rule and counts into the manifest's ``ud.dev_carved``;
every run on that data copies them into ``results.json`` (``dev_carved``) and adds a note, so that a
score on such a dev split is never mistaken for one on an official dev split.  A UD run also records the
sizes of its splits (``data_sizes``), by which the report groups treebanks as CoNLL 2018 did.  Every run
records the sha256 of its dev and test gold files (``gold``), so that a gold file changed after training is
noticed instead of silently scored against (:mod:`mlparse.compare.gold`).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Sequence

from mlparse.config import RecipeConfig


def _manifest(config: RecipeConfig) -> Optional[Dict[str, Any]]:
    """The run's prepared ``manifest.json`` as plain data; None for explicit split paths or an unreadable file."""
    if any(getattr(config.data, split) for split in ("train", "dev", "test")):
        return None
    path = config.split_path("train").parent / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def carved_dev(config: RecipeConfig) -> Optional[Dict[str, Any]]:
    """The manifest's ``ud.dev_carved`` of the run's prepared data; None for explicit split paths, other
    treebanks, or a manifest that cannot be read."""
    ud = (_manifest(config) or {}).get("ud")
    record = ud.get("dev_carved") if isinstance(ud, dict) else None
    return dict(record) if isinstance(record, dict) else None


def data_sizes(config: RecipeConfig) -> Dict[str, Dict[str, int]]:
    """``{split: {"sentences": n, "words": w}}`` of the prepared splits (UD treebanks only: the report groups
    them by training size, :mod:`mlparse.report.macro`); empty for other data."""
    manifest = _manifest(config) or {}
    if not isinstance(manifest.get("ud"), dict) or not isinstance(manifest.get("splits"), dict):
        return {}
    return {split: {"sentences": int(stats.get("sentences", 0)), "words": int(stats.get("tokens", 0))}
            for split, stats in manifest["splits"].items() if isinstance(stats, dict)}


def carved_dev_note(record: Dict[str, Any]) -> str:
    return (f"no official dev split: dev was carved from train by `mlparse prepare` ({record.get('rule')}; "
            f"{record.get('dev_sentences')} of {record.get('train_sentences_before')} training sentences)")


def gold_record(task: Any, config: RecipeConfig, splits: Sequence[str] = ("dev", "test")) -> Dict[str, Dict[str, Any]]:
    """``results.json``'s ``gold`` (:attr:`mlparse.results.RunResults.gold`): per split, the path and sha256 of the
    file the run is scored against, and ``files`` with every file when ``task`` reads more than one (joint).  Made
    when the splits are read, so that it holds the files the scores come from."""
    from mlparse.data.manifest import sha256_file

    record: Dict[str, Dict[str, Any]] = {}
    for split in splits:
        files = [{"path": str(path.resolve()), "sha256": sha256_file(path)}
                 for path in task.gold_files(config.split_path(split))]
        record[split] = dict(files[0], files=files) if len(files) > 1 else files[0]
    return record
