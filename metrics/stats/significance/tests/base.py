"""What a statistical test declares: its names, its words, its properties, and its kernel."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from metrics.registry import Declaration, Registry

__all__ = ["TEST_REGISTRY", "Test", "register"]


class Test(Declaration):
    """A test of systems on their per-topic values, declared once beside its kernel.

    A test compares two systems (or all at once) topic by topic: its kernel reads the differences
    ``d = b - a`` of each pair of systems and gives a statistic and a two-sided p-value for each.

    Class attributes
    ----------------
    name, aliases, label, help, order
        As every :class:`~metrics.registry.Declaration`: the label is what a picker shows and a dashboard link
        carries (``?test=Wilcoxon``), so it stays short and stable.
    phrase : str
        What a sentence of a caption, report or reading calls the test (``"paired t-test"``).
    resampled : bool
        It draws random resamples: it has a seed and a number of resamples, and its cost grows with them
        (the dashboard runs it in a worker process).
    sign_flips : bool
        Its resamples are the random sign flips of the differences, which Westfall and Young's max-T
        correction reuses (a correction with ``resampled`` needs such a test).
    adjusts_itself : bool
        Its p-values are already adjusted for every pair of the systems (a correction is not applied, and a
        family holds all the pairs).
    all_systems : bool
        It tests every system at once (its kernel is :meth:`all_pairs`), not two at a time
        (:meth:`pairwise`): :func:`~metrics.stats.significance.paired_test` refuses it.
    parametric : bool
        It treats per-topic values as an interval scale (means and variances): a caution for ordinal
        measures.
    order_only : bool
        It reads no more than the order of the two values on each topic (which is higher), so it suits an
        ordinal measure.
    needs_spread : bool
        It is undefined when every difference is the same (the standard deviation is 0).
    """

    __test__ = False  # not a pytest test class

    phrase: ClassVar[str]
    resampled: ClassVar[bool] = False
    sign_flips: ClassVar[bool] = False
    adjusts_itself: ClassVar[bool] = False
    all_systems: ClassVar[bool] = False
    parametric: ClassVar[bool] = False
    order_only: ClassVar[bool] = False
    needs_spread: ClassVar[bool] = False

    def pairwise(self, D: np.ndarray, K: np.ndarray, info: dict[str, np.ndarray],
                 options: dict[str, Any]) -> dict[str, np.ndarray]:  # pragma: no cover - abstract
        """The test of each row of differences ``D`` (pairs x topics; ``K``, ``D`` rounded, decides zeros,
        ties and ranks), none of them all zero.

        ``info`` holds each row's description (``mean``, ``sd``, ``constant``, ``wins``, ``losses``, ...,
        see :func:`~metrics.stats.significance._kernels.describe`); ``options`` the checked options
        (``n_resamples``, ``seed``, ``confidence``, ``ci``, ``zero_method``, ``wilcoxon_method``,
        ``tie_tolerance``) and ``client``. Returns ``statistic`` and ``p_value`` per row, and may return
        ``exact`` (no random draw was used), ``ci_low`` and ``ci_high`` (an interval of its own).
        """
        raise NotImplementedError

    def all_pairs(self, X: np.ndarray, systems: list[str],
                  options: dict[str, Any]) -> Any:  # pragma: no cover - abstract
        """The test of every pair of the systems at once on their scores ``X`` (systems x topics): a frame
        of the pairs ``(i, j)``, ``i < j``, with ``statistic``, ``p_value``, ``ci_low`` and ``ci_high``."""
        raise NotImplementedError


TEST_REGISTRY: Registry[Test] = Registry("test", ("phrase",))
"""Every statistical test, in order."""

register = TEST_REGISTRY.register
