"""The default number of worker processes: chosen only where the model says they gain on the cores free."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from metrics.scale.plan import MARGIN, ONE_PROCESS_CORES, START_SECONDS, default_jobs, estimate, free_cores


@given(sizes=st.lists(st.integers(0, 10**9), min_size=1, max_size=300), cores=st.integers(1, 64),
       load=st.floats(0, 100, allow_nan=False))
def test_the_default_is_never_slower_than_one_process_in_the_model(sizes, cores, load):
    jobs = default_jobs(sizes, cores=cores, load=load)
    free = free_cores(cores, load)
    assert 1 <= jobs <= min(len(sizes), max(1, int(free)))
    if jobs > 1:
        assert estimate(sum(sizes), jobs, free) <= MARGIN * estimate(sum(sizes), 1, free)


def test_the_model_by_hand():
    total = 100 * 8_700_000
    alone = total * 6.4e-9
    assert estimate(total, 1, 4) == alone
    assert estimate(total, 4, 2) == START_SECONDS + alone * ONE_PROCESS_CORES / 2  # no more than the free cores
    assert free_cores(2, 5.0) == 1.0 and free_cores(16, 3.5) == 12.5
    assert default_jobs([8_700_000] * 200, cores=16, load=12.0) == 4  # four cores left by other work
    assert default_jobs([250_000_000] * 3, cores=16, load=0.0) == 3  # never more workers than runs
    assert default_jobs([10_000] * 500, cores=16, load=0.0) == 1  # 5 MB in all: starting workers costs more
