"""Exports: CSV and Parquet tables (with the manifest), the LaTeX wrapper, figures as PNG and SVG, review
notes and session files (round trip, and a clear error for every way a session file can be wrong)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
import zipfile

import pandas as pd
import pytest

pytest.importorskip("plotly", reason="the dashboard extra (plotly) is not installed")

import metrics  # noqa: E402
from dashboard import exports  # noqa: E402
from metrics import RankscopeError, ValidationError  # noqa: E402
from metrics.review.manifest import Manifest, build_manifest  # noqa: E402
from tests.dashboard.exports.chromium import chromium_or_skip
from tests.metrics.review.latex import assert_sound_latex  # noqa: E402

QRELS = b"1 0 a 1\n1 0 b 1\n2 0 c 1\n2 0 d 0\n3 0 e 1\n"
RUNS = {"bm25_rm3%": b"1 Q0 a 1 2 x\n1 Q0 z 2 1 x\n2 Q0 c 1 2 x\n3 Q0 e 1 1 x\n",
        "a&b #1 {x} ~^\\": b"1 Q0 z 1 2 y\n1 Q0 a 2 1 y\n2 Q0 d 1 2 y\n3 Q0 q 1 1 y\n"}


@pytest.fixture(scope="module")
def per_query() -> pd.DataFrame:
    return metrics.evaluate(QRELS, RUNS, ["AP", "P@1", "num_rel_ret"])


@pytest.fixture(scope="module")
def summary(per_query) -> pd.DataFrame:
    return metrics.summarise(per_query)


@pytest.fixture(scope="module")
def manifest() -> Manifest:
    return build_manifest(QRELS, RUNS, ["AP", "P@1", "num_rel_ret"], qrels_name="qrels.txt",
                          file_names={"bm25_rm3%": "bm25_rm3%.run", "a&b #1 {x} ~^\\": "ab.run"})


# ---- tables ---------------------------------------------------------------------------------------------


def test_csv_and_parquet_round_trip_with_the_manifest(per_query, summary, manifest):
    back = pd.read_csv(io.BytesIO(exports.per_query_csv(per_query)), dtype={"query": str})
    pd.testing.assert_frame_equal(back, per_query.astype({"system": object, "query": object, "measure": object}),
                                  check_dtype=False)
    data = exports.per_query_parquet(per_query, manifest)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(data)), per_query, check_dtype=False)
    assert Manifest.from_dict(exports.parquet_metadata(data)) == manifest
    assert exports.parquet_metadata(exports.summary_parquet(summary, metadata={"k": 1})) == {"k": 1}
    assert exports.parquet_metadata(exports.parquet_bytes(summary)) is None
    back = pd.read_csv(io.BytesIO(exports.summary_csv(summary)))
    assert list(back.columns) == list(summary.columns) and len(back) == len(summary)
    assert json.loads(exports.manifest_json(manifest)) == manifest.to_dict()
    with pytest.raises(ValidationError, match="missing"):
        exports.summary_csv(per_query.drop(columns="value"))
    with pytest.raises(ValidationError, match="DataFrame"):
        exports.csv_bytes([1, 2])
    with pytest.raises(ValidationError, match="not a Parquet file"):
        exports.parquet_metadata(b"PAR1 but not really")


def test_zip_keeps_names_and_bytes():
    files = {"a.csv": b"x\n1\n", "figures/b.svg": b"<svg/>"}
    with zipfile.ZipFile(io.BytesIO(exports.zip_bytes(files))) as archive:
        assert archive.namelist() == list(files) and archive.read("figures/b.svg") == b"<svg/>"
    for bad in ("../x", "/etc/x", ""):
        with pytest.raises(ValidationError, match="relative"):
            exports.zip_bytes({bad: b""})


def test_the_latex_wrapper_goes_through_metrics_compare(summary, manifest):
    from metrics.review.compare import SummaryTable, to_latex

    markers = {("bm25_rm3%", "AP"): "better", ("bm25_rm3%", "P@1"): "worse"}
    baseline = "a&b #1 {x} ~^\\"
    latex = exports.results_latex(summary, markers, baseline=baseline, test="t", correction="holm", alpha=0.05,
                                  show_ci=True, caption="Runs 50% & more", manifest=manifest)
    expected = to_latex(SummaryTable.from_markers(summary, markers, baseline=baseline, test="t", correction="holm",
                                                  alpha=0.05), ci=True, caption="Runs 50% & more", manifest=manifest)
    assert latex == expected
    assert_sound_latex(latex, columns=4)
    assert r"bm25\_rm3\%" in latex and r"a\&b \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{}" in latex
    assert r"$^{\dagger}$ / $^{\ddagger}$: significantly better / worse than the baseline" in latex
    assert exports.baseline_markers is metrics.review.compare.baseline_markers
    # dashboard.data passes a summary merged with its own test columns: extra columns are ignored
    extra = summary.assign(p_adjusted=0.5, significant=False, marker="")
    assert exports.results_latex(extra, markers, baseline=baseline) == exports.results_latex(summary, markers,
                                                                                                baseline=baseline)


# ---- review notes -------------------------------------------------------------------------------------------


def test_notes_are_values_in_one_shape():
    notes = exports.set_note({}, "401", "hard, pool", " judge again ")
    assert notes == {"401": {"tags": ["hard", "pool"], "comment": "judge again"}}
    more = exports.set_note(notes, 402, ["<b>x</b>", "<b>x</b>"], None)
    assert list(more) == ["401", "402"] and more["402"] == {"tags": ["<b>x</b>"], "comment": ""}
    assert notes == {"401": {"tags": ["hard", "pool"], "comment": "judge again"}}  # not changed in place
    assert exports.set_note(more, "401", None, "") == {"402": {"tags": ["<b>x</b>"], "comment": ""}}
    frame = exports.notes_frame(more)
    assert frame.to_dict("list") == {"topic": ["401", "402"], "tags": ["hard, pool", "<b>x</b>"],
                                     "comment": ["judge again", ""]}
    with pytest.raises(ValidationError, match="topic"):
        exports.set_note({}, ["x"], "a")


# ---- session files -----------------------------------------------------------------------------------------


def test_a_session_carries_its_manifest(manifest):
    data = exports.session_to_json({"bm25_rm3%": "bm25_rm3%.run"}, None, {"1": "x"}, {"page": "overview"},
                                   qrels_name="qrels.txt", manifest=manifest)
    session = exports.session_from_json(data)
    assert session.manifest == manifest
    assert session.digests == {"qrels": manifest.qrels.sha256, "bm25_rm3%": manifest.runs[0].sha256}
    assert exports.session_from_json(exports.session_to_json(
        dict(session.runs), session.conventions, session.notes, session.view, qrels_name=session.qrels,
        digests=session.digests, manifest=session.manifest)).manifest == manifest


def test_session_files_round_trip():
    conventions = metrics.Conventions(preset="trec_eval-10", depth=100, complete=True)
    notes = {"401": {"tags": ["hard", "ties"], "comment": "check the qrels <b>"}, "402": "pool too shallow"}
    view = {"page": "significance", "measure": "nDCG@10", "systems": ["bm25", "dense"], "alpha": 0.05,
            "topic": None, "show_ci": True}
    data = exports.session_to_json({"bm25": "bm25.run.gz", "dense": "dense.run"}, conventions, notes, view,
                                   qrels_name="qrels.txt", digests={"qrels": "0" * 64})
    session = exports.session_from_json(data)
    assert session.runs == (("bm25", "bm25.run.gz"), ("dense", "dense.run")) and session.qrels == "qrels.txt"
    assert session.conventions == conventions
    assert session.notes == {"401": {"tags": ["hard", "ties"], "comment": "check the qrels <b>"},
                             "402": {"tags": [], "comment": "pool too shallow"}}
    assert session.view == view and session.digests == {"qrels": "0" * 64}
    assert exports.session_from_json(data.decode()) == session
    assert session.manifest is None


def _session(**changes) -> bytes:
    document = json.loads(exports.session_to_json(["bm25"], None, {"1": "x"}, {"page": "data"}))
    for path, value in changes.items():
        target = document
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[key]
        if value is KeyError:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return json.dumps(document).encode()


@pytest.mark.parametrize("data, message", [
    (b"", "not a session file: line 1, column 1: expected JSON, found an error: Expecting value"),
    (b"\xff\xfe{}", "not a session file: expected UTF-8 text, found the byte 0xff at byte 0"),
    (exports.session_to_json(["bm25"])[:-20], "not a session file: line 26, column 13: expected JSON, found an error"),
    (b"[1, 2]", "expected a session file (a mapping), found [1, 2]"),
    (b'{"format": "rankscope-session", "format": "x"}', "not a session file: expected each key once in an object, "
                                                        "found 'format' twice"),
    (b'{"format": "rankscope-session", "version": 1, "x": NaN}', "not a session file: line 1, column 52: expected a "
                                                                 "finite number, found NaN"),
    (b"[" * 100_000 + b"]" * 100_000, "not a session file: expected JSON, found it nested too deeply to read"),
    (b" " * (9 * 1024 * 1024), "not a session file: expected at most 8388608 bytes, found 9437184"),
    (_session(format="something-else"), "format: expected 'rankscope-session', found 'something-else'"),
    (_session(version=2), "version: expected 1, found 2"),
    (_session(extra=1), "extra: expected one of the fields format, version, "),
    (_session(notes=KeyError), "notes: expected a mapping of review notes, found no such field"),
    (_session(loaded__runs=[{"system": "a", "file": "a"}, {"system": "a", "file": "b"}]),
     "loaded.runs: expected one run per system name, found 'a' twice"),
    (_session(loaded__runs=[{"system": 3, "file": "a"}]), "loaded.runs[0].system: expected one non-empty line of at most "
                                                          "256 characters, found 3"),
    (_session(loaded__runs=[{"system": "x" * 300, "file": "a"}]), "loaded.runs[0].system: expected one non-empty line "
                                                                  "of at most 256 characters, found 'xxxx"),
    (_session(loaded__runs="bm25"), "loaded.runs: expected a list of at most 1000 items, found 'bm25'"),
    (_session(conventions__depth="10"), "conventions.depth: expected an integer from 1 to 1000000000 or null, found '10'"),
    (_session(conventions__preset="trec_eval-11"), "conventions.preset: expected one of 'trec_eval-9', 'trec_eval-10', "
                                                   "'textbook', found 'trec_eval-11'"),
    (_session(conventions__color="red"), "conventions.color: expected one of the fields preset, relevance_level, "),
    (_session(notes={"1": {"tags": "a", "comment": 3}}), "notes.1.comment: expected text of at most 20000 characters, "
                                                         "found 3"),
    (_session(notes={"1": {"tag": ["a"]}}), "notes.1.tag: expected one of the fields tags, comment, found an unknown "
                                            "field"),
    (_session(notes={"1": {"comment": "x" * 30_000}}), "notes.1.comment: expected text of at most 20000 characters, "
                                                       "found 'xxxx"),
    (_session(view={"page": {"nested": 1}}), "view.page: expected text, a number, true or false, or a list of text or "
                                             "null, found a mapping of 1 key"),
    (_session(view={"bad key!": 1}), "view['bad key!']: expected a plain name (a letter or _, then letters, digits, _ . "
                                     "-), found 'bad key!'"),
    (_session(view={"n": 1e400}), "not a session file: line 1, column 440: expected a finite number, found Infinity"),
    (_session(digests={"qrels": "not-a-digest"}), "digests.qrels: expected a SHA-256 in lower-case hex, found "
                                                  "'not-a-digest'"),
    (_session(digests={"someone": "0" * 64}), "digests.someone: expected 'qrels' or the name of a loaded system, found "
                                              "'someone'"),
    (_session(manifest=[1]), "manifest: expected a manifest or null, found [1]"),
    (_session(manifest={"rankscope_version": "0"}), "manifest.created_utc: expected text of at most 100000 characters, "
                                                    "found no such field"),
])
def test_a_bad_session_file_raises_validation_error(data, message):
    with pytest.raises(ValidationError) as caught:
        exports.session_from_json(data)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_saving_a_bad_session_raises():
    with pytest.raises(ValidationError):
        exports.session_to_json(["a"], None, None, {"page": object()})
    with pytest.raises(ValidationError):
        exports.session_to_json("bm25")


# ---- images ---------------------------------------------------------------------------------------------


def _small_figure(*names: str):
    from dashboard import figures

    names = names or ("a",)
    points = pd.DataFrame({"system": [n for n in names for _ in range(3)], "recall": [0.0, 0.5, 1.0] * len(names),
                           "precision": [1.0, 0.5, 0.2] * len(names)})
    return figures.eleven_point_chart(points, figures.system_colors(list(names)), "test")


def test_the_image_page_loads_nothing_from_the_network():
    from dashboard.exports.images import _page_generator

    page = _page_generator().generate_index()
    assert "http://" not in page and "https://" not in page and "mathjax" not in page.lower()
    assert "plotly.min.js" in page


def test_figures_export_to_png_and_svg():
    chromium_or_skip()
    images = exports.figure_images({"one": _small_figure(), "two": _small_figure("a", "</svg><b>&")},
                                   width=400, height=300)
    assert list(images) == ["one.png", "one.svg", "two.png", "two.svg"]
    for name in ("one", "two"):
        png, svg = images[f"{name}.png"], images[f"{name}.svg"]
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert (width, height) == (400, 300)
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    legend = "".join(ET.fromstring(images["two.svg"]).itertext())
    assert "</svg><b>&" in legend  # the name is text in the SVG, not markup
    assert exports.figure_png(_small_figure(), width=200, height=100, scale=2)[16:24] == \
        (400).to_bytes(4, "big") + (200).to_bytes(4, "big")
    assert ET.fromstring(exports.figure_svg(_small_figure())).attrib["width"] == "700"


def test_figures_drawn_in_one_page_are_those_of_a_page_reloaded_after_each(monkeypatch):
    """Kaleido reloads its page (and parses plotly.js again) after every image; the export reloads it after
    every RELOAD_EVERY images, and draws the same images: PNG byte for byte, SVG but for plotly.js's random ids
    and the order of some attributes (the same XML once canonical)."""
    import re

    import kaleido
    from kaleido._kaleido_tab._tab import _KaleidoTab

    from dashboard.exports import images as images_module

    chromium_or_skip()
    reloads = []
    reload = _KaleidoTab.reload

    async def counted(tab):
        reloads.append(tab)
        await reload(tab)

    monkeypatch.setattr(_KaleidoTab, "reload", counted)
    monkeypatch.setattr(images_module, "RELOAD_EVERY", 4)
    figures = {"one": _small_figure(), "two": _small_figure("a", "b"), "three": _small_figure("c")}
    kept = exports.figure_images(figures, width=400, height=300)
    assert len(reloads) == 1  # six images, reloaded after the fourth
    reloads.clear()
    monkeypatch.setattr(images_module, "_session_class", lambda: kaleido.Kaleido)
    reloaded = exports.figure_images(figures, width=400, height=300)
    assert len(reloads) == 6
    assert list(kept) == list(reloaded)

    def unrandomised(svg: bytes) -> str:  # plotly.js names each drawing and each trace with 6 random hex digits
        text = svg.decode()
        uid = re.search(r'id="defs-([0-9a-f]{6})"', text).group(1)
        return ET.canonicalize(re.sub(r"\btrace[0-9a-f]{6}\b", "trace-uid", text.replace(uid, "uid")))

    for name in kept:
        if name.endswith(".png"):
            assert kept[name] == reloaded[name], name
        else:
            assert unrandomised(kept[name]) == unrandomised(reloaded[name]), name


def test_image_export_without_kaleido_or_a_browser_is_a_clear_error(monkeypatch):
    import importlib.util

    fig = _small_figure()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "kaleido" else real(name, *a))
    with pytest.raises(RankscopeError, match="needs kaleido"):
        exports.figure_png(fig)
    monkeypatch.setattr(importlib.util, "find_spec", real)
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    with pytest.raises(RankscopeError, match="Chrome or Chromium|browser failed"):
        exports.figure_svg(fig)
    with pytest.raises(ValidationError, match="format"):
        exports.figure_image(fig, "gif")
    with pytest.raises(ValidationError, match="plotly figure"):
        exports.figure_images({"x": object()})
