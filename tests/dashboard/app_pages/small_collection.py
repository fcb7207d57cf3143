"""Small collections and readers of what a page shows, shared by the page tests."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n"

RUN_A = b"1 Q0 a 1 2.0 A\n1 Q0 b 2 1.0 A\n2 Q0 c 1 3.0 A\n2 Q0 d 2 1.0 A\n"

RUN_B = b"1 Q0 b 1 2.0 B\n1 Q0 a 2 1.0 B\n2 Q0 d 1 3.0 B\n2 Q0 c 2 1.0 B\n"


def metrics_shown(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}
