"""How pytest-xdist spreads the suite over the cores: ``dev.py test`` runs it with ``-n auto --dist loadgroup``.

Every browser test goes to one worker, where they run one after another: never two dashboard servers and two
Chromiums at once on a 2-core machine (with two at once, the follow test's waits ran out about one run in
five). The other worker runs the rest of the suite meanwhile, and both share what is left at the end.

pytest-xdist's own ``loadgroup`` reads the group from a suffix it adds to each test id, which pytest 9.2
no longer keeps (pytest-xdist issue 1386: the tests are spread as if ungrouped), so the group is read from
the test id here instead.
"""

from __future__ import annotations

import pytest

pytest_plugins = ("tests.dask_cluster",)  # the dask_client fixture, for every folder

BROWSER_GROUP = "browser"


def is_browser_test(nodeid: str) -> bool:
    """Whether the test ``nodeid`` drives Chromium: every test in ``tests/e2e/``, those of the documentation
    site (built once for them all, then read by Chromium), and those pytest-playwright runs in it elsewhere
    (their ids name the browser, ``test_x[chromium-...]``)."""
    return nodeid.startswith(("tests/e2e/", "tests/docs/test_site.py")) or "[chromium" in nodeid


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before pytest-xdist's own choice; absent without it
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class BrowserTestsTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return BROWSER_GROUP if is_browser_test(nodeid) else super()._split_scope(nodeid)

    return BrowserTestsTogether(config, log)
