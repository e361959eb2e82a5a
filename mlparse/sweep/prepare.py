"""Data for a sweep: every treebank its members use is prepared once, before any member starts."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Dict, List, Tuple

from mlparse.sweep.suite import Member


def needs_preparing(member: Member) -> bool:
    """Does the member's catalog treebank lack its prepared splits (or their manifest.json)?"""
    from mlparse.data.catalog import family_names

    config = member.config
    if any(getattr(config.data, split) for split in ("train", "dev", "test")):
        return False  # explicit split files: used as they are
    if config.data.family not in family_names():
        return False  # not in the catalog: the run reports what is missing
    paths = [config.split_path(split) for split in ("train", "dev", "test")]
    return not all(path.is_file() for path in paths) or not (paths[0].parent / "manifest.json").is_file()


def prepare_treebanks(members: List[Member], announce: Callable[[str], None]) -> Dict[Tuple[str, str, str], str]:
    """Prepare each missing treebank once (``mlparse prepare``'s pipeline); returns the treebanks that failed,
    with the reason, so that only their members are marked failed."""
    from mlparse.data.prepare import prepare_family

    failed: Dict[Tuple[str, str, str], str] = {}
    todo = list(dict.fromkeys(member.treebank for member in members if needs_preparing(member)))
    for root, family, language in todo:
        announce(f"preparing {family}/{language} into {Path(root) / family / language}")
        try:
            prepare_family(family, languages=[language], out=Path(root))
        except Exception as error:  # the pipeline's errors carry user-facing messages; one treebank fails alone
            failed[(root, family, language)] = f"preparing {family}/{language} failed: {error}"
            continue
        if any(needs_preparing(member) for member in members if member.treebank == (root, family, language)):
            failed[(root, family, language)] = (f"`mlparse prepare {family} --language {language}` found no "
                                                f"treebank to prepare (point it at one with --source)")
    return failed
