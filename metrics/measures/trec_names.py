"""trec_eval's measure names: ``P_5``, ``ndcg_cut.10,20``, ``-m all_trec``, ``-m official``.

Maps trec_eval spellings onto measure objects, expands the command line's lists and nicknames, and orders
measures as trec_eval prints them.
"""

from __future__ import annotations

import re

from metrics.errors import UnknownMeasureError
from metrics.measures.base import MEASURE_CLASSES, Measure, Trec, list_measures

__all__ = ["parse_trec_name", "expand_trec", "trec_sort_key", "OFFICIAL", "trec_table"]

# trec_eval's "official" measures (printed without -m)
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")
_SPLIT = re.compile(r"(?P<base>.+?)_(?P<param>[^_]+)\Z")


def trec_table() -> dict[str, tuple[type[Measure], Trec]]:
    """trec_eval measure name -> (measure class, spelling)."""
    list_measures()
    return {t.name: (cls, t) for cls in MEASURE_CLASSES for t in cls.trec}


def _value(cls: type[Measure], spelling: Trec, raw: str) -> object:
    param = next(p for p in cls.params if p.name == spelling.param)
    try:
        if param.type is int:
            return int(float(raw))  # trec_eval truncates cutoffs: 23.4 -> 23
        if param.type is float:
            return float(raw)
        return param.type(raw)
    except (ValueError, OverflowError):  # OverflowError: "1e400" and "inf" as a cutoff
        raise UnknownMeasureError(f"measure {spelling.name}: cannot read parameter {raw!r} as "
                                  f"{param.type.__name__}") from None


def parse_trec_name(text: str) -> Measure | None:
    """Parse one trec_eval measure name (``map``, ``P_10``, ``iprec_at_recall_0.10``); None if not one."""
    table = trec_table()
    entry = table.get(text)
    if entry is not None and entry[1].param is None:
        return entry[0]()
    match = _SPLIT.match(text)
    if match and match["base"] in table:
        cls, spelling = table[match["base"]]
        if spelling.param is not None:
            return cls(**{spelling.param: _value(cls, spelling, match["param"])})
        if hasattr(cls, "from_trec_params"):  # the printed form of -m ndcg.1=3,2=9: ndcg_1=3,2=9
            return cls.from_trec_params(match["param"])
    return None


def expand_trec(spec: str, version: int = 9) -> list[Measure]:
    """Expand one ``-m`` argument of trec_eval's command line into measures.

    ``all_trec`` and ``official`` are nicknames (``all_trec`` of trec_eval ``version`` 9 or 10);
    ``P`` alone means trec_eval's default cutoffs (5, 10, 15, 20, 30, 100, 200, 500, 1000); ``P.5,10``
    lists them; ``P_5`` names one.
    """
    table = trec_table()
    if spec == "all_trec":
        entries = sorted((e for e in table.values()
                          if e[1].all_trec and e[1].order != float("inf") and e[1].version <= version),
                         key=lambda e: e[1].order)
        return [m for cls, spelling in entries for m in _defaults(cls, spelling)]
    if spec == "official":
        return [m for name in OFFICIAL if name in table for m in _defaults(*table[name])]
    if spec in table:
        return _defaults(*table[spec])
    base, dot, rest = spec.partition(".")
    if dot and base in table and table[base][1].param is None and hasattr(table[base][0], "from_trec_params"):
        return [table[base][0].from_trec_params(rest)]
    if dot and base in table and table[base][1].param is not None:
        cls, spelling = table[base]
        values = sorted({_value(cls, spelling, raw) for raw in rest.split(",") if raw != ""})
        return [cls(**{spelling.param: v}) for v in values]
    single = parse_trec_name(spec)
    if single is not None:
        return [single]
    raise UnknownMeasureError(f"unknown trec_eval measure {spec!r}; `rankscope measures` lists them")


def _defaults(cls: type[Measure], spelling: Trec) -> list[Measure]:
    if spelling.param is None:
        return [cls()]
    return [cls(**{spelling.param: v}) for v in spelling.defaults]


def trec_sort_key(measure: Measure) -> tuple:
    """Sort key reproducing trec_eval's output order (its measure table, then parameter value)."""
    spelling = measure.trec_spelling()
    if spelling is None:
        return (float("inf"), 0, str(measure))
    value = measure.values[spelling.param] if spelling.param else 0
    return (spelling.order, value, str(measure))

