"""CPU time of a function on inputs of two sizes, measured in turns, for tests that compare their ratio.

Timing tests compare ratios within one run, never absolute times: the inputs are read in turns (small,
large, small, large, ...) so that both sizes see the same state of a shared machine, each one's best of
the rounds is kept, with the garbage collector paused (it measures the reader, not the allocator), and
``time.process_time`` counts this process's CPU (other processes' load does not).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from typing import Any


def best_in_turns(fn: Callable[[Any], Any], inputs: Sequence[Any], rounds: int = 3) -> list[float]:
    """The least CPU time of ``fn(x)`` for each of ``inputs``, over ``rounds`` turns through all of them."""
    best = [float("inf")] * len(inputs)
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for i, value in enumerate(inputs):
                start = time.process_time()
                fn(value)
                best[i] = min(best[i], time.process_time() - start)
    finally:
        if enabled:
            gc.enable()
    return best


def growth(fn: Callable[[Any], Any], small: Any, large: Any, rounds: int = 3) -> float:
    """How many times longer ``fn(large)`` takes than ``fn(small)``, measured in turns."""
    t_small, t_large = best_in_turns(fn, (small, large), rounds)
    return t_large / max(t_small, 1e-4)
