"""The exceptions rankscope raises.

Everything rankscope raises on purpose derives from :class:`RankscopeError`, so a caller (the CLI, the
dashboard) can catch that one class and show its message; any other exception is a bug.

::

    RankscopeError
    ├── ParseError            a qrels or run file that cannot be read (names file and line)
    │   └── InputTooLarge     an input past a reader's limit (gzip that expands too far, an endless stream)
    ├── ValidationError       a well-formed input that is not acceptable (bad option, mismatched queries)
    │   ├── Refused           a parameter or a document's field a declared rule does not take
    │   └── MissingTopicsError  systems not evaluated on the same topics where each needs every topic
    └── UnknownMeasureError   a measure name or parameter the registry does not know
"""

from __future__ import annotations

__all__ = ["InputTooLarge", "MissingTopicsError", "ParseError", "RankscopeError", "Refused", "UnknownMeasureError",
           "ValidationError"]


class RankscopeError(Exception):
    """Base class of every error rankscope raises on bad input."""


class ParseError(RankscopeError):
    """An input file that cannot be read.

    Parameters
    ----------
    source : str
        The file name (or ``"<bytes>"``/``"<text>"`` when there is none).
    line : int or None
        The 1-based line number, or ``None`` when the problem is the whole file.
    message : str
        What was expected and what was found.
    """

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")


class InputTooLarge(ParseError):
    """An input past one of a reader's limits (:class:`metrics.io.ReadLimits`).

    Parameters
    ----------
    source, line, message
        As for :class:`ParseError`.
    limit : str
        Which limit: ``"gzip_bytes"``, ``"gzip_ratio"`` or ``"stream_bytes"``.
    """

    def __init__(self, source: str, line: int | None, message: str, *, limit: str) -> None:
        super().__init__(source, line, message)
        self.limit = limit

    def __reduce__(self):  # keyword-only ``limit``: pickled (a worker's answer) with it
        return _too_large, (self.source, self.line, self.message, self.limit)


def _too_large(source: str, line: int | None, message: str, limit: str) -> InputTooLarge:
    return InputTooLarge(source, line, message, limit=limit)


class ValidationError(RankscopeError, ValueError):
    """A well-formed input or option that cannot be used (e.g. mismatched query sets)."""


class Refused(ValidationError):
    """A value a rule of :mod:`metrics.checks` does not take, in the one wording of every refusal:
    ``"<where>: expected <expected>, found <found>"`` (without ``where``: from ``expected``).

    Attributes
    ----------
    where : str
        The parameter, or the field's path in a document (``loaded.runs[2].system``); empty for a whole
        document.
    expected, found : str
        What the rule takes, and the value as :func:`metrics.checks.shown` shows it.
    path : tuple
        The field's path as keys and indices, for a reader that finds a line by it (empty for a parameter).
    """

    def __init__(self, where: str, expected: str, found: str, path: tuple = ()) -> None:
        self.where, self.expected, self.found, self.path = where, expected, found, tuple(path)
        super().__init__(f"{where}: {self.detail}" if where else self.detail)

    @property
    def detail(self) -> str:
        """``"expected <expected>, found <found>"``: the message without where."""
        return f"expected {self.expected}, found {self.found}"

    def __reduce__(self):  # a worker process hands it back whole
        return Refused, (self.where, self.expected, self.found, self.path)


class MissingTopicsError(ValidationError):
    """Systems not evaluated on the same topics, where every system needs a value on every topic (paired
    tests, power).

    Parameters
    ----------
    detail : str
        Which system has no value for which topics. The message adds the remedy in Python's words
        (``complete=True`` or ``fill='zero'``); the command line names its flag instead.
    """

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"{detail} (evaluate with complete=True, as trec_eval -c does, or pass fill='zero')")


class UnknownMeasureError(RankscopeError, KeyError):
    """A measure name or parameter that the registry does not know."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
