"""The measures whose lower values are better, read off the registry, and tables where the order of the systems
by such a measure is known.

Every place that orders systems is tested over :data:`LOWER_IS_BETTER`, so a measure declared
``higher_is_better = False`` tomorrow is covered without editing a test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics import list_measures

LOWER_IS_BETTER = tuple(str(cls()) for cls in list_measures() if not cls.higher_is_better)
"""A label of each measure whose declaration says lower values are better (MR, Fallout, ...)."""

LOADED = ("worst", "middle", "best")
"""The systems in the order they are loaded: the highest values first, so the lowest (the best) comes last."""

BEST_FIRST = ("best", "middle", "worst")
"""Their order, best first, by any measure of :data:`LOWER_IS_BETTER` in :func:`per_query`."""


def per_query(label: str, topics: int = 12, seed: int = 0) -> pd.DataFrame:
    """A tidy per-query table of :data:`LOADED` on ``topics`` topics: ``worst`` near 0.7, ``middle`` near 0.45,
    ``best`` near 0.2, each topic shifted alike (so the paired tests find every difference)."""
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0.0, 0.1, topics)
    rows = [pd.DataFrame({"system": name, "query": [f"q{j:02d}" for j in range(topics)], "measure": label,
                          "value": np.round(centre + topic + rng.uniform(-0.02, 0.02, topics), 4)})
            for name, centre in zip(LOADED, (0.7, 0.45, 0.2))]
    return pd.concat(rows, ignore_index=True)
