"""Which worker's queue each browser test joins (``tests/conftest.py``)."""

from __future__ import annotations

from tests.conftest import BROWSER_GROUP, LATE_BROWSER_GROUP, LATE_BROWSER_MODULES, browser_group, browser_scheduler
from tests.paths import ROOT


def test_every_late_browser_module_exists_and_holds_browser_tests():
    for module in LATE_BROWSER_MODULES:
        path = ROOT / module
        assert path.is_file(), f"{module} is named as a late browser module and does not exist"
        assert browser_group(f"{module}::test_x") == LATE_BROWSER_GROUP


def test_timed_browser_tests_and_the_rest_of_the_suite_keep_their_queues():
    assert browser_group("tests/e2e/test_follow.py::test_a_follower_who_joins_late_follows_every_move") == BROWSER_GROUP
    assert browser_group("tests/dashboard/exports/test_pdf.py::test_x[chromium]") == BROWSER_GROUP
    assert browser_group("tests/metrics/measures/test_ap.py::test_x") is None


class _Config:
    """What pytest-xdist's scheduler reads of pytest's configuration: two workers, scopes largest first."""

    class option:
        loadscopereorder = True

    @staticmethod
    def getvalue(name):
        return {"tx": ["2*popen"]}[name]


class _Worker:
    def __init__(self, name):
        self.name, self.shutting_down, self.given = name, False, []
        self.gateway = type("Gateway", (), {"id": name})

    def send_runtest_some(self, indexes):
        self.given.extend(indexes)

    def shutdown(self):
        self.shutting_down = True


def test_the_late_browser_tests_wait_until_the_rest_of_the_suite_is_handed_out():
    timed = [f"tests/e2e/test_follow.py::test_{i}" for i in range(6)]
    late = [f"tests/e2e/test_layout.py::test_{i}[chromium]" for i in range(3)]
    rest = [f"tests/metrics/test_m{i}.py::test_{j}" for i in range(4) for j in range(2)]
    collection = late + rest[:4] + timed + rest[4:]
    scheduler = browser_scheduler()(_Config())
    workers = [_Worker("gw0"), _Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    given = {worker.name: [collection[i] for i in worker.given] for worker in workers}
    assert given["gw0"][:len(timed)] == timed, "the timed browser tests are not one worker's first unit of work"
    assert not any(nodeid in late for names in given.values() for nodeid in names), given
    while scheduler.workqueue:  # each worker asks for more as it finishes, the late tests given last
        worker = workers[1]
        for nodeid in given[worker.name]:
            scheduler.mark_test_complete(worker, collection.index(nodeid))
        given[worker.name] = [collection[i] for i in worker.given]
    assert given["gw1"][-len(late):] == late
    assert not set(late) & set(given["gw0"])
