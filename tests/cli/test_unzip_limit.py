"""The dashboard's decompression limit guards the command line too: a gzip bomb of valid lines is refused in
one line, with the memory of a small file; ``RANKSCOPE_UNZIP_MB`` sets the limit and ``--no-unzip-limit`` lifts
it for a trusted large file."""

from __future__ import annotations

import gzip
import zlib

import pytest

from tests.cli.program import run_rankscope

PEAK_MB = 400  # the command's peak resident memory on a bomb: the interpreter, pyarrow and what it read first


def _bomb(path, line: bytes, mib: int) -> None:
    """A gzip file whose ``mib`` MiB of text are ``line`` repeated (valid lines, about a thousand times smaller)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = line * ((1 << 20) // len(line))
    with open(path, "wb") as out:
        for _ in range(mib):
            out.write(packer.compress(chunk))
        out.write(packer.flush())


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_gzip_bomb_of_valid_lines_is_refused_in_one_line_with_bounded_memory(tmp_path, kind):
    (tmp_path / "q.txt").write_bytes(b"1 0 d1 1\n")
    (tmp_path / "a.run").write_bytes(b"1 Q0 d1 1 1.0 a\n")
    _bomb(tmp_path / f"bomb.{kind}.gz", b"1 Q0 d1 1 1.0 a\n" if kind == "run" else b"1 0 d1 1\n", 512)
    args = ("eval", "q.txt", "bomb.run.gz") if kind == "run" else ("eval", "bomb.qrels.gz", "a.run")
    status, stderr, peak = run_rankscope(tmp_path, *args)
    assert status == 2 and stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert stderr == f"rankscope eval: bomb.{kind}.gz: expected gzip data that expands at most 100 times, found more\n"
    assert peak < PEAK_MB, f"{peak} MB"


def test_the_limit_is_a_setting_and_a_flag_lifts_it_for_a_trusted_file(tmp_path):
    (tmp_path / "q.txt").write_bytes(b"1 0 d1 1\n")
    lines = "".join(f"1 Q0 doc{i:07d} {i + 1} {1e6 - i} big\n" for i in range(80_000)).encode()  # 2.8 MiB
    (tmp_path / "big.run.gz").write_bytes(gzip.compress(lines))
    status, stderr, _ = run_rankscope(tmp_path, "eval", "q.txt", "big.run.gz", env={"RANKSCOPE_UNZIP_MB": "1"})
    assert (status, stderr) == (2, "rankscope eval: big.run.gz: expected gzip data that expands to at most 1 MiB, "
                                   "found more\n")
    status, stderr, _ = run_rankscope(tmp_path, "eval", "--no-unzip-limit", "q.txt", "big.run.gz",
                                   env={"RANKSCOPE_UNZIP_MB": "1"})
    assert (status, stderr) == (0, "")
