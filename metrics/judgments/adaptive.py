"""Methods whose next document depends on the judgments so far: move-to-front and MaxMean.

Both treat each topic's runs as arms: pulling a run judges its highest-ranked document not judged yet. A
document some judgment already covers (from the qrels given, or judged through another run) is not proposed:
the run passes it, and counts it as seen, relevant or not, at no cost. A run whose documents (to the depth)
are all judged drops out; a topic whose runs have all dropped out has nothing left to propose.

* **Move-to-front** (Cormack, Palmer and Clarke, SIGIR 1998), as Losada, Parapar and Barreiro describe it:
  every run starts with the same priority; the method stays with a run while its documents are relevant, and
  on a non-relevant one lowers that run's priority by one and moves to the run of highest priority.
* **MaxMean** (Losada, Parapar and Barreiro, SAC 2016; IP&M 2017): each run's chance of giving a relevant
  document has a Beta(1, 1) prior; the method pulls the run whose posterior mean ``(1 + relevant) / (2 +
  seen)`` is highest.

Equal priorities and equal means go to the run given first (the papers break such ties at random; a fixed
rule makes a plan reproducible). A relevant document has a grade of at least the relevance level.

The first document each topic proposes is the method's choice given every judgment so far. Further
documents of a batch (:meth:`~metrics.judgments.methods.Proposer.next` with ``n`` past the number of
topics) are planned as though each document proposed before them were relevant: move-to-front stays with its
run, and MaxMean's chosen run keeps a mean at least as high; the judgments, once recorded, plan the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from metrics.judgments.candidates import NOT_JUDGED, Candidates
from metrics.judgments.methods import PerTopic, method

__all__ = ["MaxMean", "MoveToFront"]


@dataclass
class Arms:
    """One topic's runs as arms: each run's candidates in rank order, how far it has got, what it has seen.

    Attributes
    ----------
    lists : list of numpy.ndarray
        Each run's candidates, best rank first (empty for a run that does not answer the topic).
    at : numpy.ndarray
        Each run's next position in its list.
    seen, relevant : numpy.ndarray
        The judged documents each run has passed, and how many of them were relevant.
    priority : numpy.ndarray
        Move-to-front's priority of each run (0 at the start).
    current : int
        The run move-to-front stays with (-1: none yet).
    """

    lists: list[np.ndarray]
    at: np.ndarray
    seen: np.ndarray
    relevant: np.ndarray
    priority: np.ndarray
    current: int = -1

    def copy(self) -> "Arms":
        return replace(self, at=self.at.copy(), seen=self.seen.copy(), relevant=self.relevant.copy(),
                       priority=self.priority.copy())

    def live(self) -> np.ndarray:
        return np.array([self.at[s] < len(self.lists[s]) for s in range(len(self.lists))], dtype=bool)


class _Arms(PerTopic):
    """What both methods share: the arms of each topic, and the walk to the next unjudged document."""

    def __init__(self, candidates: Candidates) -> None:
        super().__init__(candidates)
        self.arms: dict[int, Arms] = {}

    def arms_of(self, topic: int) -> Arms:
        if topic not in self.arms:
            c = self.candidates
            lo, hi = c.position_starts[topic], c.position_starts[topic + 1]
            system, candidate = c.system[lo:hi], c.candidate[lo:hi]
            lists = [candidate[system == s] for s in range(c.n_systems)]
            zeros = np.zeros(c.n_systems, dtype=np.int64)
            self.arms[topic] = Arms(lists, zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy())
        return self.arms[topic]

    def choose(self, arms: Arms) -> int:
        """The run to pull next (-1: none has documents left)."""
        raise NotImplementedError

    def observe(self, arms: Arms, run: int, relevant: bool) -> None:
        arms.seen[run] += 1
        arms.relevant[run] += relevant

    def reason(self, arms: Arms, run: int) -> tuple[float, str]:
        raise NotImplementedError

    def walk(self, arms: Arms, assumed: set[int]) -> tuple[int, int] | None:
        """Pull runs, passing judged documents (``assumed`` ones count as relevant), until a run's next
        document is unjudged: ``(run, candidate)``, or None when every run is done."""
        level = self.candidates.level
        while True:
            run = self.choose(arms)
            if run < 0:
                return None
            index = int(arms.lists[run][arms.at[run]])
            grade = self.grades[index]
            if grade == NOT_JUDGED and index not in assumed:
                return run, index
            self.observe(arms, run, index in assumed or grade >= level)
            arms.at[run] += 1

    def plan(self, topic: int, n: int | None) -> tuple[list[int], list[float], list[str]]:
        arms = self.arms_of(topic)
        found = self.walk(arms, set())  # the judgments so far are facts: the topic's own state moves on
        index, weight, why = [], [], []
        assumed: set[int] = set()
        planned = arms.copy()
        while found is not None and (n is None or len(index) < n):
            run, doc = found
            w, text = self.reason(planned, run)
            index.append(doc)
            weight.append(w)
            why.append(text)
            assumed.add(doc)  # planned as though relevant
            found = self.walk(planned, assumed)
        return index, weight, why


@method("mtf", title="move-to-front", reference="Cormack, Palmer and Clarke (SIGIR 1998)",
        help="stay with a run while its documents are relevant; on a non-relevant one lower its priority and "
             "move to the run of highest priority", weight="priority", adaptive=True)
class MoveToFront(_Arms):
    """Move-to-front pooling, each topic on its own."""

    def choose(self, arms: Arms) -> int:
        live = arms.live()
        if arms.current >= 0 and live[arms.current]:
            return arms.current
        if not live.any():
            return -1
        arms.current = int(np.argmax(np.where(live, arms.priority, np.iinfo(np.int64).min)))
        return arms.current

    def observe(self, arms: Arms, run: int, relevant: bool) -> None:
        super().observe(arms, run, relevant)
        if not relevant:
            arms.priority[run] -= 1
            arms.current = -1

    def reason(self, arms: Arms, run: int) -> tuple[float, str]:
        name = self.candidates.systems[run]
        return float(arms.priority[run]), (f"{name}: priority {arms.priority[run]}, {arms.relevant[run]} of "
                                           f"{arms.seen[run]} relevant so far")


@method("bandit", title="MaxMean bandit", reference="Losada, Parapar and Barreiro (SAC 2016; IP&M 2017)",
        help="pull the run whose posterior mean of relevance (1 + relevant) / (2 + judged) is highest",
        weight="posterior mean", adaptive=True)
class MaxMean(_Arms):
    """The MaxMean bandit, each topic on its own."""

    def choose(self, arms: Arms) -> int:
        live = arms.live()
        if not live.any():
            return -1
        mean = (1.0 + arms.relevant) / (2.0 + arms.seen)
        return int(np.argmax(np.where(live, mean, -np.inf)))

    def reason(self, arms: Arms, run: int) -> tuple[float, str]:
        rel, seen = int(arms.relevant[run]), int(arms.seen[run])
        mean = (1.0 + rel) / (2.0 + seen)
        return mean, f"{self.candidates.systems[run]}: mean {mean:.3f} = (1 + {rel}) / (2 + {seen})"
