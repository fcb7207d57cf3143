#!/usr/bin/env python3
"""What the report page's "Everything (zip)" costs, part by part, on the demo collection.

    .venv/bin/python benchmarks/report_zip.py [--repeat 3] [--tree DIR]

The report page computes the report's numbers when it opens (cached per collection and choice); the zip is
built only when its button is pressed (Streamlit calls the page's function then), from those numbers:
``dashboard.report.report_files`` (the HTML page, the tables, the results in LaTeX, Markdown and CSV, the
manifest, a session file, and each figure as PNG and SVG through kaleido and Chromium), then
``dashboard.exports.zip_bytes``. This script loads the demo collection as the dashboard does
(``dashboard.session.state.demo``: 11 runs, the page's default measures, baseline the first run, t-test,
Holm, alpha 0.05) and times, in one process, each of ``--repeat`` rounds:

=======================  =================================================================================
report numbers           ``compute_report`` (paid when the page opens, not by the button)
report figures           ``report_figures``: the plotly figures (5 measures: 7 figures)
HTML page                ``render_report`` (building the figures again)
tables and files         every other file (``report_files(images=False, html=False)``)
browser start and stop   kaleido opening Chromium and its page (plotly.js), then closing it, no figure
figures png / svg        every figure in one format, one browser session each (start and stop included)
figures png + svg        every figure in both formats in one session: what the zip does
compression              ``zip_bytes`` of every file
the button               ``report_files`` then ``zip_bytes``, as the page calls them
=======================  =================================================================================

and prints each part's median, least and largest wall time, the least CPU time of this process (Chromium's
own processes are not counted) and the zip's size. ``--tree`` imports rankscope from another checkout of
the source (for example ``git archive <commit> | tar -x -C DIR``) so that two versions are timed by the same
script. Chromium must be installed (``/usr/bin/chromium`` or ``BROWSER_PATH``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

PARTS = ("report numbers", "report figures", "HTML page", "tables and files", "browser start and stop",
         "figures png", "figures svg", "figures png + svg", "compression", "the button")


def timed(results: dict, part: str, call):
    """Call ``call()``, adding its wall and CPU seconds to ``results[part]``; returns its value."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    results.setdefault(part, []).append((time.perf_counter() - wall, time.process_time() - cpu))
    return value


def one_round(results: dict) -> int:
    """Every part once; returns the zip's size in bytes."""
    from dashboard import data as page_data
    from dashboard.exports import figure_images, images, zip_bytes
    from dashboard.report import render_report, report_files
    from dashboard.report.sections import report_figures
    from dashboard.session.state import demo
    from metrics.review.report import compute_report

    loaded = demo()
    made = timed(results, "report numbers", lambda: compute_report(
        loaded.qrels.data, {name: up.data for name, up in loaded.runs}, list(page_data.DEFAULT_MEASURES),
        loaded.conventions, loaded.systems[0], "t", "holm", 0.05, page_data.SEED, {},
        qrels_name=loaded.qrels.name, file_names={name: up.name for name, up in loaded.runs}))
    figures = timed(results, "report figures", lambda: report_figures(made))
    timed(results, "HTML page", lambda: render_report(made).encode("utf-8"))
    timed(results, "tables and files", lambda: report_files(made, html=False, images=False))
    timed(results, "browser start and stop", lambda: images._render([]))
    for formats in (("png",), ("svg",), ("png", "svg")):
        timed(results, "figures " + " + ".join(formats),
              lambda: figure_images(figures, formats, width=1100, height=550))
    files = report_files(made)
    timed(results, "compression", lambda: zip_bytes(files))
    archive = timed(results, "the button", lambda: zip_bytes(report_files(made)))
    return len(archive)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            return next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.machine()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--tree", type=Path, default=HERE.parent, help="the source tree to import (default: this one)")
    args = p.parse_args(argv)
    sys.path.insert(0, str(args.tree.resolve()))
    import streamlit.logger

    streamlit.logger.set_log_level("error")  # each cache used outside a running app would say so
    import dashboard
    from dashboard.exports import browser_path

    print(f"rankscope from {Path(dashboard.__file__).parent.parent}")
    if browser_path() is None:
        raise SystemExit("no Chrome or Chromium found: install Debian's chromium or set BROWSER_PATH")
    results: dict = {}
    sizes = [one_round(results) for _ in range(max(1, args.repeat))]
    load = os.getloadavg()
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end; python {platform.python_version()}")
    print(f"the demo collection, the zip of the report page: {statistics.median(sizes) / 1e6:.2f} MB; "
          f"{len(sizes)} rounds (seconds)")
    print(f"{'part':<24}{'median':>8}{'min':>8}{'max':>8}{'min cpu':>9}")
    for part in PARTS:
        walls = [wall for wall, _ in results[part]]
        cpu = min(c for _, c in results[part])
        print(f"{part:<24}{statistics.median(walls):>8.2f}{min(walls):>8.2f}{max(walls):>8.2f}{cpu:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
