"""Topic and document texts: every format, Cranfield's and Vaswani's own files, and bad input."""

from __future__ import annotations

import copy
import dataclasses
import gzip
import os
import pickle
from pathlib import Path

import pytest

from metrics import DocText, Documents, ParseError, Topics, ValidationError, read_documents, read_topics
from tests.cpu_time import growth
from tests.paths import SHARED

CRANFIELD = SHARED / "data" / "cranfield"
VASWANI = SHARED / "data" / "vaswani_npl"


def shared(directory: Path) -> Path:
    if not directory.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared test data missing: {directory}")
        pytest.skip(f"shared test data not found at {directory}")
    return directory


# --------------------------------------------------------------------------------------------------------
# the real collections, in their own formats


def test_cranfield_queries_in_smart_format_are_numbered_as_its_judgments_number_them():
    topics = read_topics(shared(CRANFIELD) / "cran.qry")
    assert len(topics) == 225 and topics.name == "cran.qry"
    assert list(topics)[:3] == ["1", "2", "3"] and list(topics)[-1] == "225"
    assert topics["1"] == ("what similarity laws must be obeyed when constructing aeroelastic models of heated "
                           "high speed aircraft .")
    assert topics["3"] == "what problems of heat conduction in composite slabs have been solved so far ."  # .I 004
    assert topics["225"] == "what design factors can be used to control lift-drag ratios at mach numbers above 5 ."


def test_cranfield_queries_agree_with_the_derived_tsv():
    data = shared(CRANFIELD)
    assert dict(read_topics(data / "cran.qry")) == dict(read_topics(data / "derived" / "cranfield.queries.tsv"))


def test_cranfield_documents_in_smart_format():
    docs = read_documents(shared(CRANFIELD) / "cran.all.1400")
    assert len(docs) == 1400 and next(iter(docs)) == "1" and list(docs)[-1] == "1400"
    assert docs["1"].title == "experimental investigation of the aerodynamics of a wing in a slipstream ."
    assert docs["1"].text.startswith("experimental investigation of the aerodynamics of a wing in a slipstream . "
                                     "an experimental study of a wing in a propeller slipstream was made")
    assert docs["1"].text.endswith("the specific configuration of the experiment .")
    assert docs["471"] == DocText("", "") and docs["995"].text == ""
    assert docs.preview("2") == "simple shear flow past a flat plate in an incompressible fluid of small viscosity ."
    assert docs.preview("471") == "" and docs.preview("no such doc") == ""


def test_cranfield_documents_agree_with_the_derived_jsonl():
    data = shared(CRANFIELD)
    smart = read_documents(data / "cran.all.1400")
    jsonl = read_documents(data / "derived" / "cranfield.docs.jsonl")
    assert list(smart) == list(jsonl)
    assert all(" ".join(jsonl[d].text.split()) == smart[d].text for d in smart)
    assert all(" ".join(jsonl[d].title.split()) == smart[d].title for d in smart)


def test_vaswani_queries_in_trec_format_with_closing_tags():
    topics = read_topics(shared(VASWANI) / "query-text.trec")
    assert len(topics) == 93 and list(topics)[:2] == ["1", "2"] and list(topics)[-1] == "93"
    assert topics["1"] == "MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES"
    assert topics["93"] == ("HIGH FREQUENCY OSCILLATORS USING TRANSISTORS THEORETICAL TREATMENT AND PRACTICAL "
                            "CIRCUIT DETAILS")


def test_vaswani_documents_in_trec_format_without_text_tags():
    docs = read_documents(shared(VASWANI) / "doc-text.trec")
    assert len(docs) == 11429 and next(iter(docs)) == "1" and list(docs)[-1] == "11429"
    assert docs["1"] == DocText("", "compact memories have flexible capacities a digital data storage system "
                                    "with capacity up to bits and random and or sequential access is described")
    assert docs.preview("1", words=4) == "compact memories have flexible"
    assert docs.preview("1", words=0) == ""


def test_reading_is_linear_in_the_input():
    # 4x the records must not take much more than 4x the time (a quadratic reader takes 16x)
    record = "<DOC>\n<DOCNO>{}</DOCNO>\n<TITLE>t</TITLE><TEXT>a b c &amp; d</TEXT>\n</DOC>\n"
    small, large = ("".join(record.format(i) for i in range(n)) for n in (20_000, 80_000))
    docs = read_documents(large)
    assert len(docs) == 80_000 and docs["7"] == DocText("t", "a b c & d")
    assert growth(read_documents, small, large) < 10  # CPU time, in turns (tests.cpu_time)


# --------------------------------------------------------------------------------------------------------
# each format


TREC_TOPICS = """<top>
<num> Number: 401
<title> foreign minorities, Germany

<desc> Description:
What language and cultural differences impede the integration
of foreign minorities in Germany?

<narr> Narrative:
A relevant document will focus on the causes.
</top>

<top>
<num> Number: 402
<title>

<desc> Description:
What is the evidence for  genetic   links &amp; heredity?
</top>
"""


def test_trec_topics_take_the_title_else_the_description():
    topics = read_topics(TREC_TOPICS, name="topics.401-402")
    assert dict(topics) == {"401": "foreign minorities, Germany",
                            "402": "What is the evidence for genetic links & heredity?"}
    assert topics.name == "topics.401-402"


def test_topics_from_tsv_jsonl_bytes_and_gzip(tmp_path):
    assert dict(read_topics("qid\ttext\n1\twing flutter\n2\t shock waves \n")) == {"1": "wing flutter",
                                                                                  "2": "shock waves"}
    jsonl = b'{"qid": "a", "text": "x"}\n\n{"query_id": 7, "query": "y"}\n{"id": "c", "title": "z"}\n'
    assert dict(read_topics(jsonl)) == {"a": "x", "7": "y", "c": "z"}
    path = tmp_path / "topics.tsv.gz"
    path.write_bytes(gzip.compress("1\tcafé &amp; <b>bar</b>\r\n".encode()))
    topics = read_topics(path)
    assert dict(topics) == {"1": "café &amp; <b>bar</b>"} and topics.name == "topics.tsv.gz"  # TSV is verbatim


def test_documents_from_tsv_jsonl_trec_and_smart():
    assert read_documents("d1\tbody one\nd2\tTitle\tbody two\n")["d2"] == DocText("Title", "body two")
    jsonl = ('{"docid": "a", "text": "t"}\n{"doc_id": "b", "title": "T", "body": "u"}\n'
             '{"_id": "c", "title": null, "contents": "v"}\n{"id": 4, "title": "only a title"}\n')
    assert dict(read_documents(jsonl)) == {"a": DocText("", "t"), "b": DocText("T", "u"), "c": DocText("", "v"),
                                           "4": DocText("only a title", "")}
    trec = ("<DOC>\n<DOCNO> FT911-3 </DOCNO>\n<HEADLINE><P>A\nheadline</P></HEADLINE>\n<DATE>1991</DATE>\n"
            "<TEXT>\nfirst &lt;part&gt;\n</TEXT>\n<TEXT>second</TEXT>\n</DOC>\n"
            "<doc><docno>x2</docno><title>T2</title>no text tag here</doc>\n")
    docs = read_documents(trec)
    assert docs["FT911-3"] == DocText("A headline", "first <part> second")
    assert docs["x2"] == DocText("T2", "no text tag here")
    smart = ".I 1\n.T\nwing\ntheory .\n.A\nsomeone\n.W\nthe\n  text .\n.I 2\n.W\nonly text\n"
    assert dict(read_documents(smart)) == {"1": DocText("wing theory .", "the text ."), "2": DocText("", "only text")}


def test_topics_and_documents_are_immutable_mappings_that_pickle():
    topics = read_topics("1\tx\n", name="t")
    with pytest.raises(TypeError):
        topics["2"] = "y"  # type: ignore[index]
    with pytest.raises(AttributeError):
        topics.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        read_documents("d\tx\n").preview = None  # type: ignore[method-assign]
    with pytest.raises(dataclasses.FrozenInstanceError):
        DocText("a", "b").title = "c"  # type: ignore[misc]
    again = pickle.loads(pickle.dumps(topics))
    assert again == topics and again.name == "t" and isinstance(again, Topics)
    docs = copy.deepcopy(read_documents("d\tT\tx\n", name="docs"))
    assert isinstance(docs, Documents) and docs.name == "docs" and docs.preview("d") == "T"
    assert repr(topics) == "Topics(name='t', 1 topics)"
    with pytest.raises(ValidationError):
        docs.preview("d", words=-1)
    with pytest.raises(ValidationError):
        Topics({"1": 2})


def test_a_dataframe_or_other_object_is_refused():
    with pytest.raises(ValidationError, match="expected a path, bytes or text"):
        read_topics(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------------
# bad input: one line, naming the file and line, what was expected and what was found


BAD_TOPICS = [
    ("1\twing\n2\tflutter\n1\tagain\n", 't.tsv:3: expected each topic id once, found "1" again (first on line 1)'),
    ("1\twing\n2 flutter\n", ("t.tsv:2: expected 2 tab-separated fields \"qid<TAB>text\", found 1 "
                              "(fields are separated by tabs)")),
    ("1\ta\tb\n", 't.tsv:1: expected 2 tab-separated fields "qid<TAB>text", found 3'),
    ("\t text\n", "t.tsv:1: expected a topic id in field 1, found none"),
    ('{"qid": "1", "text": "a"}\n{"qid": "1", "text": "b"}\n',
     't.tsv:2: expected each topic id once, found "1" again (first on line 1)'),
    ('{"qid": "1", "text": "a"}\n{"qid": "2", "text": \n',
     ('t.tsv:2: expected a JSON object with an id ("qid", "query_id", "id"), found invalid JSON '
      "(Expecting value at column 22)")),
    ('{"qid": "1", "text": "a"}\n[1, 2]\n',
     't.tsv:2: expected a JSON object with an id ("qid", "query_id", "id"), found a JSON list'),
    ('{"name": "1", "text": "a"}\n',
     't.tsv:1: expected a JSON object with an id ("qid", "query_id", "id"), found keys "name, text"'),
    ('{"qid": 1.5, "text": "a"}\n', 't.tsv:1: expected a string or an integer in "qid", found "1.5"'),
    ('{"qid": "a b", "text": "a"}\n', 't.tsv:1: expected a topic id without white space in "qid", found "a b"'),
    ('{"qid": "1", "body": "a"}\n',
     't.tsv:1: expected a query text ("text", "query", "title"), found keys "qid, body"'),
    ('{"qid": "1", "text": 3}\n', 't.tsv:1: expected a string in "text", found "3"'),
    ("<top>\n<num> Number: 401\n<title> a\n</top>\n\n<top>\n<num> Number: 401\n<title> b\n</top>\n",
     't.tsv:6: expected each topic id once, found "401" again (first on line 1)'),
    ("<top>\n<num> Number: 401\n<title> a\n<top>\n", ('t.tsv:4: expected "</top>" to close the record opened on '
                                                    'line 1, found "<top>"')),
    ("<top>\n<num> Number: 401\n<title> a\n", ('t.tsv:1: expected "</top>" to close this record, found the end of '
                                              "the file")),
    ("<top>\n<title> a\n</top>\n", 't.tsv:1: expected a topic id in "<num>", found none'),
    ("<top><num>1</num></top>\nstray words\n", 't.tsv:2: expected "<top>", found "stray words"'),
    ("<DOC>\n<DOCNO>1</DOCNO>\n</DOC>\n", 't.tsv:1: expected TREC topics starting with "<top>", found "<DOC>"'),
    ("stray\n.I 1\n.W\nx\n", "t.tsv:1: expected 2 tab-separated fields \"qid<TAB>text\", found 1"),
    (".I 001\n.W\na\n.I 001\n.W\nb\n", 't.tsv:4: expected each topic id once, found "001" again (first on line 1)'),
    (".I\n.W\na\n", 't.tsv:1: expected a topic id in ".I", found none'),
    (b"1\tcaf\xe9\n", "t.tsv:1: expected UTF-8 text, found byte 0xe9"),
    ("\n \n", 't.tsv: empty file: expected lines of topics: TREC "<top>", SMART ".I", "qid<TAB>text" or JSON lines'),
    ("1\ttext\n".encode("utf-16"), "t.tsv: expected UTF-8 text, found UTF-16 (save the file as UTF-8)"),
]


@pytest.mark.parametrize(("data", "message"), BAD_TOPICS)
def test_bad_topics(data, message):
    with pytest.raises(ParseError) as info:
        read_topics(data, name="t.tsv")
    assert str(info.value) == message and "\n" not in str(info.value)


BAD_DOCUMENTS = [
    ("d1\ta\nd2\tb\nd1\tc\n", 'docs:3: expected each document id once, found "d1" again (first on line 1)'),
    ("d1\ta\tb\tc\n", ('docs:1: expected 2 or 3 tab-separated fields "docid<TAB>text" or '
                       '"docid<TAB>title<TAB>text", found 4')),
    ("<DOC><DOCNO>1</DOCNO>a</DOC>\n<DOC>\n<DOCNO>1</DOCNO>\nb\n</DOC>\n",
     'docs:2: expected each document id once, found "1" again (first on line 1)'),
    ("<DOC>\n<TEXT>no id</TEXT>\n</DOC>\n", 'docs:1: expected a document id in "<DOCNO>", found none'),
    ("<DOC>\n<DOCNO>a b</DOCNO>\n</DOC>\n", ('docs:1: expected a document id without white space in "<DOCNO>", '
                                           'found "a b"')),
    ("<DOC>\n<DOCNO>1</DOCNO>\n</DOC>\n</DOC>\n", 'docs:4: expected "<DOC>", found "</DOC>"'),
    ("<top>\n<num>1</num>\n</top>\n", 'docs:1: expected TREC documents starting with "<doc>", found "<top>"'),
    ('{"docid": "1"}\n', 'docs:1: expected a text ("text", "body", "contents") or a "title", found keys "docid"'),
    ('{"docid": "1", "title": 5, "text": "x"}\n', 'docs:1: expected a string in "title", found "5"'),
    (".I 1\n.W\na\n.I 1\n.W\nb\n", 'docs:4: expected each document id once, found "1" again (first on line 1)'),
    (b"<DOC>\n<DOCNO>1</DOCNO>\n\x00\n</DOC>\n", "docs:3: expected text, found binary data (a NUL byte)"),
]


@pytest.mark.parametrize(("data", "message"), BAD_DOCUMENTS)
def test_bad_documents(data, message):
    with pytest.raises(ParseError) as info:
        read_documents(data, name="docs")
    assert str(info.value) == message and "\n" not in str(info.value)


def test_long_bad_values_are_clipped_and_lines_counted_across_line_endings():
    with pytest.raises(ParseError) as info:
        read_topics("1\ta\r\n2\tb\r3\tc\n" + "x" * 100_000 + "\n", name="t")
    assert str(info.value) == 't:4: expected 2 tab-separated fields "qid<TAB>text", found 1'
    with pytest.raises(ParseError) as info:
        read_documents('{"docid": "' + "y" * 100_000 + ' z", "text": ""}\n', name="d")
    assert len(str(info.value)) < 200 and str(info.value).startswith("d:1: expected a document id without white")


def test_a_missing_file_names_it():
    with pytest.raises(ParseError, match=r"^nope\.tsv: cannot read file"):
        read_topics("/nonexistent/dir/nope.tsv")
