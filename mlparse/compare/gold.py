"""Gold files that cannot drift: the checksum a run recorded for its gold file against the file on disk now.

Every run records the sha256 of the gold files it was scored against (``results.json`` ``gold``,
:func:`mlparse.results.gold_checksum`).  ``mlparse compare``, the report's significance marks and ``mlparse
analyze errors`` score a run's predictions against the gold file as it is *now*; :func:`gold_status` tells them
whether that is still the file the run was scored on.  A changed file is refused (:meth:`GoldStatus.refusal`
names the file and both checksums) unless the user asks to re-score against the new gold (``--rescore``); a run
made before checksums were recorded is read as it is, with a note that its gold cannot be checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional

#: The command-line flag that scores a run against the gold file as it is now instead of refusing it.
RESCORE_FLAG = "--rescore"


@dataclass(frozen=True)
class GoldStatus:
    """One run's gold file of one split: its sha256 now and the one the run recorded (None: none recorded)."""

    run: str  # the run as the user knows it (its label or folder)
    split: str
    path: Path
    current: str
    recorded: Optional[str]
    rescore: bool = False  # the user asked to score against the file as it is now

    @property
    def checked(self) -> bool:
        return self.recorded is not None

    @property
    def changed(self) -> bool:
        return self.recorded is not None and self.recorded != self.current

    def refusal(self) -> Optional[str]:
        """The message that refuses the run (its gold file changed and no re-scoring was asked for); None when the
        run can be used."""
        if not self.changed or self.rescore:
            return None
        return (f"{self.run}: the gold {self.split} file {self.path} has changed since the run was scored "
                f"(sha256 now {self.current}, recorded by the run {self.recorded}); its predictions would be scored "
                f"against other gold. Restore the file, or give {RESCORE_FLAG} to score them against the gold as it "
                "is now")

    def note(self) -> Optional[str]:
        """What the user should know about a run that is used: gold re-scored, or gold that cannot be checked."""
        if self.changed and self.rescore:
            return (f"{self.run}: re-scored against the gold {self.split} file as it is now ({self.path}, sha256 "
                    f"{self.current}; the run was scored on {self.recorded})")
        if not self.checked:
            return (f"{self.run}: made before mlparse recorded gold checksums; its gold {self.split} file "
                    f"{self.path} cannot be checked")
        return None


def gold_status(run: str, gold_record: Dict[str, Any], split: str, path: Path, current: str,
                rescore: bool = False) -> GoldStatus:
    """The status of ``run``'s gold file ``path`` of ``split`` (sha256 ``current``), given the run's ``gold``
    record from ``results.json``."""
    from mlparse.results import gold_checksum

    return GoldStatus(run, split, Path(path), current, gold_checksum(gold_record, split, Path(path).name), rescore)
