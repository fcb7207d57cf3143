"""Architecture guards: the public surface and the purity of the metrics package."""

from __future__ import annotations

import inspect
import subprocess
import sys

import metrics


def test_all_is_sorted_and_complete():
    public = {name for name, value in vars(metrics).items()
              if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"}
    assert metrics.__all__ == sorted(metrics.__all__)
    assert public | {"__version__"} == set(metrics.__all__)


def test_import_metrics_leaves_streamlit_and_plotly_out():
    code = "import sys, metrics, rankscope.cli; metrics.list_measures(); " \
           "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_rankscope_eval_never_imports_pandas(tmp_path):
    """pandas costs ~0.15 s of start-up; the eval command reads, ranks, evaluates and prints without it,
    duplicates, ties, unjudged documents and queries missing on either side included."""
    qrels = tmp_path / "q.txt"
    run = tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n3 0 z 1\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 x 2 2.0 t\n1 Q0 c 3 1.0 t\n2 Q0 y 1 5 t\n9 Q0 a 1 1 t\n")
    code = ("import sys, io, contextlib\nfrom rankscope.cli import main\nfiles = sys.argv[1:]\n"
            "for args in ([], ['-q', '-m', 'all_trec'], ['-c', '-M', '2', '-J', '--format', 'json']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "        assert main(['eval', *args, *files]) == 0\n"
            "    assert 'map' in out.getvalue()\n"
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_curves_all_is_sorted_and_complete():
    from metrics import curves

    public = {name for name, value in vars(curves).items()
              if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"}
    assert curves.__all__ == sorted(curves.__all__)
    assert public == set(curves.__all__)


def test_the_curves_private_parts_stay_in_their_package():
    import ast
    from pathlib import Path

    root = Path(metrics.__file__).resolve().parents[1]
    package = root / "metrics" / "curves"
    breaks = []
    for path in sorted(root.glob("*/**/*.py")):
        if ".venv" in path.parts or package in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("metrics.curves"):
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("metrics.curves")]
            else:
                continue
            if any(part.startswith("_") for name in names for part in name.split(".")[2:]):
                breaks.append(f"{path.relative_to(root)}:{node.lineno}")
    assert breaks == []
