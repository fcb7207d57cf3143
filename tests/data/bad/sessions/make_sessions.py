"""Write the session-file corpus: one small file per case (run ``python tests/data/bad/sessions/make_sessions.py``).

Each file is the same valid session file with one field made hostile. The files are committed; this script
documents how each was made and rebuilds them byte for byte. What each must produce (the exact message,
or for a legal file the conventions it applies) is written by hand in ``sessions.json`` beside it and
checked by ``tests/dashboard/exports/test_session_file.py``; this script never writes expectations.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BASE: dict[str, Any] = {
    "format": "rankscope-session",
    "version": 1,
    "rankscope_version": "0.1.0",
    "saved_utc": "2025-01-01T00:00:00Z",
    "loaded": {"qrels": None, "runs": []},
    "digests": {},
    "conventions": {"preset": "trec_eval-9", "relevance_level": 1, "depth": None, "judged_only": False,
                    "complete": False, "score_dtype": "float32", "interpolation": "trec_eval-9"},
    "notes": {"401": {"tags": ["hard"], "comment": "check the pool"}},
    "view": {"page": "data"},
    "manifest": None,
}
RAW = "@raw@"  # a text value replaced by the raw JSON token that follows it, after dumping


def session(changes: dict[str, Any], raw: str | None = None, extra: str = "") -> bytes:
    """BASE with ``{"a.b": value}`` set; ``raw`` replaces the value ``RAW`` by a token JSON cannot write."""
    document = copy.deepcopy(BASE)
    for path, value in changes.items():
        target = document
        *parents, last = path.split(".")
        for key in parents:
            target = target[key]
        target[last] = value
    text = json.dumps(document, indent=1, ensure_ascii=False)
    if raw is not None:
        text = text.replace(json.dumps(RAW), raw)
    return (text.replace("\n}", extra + "\n}", 1) if extra else text).encode()


CASES: dict[str, bytes] = {
    "level_-3000.json": session({"conventions.relevance_level": -3000}),
    "level_1e30.json": session({"conventions.relevance_level": 10**30}),
    "level_true.json": session({"conventions.relevance_level": True}),
    "level_2.5.json": session({"conventions.relevance_level": 2.5}),
    "level_5000_digits.json": session({"conventions.relevance_level": RAW}, raw="9" * 5000),
    "depth_0.json": session({"conventions.depth": 0}),
    "depth_1e30.json": session({"conventions.depth": 10**30}),
    "depth_text.json": session({"conventions.depth": "10"}),
    "preset_long.json": session({"conventions.preset": "trec_eval-9" * 1000}),
    "nan_level.json": session({"conventions.relevance_level": RAW}, raw="NaN"),
    "infinity_in_view.json": session({"view.alpha": RAW}, raw="-Infinity"),
    "float_1e400_in_view.json": session({"view.alpha": RAW}, raw="1e400"),
    "float_5000_digits_in_view.json": session({"view.alpha": RAW}, raw="0." + "1" * 5000),
    "version_5000_digits.json": session({"version": RAW}, raw="1" + "0" * 4999),
    "version_long_text.json": session({"version": "1" * 100_000}),
    "duplicate_topic.json": session({"notes": {"401": {"tags": ["hard"]}, "402": {"comment": "x"}}}).replace(
        b'"402"', b'"401"'),
    "tags_33.json": session({"notes.401.tags": [f"tag{i}" for i in range(33)]}),
    "tags_repeated.json": session({"notes.401.tags": ["hard"] * 20_000}),
    "topic_too_long.json": session({"notes": {"4" * 201: "x"}}),
    "unknown_fields_1000.json": session({}, extra="".join(f',\n "x{i:04d}": {i}' for i in range(1000))),
    "view_key_not_plain.json": session({"view": {"<script>": 1}}),
    # legal: the widgets take every value the validator takes
    "level_-3.json": session({"conventions.relevance_level": -3}),
    "level_limits.json": session({"conventions.relevance_level": 1000}),
    "depth_limit.json": session({"conventions.depth": 1_000_000_000}),
}


def main() -> None:
    for name, data in CASES.items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
