"""Claim results as JUnit XML, the report format CI systems read (GitLab, Jenkins, GitHub's test reporters).

One ``<testsuite>`` per expectations file inside one ``<testsuites>``; one ``<testcase>`` per claim, named by
the claim in words. A claim that fails carries a ``<failure>``; one that cannot be checked an ``<error>``
(the CI system shows it apart from a failure, and counts it against the build all the same); each carries
its message, the numbers behind it, also in ``<system-out>`` for a claim that holds. Text that XML 1.0
cannot hold (control characters a name may contain) is replaced by U+FFFD; everything else is escaped by
:mod:`xml.etree.ElementTree`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from metrics.review.claims.kinds import FAILS, UNCHECKABLE, ClaimResult

__all__ = ["junit_xml"]

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def junit_xml(results: Sequence[ClaimResult], *, suite: str, lines: Sequence[int | None] = (),
              source: str | None = None) -> bytes:
    """The results as a JUnit XML document (UTF-8, with its declaration).

    Parameters
    ----------
    results : sequence of ClaimResult
    suite : str
        The test suite's name (an expectations file's ``name``).
    lines : sequence of int or None, optional
        Each claim's line in ``source``, written as the test case's ``line`` attribute.
    source : str, optional
        The expectations file, written as each test case's ``file`` attribute.

    Returns
    -------
    bytes

    Examples
    --------
    >>> from metrics.review.claims import Rank
    >>> document = junit_xml([ClaimResult(Rank("bm25", "AP", 1), "fails", (("rank", 2),))], suite="nightly")
    >>> print(document.decode().splitlines()[3])
        <testcase name="bm25 ranks first on AP" classname="rank">
    """
    failures = sum(r.status == FAILS for r in results)
    errors = sum(r.status == UNCHECKABLE for r in results)
    counts = {"tests": str(len(results)), "failures": str(failures), "errors": str(errors), "skipped": "0"}
    root = ET.Element("testsuites", {"name": "rankscope check", **counts})
    node = ET.SubElement(root, "testsuite", {"name": _text(suite), **counts})
    for i, result in enumerate(results):
        case = ET.SubElement(node, "testcase", {"name": _text(result.claim.describe()),
                                                "classname": result.claim.kind})
        if source is not None:
            case.set("file", _text(source))
        if i < len(lines) and lines[i] is not None:
            case.set("line", str(lines[i]))
        details = _text(result.details())
        if result.status in (FAILS, UNCHECKABLE):
            tag = "failure" if result.status == FAILS else "error"
            problem = ET.SubElement(case, tag, {"message": _text(f"{result.status}: {result.claim.describe()}"),
                                                "type": result.status})
            problem.text = details
        ET.SubElement(case, "system-out").text = _text(result.line())
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
