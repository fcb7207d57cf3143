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
    code = "import sys, metrics, metrics.cli; metrics.list_measures(); " \
           "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
