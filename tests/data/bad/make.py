"""Write the bad-input corpus: one small file per case (run ``python tests/data/bad/make.py``).

The files are committed; this script documents how each was made and rebuilds them byte for byte.
The message each must produce is pinned in ``tests/metrics/test_bad_inputs.py``.
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
    # malformed runs
    "truncated_line.run": (RUN + "302 Q0 FBIS3-10083 2 8.5").encode()[:-4],
    "missing_field.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 11.25 bm25\n",
    "extra_fields.run": b"301 Q0 FT934-5418 1 12.5 bm25 extra junk\n301 Q0 LA052390-0123 2 11.25 bm25\n",
    "utf16.run": RUN.encode("utf-16"),
    "latin1_docid.run": "301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 caf\u00e9-1 2 11.0 bm25\n".encode("latin-1"),
    "nul_byte.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA05\x002390 2 11.25 bm25\n",
    "gzip_not_named_gz.run": gz(RUN.encode()),
    "png_image.run": bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"),
    "empty.run": b"",
    "only_comments.run": b"# a run file with nothing in it\n# still nothing\n",
    "score_nan.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 nan bm25\n",
    "score_inf.run": b"301 Q0 FT934-5418 1 inf bm25\n",
    "score_1e999.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 1e999 bm25\n",
    "score_empty.run": b"301 Q0 FT934-5418 1  bm25\n",
    "score_hex.run": b"301 Q0 FT934-5418 1 0x1p3 bm25\n",
    "score_comma.run": b"301 Q0 FT934-5418 1 12,5 bm25\n",
    "duplicate_doc.run": b"301 Q0 FT934-5418 1 12.5 bm25\n301 Q0 LA052390-0123 2 11.0 bm25\n"
                         b"301 Q0 FT934-5418 3 10.0 bm25\n",
    "qrels_given_as.run": QRELS.encode(),
    # malformed qrels
    "fractional_grade.qrels": b"301 0 FT934-5418 1\n301 0 LA052390-0123 1.5\n",
    "duplicate_doc.qrels": b"301 0 FT934-5418 1\n301 0 LA052390-0123 0\n301 0 FT934-5418 2\n",
    "run_given_as.qrels": RUN.encode(),
    "five_fields.qrels": b"301 0 FT934-5418 1 extra\n",
    # legal, if unusual
    "mixed_whitespace.run": b"301\tQ0  FT934-5418 1\t12.5   bm25\n 301 Q0 LA052390-0123 2 11.25 bm25 \n",
    "crlf.run": RUN.replace("\n", "\r\n").encode(),
    "bom.run": b"\xef\xbb\xbf" + RUN.encode(),
    "comments_and_blanks.run": b"# header\n\n" + RUN.encode() + b"\n# trailer\n",
    "exotic_scores.run": b"301 Q0 a 1 1.5E+3 s\n301 Q0 b 2 +2 s\n301 Q0 c 3 .5 s\n301 Q0 d 4 5. s\n"
                         b"301 Q0 e 5 -0 s\n301 Q0 f 6 -1e-3 s\n",
    "negative_grades.qrels": b"301 0 FT934-5418 -1\n301 0 LA052390-0123 1\n301 0 FBIS3-10082 -2\n",
    "one_topic.run": b"301 Q0 FT934-5418 1 12.5 bm25\n",
    "disjoint_topics.run": b"999 Q0 FT934-5418 1 12.5 bm25\n",
    "hostile_docids.run": ("301 Q0 <script>alert(1)</script> 1 3 s\n301 Q0 \"quoted\" 2 2 s\n"
                           "301 Q0 $(rm${IFS}-rf)`id`;|&> 3 1 s\n301 Q0 '--><img/src=x> 4 0.5 s\n").encode(),
    "ties_100k.run.gz": gz("".join(f"301 Q0 D{i} {i + 1} 1.0 tied\n" for i in range(100_000)).encode()),
    "long_line.run.gz": gz(("301 Q0 " + "x" * 200_000 + " 1 1.0 long\n").encode()),
}


def main() -> None:
    for name, data in CASES.items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
