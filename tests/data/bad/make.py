"""Write the bad-input corpus: one small file per case (run ``python tests/data/bad/make.py``).

The files are committed; this script documents how each was made and rebuilds them byte for byte.
What each must produce (the exact error message, or the rows read and the lint warnings) is written by
hand in ``cases.json`` beside it and checked by ``tests/metrics/io/test_bad_inputs.py``; this script never
writes expectations.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUN = "301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 11.25 bm25\n302 Q0 FBIS3-10082 1 9.0 bm25\n"
QRELS = "301 0 FT934-5418 1\n301 0 LA052390-0123 0\n302 0 FBIS3-10082 2\n"


def gz(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as f:
        f.write(data)
    return buffer.getvalue()


CASES: dict[str, bytes] = {
    # the references the legal cases are evaluated against
    "reference.qrels": QRELS.encode(),
    "reference.run": RUN.encode(),
    # malformed runs
    "truncated_line.run": (RUN + "302 Q0 FBIS3-10083 2 8.5").encode()[:-4],
    "missing_field.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 11.25 bm25\n",
    "extra_fields.run": b"301 Q0 FT934-5418 1 12.5 bm25 extra junk\n301 Q0 LA052390-0123 2 11.25 bm25\n",
    "utf16.run": RUN.encode("utf-16"),
    "utf16_no_bom.run": RUN.encode("utf-16-le"),
    "latin1_docid.run": "301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 caf\u00e9-1 2 11.0 bm25\n".encode("latin-1"),
    "nul_byte.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA05\x002390 2 11.25 bm25\n",
    "gzip_not_named_gz.run": gz(RUN.encode()),
    "truncated_gzip.run.gz": gz(RUN.encode() * 20)[:60],
    "zip_archive.run": bytes.fromhex("504b0304140000000000") + b"x.run" + b"301 Q0 FT934-5418 1 12.5 bm25\n",
    "zeros.run.gz": gz(bytes(4096)),
    "png_image.run": bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"),
    "empty.run": b"",
    "only_comments.run": b"# a run file with nothing in it\n# still nothing\n",
    "score_nan.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 nan bm25\n",
    "score_inf.run": b"301 Q0 FT934-5418 1 inf bm25\n",
    "score_1e999.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 1e999 bm25\n",
    "score_empty.run": b"301 Q0 FT934-5418 1  bm25\n",
    "score_hex.run": b"301 Q0 FT934-5418 1 0x1p3 bm25\n",
    "score_comma.run": b"301 Q0 FT934-5418 1 12,5 bm25\n",
    "score_arabic_digits.run": "301 Q0 FT934-5418 1 \u0661\u0662 bm25\n".encode(),
    "long_bad_score.run.gz": gz(b"301 Q0 FT934-5418 1 " + b"9" * 200_000 + b"x bm25\n"),
    "duplicate_doc.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 11.0 bm25\n"
                         b"301 Q0 FT934-5418 3 10.0 bm25\n",
    "qrels_given_as.run": QRELS.encode(),
    # malformed qrels
    "fractional_grade.qrels": b"301 0 FT934-5418 1\n301 0 LA052390-0123 1.5\n",
    "duplicate_doc.qrels": b"301 0 FT934-5418 1\n301 0 LA052390-0123 0\n301 0 FT934-5418 2\n",
    "run_given_as.qrels": RUN.encode(),
    "five_fields.qrels": b"301 0 FT934-5418 1 extra\n",
    "three_fields.qrels": b"301 0 FT934-5418 1\n301 FT934-5419 0\n",
    "nan_grade.qrels": b"301 0 FT934-5418 nan\n",
    "huge_grade.qrels": b"301 0 FT934-5418 99999999999999999999\n",
    # legal, if unusual
    "mixed_whitespace.run": b"301\tQ0  FT934-5418 1\t12.5   bm25\n 301 Q0 LA052390-0123 2 11.25 bm25 \n",
    "crlf.run": RUN.replace("\n", "\r\n").encode(),
    "cr_only.run": RUN.replace("\n", "\r").encode(),
    "tabs.run": RUN.replace(" ", "\t").encode(),
    "bom.run": b"\xef\xbb\xbf" + RUN.encode(),
    "comments_and_blanks.run": b"# header\n\n" + RUN.encode() + b"\n# trailer\n",
    "exotic_scores.run": b"301 Q0 a 1 1.5E+3 s\n301 Q0 b 2 +2 s\n301 Q0 c 3 .5 s\n301 Q0 d 4 5. s\n"
                         b"301 Q0 e 5 -0 s\n301 Q0 f 6 -1e-3 s\n",
    "negative_grades.qrels": b"301 0 FT934-5418 -1\n301 0 LA052390-0123 1\n301 0 FBIS3-10082 -2\n",
    "one_topic.run": b"301 Q0 FT934-5418 1 12.5 bm25\n",
    "disjoint_topics.run": b"999 Q0 FT934-5418 1 12.5 bm25\n",
    "hostile_docids.run": ("301 Q0 <script>alert(1)</script> 1 3 s\n301 Q0 \"quoted\" 2 2 s\n"
                           "301 Q0 $(rm${IFS}-rf)`id`;|&> 3 1 s\n301 Q0 '--><img/src=x> 4 0.5 s\n").encode(),
    "ties_100k.run.gz": gz("".join(f"301 Q0 D{i} 1 1.0 tied\n" for i in range(100_000)).encode()),
    "rank_contradicts.run": b"301 Q0 FT934-5418 2 12.5 bm25\n301 Q0 LA052390-0123 1 11.25 bm25\n"
                            b"302 Q0 FBIS3-10082 1 9.0 bm25\n",
    "rank_reorders_ties.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 12.5 bm25\n"
                              b"302 Q0 FBIS3-10082 1 9.0 bm25\n",
    "huge_rank.run": b"301 Q0 FT934-5418 1000000000000000000000000000000 12.5 bm25\n"
                     b"301 Q0 LA052390-0123 99999999999999999999 11.25 bm25\n302 Q0 FBIS3-10082 1e400 9.0 bm25\n",
    "no_relevant.qrels": b"301 0 FT934-5418 1\n302 0 FBIS3-10082 0\n",
    "huge_grades.qrels": b"301 0 FT934-5418 999999999\n301 0 LA052390-0123 0\n302 0 FBIS3-10082 2147483648\n",
    "unicode_docids.run": ("301 Q0 caf\u00e9 1 5 s\n301 Q0 \u65e5\u672c\u8a9e 2 4 s\n301 Q0 a\u00a0b 3 3 s\n"
                           "301 Q0 \u202eexe.txt 4 2 s\n301 Q0 \U0001f600 5 1 s\n").encode(),
    "markdown_docids.run": ("301 Q0 **bold** 1 5 s\n301 Q0 [x](javascript:alert(1)) 2 4 s\n"
                            "301 Q0 `code` 3 3 s\n301 Q0 $\\frac{1}{0}$ 4 2 s\n301 Q0 ~~gone~~ 5 1 s\n").encode(),
    "hostile_names.run": b"<b>301</b> Q0 FT934-5418 1 12.5 <img/src=x/onerror=alert(1)>\n"
                         b"302 Q0 FBIS3-10082 1 9.0 <img/src=x/onerror=alert(1)>\n",
    "long_line.run.gz": gz(("301 Q0 " + "x" * 200_000 + " 1 1.0 long\n").encode()),
}


def main() -> None:
    for name, data in CASES.items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
