"""Every code block of the site's pages and of the README runs, and prints what the page shows.

Each page runs in a folder of its own holding the demo collection (the getting-started page makes it the
same way), its blocks in order, in this process (:mod:`tests.docs.examples` says how each kind of block
runs). A renamed flag, function or output fails here, not in a reader's terminal.
"""

from __future__ import annotations

import pytest

from tests.docs import examples


@pytest.mark.parametrize("doc", examples.pages())  # not "page": pytest-playwright's fixture of that name
def test_every_example_of_the_page_runs(doc, tmp_path):
    found = examples.blocks(doc)
    state = examples.Page(examples.demo_folder(tmp_path / "demo"))
    for block in found:
        state.run(block)


def test_the_runner_sees_a_wrong_output(tmp_path):
    """A console block whose printed lines differ from the command's fails, and `...` skips lines."""
    state = examples.Page(examples.demo_folder(tmp_path))
    right = examples.Block("x.md", 1, "console", "$ rankscope eval -m P_5 qrels.txt runs/bm25.run.gz\n"
                                                   "P_5                   \tall\t0.3840\n")
    state.run(right)
    with pytest.raises(AssertionError, match="printed"):
        state.run(examples.Block("x.md", 1, "console", right.text.replace("0.3840", "0.3841")))
    state.run(examples.Block("x.md", 1, "console", "$ rankscope eval -q -m P_5 qrels.txt runs/bm25.run.gz\n"
                                                     "P_5                   \t401\t0.8000\n...\nP_5                   \tall\t0.3840\n"))
    with pytest.raises(AssertionError, match="status 2"):
        state.run(examples.Block("x.md", 1, "bash", "rankscope eval --no-such-flag qrels.txt runs/bm25.run.gz\n"))
