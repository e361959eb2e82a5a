"""Writing a prepared treebank: all split files, then the manifest, with no half-written state.

Every split is first written in full to a temporary file beside its target; only when
all are written is the old manifest removed, the temporary files renamed over the
targets and the new manifest written (itself atomically).  A run killed before the
renames leaves the previous preparation untouched; one killed during them leaves a
folder without ``manifest.json``, which readers treat as "not prepared".
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Dict, Iterable, List

from mlparse.io_utils import FILE_MODE, atomic_write_json


def write_prepared(out_dir: Path, splits: Dict[str, Iterable[str]], manifest: dict, stale: Iterable[str] = ()) -> None:
    """Write ``{file name: lines}`` and ``manifest.json`` into ``out_dir`` (see module doc).

    ``stale`` names files of an earlier run to delete (a split that no longer exists).
    Lines are written with a trailing newline each.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    temporary: List[tuple] = []
    try:
        for name, lines in splits.items():
            fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)
            temporary.append((tmp_name, out_dir / name))
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                for line in lines:
                    handle.write(line)
                    handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        for tmp_name, _ in temporary:
            try:
                os.unlink(tmp_name)
            except FileNotFoundError:
                pass
        raise
    manifest_path = out_dir / "manifest.json"
    if manifest_path.exists():
        manifest_path.unlink()
    for tmp_name, target in temporary:
        os.replace(tmp_name, target)
    for name in stale:
        if name not in splits and (out_dir / name).exists():
            (out_dir / name).unlink()
    atomic_write_json(manifest_path, manifest)
