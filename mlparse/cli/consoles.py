"""The consoles of mlparse's commands: rich's console, except that output to a file or a pipe is never wrapped.

rich lays out what it prints at the terminal's width, and at 80 columns when it writes to no terminal (a log
file, ``| tee``, ``| grep``): a longer line is broken in two, with a trailing space on the first half, and a
table's cells are folded.  :class:`CliConsole` asks at every print whether it writes to a terminal (a command's
stdout and stderr may be swapped after the console is made, as tests do): on a terminal it is rich's console as
it is; elsewhere text is printed as it is (``soft_wrap``), and tables get their natural width.  A width given
when the console is made (``width=``) still holds.
"""

from __future__ import annotations

from rich.console import Console, ConsoleDimensions

#: The width a console writing to no terminal lays out in: more than any table's natural width, so none is folded.
UNWRAPPED_WIDTH = 1_000_000


class CliConsole(Console):
    """``rich.console.Console`` whose lines are never wrapped where it writes to no terminal (see the module)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        # a width given here holds; one rich takes from $COLUMNS (set by shells and test runners) does not
        self._explicit_width = kwargs.get("width") is not None
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    @property
    def size(self) -> ConsoleDimensions:
        dimensions = Console.size.fget(self)  # type: ignore[attr-defined]
        if not self._explicit_width and not self.is_terminal:
            return ConsoleDimensions(UNWRAPPED_WIDTH, dimensions.height)
        return dimensions

    @size.setter
    def size(self, new_size: tuple) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]

    @property  # type: ignore[override]
    def soft_wrap(self) -> bool:
        """As given (False unless said), and always where the console writes to no terminal."""
        return self._soft_wrap or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._soft_wrap = value
