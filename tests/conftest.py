"""How pytest-xdist spreads the suite over the cores: ``dev.py test`` runs it with ``-n auto --dist loadgroup``.

Every browser test that waits on time (a presentation's beat, a class's poll, a server's sweep, a load) goes to
one worker, where they run one after another: never two such tests at once on a 2-core machine (with two at
once, the follow test's waits ran out about one run in five). The other worker runs the rest of the suite
meanwhile; once that is done, it takes the browser tests of :data:`LATE_BROWSER_MODULES`, which visit pages and
check what they draw, fetch and show without waiting on any clock, so that neither core idles while the other
still has an hour of browser tests queued.

pytest-xdist's own ``loadgroup`` reads the group from a suffix it adds to each test id, which pytest 9.2
no longer keeps (pytest-xdist issue 1386: the tests are spread as if ungrouped), so the group is read from
the test id here instead.
"""

from __future__ import annotations

import pytest

pytest_plugins = ("tests.dask_cluster",)  # the dask_client fixture, for every folder

BROWSER_GROUP = "browser"
LATE_BROWSER_GROUP = "browser-late"
# browser tests that wait on no clock: they run beside the timed ones, on the core the rest of the suite leaves
LATE_BROWSER_MODULES = (
    "tests/e2e/test_layout.py",
    "tests/e2e/test_offline.py",
    "tests/e2e/test_planted_text.py",
    "tests/e2e/test_screenshots.py",
    "tests/docs/test_site.py",
)


def is_browser_test(nodeid: str) -> bool:
    """Whether the test ``nodeid`` drives Chromium: every test in ``tests/e2e/``, those of the documentation
    site (built once for them all, then read by Chromium), and those pytest-playwright runs in it elsewhere
    (their ids name the browser, ``test_x[chromium-...]``)."""
    return nodeid.startswith(("tests/e2e/", "tests/docs/test_site.py")) or "[chromium" in nodeid


def browser_group(nodeid: str) -> str | None:
    """The group of the browser test ``nodeid`` (None for any other test)."""
    if not is_browser_test(nodeid):
        return None
    return LATE_BROWSER_GROUP if nodeid.startswith(LATE_BROWSER_MODULES) else BROWSER_GROUP


def browser_scheduler():
    """pytest-xdist's ``loadgroup`` scheduling with the two browser groups: the timed one is a single unit of
    work, and the late one is handed out only when nothing else is queued."""
    from xdist.scheduler import LoadGroupScheduling

    class BrowserTestsTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return browser_group(nodeid) or super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            if len(self.workqueue) > 1 and next(iter(self.workqueue)) == LATE_BROWSER_GROUP:
                self.workqueue.move_to_end(LATE_BROWSER_GROUP)
            super()._assign_work_unit(node)

    return BrowserTestsTogether


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before pytest-xdist's own choice; absent without it
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    return browser_scheduler()(config, log)
