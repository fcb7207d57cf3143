"""The tools ``benchmarks/run.py`` times: rankscope's command line and API and its peers (pytrec_eval, ranx,
ir_measures), each a command line or a Python snippet, with the measures they compute and the correctness
gate's own runs. To add a row to the benchmark, add an entry to ``TOOLS``."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

IPREC = [f"iprec_at_recall_{i / 10:.2f}" for i in range(11)]
MEASURES = ["map", "ndcg_cut_10", "ndcg", "P_10", "recall_100", "recall_1000", "recip_rank", "Rprec", *IPREC]
GATE = ["map", "ndcg_cut_10", "P_10", "recall_1000", "recip_rank"]
GATE_TOLERANCE = 1e-6

CLI_MEASURES = ["-m", "map", "-m", "ndcg_cut.10", "-m", "ndcg", "-m", "P.10", "-m", "recall.100,1000",
                "-m", "recip_rank", "-m", "Rprec", "-m", "iprec_at_recall"]


@dataclass
class Tool:
    """One row of the tables.

    ``argv`` (a command; ``{qrels}``, ``{run}``, ``{rankscope}``, ``{python}`` are filled in) or ``code``
    (a Python snippet run as ``python -c code qrels run``). ``output`` says how to read the values:
    ``bench`` (a ``BENCH {json}`` line), ``trec`` (trec_eval's text, 4 decimals) or ``json`` (rankscope's
    JSON). ``env`` adds environment variables (``{tmpdir}`` is a fresh empty folder per measurement).
    """

    argv: list[str] | None = None
    code: str | None = None
    output: str = "bench"
    env: dict[str, str] = field(default_factory=dict)
    slow: bool = False  # repeated --repeat-slow times when that is given
    note: str = ""
    prepare: str | None = None  # Python code run once (untimed, same env) before the first measurement


SNIPPET_HEAD = textwrap.dedent("""\
    import json, sys
    QRELS, RUN = sys.argv[1], sys.argv[2]
    def report(values, **extra):
        print("BENCH " + json.dumps({"values": {k: float(v) for k, v in values.items()}, **extra}))
    """)

RANKSCOPE_API = SNIPPET_HEAD + textwrap.dedent(f"""\
    from metrics import evaluate, aggregate
    summary = aggregate(evaluate(QRELS, {{"run": RUN}}, {["map", "ndcg_cut_10", "ndcg", "P_10", "recall_100",
                                                     "recall_1000", "recip_rank", "Rprec", "iprec_at_recall"]!r}))
    report(dict(zip(summary["measure"], summary["value"])))
    """)

PYTREC_EVAL = SNIPPET_HEAD + textwrap.dedent("""\
    import pytrec_eval
    qrels = {}
    with open(QRELS) as f:
        for line in f:
            qid, _, docid, rel = line.split()
            qrels.setdefault(qid, {})[docid] = int(rel)
    run = {}
    with open(RUN) as f:
        for line in f:
            qid, _, docid, _, score, _ = line.split()
            run.setdefault(qid, {})[docid] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "ndcg_cut.10", "ndcg", "P.10", "recall.100,1000", "recip_rank", "Rprec", "iprec_at_recall"})
    per_query = evaluator.evaluate(run)
    names = next(iter(per_query.values())).keys()
    report({m: sum(v[m] for v in per_query.values()) / len(per_query) for m in names})
    """)

RANX_METRICS = {"map": "map", "ndcg@10": "ndcg_cut_10", "ndcg": "ndcg", "precision@10": "P_10",
                "recall@100": "recall_100", "recall@1000": "recall_1000", "mrr": "recip_rank",
                "r-precision": "Rprec"}


RANX_TINY = textwrap.dedent("""\
    import os, tempfile
    from ranx import Qrels, Run, evaluate
    NAMES = %r
    with tempfile.TemporaryDirectory() as tmp:
        q, r = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        with open(q, "w") as f:
            f.write("q1 0 d1 1\\nq1 0 d2 2\\nq1 0 d4 0\\nq2 0 d1 1\\n")
        with open(r, "w") as f:
            f.write("q1 Q0 d1 1 1.5 x\\nq1 Q0 d2 2 0.5 x\\nq1 Q0 d3 3 0.5 x\\nq2 Q0 d3 1 0.1 x\\n")
        evaluate(Qrels.from_file(q, kind="trec"), Run.from_file(r, kind="trec"), list(NAMES))
    """) % (RANX_METRICS,)


def ranx_snippet() -> str:
    """ranx from the files, the whole process timed; also reports the reading + evaluation part."""
    return SNIPPET_HEAD + textwrap.dedent(f"""\
        import time
        from ranx import Qrels, Run, evaluate
        NAMES = {RANX_METRICS!r}
        t0 = time.perf_counter()
        qrels = Qrels.from_file(QRELS, kind="trec")
        run = Run.from_file(RUN, kind="trec")
        values = evaluate(qrels, run, list(NAMES))
        report({{NAMES[k]: v for k, v in values.items()}}, part=time.perf_counter() - t0)
        """)


IR_MEASURES = SNIPPET_HEAD + textwrap.dedent("""\
    import ir_measures
    from ir_measures import AP, IPrec, P, R, RR, Rprec, nDCG
    pairs = [(AP, "map"), (nDCG @ 10, "ndcg_cut_10"), (nDCG, "ndcg"), (P @ 10, "P_10"), (R @ 100, "recall_100"),
             (R @ 1000, "recall_1000"), (RR, "recip_rank"), (Rprec, "Rprec")]
    pairs += [(IPrec @ (i / 10), f"iprec_at_recall_{i / 10:.2f}") for i in range(11)]
    values = ir_measures.calc_aggregate([m for m, _ in pairs], ir_measures.read_trec_qrels(QRELS),
                                        ir_measures.read_trec_run(RUN))
    by_name = {str(m): v for m, v in values.items()}
    report({name: by_name[str(m)] for m, name in pairs})
    """)

TOOLS: dict[str, Tool] = {
    "rankscope-cli": Tool(argv=["{rankscope}", "eval", "{qrels}", "{run}", *CLI_MEASURES], output="trec"),
    "rankscope-api": Tool(code=RANKSCOPE_API),
    "rankscope-all_trec": Tool(argv=["{rankscope}", "eval", "-m", "all_trec", "{qrels}", "{run}"], output="trec",
                               note="every trec_eval measure"),
    "pytrec_eval": Tool(code=PYTREC_EVAL, note="Python line loop builds the dicts"),
    "ranx-warm": Tool(code=ranx_snippet(), env={"NUMBA_CACHE_DIR": str(RESULTS / "numba-cache")}, slow=True,
                      prepare=RANX_TINY, note="numba's cache filled beforehand; no iprec"),
    "ranx-cold": Tool(code=ranx_snippet(), env={"NUMBA_CACHE_DIR": "{tmpdir}"}, slow=True,
                      note="whole process, numba compiles (empty cache); no iprec"),
    "ir_measures": Tool(code=IR_MEASURES, slow=True),
    # the code that came later, on the same ranked arrays (its output is written but not compared)
    "rankscope-11pt": Tool(argv=["{rankscope}", "curves", "--kind", "11pt", "--format", "csv", "{qrels}", "{run}"],
                           output="none", note="11-point curve of every query and the average, as CSV"),
    "rankscope-dcg@20": Tool(argv=["{rankscope}", "curves", "--kind", "dcg", "--depth", "20", "--format", "csv",
                                   "{qrels}", "{run}"],
                             output="none", note="DCG@k, IDCG@k, nDCG@k for k = 1..20, every query and the mean"),
    "rankscope-anatomy": Tool(argv=["{rankscope}", "anatomy", "--query", "{query}", "--format", "csv",
                                    "{qrels}", "{run}"],
                              output="none", note="one query's per-rank table, reading the whole run"),
    # significance on all pairs of 10 systems: benchmarks/significance.py
}

# the gate's own runs: full-precision values from both rankscope entry points and from pytrec_eval
GATE_RUNS = {
    "pytrec_eval": Tool(code=PYTREC_EVAL),
    "rankscope-api": Tool(code=RANKSCOPE_API),
    "rankscope-cli --format json": Tool(argv=["{rankscope}", "eval", "--format", "json", "{qrels}", "{run}",
                                              *CLI_MEASURES], output="json"),
}
