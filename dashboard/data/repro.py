"""The reproducibility page's computation: Breuer et al.'s measures of a reproduction among the loaded runs."""

from __future__ import annotations

from dashboard.data.cache import on_collection
from dashboard.data.files import read_qrels, read_run
from dashboard.session.state import Loaded


@on_collection(max_entries=16, show_spinner="Comparing the reproduction with the original…")
def reproduction(loaded: Loaded, original_baseline: str, original_advanced: str, reproduced_baseline: str,
                 reproduced_advanced: str, measures: tuple[str, ...]):
    """Breuer et al.'s measures of a reproduction among the loaded runs: per-topic Kendall's tau union and
    RBO, RMSE, effect ratio, delta RI and p-values (:func:`metrics.stats.reproducibility.reproduce`)."""
    from metrics.stats.reproducibility import reproduce

    systems = (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced)
    named = {name: read_run(up, name) for name, up in loaded.runs}
    return reproduce(read_qrels(loaded.qrels), *(named[s] for s in systems), list(measures),
                     conventions=loaded.conventions)
