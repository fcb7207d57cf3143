"""metrics.stats.significance at scale: the randomisation test's chunked shared-flip products against a textbook
loop and against one product over all pairs, the same p-values over a Dask cluster, and the corrections of
tens of thousands of p-values against statsmodels.

The Dask tests use ``$RANKSCOPE_TEST_DASK_SCHEDULER`` when set (a scheduler address), else a
``distributed.LocalCluster(n_workers=2, processes=True)`` of their own, closed afterwards. Without dask or a
cluster they are skipped, naming what is missing; under ``CI=true`` that is a failure instead.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from metrics.errors import ValidationError
from metrics.stats.significance import (
    adjust_pvalues,
    compare_systems,
    permutation_test,
    sign_flip_matrix,
)
from metrics.stats.significance._corrections import adjust_families
from metrics.stats.significance._resampling import (
    BLOCK,
    flip_bits,
    pair_chunks,
    permutation_counts,
    threshold,
)


def differences(pairs: int, n: int, seed: int) -> np.ndarray:
    """Seeded differences with the hard cases: decimal-grid ties, zeros, constant, one non-zero, symmetric
    and very large rows."""
    rng = np.random.default_rng(seed)
    D = np.round(rng.normal(0.01, 0.1, (pairs, n)), 3)
    D[0] = 0.0
    D[0, 0] = 0.25  # one non-zero difference
    D[1] = 0.125  # constant
    D[2] = np.resize([0.1, -0.1], n)  # symmetric: the observed sum 0 (or 0.1), every flip reaches it
    D[3] *= 1e6  # large magnitude
    D[4] = rng.choice([-3, -1, 0, 1, 3], size=n) / 10  # many exact ties of the flipped sums
    return D


def textbook_counts(D: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """b = #{r : |sum_i s_ri d_i| >= |sum_i d_i| - 1e-12 sum_i |d_i|}, one resample and one pair at a time."""
    S = sign_flip_matrix(D.shape[1], n_resamples, seed).astype(np.float64)
    out = np.zeros(D.shape[0], dtype=np.int64)
    for p, d in enumerate(D):
        observed = abs(float(np.sum(d))) - 1e-12 * float(np.sum(np.abs(d)))
        for s in S:
            out[p] += abs(float(np.dot(s, d))) >= observed
    return out


def one_product_counts(D: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """The formulation before chunking: every pair in one product per block of flips."""
    total, reach = D.sum(axis=1), threshold(D)
    count = np.zeros(D.shape[0], dtype=np.int64)
    for bits in flip_bits(D.shape[1], n_resamples, seed):
        sums = bits.astype(np.float64) @ D.T
        count += np.count_nonzero(np.abs(total - 2.0 * sums) >= reach, axis=0)
    return count


def many_systems(k: int, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = np.clip(rng.random(n)[None, :] + rng.normal(0, 0.1, (k, n)) + np.linspace(0, 0.05, k)[:, None], 0, 1)
    X = np.round(X, 4)
    X[1] = X[0]  # an identical pair
    return pd.DataFrame({"system": np.repeat([f"s{i:03d}" for i in range(k)], n),
                         "query": np.tile([str(300 + j) for j in range(n)], k), "measure": "AP",
                         "value": X.ravel()})


# ---- chunked shared-flip products ---------------------------------------------------------------------------


@pytest.mark.parametrize("n,n_resamples,seed", [(21, 300, 0), (64, 257, 1), (65, 600, 2), (130, 2 * BLOCK, 3)])
def test_chunked_counts_equal_a_textbook_loop(n, n_resamples, seed):
    D = differences(9, n, seed)
    expected = textbook_counts(D, n_resamples, seed)
    for memory in (1, BLOCK * 9 + n * 8 + BLOCK * n * 8 + 1, 10 ** 9):  # one pair, a few, all per chunk
        assert np.array_equal(permutation_counts(D, n_resamples, seed, memory=memory), expected), memory
    assert expected[2] == n_resamples  # symmetric row: every pattern reaches the observed sum


@pytest.mark.parametrize("seed", range(4))
def test_chunked_counts_equal_one_product_over_all_pairs(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(21, 300))
    D = differences(int(rng.integers(5, 400)), n, seed)
    expected = one_product_counts(D, 1000, seed)
    for memory in (1, int(rng.integers(BLOCK * n * 8, BLOCK * n * 8 + 50 * (BLOCK * 9 + n * 8))), 10 ** 9):
        assert np.array_equal(permutation_counts(D, 1000, seed, memory=memory), expected)


def test_pair_chunks_cover_the_pairs_in_order_within_the_budget():
    for pairs, n, memory in ((1, 21, 1), (44850, 250, 256 * 2 ** 20), (1000, 7000, 64 * 2 ** 20), (7, 30, 10 ** 12)):
        chunks = pair_chunks(pairs, n, memory)
        assert np.array_equal(np.concatenate([np.arange(c.start, c.stop) for c in chunks]), np.arange(pairs))
        widths = [c.stop - c.start for c in chunks]
        assert min(widths) >= 1
        if max(widths) > 1:
            assert BLOCK * n * 8 + max(widths) * (BLOCK * 9 + n * 8) <= memory


def test_compare_systems_p_values_do_not_depend_on_the_chunking(monkeypatch):
    per_query = many_systems(12, 40, 5)
    whole = compare_systems(per_query, test="permutation", n_resamples=999, seed=3).frame
    import metrics.stats.significance._resampling as resampling

    monkeypatch.setattr(resampling, "MEMORY", 1)  # one pair per chunk
    chunked = compare_systems(per_query, test="permutation", n_resamples=999, seed=3).frame
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    # each row is the two-system test, and that is (b + 1) / (B + 1) of the textbook count
    X = per_query.pivot(index="system", columns="query", values="value").to_numpy()
    for row in whole.sample(8, random_state=0).itertuples():
        a, b = X[int(row.system_a[1:])], X[int(row.system_b[1:])]
        if np.array_equal(a, b):
            assert row.p_value == 1.0
            continue
        assert permutation_test(a, b, n_resamples=999, seed=3).p_value == row.p_value
        assert row.p_value == (textbook_counts((b - a)[None, :], 999, 3)[0] + 1) / 1000


def test_counts_over_a_dask_cluster_equal_the_local_ones(dask_client):
    assert sum(dask_client.nthreads().values()) >= 2
    for seed in range(3):
        D = differences(40 + 17 * seed, 30 + 40 * seed, seed)
        local = permutation_counts(D, 700, seed)
        assert np.array_equal(permutation_counts(D, 700, seed, client=dask_client), local)
        assert np.array_equal(permutation_counts(D, 700, seed, client=dask_client, memory=1), local)
    small = differences(6, 25, 9)
    assert np.array_equal(permutation_counts(small, 300, 9, client=dask_client), textbook_counts(small, 300, 9))


def test_compare_systems_over_a_dask_cluster_is_the_same_table(dask_client):
    per_query = many_systems(15, 60, 11)
    here = compare_systems(per_query, test="permutation", n_resamples=2000, seed=4)
    there = compare_systems(per_query, test="permutation", n_resamples=2000, seed=4, client=dask_client)
    pd.testing.assert_frame_equal(there.frame, here.frame, check_exact=True)
    t_here = compare_systems(per_query, test="t")  # the client changes nothing for the other tests
    pd.testing.assert_frame_equal(compare_systems(per_query, test="t", client=dask_client).frame, t_here.frame,
                                  check_exact=True)


def test_a_client_that_is_not_one_is_refused():
    with pytest.raises(ValidationError, match="dask.distributed Client"):
        permutation_counts(differences(6, 25, 0), 10, 0, client=object())


# ---- corrections over tens of thousands of p-values ---------------------------------------------------------


@pytest.mark.parametrize("method,theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"),
                                           ("by", "fdr_by")])
def test_corrections_of_all_pairs_of_300_systems_match_statsmodels(method, theirs):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(7)
    p = np.concatenate([rng.beta(0.3, 4.0, 30000), rng.random(14850)])
    p[::97] = 1.0
    p[5::101] = p[4::101][: len(p[5::101])]  # ties
    rng.shuffle(p)
    assert p.size == 44850
    ours = adjust_pvalues(p, method)
    np.testing.assert_allclose(ours, multipletests(p, method=theirs)[1], rtol=1e-12, atol=0)


def test_corrections_within_families_at_scale_match_statsmodels_per_family():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(8)
    p = rng.beta(0.4, 3.0, 3 * 44850)
    labels = np.repeat([0, 1, 2], 44850)
    rng.shuffle(labels)
    p[rng.random(p.size) < 0.01] = np.nan  # untested pairs: in no family
    ours = adjust_families(p, labels, "holm")
    for label in range(3):
        mask = (labels == label) & ~np.isnan(p)
        np.testing.assert_allclose(ours[mask], multipletests(p[mask], method="holm")[1], rtol=1e-12, atol=0)
    assert np.isnan(ours[np.isnan(p)]).all()
