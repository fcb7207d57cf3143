"""A progress bar on stderr for long commands: runs done of the total, and the rate.

It draws only on a terminal: when stderr is a file or a pipe (a log, a test), or with ``--quiet``, it
writes nothing at all, so what a command prints stays the same wherever its stderr goes. A command that
prints while the bar is up calls :meth:`Progress.clear` first, so its lines never land on the bar's.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]

WIDTH = 30  # characters of the bar itself


class Progress:
    """Counts finished items and redraws one line on stderr, at most every ``interval`` seconds.

    Parameters
    ----------
    total : int
        Items expected.
    unit : str, default="runs"
    stream : file, optional
        Where to draw; default ``sys.stderr``.
    quiet : bool, default=False
        Draw nothing.
    interval : float, default=0.1
        Seconds between redraws (the last one is always drawn).
    """

    def __init__(self, total: int, *, unit: str = "runs", stream: TextIO | None = None, quiet: bool = False,
                 interval: float = 0.1) -> None:
        self.total, self.unit, self.interval = int(total), unit, interval
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = not quiet and callable(isatty) and bool(isatty())
        self.done = 0
        self.started = time.monotonic()
        self._drawn = 0.0

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more items done and redraw if it is time."""
        self.done += n
        if self.enabled:
            now = time.monotonic()
            if now - self._drawn >= self.interval or self.done >= self.total:
                self._drawn = now
                self.stream.write("\r" + self.line(now - self.started))
                self.stream.flush()

    def line(self, elapsed: float) -> str:
        """The text of the bar after ``elapsed`` seconds: ``[#####.....] 12/200 runs  3.4 runs/s``."""
        share = self.done / self.total if self.total else 1.0
        filled = min(WIDTH, int(round(share * WIDTH)))
        rate = self.done / elapsed if elapsed > 0 else 0.0
        return f"[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} {self.unit}  {rate:.1f} {self.unit}/s"

    def clear(self) -> None:
        """Erase the bar's line (if one is drawn) before other text is written; the next advance redraws it."""
        if self.enabled and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = 0.0

    def close(self) -> None:
        """End the bar's line (only if one was drawn)."""
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
