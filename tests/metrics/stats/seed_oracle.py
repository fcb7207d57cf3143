"""The statsmodels oracle of the seeds' tests and its tolerance."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from statsmodels.regression.mixed_linear_model import MixedLM

VC = {
    "topic": "0 + C(topic)",
    "topic_system": "0 + C(topic):C(system)",
    "run": "0 + C(run)",
}


def long_frame(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    rows = [
        (s, f"{s}{i}", t, float(y[i, t]))
        for s, y in (("a", a), ("b", b))
        for i in range(y.shape[0])
        for t in range(y.shape[1])
    ]
    frame = pd.DataFrame(rows, columns=["system", "run", "topic", "y"])
    frame["group"] = 1
    return frame


def statsmodels_fit(a: np.ndarray, b: np.ndarray):
    """The same model in statsmodels: y ~ system, one group, three variance components, REML."""
    model = MixedLM.from_formula("y ~ system", groups="group", re_formula="0", vc_formula=VC, data=long_frame(a, b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # boundary and convergence notes of statsmodels' own optimiser
        # Nelder-Mead then BFGS: statsmodels' default (L-BFGS) stops short of the maximum on these layouts
        return model.fit(reml=True, method=["nm", "bfgs"])


P_TOLERANCE = 5e-5  # statsmodels stops within this of the maximum our likelihood check confirms
