"""The example notebook (docs/notebook.ipynb) run by a real Jupyter kernel: no error, a plotly figure and a
table whose numbers are metrics.evaluate's on the same files, no address off this machine in any output,
and the notebook kept in the repository without outputs."""

from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path

import pytest

import metrics

nbformat = pytest.importorskip("nbformat", reason="the test extra's nbformat is not installed")
nbclient = pytest.importorskip("nbclient", reason="the test extra's nbclient is not installed")
pytest.importorskip("ipykernel", reason="the test extra's ipykernel is not installed")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
DEMO = ROOT / "sample_data" / "demo"
PLOTLY = "application/vnd.plotly.v1+json"
URL = re.compile(r"(?:https?|wss?)://[^\s\"'<>)\\]+|//cdn[.\w-]*")
LOOPBACK = re.compile(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?(/|$)")


def _execute(tmp_path_factory):
    """The notebook run by the venv's kernel, with a workspace of its own; (notebook, workspace)."""
    from jupyter_client.manager import KernelManager

    workspace = tmp_path_factory.mktemp("notebook") / "ws"
    mp = pytest.MonkeyPatch()
    mp.setenv("RANKSCOPE_WORKSPACE", str(workspace))  # the kernel inherits it: the notebook's workspace
    try:
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        km = KernelManager(kernel_name="python3")
        # the venv's ipykernel under the venv's interpreter: jupyter_client runs "python" as sys.executable
        assert Path(km.kernel_spec.argv[0]).name == "python" or Path(km.kernel_spec.argv[0]) == Path(sys.executable)
        client = nbclient.NotebookClient(notebook, km=km, timeout=600, kernel_name="python3",
                                         resources={"metadata": {"path": str(NOTEBOOK.parent)}})
        client.execute()
        assert Path(km.format_kernel_cmd()[0]).resolve() == Path(sys.executable).resolve()
    finally:
        mp.undo()
    return notebook, workspace


def _outputs(notebook):
    return [(cell, out) for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def test_the_notebook_is_kept_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def _every_cell_runs_without_error(notebook):
    assert not [out for _, out in _outputs(notebook) if out.output_type == "error"]
    assert all(c.execution_count for c in notebook.cells if c.cell_type == "code")


def _the_table_is_metrics_evaluate_on_the_same_files(notebook):
    (table,) = [out for cell, out in _outputs(notebook) if "nb.summary()" in cell.source
                and out.output_type == "execute_result"]
    lines = table.data["text/plain"].splitlines()
    assert lines[0].split() == ["system", "measure", "value", "n_queries"]
    shown = {(row[1], row[2]): float(row[3]) for row in (line.split() for line in lines[1:])}
    runs = {"bm25": DEMO / "runs" / "bm25.run.gz", "bm25_rm3": DEMO / "runs" / "bm25_rm3.run.gz",
            "dense": DEMO / "runs" / "dense_precise.run.gz"}
    means = metrics.aggregate(metrics.evaluate(DEMO / "qrels.txt", runs))
    expected = {(s, m): v for s, m, v in zip(means["system"], means["measure"], means["value"])}
    assert shown.keys() == expected.keys() and len(shown) == 15
    for key, value in expected.items():
        assert shown[key] == pytest.approx(value, rel=0, abs=1e-12), key


def _figures_are_plotly_json_with_the_same_means(notebook):
    figures = [out.data[PLOTLY] for _, out in _outputs(notebook) if PLOTLY in out.get("data", {})]
    assert len(figures) == 3
    for out in (out for _, out in _outputs(notebook) if PLOTLY in out.get("data", {})):
        assert not any("javascript" in kind or kind == "text/html" for kind in out.data)  # no script of plotly's
    summary = figures[0]
    drawn = {trace["name"]: trace["x"][0] for trace in summary["data"]}
    means = metrics.aggregate(metrics.evaluate(DEMO / "qrels.txt", {"bm25": DEMO / "runs" / "bm25.run.gz"},
                                               "nDCG@10"))
    assert drawn["bm25"] == pytest.approx(float(means["value"].iloc[0]), rel=0, abs=1e-12)
    assert set(drawn) == {"bm25", "bm25_rm3", "dense"}


def _markers_are_the_collections_on_the_same_files(notebook):
    """The printed results table and the chart's names carry the markers of the same runs read from files."""
    from metrics.review.compare import to_text
    from rankscope.notebook import Collection

    runs = {"bm25": DEMO / "runs" / "bm25.run.gz", "bm25_rm3": DEMO / "runs" / "bm25_rm3.run.gz",
            "dense": DEMO / "runs" / "dense_precise.run.gz"}
    files = Collection(DEMO / "qrels.txt", runs)
    (printed,) = [out for cell, out in _outputs(notebook)
                  if "nb.results(" in cell.source and out.output_type == "stream"]
    assert printed.text == to_text(files.results(baseline="bm25")) + "\n" and "†" in printed.text
    summary = next(out.data[PLOTLY] for _, out in _outputs(notebook) if PLOTLY in out.get("data", {}))
    want = files.figure("summary", measure="nDCG@10", baseline="bm25")
    assert [t["y"] for t in summary["data"]] == [list(t.y) for t in want.data]
    assert "bm25 (baseline)" in summary["data"][0]["y"]


def _no_output_names_an_address_off_this_machine(notebook):
    text = json.dumps([out for _, out in _outputs(notebook)])
    found = URL.findall(text)
    assert [u for u in found if not LOOPBACK.match(u)] == []
    assert "cdn" not in text.lower()


def _the_dashboard_cell_stored_the_collection_and_stopped(notebook, workspace):
    from workspace import open_workspace

    frames = [out for cell, out in _outputs(notebook) if "nb.open(" in cell.source]
    shown = json.dumps(frames)
    (link,) = set(re.findall(r"http://127\.0\.0\.1:\d+/\?collection=[\w-]+", shown))
    with open_workspace(workspace) as ws:
        stored = [c for c in ws.collections() if c.name == "demo, from a notebook"]
    assert len(stored) == 1 and stored[0].systems == ("bm25", "bm25_rm3", "dense")
    assert link.endswith(stored[0].id)
    assert "<iframe" in shown  # shown in the page, as Jupyter shows it
    port = int(re.search(r":(\d+)/", link).group(1))
    with socket.socket() as probe:  # the next cell closed it: nothing listens there any more
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_the_example_notebook_runs_offline_and_shows_evaluates_numbers(tmp_path_factory):
    # one run of the kernel for every check (each test of its own would run it again on another worker)
    notebook, workspace = _execute(tmp_path_factory)
    _every_cell_runs_without_error(notebook)
    _the_table_is_metrics_evaluate_on_the_same_files(notebook)
    _figures_are_plotly_json_with_the_same_means(notebook)
    _markers_are_the_collections_on_the_same_files(notebook)
    _no_output_names_an_address_off_this_machine(notebook)
    _the_dashboard_cell_stored_the_collection_and_stopped(notebook, workspace)
