"""The dashboard's pages, declared once: the app builds its navigation from :data:`PAGES`, and every per-page
test (the headless tests, the security, offline, layout and accessibility checks in Chromium) iterates it, so
a new page is listed, linked and checked without editing a list anywhere else.

Pure data: no Streamlit here, so tests and tools read the table without starting an app.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["PAGES", "Page", "by_script", "by_url", "listed", "script_path", "served"]

SCRIPTS = Path(__file__).resolve().parent / "app_pages"


@dataclass(frozen=True)
class Page:
    """One page of the dashboard.

    Parameters
    ----------
    script : str
        Its script, ``dashboard/app_pages/<script>.py``.
    title : str
        Its name in the navigation and the browser's title bar.
    icon : str
        A Material icon, served by the dashboard itself (``:material/name:``).
    what : str
        What a person comes to it for, in one line (the navigation's help and the documentation).
    url_path : str
        Its address (``/<url_path>``); by default its title in lower case.
    listed : bool
        Whether the navigation lists it (the teacher's page is opened from the learn page, a student's from
        the class's link).
    default : bool
        Whether the root address opens it.
    stored_only : bool
        Whether it exists only on a server with a workspace (the list of stored collections).
    alone : bool
        Drawn alone: no sidebar, no collection loaded, no presenter followed (a student's phone).
    reopens_view : bool
        Whether a saved session's view may open it (the session file's ``page``).
    """

    script: str
    title: str
    icon: str
    what: str
    url_path: str = ""
    listed: bool = True
    default: bool = False
    stored_only: bool = False
    alone: bool = False
    reopens_view: bool = False

    def __post_init__(self) -> None:
        if not self.url_path:
            object.__setattr__(self, "url_path", self.title.lower())

    @property
    def path(self) -> str:
        """The script's path relative to ``dashboard/app.py``, as ``st.switch_page`` and ``st.page_link`` take it."""
        return f"app_pages/{self.script}.py"


PAGES: tuple[Page, ...] = (
    Page("home", "rankscope", ":material/home:", "The root address: opens the overview, keeping the link's view.",
         url_path="home", listed=False, default=True),
    Page("overview", "Overview", ":material/table_chart:",
         "Every system's means with intervals, the tests against a baseline, the leaderboard and the claims.",
         reopens_view=True),
    Page("data", "Data", ":material/upload_file:",
         "Upload runs, qrels, judgment sets and texts; name the systems; set the conventions; read the lint."),
    Page("curves", "Curves", ":material/show_chart:",
         "Precision-recall curves, interpolated and at 11 points, and precision and recall at k.", reopens_view=True),
    Page("gain", "Gain", ":material/stacked_line_chart:", "DCG against the ideal DCG, rank by rank.",
         reopens_view=True),
    Page("queries", "Queries", ":material/manage_search:",
         "Two systems topic by topic, a topic's rankings side by side, and review notes.", reopens_view=True),
    Page("significance", "Significance", ":material/balance:",
         "Paired tests of every pair, corrected; effect sizes, letter groups and power.", reopens_view=True),
    Page("agreement", "Agreement", ":material/compare_arrows:",
         "How far two measures, or two sets of conventions, order the systems alike."),
    Page("judges", "Judges", ":material/gavel:",
         "Several judgment sets: how their grades agree and whether the systems' order and conclusions hold."),
    Page("repro", "Reproducibility", ":material/replay:",
         "A reproduced pair of runs against the original: order, effects and their tests."),
    Page("trust", "Trust", ":material/verified:",
         "What a comparison rests on: ties, unjudged documents, judged share and risk."),
    Page("learn", "Learn", ":material/school:",
         "One ranking worked through measure by measure, conventions side by side, questions for a class.",
         reopens_view=True),
    Page("report", "Report", ":material/summarize:",
         "One self-contained report of the comparison, and every export.", reopens_view=True),
    Page("collections", "Collections", ":material/folder_shared:",
         "The stored collections: open, rename, share, archive, delete and restore.", stored_only=True),
    Page("teach", "Live class", ":material/co_present:",
         "The teacher's screen of a live class: open, reveal and end each question.", url_path="teach",
         listed=False),
    Page("classroom", "Class", ":material/how_to_vote:",
         "A student's phone in a live class: one question at a time, following the teacher.", url_path="class",
         listed=False, alone=True),
)


def served(stored: bool) -> tuple[Page, ...]:
    """The pages a server offers: those of a workspace only when ``stored``."""
    return tuple(p for p in PAGES if stored or not p.stored_only)


def listed(stored: bool = True) -> tuple[Page, ...]:
    """The pages the navigation lists, in its order."""
    return tuple(p for p in served(stored) if p.listed)


def by_url(url_path: str) -> Page:
    """The page at ``/<url_path>`` (the default page at the root address, ``""``, too).

    Raises
    ------
    KeyError
        No page has that address.
    """
    return _one(lambda p: p.url_path == url_path or (p.default and not url_path), url_path)


def by_script(script: str) -> Page:
    """The page whose script is ``app_pages/<script>.py``.

    Raises
    ------
    KeyError
        No page has that script.
    """
    return _one(lambda p: p.script == script, script)


def _one(matches, name: str) -> Page:
    for page in PAGES:
        if matches(page):
            return page
    raise KeyError(name)


def script_path(page: Page) -> Path:
    """The page's script on disk."""
    return SCRIPTS / f"{page.script}.py"
