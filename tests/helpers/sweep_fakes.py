"""Stand-ins for a launcher's job handles, shared by the sweep tests."""

from __future__ import annotations

from mlparse.sweep.driver import Outcome


class Finished:
    """A handle of a member whose job ended at once with exit status 0 (its run directory says how it went)."""

    def __init__(self, job: str) -> None:
        self.job = job

    def done(self) -> bool:
        return True

    def outcome(self) -> Outcome:
        return Outcome(0)


__all__ = ["Finished"]
