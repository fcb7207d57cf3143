"""rankscope's bundled data: a synthetic demo collection and the seeds' small worked examples.

``DEMO_DIR`` holds ``qrels.txt`` and ``runs/*.run.gz`` (made by :mod:`sample_data.generate`);
``TEACHING_DIR`` holds hand-written qrels and runs with the numbers their source documents print
(``expected.json``). See ``sample_data/README.md`` and ``sample_data/teaching/README.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["DEMO_DIR", "TEACHING_DIR", "demo_paths", "teaching_examples", "teaching_titles"]

DEMO_DIR = Path(__file__).resolve().parent / "demo"
TEACHING_DIR = Path(__file__).resolve().parent / "teaching"


def demo_paths() -> tuple[Path, list[Path]]:
    """The demo collection: the qrels path and the run paths, sorted by name.

    Examples
    --------
    >>> qrels, runs = demo_paths()
    >>> qrels.name, [p.name for p in runs][:2]
    ('qrels.txt', ['bm25.run.gz', 'bm25_rm3.run.gz'])
    """
    return DEMO_DIR / "qrels.txt", sorted((DEMO_DIR / "runs").glob("*.run.gz"))


def teaching_examples() -> dict[str, dict]:
    """The worked examples: name -> ``{"qrels": Path, "runs": [Path], "description": str}``.

    Examples
    --------
    >>> sorted(teaching_examples())
    ['flagr8', 'graded10', 'lecture', 'mrr3']
    >>> [p.name for p in teaching_examples()["lecture"]["runs"]]
    ['lecture_system1.run', 'lecture_system2.run']
    """
    expected = json.loads((TEACHING_DIR / "expected.json").read_text(encoding="utf-8"))
    return {
        name: {
            "qrels": TEACHING_DIR / example["qrels"],
            "runs": [TEACHING_DIR / run for run in example["runs"].values()],
            "description": example["description"],
        }
        for name, example in expected["examples"].items()
    }


def teaching_titles() -> dict[str, str]:
    """Each worked example's name as shown to students (its key stays the example's id).

    Examples
    --------
    >>> teaching_titles()["flagr8"]
    '8 documents, 4 relevant'
    """
    expected = json.loads((TEACHING_DIR / "expected.json").read_text(encoding="utf-8"))
    return {name: example.get("title", name) for name, example in expected["examples"].items()}
