"""Data for ``mlparse demo``: the WSJ sample if one can be found, else a synthetic treebank.

Search order: ``--source``, ``$MLPARSE_DATA``, ``../shared/treebanks/ptb-sample`` (from the
current directory and from the repository root), then NLTK's
``~/nltk_data/corpora/treebank/combined`` (``wsj_*.mrg`` flat in one folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from mlparse.data.prepare import ProgressHook, prepare_family
from mlparse.data.sources import SourceNotFoundError
from mlparse.data.synthetic import write_synthetic_treebank

NLTK_TREEBANK = Path("~/nltk_data/corpora/treebank/combined")


@dataclass
class DemoData:
    prepared_dir: Path
    synthetic: bool
    looked_in: List[str]


def find_and_prepare(source: Optional[Path], out: Path, progress: Optional[ProgressHook] = None) -> DemoData:
    """Prepare the WSJ sample from the first place that has it, else the synthetic treebank."""
    attempts: List[Optional[Path]] = [source] if source is not None else []
    attempts.append(None)  # the ptb-sample family's own search: $MLPARSE_DATA, ../shared/treebanks
    attempts.append(NLTK_TREEBANK.expanduser())
    looked: List[str] = []
    for attempt in attempts:
        if attempt is not None and not attempt.is_dir():
            looked.append(f"{attempt} (does not exist)")
            continue
        try:
            report = prepare_family("ptb-sample", source=attempt, out=out, progress=progress)
        except SourceNotFoundError as error:
            looked.append(str(error).splitlines()[-1].strip() if attempt is None else str(attempt))
            continue
        return DemoData(report.results[0].out_dir, False, looked)
    target = out / "synthetic" / "english"
    write_synthetic_treebank(target)
    return DemoData(target, True, looked)


def prepare_demo_data(source: Optional[Path], out: Path) -> Path:
    """The prepared demo folder (``<out>/ptb-sample/english`` or ``<out>/synthetic/english``)."""
    return find_and_prepare(source, out).prepared_dir


__all__ = ["prepare_demo_data", "find_and_prepare", "DemoData"]
