"""A browserless Streamlit client: one session spoken to over Streamlit's own websocket protocol.

What the browser's frontend does, without drawing: it fetches the XSRF cookie (``/_stcore/health``), opens
``/_stcore/stream`` with the cookie's token as the second websocket subprotocol, and sends ``BackMsg``
protobufs: ``rerun_script`` with a ``ClientState`` (page name or page script hash, widget states) to run a
page, ``file_urls_request`` to get an upload address, to which a file is PUT as a multipart form before the
rerun that holds the file uploader's state (``FileUploaderState``: file id, name, size, addresses). The server
answers with ``ForwardMsg`` protobufs: ``new_session`` when a run starts, ``navigation`` (the pages and their
script hashes), ``delta`` (the elements, each with a ``delta_path`` whose first entry is the container: 0 the
main area, 1 the sidebar), ``script_finished`` when the run has ended. No ``cached_message_hashes`` are sent,
so the server sends every message in full and never a reference to one the client would have kept.

Only the loopback interface is spoken to. Uses ``websockets`` and ``requests``, both Streamlit's own
dependencies. See :mod:`dashboard_load` (``--driver websocket``) for the load it drives.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path

MAIN = 0  # delta_path[0] of the main area (1: the sidebar)


class ProtocolError(Exception):
    """The server's answer was not the one a browser would draw without an error."""


@dataclass
class Answer:
    """What one run of a page sent back: its main title, its texts, widgets, problems, and the time it took."""

    seconds: float = 0.0
    title: str | None = None  # the first level-one heading of the main area
    texts: list[str] = field(default_factory=list)  # headings, markdown, alerts, text, widgets' labels and values
    uploaders: dict[str, str] = field(default_factory=dict)  # label -> widget id
    problems: list[str] = field(default_factory=list)  # exceptions and error alerts
    charts: int = 0  # plotly charts in the main area
    status: str = ""


class Session:
    """One person's session on a Streamlit server at ``url`` (``http://127.0.0.1:PORT``)."""

    def __init__(self, url: str, action_seconds: float = 60.0) -> None:
        self.url, self.action_seconds = url.rstrip("/"), action_seconds
        self.pages: dict[str, str] = {}  # url path -> page script hash
        self.page_hash = ""
        self.widgets: dict[str, object] = {}  # widget id -> WidgetState set on the current page
        self._ws = None
        self._cookie = ""
        self._requests = itertools.count(1)
        self.late = False  # an answer came too late: what arrives next may belong to it, so stop here

    async def connect(self) -> None:
        import requests
        from websockets.asyncio.client import connect

        health = await asyncio.to_thread(requests.get, f"{self.url}/_stcore/health", timeout=self.action_seconds)
        health.raise_for_status()
        self._cookie = health.cookies.get("_streamlit_xsrf", "")
        host = self.url.split("://", 1)[1]
        headers = {"Origin": self.url}
        if self._cookie:
            headers["Cookie"] = f"_streamlit_xsrf={self._cookie}"
        tokens = ["streamlit", self._cookie] if self._cookie else ["streamlit"]  # the token: XSRF protection is on
        self._ws = await connect(f"ws://{host}/_stcore/stream", subprotocols=tokens,
                                 additional_headers=headers, max_size=None, open_timeout=self.action_seconds,
                                 ping_interval=None)  # a browser sends no pings of its own (it answers the server's)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()

    async def _send(self, back) -> None:
        await self._ws.send(back.SerializeToString())

    async def _receive(self, deadline: float):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        try:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            data = await asyncio.wait_for(self._ws.recv(), left)
        except TimeoutError:
            self.late = True
            raise TimeoutError(f"no answer within {self.action_seconds:g} s") from None
        msg = ForwardMsg()
        msg.ParseFromString(data)
        return msg

    async def run(self, page: str | None = None, page_name: str = "") -> Answer:
        """Run ``page`` (a url path; None: the current page, with its widget states) and read its answer.

        A page change sends no widget states: the old page's widgets are not on the new one, whose own widgets
        start at their defaults."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        if page is not None:
            self.page_hash, self.widgets = self.pages[page], {}
        back = BackMsg()
        state = back.rerun_script
        state.query_string = ""
        state.page_script_hash = self.page_hash
        state.page_name = page_name
        state.widget_states.widgets.extend(self.widgets.values())
        start = time.monotonic()
        await self._send(back)
        return await self._answer(start)

    async def _answer(self, start: float) -> Answer:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        answer = Answer()
        deadline = start + self.action_seconds
        while True:
            msg = await self._receive(deadline)
            kind = msg.WhichOneof("type")
            if kind == "new_session":  # a run begins: anything read before belonged to an interrupted one
                answer = Answer()
                self.page_hash = msg.new_session.page_script_hash or self.page_hash
                self.pages.update({p.url_pathname: p.page_script_hash for p in msg.new_session.app_pages})
            elif kind == "navigation":
                self.pages.update({p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages})
                self.page_hash = msg.navigation.page_script_hash or self.page_hash
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                _read(msg.delta.new_element, msg.metadata.delta_path, answer)
            elif kind == "script_finished":
                status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
                if status == "FINISHED_EARLY_FOR_RERUN":  # the app asked for another run: wait for its end
                    continue
                answer.status, answer.seconds = status, time.monotonic() - start
                if status != "FINISHED_SUCCESSFULLY":
                    answer.problems.append(f"the run ended: {status}")
                return answer
            elif kind == "page_not_found":
                answer.problems.append(f"page not found: {msg.page_not_found.page_name}")

    async def upload(self, label: str, paths: list[Path], answer: Answer) -> Answer:
        """Hand ``paths`` to the file uploader ``label`` of the current page (``answer`` its last run), as the
        browser does: ask for upload addresses, PUT each file, rerun with the uploader's state."""
        import requests
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        if label not in answer.uploaders:
            raise ProtocolError(f"no file uploader {label!r} on the page (found: {sorted(answer.uploaders)})")
        start = time.monotonic()
        back = BackMsg()
        back.file_urls_request.request_id = str(next(self._requests))
        back.file_urls_request.file_names.extend(p.name for p in paths)
        await self._send(back)
        deadline = start + self.action_seconds
        while True:
            msg = await self._receive(deadline)
            if msg.WhichOneof("type") == "file_urls_response":
                break
        urls = list(msg.file_urls_response.file_urls)
        if len(urls) != len(paths):
            raise ProtocolError(f"asked for {len(paths)} upload addresses, got {len(urls)}")
        headers = {"X-Xsrftoken": self._cookie, "Origin": self.url}
        cookies = {"_streamlit_xsrf": self._cookie} if self._cookie else {}
        state = WidgetState(id=answer.uploaders[label])
        for path, url in zip(paths, urls):
            body = path.read_bytes()
            put = await asyncio.to_thread(
                requests.put, self.url + url.upload_url if url.upload_url.startswith("/") else url.upload_url,
                files={"file": (path.name, body, "text/plain")}, headers=headers, cookies=cookies,
                timeout=max(deadline - time.monotonic(), 1))
            if put.status_code >= 300:
                raise ProtocolError(f"upload of {path.name}: HTTP {put.status_code} {put.text[:120]}")
            info = state.file_uploader_state_value.uploaded_file_info.add()
            info.file_id, info.name, info.size = url.file_id, path.name, len(body)
            info.file_urls.CopyFrom(url)
        self.widgets[state.id] = state
        rerun = BackMsg()
        rerun.rerun_script.page_script_hash = self.page_hash
        rerun.rerun_script.widget_states.widgets.extend(self.widgets.values())
        await self._send(rerun)
        return await self._answer(start)


def _read(element, path, answer: Answer) -> None:
    """Note what a browser would show of ``element``: the main title, texts, uploaders, charts, problems."""
    kind = element.WhichOneof("type")
    main = bool(path) and path[0] == MAIN
    if kind == "heading":
        if main and answer.title is None and element.heading.tag == "h1":
            answer.title = element.heading.body
        answer.texts.append(element.heading.body)
    elif kind == "markdown":
        answer.texts.append(element.markdown.body)
        if main and answer.title is None and element.markdown.body.startswith("# "):
            answer.title = element.markdown.body[2:].strip()
    elif kind == "text":
        answer.texts.append(element.text.body)
    elif kind == "alert":
        answer.texts.append(element.alert.body)
        if element.alert.format == 1:  # Alert.ERROR: st.error
            answer.problems.append(f"error shown: {(element.alert.body.splitlines() or [''])[0][:120]}")
    elif kind == "exception":
        answer.problems.append(f"exception shown: {element.exception.type}: {element.exception.message[:120]}")
    elif kind == "text_input":  # e.g. a system's name, to be renamed
        answer.texts.extend([element.text_input.label, element.text_input.default])
    elif kind in ("selectbox", "multiselect", "radio"):
        widget = getattr(element, kind)
        answer.texts.extend([widget.label, *widget.options])
    elif kind == "file_uploader":
        answer.uploaders[element.file_uploader.label] = element.file_uploader.id
    elif kind == "plotly_chart" and main:
        answer.charts += 1
