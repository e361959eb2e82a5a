"""Split schemes: which source files (or which trees) go to train, dev and test.

Each scheme is a function ``(root, files_pattern, options) -> SplitPlan`` registered in
:data:`SCHEMES` under the name the catalog's ``split: {scheme: ...}`` uses:

* ``ranges``  -- an integer taken from each file path by the regex ``key`` (one group)
  falls in a range per split: PTB sections ``02-21 / 22 / 23``, sample file numbers.
* ``files``   -- a glob per split; a list gives alternatives, the first that matches
  anything wins (SPMRL: ``train`` if present, else ``train5k``).
* ``modulo``  -- files (``unit: file``) or trees (``unit: tree``) in sorted order,
  position modulo ``modulus``: residues listed under ``dev`` and ``test`` go there,
  the rest to train.  Deterministic, for treebanks without an official split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from mlparse.data.sources import find_files

SPLITS = ("train", "dev", "test")


class SplitError(ValueError):
    """The split definition cannot be applied (bad option, nothing matched)."""


@dataclass
class SplitPlan:
    """Files per split; for tree-level schemes all files sit under ``"*"`` and ``tree_split`` decides."""

    files: Dict[str, List[Path]]
    definition: Dict[str, Any]
    tree_split: Optional[Callable[[int], str]] = None
    missing: List[str] = field(default_factory=list)
    unused: List[Path] = field(default_factory=list)

    def ordered_files(self) -> List[Tuple[Path, str]]:
        """(file, split or ``"*"``) in reading order."""
        return [(path, split) for split, paths in self.files.items() for path in paths]


def _parse_range(item: Any) -> Tuple[int, int]:
    if isinstance(item, int):
        return item, item
    text = str(item)
    if "-" in text:
        low, high = text.split("-", 1)
        return int(low), int(high)
    return int(text), int(text)


def ranges_scheme(root: Path, pattern: Optional[str], options: Mapping[str, Any]) -> SplitPlan:
    if not pattern:
        raise SplitError("the 'ranges' scheme needs a 'files' pattern")
    key = re.compile(options.get("key", r"(\d+)"))
    spans = {split: [_parse_range(item) for item in _as_list(options.get(split))] for split in SPLITS}
    files: Dict[str, List[Path]] = {split: [] for split in SPLITS}
    unused = []
    for path in find_files(root, pattern):
        match = key.search(path.as_posix())
        if not match:
            unused.append(path)
            continue
        number = int(match.group(1))
        for split in SPLITS:
            if any(low <= number <= high for low, high in spans[split]):
                files[split].append(path)
                break
        else:
            unused.append(path)
    definition = {
        "scheme": "ranges",
        "files": pattern,
        "key": key.pattern,
        **{split: [f"{low}-{high}" if low != high else str(low) for low, high in spans[split]] for split in SPLITS},
        "unused_files": len(unused),
    }
    missing = [split for split in SPLITS if not files[split]]
    if unused and len(missing) == len(SPLITS):
        names = ", ".join(path.name for path in unused[:3]) + (", ..." if len(unused) > 3 else "")
        ranges = "; ".join(f"{split} {', '.join(definition[split]) or '-'}" for split in SPLITS)
        raise SplitError(f"none of the {len(unused)} file(s) matching {pattern} in {root} belongs to a split "
                         f"({ranges}, numbers taken from the path by '{key.pattern}'); found: {names}")
    return SplitPlan(files, definition, missing=missing, unused=unused)


def files_scheme(root: Path, pattern: Optional[str], options: Mapping[str, Any]) -> SplitPlan:
    files: Dict[str, List[Path]] = {}
    definition: Dict[str, Any] = {"scheme": "files"}
    missing = []
    for split in SPLITS:
        alternatives = _as_list(options.get(split))
        chosen: List[Path] = []
        used = None
        for alternative in alternatives:
            chosen = find_files(root, alternative)
            if chosen:
                used = alternative
                break
        if chosen:
            files[split] = chosen
            definition[split] = {
                "pattern": used,
                "alternatives": alternatives,
                "files": [path.relative_to(root).as_posix() for path in chosen],
            }
        else:
            missing.append(split)
            definition[split] = {"pattern": None, "alternatives": alternatives, "files": []}
    return SplitPlan(files, definition, missing=missing)


def modulo_scheme(root: Path, pattern: Optional[str], options: Mapping[str, Any]) -> SplitPlan:
    if not pattern:
        raise SplitError("the 'modulo' scheme needs a 'files' pattern")
    unit = options.get("unit", "file")
    modulus = int(options.get("modulus", 10))
    dev = {int(x) for x in _as_list(options.get("dev", [8]))}
    test = {int(x) for x in _as_list(options.get("test", [9]))}
    if dev & test or not (dev | test) <= set(range(modulus)):
        raise SplitError(f"modulo split: dev {sorted(dev)} and test {sorted(test)} must be disjoint residues below {modulus}")

    def assign(position: int) -> str:
        residue = position % modulus
        return "dev" if residue in dev else "test" if residue in test else "train"

    paths = find_files(root, pattern)
    definition = {
        "scheme": "modulo",
        "files": pattern,
        "unit": unit,
        "modulus": modulus,
        "dev_residues": sorted(dev),
        "test_residues": sorted(test),
        "rule": f"{unit}s in sorted order; position % {modulus} in {sorted(dev)} -> dev, in {sorted(test)} -> test, else train",
    }
    if unit == "tree":
        return SplitPlan({"*": paths}, definition, tree_split=assign)
    if unit != "file":
        raise SplitError(f"modulo split: unit must be 'file' or 'tree', not {unit!r}")
    files: Dict[str, List[Path]] = {split: [] for split in SPLITS}
    for position, path in enumerate(paths):
        files[assign(position)].append(path)
    definition.update({split: [p.relative_to(root).as_posix() for p in files[split]] for split in SPLITS})
    return SplitPlan(files, definition, missing=[s for s in SPLITS if not files[s]])


def _as_list(value: Any) -> List[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


SCHEMES: Dict[str, Callable[[Path, Optional[str], Mapping[str, Any]], SplitPlan]] = {
    "ranges": ranges_scheme,
    "files": files_scheme,
    "modulo": modulo_scheme,
}


def plan_splits(root: Path, pattern: Optional[str], scheme: str, options: Mapping[str, Any]) -> SplitPlan:
    return SCHEMES[scheme](root, pattern, options)
