"""The one error type of the package: the CoNLL 2018 script's message plus where it happened."""

from __future__ import annotations


class DepevalError(Exception):
    """An input the CoNLL 2018 evaluation script refuses.

    ``message`` is the script's own text (what its ``UDError`` says), ``str()`` of
    the error; ``source`` names the file (or ``<text>``), ``line`` is the 1-based
    line the problem was found on (None at the end of a file or when there is no
    single line), and ``system_line`` the system file's line when gold and system
    disagree.  :meth:`location` says all that in words.
    """

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        *,
        system_source: str | None = None,
        system_line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.system_source = system_source
        self.system_line = system_line

    def location(self) -> str:
        """``gold.conllu, line 12`` (and the system file's line for a text mismatch), or ``""``."""
        parts = []
        for source, line in ((self.source, self.line), (self.system_source, self.system_line)):
            if source is None:
                continue
            parts.append(f"{source}, line {line}" if line is not None else f"{source}, at the end of the file")
        return "; ".join(parts)

    def describe(self) -> str:
        """The message followed by its location on a second line (when known)."""
        where = self.location()
        return f"{self.message}\n(at {where})" if where else self.message
