"""rankscope in a notebook: the dashboard's tables and charts of runs held in memory, and the dashboard itself.

>>> from rankscope.notebook import Collection                     # doctest: +SKIP
>>> nb = Collection("qrels.txt", {"bm25": "bm25.run", "dense": pyterrier_frame})  # doctest: +SKIP
>>> nb.summary()                  # the overview's means with their intervals     # doctest: +SKIP
>>> nb.figure("pr")               # the curves page's chart, a plotly figure      # doctest: +SKIP
>>> board = nb.open()             # stored in the workspace, the dashboard served  # doctest: +SKIP
>>> board.url, board.close()                                                        # doctest: +SKIP

:class:`Collection` (:mod:`rankscope.notebook.collection`) reads the judgments and the runs, from files or
from PyTerrier's and ir_measures' frames, and returns the dashboard's tidy frames and figures;
:func:`open_dashboard` (:mod:`rankscope.notebook.serve`) stores it in the workspace and serves the
dashboard on it. This is the command-line layer: the only one that imports both the dashboard's figure
builders and the workspace.
"""

from __future__ import annotations

from rankscope.notebook.collection import FIGURES, Collection
from rankscope.notebook.serve import Dashboard, open_dashboard

__all__ = ["Collection", "Dashboard", "FIGURES", "open_dashboard"]
