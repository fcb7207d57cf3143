"""Expected reciprocal rank (Chapelle et al.'s cascade model)."""

from __future__ import annotations

import numpy as np

from metrics.measures.base import Measure, Param, register


@register
class ERR(Measure):
    """Expected reciprocal rank: 1/rank of the document where a cascading user stops, in expectation.

    Notes
    -----
    Not in trec_eval (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009). The user reads the ranking from
    the top and is satisfied by the document at rank i with probability R_i = (2^g_i - 1) / 2^g_max, where
    g_i is its grade; unjudged and non-relevant documents have R_i = 0. The value is the expected
    reciprocal of the rank where the user stops, cut at rank k. Without a cutoff, the whole ranking.

    ``max_grade`` (g_max) is the top of the grading scale. By default it is the highest grade in the whole
    qrels (every query, not only this one), so it is a property of the collection and the same for every
    run; give it explicitly (e.g. 4 for a 0-4 scale) to compare with published figures. Grades above it
    are treated as g_max. With binary judgments (g_max = 1) R_i is 1/2 for each relevant document.

    .. math:: ERR@k = \\sum_{i=1}^{k} \\frac{1}{i}\\, R_i \\prod_{j=1}^{i-1} (1 - R_j),
              \\qquad R_i = \\frac{2^{g_i} - 1}{2^{g_{\\max}}}
    """

    name = "ERR"
    exact_under_ties = True
    pretty_name = "Expected reciprocal rank@k"
    description = "Expected 1/rank at which a user who stops at a satisfying document stops (cascade model)."
    latex = (r"ERR@k = \sum_{i=1}^{k} \frac{1}{i} R_i \prod_{j<i} (1 - R_j),\quad "
             r"R_i = \frac{2^{g_i}-1}{2^{g_{\max}}}")
    params = (Param("cutoff", int, default=None, min=1, help="rank cutoff k"),
              Param("max_grade", int, default=None, min=1,
                    help="top grade g_max of the scale (default: the highest grade in the qrels)"))

    def compute(self, r) -> np.ndarray:
        hits = r.hits(1)  # only positive grades can satisfy the user
        keep = np.ones(len(hits.index), dtype=bool) if self.cutoff is None else hits.pos <= self.cutoff
        seg, pos = hits.seg[keep], hits.pos[keep].astype(np.float64)
        top = self.max_grade if self.max_grade is not None else max(r.max_grade, 1)
        top = min(top, np.iinfo(np.int64).max)  # grades are int64: a larger g_max caps none of them either
        grade = np.minimum(r.rel[hits.index[keep]], top).astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):  # past grade 1023, 2**grade overflows: NaN
            stop = (np.exp2(grade) - 1.0) / np.exp2(top)
        log_go_on = np.log1p(-stop)  # stop < 1, so finite
        inclusive = np.cumsum(log_go_on)
        first = np.searchsorted(seg, seg, side="left")  # index of the query's first hit
        before = inclusive - log_go_on - (inclusive[first] - log_go_on[first]) if len(seg) else inclusive
        return np.bincount(seg, weights=stop / pos * np.exp(before), minlength=r.n_queries).astype(np.float64)
