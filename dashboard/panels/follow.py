"""Follow the presenter: in a stored collection one session presents, and the sessions that chose to follow
see the presenter's page and view (systems, measure, topic... everything the link's query parameters hold).

The presentation lives in the workspace (:mod:`workspace.presenting`), so presenter and followers may be
served by different server processes. It follows the live class's pattern (:mod:`dashboard.panels.class_student`):

- the presenter's page writes its page and query parameters after each run, and in a fragment every
  :data:`PUBLISH` seconds (a choice made inside a fragment of the page reruns only that fragment); the store
  writes nothing when nothing changed, and moves the presentation's revision when something did;
- a follower's page runs a fragment with nothing to draw every :data:`POLL` seconds, which reads the
  revision and, only when it moved, switches to the presenter's page with the presenter's parameters. The
  revision counts as applied when a full run of the follower's page has drawn that page with every one of
  those parameters (the widgets bound to the URL write theirs as they are drawn), not when the switch is asked
  for: Streamlit folds a rerun request that reaches it while a switch waits into the switch, and the later
  request's page and widget values win, so on a busy server the fragment's next timed run can undo a switch,
  or keep its page and bring back the values of its widgets (a topic, a tab). A run that drew something
  else is a failed try: the next poll switches again, up to :data:`TRIES` times for one revision; a poll
  while the switch has not been drawn yet waits (up to :data:`PATIENCE` polls) rather than asking again.
- a poll the browser asked for just before a switch reached it arrives after the switch: Streamlit runs it for
  the page the browser has left and tells the browser so, and the browser then removes what the page it shows
  had drawn. Such a poll shows that page again (:func:`_show_again`). The presenter's publishing fragment
  needs no such care: it is drawn after the page, so its id differs from page to page, and Streamlit skips a
  late timed request for a fragment the page now shown did not register.

What a session does in the meeting (it presents, it follows, or neither) is its own state (:data:`ROLE`),
never a widget's: Streamlit forgets a widget's value when a switch of page reaches it before the widget is
drawn again, and a follower who switched the toggle on while the presenter showed another page was taken
there once, then dropped (the toggle still drawn on). The toggles are drawn from that state on every run and
change it only through their callbacks, so every page of a follower follows, however it was reached.

A followed view sets only the widgets bound to the URL (:func:`dashboard.widgets.in_view`: systems,
measure, topic...) and never any other widget of the follower's session: a presenter's link that names a
field which changes data (a system's new name, say) does nothing to a follower, whose session therefore
never writes because of what it follows. Only the follower's own actions write, as themselves.

A presentation lives while its presenter's page beats (:mod:`workspace.presenting`); a follower's poll reads
whether it is there as well as its revision, so a presenter whose tab closed is said to have left within a
minute, and nobody is taken to their last page. A presenter whose role no longer allows presenting (an owner
made them a viewer) stops at their next run.

Nothing runs in a session that does not follow: no poll, no switch. Stopping (either toggle) takes effect at
the next run. Each session keeps its own presentation mode (``?present=``), which is never passed on.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from dashboard.server import identity
from dashboard.session.user_text import md
from dashboard.store import opened, sync
from dashboard.widgets import in_view
from metrics import RankscopeError

__all__ = ["FOLLOWS", "POLL", "PRESENTS", "PUBLISH", "ROLE", "after", "before", "pages"]

POLL = 1.0  # seconds between two looks of a follower's page at the presentation
PUBLISH = 1.0  # seconds between two looks of the presenter's page at its own view (it writes a change, or a beat)
ROLE = "follow_role"  # what this session does in the meeting: PRESENTS, FOLLOWS or nothing (None)
PRESENTS, FOLLOWS = "presents", "follows"
PRESENTING = "follow_present"  # the "Present" toggle, drawn from ROLE
PRESENTED = "follow_present_cid"  # the collection (version) this session's switches were last drawn for
FOLLOWING = "follow_follow"  # the "Follow the presenter" toggle, drawn from ROLE
TOKEN = "follow_token"  # this browser session's random token
SEEN = "follow_seen"  # (revision, active) of the presentation as this follower last applied it
WANTED = "follow_wanted"  # ((revision, active), page, view, tries, drawn, polls): the switch asked for last
TRIES = 3  # switches asked for one revision before it counts as applied anyway
PATIENCE = 5  # polls that wait for a switch asked for to be drawn before it is asked for again
HERE = "follow_here"  # the page this session shows (its address), for the toggles' callbacks
SHOWN = "follow_shown"  # (script hash, query parameters) of the page this session's last full run showed
NOTICE = "follow_notice"  # a line to show once (a presentation taken over, a store error)
OWN = ("present",)  # query parameters each session keeps for itself


def _token() -> str:
    from workspace.checks import new_id

    return st.session_state.setdefault(TOKEN, new_id())


def _stage():
    from workspace.presenting import Stage

    return Stage(opened.store())


def pages(listed) -> dict:
    """``{address: page}`` of the pages a presenter can take followers to: those in the navigation."""
    return {p.url_path: p for p in listed if p.visibility == "visible"}


def _view() -> dict:
    """This session's view: the query parameters (a repeated one as a list) but its own ones."""
    return {name: values if len(values) > 1 else values[0]
            for name in st.query_params if name not in OWN
            for values in [st.query_params.get_all(name)] if values}


def _author() -> str | None:
    """Who presents, for the store: the person acted for (None: the store records them) or a stand-in name."""
    return None if identity.actor() is not None else "presenter"


# ---- the session's part: presents, follows or neither ----------------------------------------------------
def _role() -> str | None:
    return st.session_state.get(ROLE)


def _present_changed(cid: str) -> None:
    if not st.session_state.get(PRESENTING):
        st.session_state[ROLE] = None
        _stop(cid)
        return
    try:
        _stage().present(cid, _token(), st.session_state.get(HERE) or "overview", _view(), author=_author(),
                         take_over=True)
    except RankscopeError as err:
        st.session_state[NOTICE] = str(err).splitlines()[0]
        return
    st.session_state[ROLE] = PRESENTS


def _stop(cid: str) -> None:
    try:
        _stage().stop(cid, _token())
    except RankscopeError as err:
        st.session_state[NOTICE] = str(err).splitlines()[0]


def _follow_changed() -> None:
    if not st.session_state.get(FOLLOWING):
        st.session_state[ROLE] = None
        return
    if _role() == PRESENTS and st.session_state.get(PRESENTED):
        _stop(st.session_state[PRESENTED])
    st.session_state[ROLE] = FOLLOWS
    st.session_state[SEEN] = None  # the presenter's page now, whatever it is
    st.session_state.pop(WANTED, None)


def _stop_presenting(why: str) -> None:
    st.session_state[ROLE] = None
    st.session_state[NOTICE] = why


def before(loaded, here: str, followed: Mapping, present: bool) -> None:
    """Before the page's run: the toggles (in the sidebar, or at the top in presentation mode) and, for a
    follower, the poll. Nothing for a collection that is not stored."""
    st.session_state[HERE] = here
    st.session_state[SHOWN] = (_run_page(), _link())
    cid = loaded.collection if loaded is not None and opened.enabled() else None
    if not cid:
        return
    if present:
        _controls(cid)
    else:
        with st.sidebar:
            _controls(cid)
    if _role() == FOLLOWS:
        st.fragment(_poll, run_every=POLL)(cid, dict(followed))


def _controls(cid: str) -> None:
    """The "Present" and "Follow the presenter" toggles of a stored collection, and who presents."""
    try:
        now = _stage().current(cid)
    except RankscopeError:
        return  # not shared with this person, or the store cannot be read: nothing to present or follow
    token = _token()
    was = st.session_state.get(PRESENTED)
    # this session's presentation, still on (a version saved while presenting is the same one; a beat missed
    # while the tab slept is picked up again by the next publish)
    mine = now is not None and now.session == token and (now.active or now.gone)
    if _role() == PRESENTS and was and was != cid and not mine:  # another collection: that one ends
        _stop(was)
        st.session_state[ROLE] = None
    st.session_state[PRESENTED] = cid
    if _role() == PRESENTS and not mine:  # another session took over, or this one was stopped elsewhere
        _stop_presenting(f"{now.presenter} presents now: you stopped presenting." if now is not None and now.active
                         else "The presentation ended: you stopped presenting.")
    elif _role() == PRESENTS and not sync.may("present"):  # the role changed: viewers do not present
        _stop(cid)
        _stop_presenting("Your role on this collection no longer lets you present: you stopped presenting.")
    other = now is not None and now.active and not now.by(token)
    st.session_state[PRESENTING] = _role() == PRESENTS  # the toggles show the session's part, whatever came before
    st.session_state[FOLLOWING] = _role() == FOLLOWS
    st.toggle("Present", key=PRESENTING, on_change=_present_changed, args=(cid,),
              disabled=not sync.may("present"),
              help="Those who follow see your page, systems, measure and topic as you change them."
                   + (" Someone presents now: turning this on takes over." if other else "")
                   + ("" if sync.may("present") else " Presenting needs the editor role on this collection."))
    st.toggle("Follow the presenter", key=FOLLOWING, on_change=_follow_changed,
              help="Your page shows the presenter's page and view, within a second or two of each change. "
                   "Turn it off to look around on your own.")
    notice = st.session_state.pop(NOTICE, None)
    if notice:
        st.caption(md(":material/info: {}", notice))
    if other:
        st.caption(md(":material/co_present: {} presents", now.presenter)
                   + (" · you follow" if _role() == FOLLOWS else ""))
    elif _role() == FOLLOWS and now is not None and now.gone:
        st.caption(md(":material/co_present: {} left: their page closed, so the presentation ended. You will "
                      "follow the next presentation.", now.presenter))
    elif _role() == FOLLOWS:
        st.caption(":material/co_present: Nobody presents now; you will follow the next presentation.")


# ---- a follower's poll -----------------------------------------------------------------------------------
def _typed(value, like):
    """A query parameter's text as the value of a widget now holding ``like`` (a list, a number, a flag)."""
    values = value if isinstance(value, list) else [value]
    if isinstance(like, (list, tuple)):
        return list(values)
    one = values[-1]
    if isinstance(like, bool):
        return one.lower() == "true"
    for kind in (int, float):
        if isinstance(like, kind):
            try:
                return kind(one)
            except ValueError:
                return like
    return one


def _run_page() -> str:
    """The script hash of the page this run is for: in a fragment's run, of the page the browser showed when
    it asked for the run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx is not None else ""


def _link() -> dict:
    """Every query parameter of this run (this session's own ones too), as :func:`st.switch_page` takes them."""
    return {name: st.query_params.get_all(name) for name in st.query_params}


def _show_again(followed: Mapping) -> None:
    """A poll asked for on a page this session has since left (its timer fired before a switch reached the
    browser) runs for that page: Streamlit tells the browser so, and the browser removes the content of the page
    it shows. That page is shown again, with the parameters its last run had; any other poll does nothing here."""
    shown, link = st.session_state.get(SHOWN, ("", {}))
    page = followed.get(st.session_state.get(HERE))
    if shown and shown != _run_page() and page is not None:
        st.switch_page(page, query_params=link)


def _arrived(here: str) -> None:
    """After a full run: the switch asked for last counts as applied when this run drew its page with the
    presenter's whole view (the link's parameters and those the widgets wrote); otherwise it was tried."""
    wanted = st.session_state.get(WANTED)
    if wanted is not None:
        seen, page, view, tries, _, _ = wanted
        if page == here and _view() == view:
            st.session_state[SEEN] = seen
            del st.session_state[WANTED]
        else:
            st.session_state[WANTED] = (seen, page, view, tries, True, 0)


def _poll(cid: str, followed: dict) -> None:
    """Nothing drawn: the presentation's revision (and whether its presenter is there) read; when it moved, the
    presenter's page and view shown."""
    if _role() != FOLLOWS:
        return
    _show_again(followed)
    try:
        now = _stage().current(cid)
    except RankscopeError:
        return
    seen = None if now is None else (now.revision, now.active)
    if now is None or seen == st.session_state.get(SEEN):
        return
    if not now.active or now.by(_token()) or now.page not in followed:
        st.session_state[SEEN] = seen
        st.rerun()  # says who presents (or that nobody does, or that the presenter left), nothing else
    view = {k: v for k, v in now.params.items() if k not in OWN}
    if st.session_state.get(HERE) == now.page and _view() == view:
        st.session_state[SEEN] = seen
        return
    # a widget keeps its own value over a link's (and its parameter cannot be set): the presenter's value is
    # given to a widget of the view itself, or it goes back to its default; no other widget of this session
    # is touched (a followed view never changes data); the link carries the rest
    link = {}
    for name, value in view.items():
        if name not in st.session_state or name == opened.PARAM:
            link[name] = value
        elif in_view(name):
            st.session_state[name] = _typed(value, st.session_state[name])
    for name in _view():
        if name not in view and name != opened.PARAM and in_view(name):
            st.session_state.pop(name, None)
    wanted = st.session_state.get(WANTED)
    same = wanted is not None and wanted[0] == seen
    if same and not wanted[4] and wanted[5] < PATIENCE:  # asked for, not drawn yet: wait for it
        st.session_state[WANTED] = (*wanted[:5], wanted[5] + 1)
        return
    tries = wanted[3] + 1 if same else 1
    if tries >= TRIES:  # the last try: whatever comes of it, this revision is not asked for again
        st.session_state[SEEN] = seen
    st.session_state[WANTED] = (seen, now.page, view, tries, False, 0)
    st.switch_page(followed[now.page], query_params=link)


# ---- the presenter's writes --------------------------------------------------------------------------------
def _publish(cid: str, here: str) -> None:
    """The presenter's page and view, written when they changed, and a beat now and then (the store decides)."""
    if _role() != PRESENTS or st.session_state.get(PRESENTED) != cid:
        return
    from workspace.access import Forbidden, NoAccess
    from workspace.presenting import SomeonePresents

    try:
        _stage().present(cid, _token(), here, _view(), author=_author())
    except (SomeonePresents, Forbidden, NoAccess) as err:  # taken over, or the role no longer allows it
        st.session_state[NOTICE] = str(err).splitlines()[0]
        st.rerun()  # the whole page: its toggles say why this session stopped presenting
    except RankscopeError as err:  # the store, for a moment: the next publish tries again
        st.session_state[NOTICE] = str(err).splitlines()[0]


def after(loaded, here: str, followed: Mapping) -> None:
    """After the page's run: while this session presents a page of the navigation, its view is written now and
    every :data:`PUBLISH` seconds. The parameters the page wrote are those a poll shows it again with; a
    follower's switch asked for counts as applied when they are the presenter's (:func:`_arrived`)."""
    st.session_state[SHOWN] = (_run_page(), _link())
    _arrived(here)
    cid = loaded.collection if loaded is not None and opened.enabled() else None
    if cid and _role() == PRESENTS and here in followed:
        st.fragment(_publish, run_every=PUBLISH)(cid, here)
