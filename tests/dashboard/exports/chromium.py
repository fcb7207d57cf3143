"""Debian's Chromium, or a skip (a failure under CI=true) naming what is missing."""

from __future__ import annotations

import os

import pytest

from dashboard import exports


def chromium_or_skip() -> None:
    """Skip when there is no browser for kaleido, except under CI=true, where that is a failure."""
    if exports.browser_path() is None or not os.path.exists(exports.browser_path()):
        if os.environ.get("CI") == "true":
            pytest.fail(
                "image export must be tested in CI; missing Debian's chromium",
                pytrace=False,
            )
        pytest.skip("missing: Chrome or Chromium to render images (apt-get install chromium)")
