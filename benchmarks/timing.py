"""What the speed benchmarks share: a timing record, best-of-N timing, and the machine's description.

Benchmarks run as scripts (``python3 benchmarks/NAME.py``), so this file is
imported as the top-level module ``timing`` from their own folder.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List


@dataclass
class Timing:
    """``sentences`` processed in ``seconds`` (the best of several passes) by the decoder ``name``."""

    name: str
    sentences: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.sentences / self.seconds


def best_of(
    repeat: int,
    sentences: int,
    name: str,
    run: Callable[[], object],
    clock: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Time ``run`` ``repeat`` times on ``clock`` (wall time by default, ``time.process_time`` for CPU time); keep the best."""
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        run()
        best = min(best, clock() - start)
    return Timing(name, sentences, best)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine() -> str:
    """One line: CPU, cores, GPU (if any), Python and torch versions."""
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return (
        f"{cpu_model()}, {os.cpu_count()} logical cores, {gpu}; "
        f"Python {platform.python_version()}, torch {torch.__version__}"
    )


def load_average() -> str:
    """``load average 0.52 0.60 0.71`` (1, 5 and 15 minutes), or ``load average unknown``."""
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


REPO = Path(__file__).resolve().parents[1]
#: The ptb-sample files of the "dev" split (wsj_0160-wsj_0179) in the PTB layout.
PTB_SAMPLE_DEV = [f"wsj_{number:04d}.mrg" for number in range(160, 180)]


def treebank_dir() -> Path:
    """``$MLPARSE_SHARED_TREEBANKS``, else ``../shared/treebanks`` beside the repository."""
    env = os.environ.get("MLPARSE_SHARED_TREEBANKS")
    return Path(env) if env else REPO.parent / "shared" / "treebanks"


def ptb_sample_dev_lengths() -> List[int]:
    """Word counts (no -NONE- empty elements) of the ptb-sample dev files; [] when the sample is absent."""
    from mlparse.trees.reader import read_bracketed_file

    folder = treebank_dir() / "ptb-sample" / "wsj" / "01"
    lengths = []
    for path in (folder / name for name in PTB_SAMPLE_DEV):
        if path.is_file():
            for tree in read_bracketed_file(path):
                words = sum(1 for leaf in tree.leaves() if leaf.tag != "-NONE-")
                if words:
                    lengths.append(words)
    return lengths
