"""Choices made by name, each declared once: the registries of statistical tests, corrections and interpolation rules.

A choice a user names (``--test wilcoxon``, ``correction="holm"``, an interpolation rule) is a class that
declares what it is beside its kernel: its canonical name, the other names it answers to, a short label (a
picker's option, the value a dashboard link carries), a one-line help, and its place in every list. A
:class:`Registry` holds one instance of each; its decorator checks the declaration and adds it, so a new
choice is one file, and every list of names, label, help text and check of a name reads the registry::

    TESTS = Registry("test")

    @TESTS.register
    class Sign(Test):
        \"\"\"The sign test ...\"\"\"
        name, label, help, order = "sign", "sign test", "wins against losses, a binomial test", 30

A name is looked up case-insensitively, its aliases resolved, and an unknown one is refused with one
wording: ``unknown test 'z'; choose one of ['t', 'wilcoxon', ...]``. The registries of measures
(:mod:`metrics.measures.base`) and of gains (:mod:`metrics.gains`) came first; this is their shape for
everything else that is chosen by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

from metrics.errors import ValidationError

__all__ = ["Declaration", "Registry", "import_declarations"]


class Declaration:
    """Base class of a choice declared once; subclasses declare themselves with class attributes.

    Class attributes
    ----------------
    name : str
        The canonical name (what a flag, a session file and a manifest write).
    aliases : tuple of str
        Other names accepted for it (any case).
    label : str
        A few words for a person: a picker's option, a column, the value a dashboard link carries.
    help : str
        One sentence: what it is, for a picker's help, a flag's help or a report's note.
    order : float
        Its place in every list of the choices (pickers, flags, messages), smallest first.
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    label: ClassVar[str] = ""
    help: ClassVar[str] = ""
    order: ClassVar[float] = float("inf")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


D = TypeVar("D", bound=Declaration)


class Registry(Generic[D]):
    """The declarations of one kind of choice, in their declared order, found by any of their names.

    Parameters
    ----------
    what : str
        What one choice is called in a message (``"test"``, ``"correction"``, ``"interpolation rule"``).
    required : tuple of str, default=()
        Class attributes every declaration of this kind must give (beyond ``name``, ``label``, ``help``).
    """

    def __init__(self, what: str, required: tuple[str, ...] = ()) -> None:
        self.what = what
        self.required = ("name", "label", "help", *required)
        self._items: list[D] = []
        self._keys: dict[str, D] = {}

    def register(self, cls: type[D]) -> type[D]:
        """Class decorator: check a declaration, add one instance of it, keep the declared order."""
        for attr in self.required:
            if getattr(cls, attr, "") in ("", None):
                raise TypeError(f"{cls.__name__} must declare {attr!r}")
        if not cls.__doc__:
            raise TypeError(f"{cls.__name__} must have a docstring")
        keys = [cls.name.lower(), *(alias.lower() for alias in cls.aliases)]
        for key in keys:
            if key in self._keys and type(self._keys[key]) is not cls:
                raise TypeError(f"{self.what} name {key!r} of {cls.__name__} is already taken by "
                                f"{type(self._keys[key]).__name__}")
        self._items = [item for item in self._items if type(item) is not cls]
        item = cls()
        self._keys.update(dict.fromkeys(keys, item))
        self._items.append(item)
        self._items.sort(key=lambda d: d.order)  # stable: equal orders keep the order of registration
        return cls

    def __iter__(self) -> Iterator[D]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and value.lower() in self._keys

    def names(self, among: Callable[[D], bool] | None = None) -> tuple[str, ...]:
        """The canonical names, in order (of the declarations ``among`` keeps, when given)."""
        return tuple(item.name for item in self._items if among is None or among(item))

    def aliases(self, among: Callable[[D], bool] | None = None) -> dict[str, str]:
        """Each alias and the canonical name it stands for."""
        return {alias: item.name for item in self._items if among is None or among(item) for alias in item.aliases}

    def choices(self, among: Callable[[D], bool] | None = None) -> tuple[str, ...]:
        """Every name accepted as written on a command line: the canonical names, then the aliases."""
        return self.names(among) + tuple(self.aliases(among))

    def labels(self, among: Callable[[D], bool] | None = None) -> dict[str, str]:
        """``{name: label}``, in order (a picker's options)."""
        return {item.name: item.label for item in self._items if among is None or among(item)}

    def get(self, value: Any, among: Callable[[D], bool] | None = None) -> D:
        """The declaration ``value`` names (case-insensitive, an alias resolved), or a ValidationError naming
        the choices; with ``among``, only a declaration it keeps is accepted (and named)."""
        found = self._keys.get(value.lower()) if isinstance(value, str) else None
        if found is None or (among is not None and not among(found)):
            raise ValidationError(f"unknown {self.what} {value!r}; choose one of {list(self.names(among))}")
        return found


def import_declarations(package: str, path: Iterable[str]) -> None:
    """Import every module of a package of declarations but its ``base``, in order of name, so that each
    declaration registers itself: a new file is a new choice, with no other edit."""
    for name in sorted(m.name for m in pkgutil.iter_modules(path)):
        if name != "base":
            importlib.import_module(f"{package}.{name}")
