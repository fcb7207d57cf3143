"""What :func:`tests.e2e.conftest.settled` reads off the websocket, checked against the installed Streamlit's
own message definitions: should an upgrade move a field, this fails by name instead of every browser test
waiting out its timeout."""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit", reason="the dashboard's streamlit is not installed")
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402


def _first_bytes(message) -> bytes:
    return message.SerializeToString()[:2]


def test_a_rerun_request_and_an_upload_request_start_with_the_bytes_the_tabs_look_for():
    rerun = BackMsg()
    rerun.rerun_script.query_string = "a=1"
    assert _first_bytes(rerun)[0] == 0x5A  # field 11, length-delimited
    upload = BackMsg()
    upload.file_urls_request.request_id = "r"
    assert _first_bytes(upload) == b"\x82\x01"  # field 16, length-delimited


def test_the_end_of_a_run_is_field_6_and_a_run_cut_short_for_another_is_2():
    assert ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].number == 6
    assert ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].type == 14  # an enum: a varint on the wire
    assert ForwardMsg.FINISHED_EARLY_FOR_RERUN == 2
    ended = ForwardMsg()
    ended.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    assert ended.SerializeToString() == b"\x30\x00"  # tag 48, value 0: sent although 0 (a oneof member)
