"""ir_metadata blocks and an annotated run, shared by the reader's and the store's tests."""

from __future__ import annotations

import pytest

repro_metadata = pytest.importorskip("repro_eval.metadata", reason="repro-eval (the test extra) is not installed")

RANKING = "301 Q0 d1 1 2.5 bm25\n301 Q0 d2 2 1.5 bm25\n302 Q0 d3 1 0.5 bm25\n302 Q0 d1 2 0.5 bm25\n"

FULL = {
    "schema-version": 0.1,
    "run-version": "1.0",
    "tag": "bm25",
    "platform": {
        "hardware": {
            "cpu": {
                "model": "AMD EPYC",
                "architecture": "x86_64",
                "operation mode": "64-bit",
                "number of cores": 2,
            },
            "ram": "24 GB",
        },
        "operating system": {"kernel": "6.1", "distribution": "Debian 12"},
        "software": {
            "libraries": {"python": ["numpy==2.0", "scipy==1.13"]},
            "retrieval toolkit": ["anserini==0.3.0"],
        },
    },
    "research goal": {
        "venue": {"name": "ECIR", "year": 2019},
        "evaluation": {
            "reported measures": ["map", "P_10"],
            "baseline": ["WCrobust04"],
            "significance test": [{"name": "t-test", "correction method": "bonferroni"}],
        },
    },
    "implementation": {
        "executable": {"cmd": "python run.py --k1 0.9"},
        "source": {
            "lang": ["python"],
            "repository": "https://example.invalid/r",
            "commit": "9548cd6",
        },
    },
    "method": {
        "automatic": True,
        "indexing": {"stemmer": "porter"},
        "retrieval": [
            {"name": "bm25", "method": "BM25", "k1": 0.9, "b": 0.4},
            {"name": "rerank", "reranks": "bm25", "weight": 0.6},
        ],
    },
    "actor": {
        "name": "A. Person",
        "team": "h2oloo",
        "fields": ["ir", "nlp"],
        "role": "experimenter",
    },
    "data": {
        "test collection": {"name": "Cranfield", "ir_datasets": "cranfield"},
        "training data": [{"name": "TREC disks 4 and 5", "source": "https://example.invalid/cd45"}],
    },
}


def annotated_run(tmp_path, metadata) -> str:
    """A run file annotated by repro_eval's MetadataHandler (its writer, not ours)."""
    plain = tmp_path / "bm25.run"
    plain.write_text(RANKING)
    handler = repro_metadata.MetadataHandler(str(plain))
    handler.set_metadata(metadata_dict=metadata)
    out = tmp_path / "bm25.annotated.run"
    handler.write_metadata(run_path=str(out))
    return str(out)
