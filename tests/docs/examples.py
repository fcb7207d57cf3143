"""The code blocks of the site's pages and of the README, read and run as a reader would run them.

A page is read into :class:`Block` s (its fenced code blocks, with the ``%`` comment lines right above each,
which MyST does not show). Each runs in the page's own folder, a copy of the demo collection
(:func:`demo_folder`), in the order of the page, in this process:

* ``python``: executed, one namespace per page; ``pycon``: run as doctests in that namespace;
* ``bash``: each line a command (:func:`run_line`); ``console``: each ``$ `` line a command, and the
  lines under it what it prints (``...`` stands for any lines), compared with what it printed;
* ``yaml``, ``toml``, ``json``: parsed; under ``% file: NAME`` also written to that file first, so that
  the commands after it read it;
* anything else (``text``, output shown without its command) is not run.

``% not run: REASON`` above a Python block leaves it compiled but not run, REASON naming the test that runs
what it does (the dashboard's server); ``% exit: N`` above a block says the status its commands end with (default 0); ``% wrote: FILE`` that the
block is what the commands before it wrote to that file (compared as a console block's output); ``% checked
by: PATH``
says that another test runs the block (the judgment sets' example needs Cranfield from ``../shared``): the
runner checks that that test reads this page, and runs nothing.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GENERATED = ("measures.md", "reference/cli.md", "reference/python/")  # written from the code by docs/_ext
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")


@dataclass
class Block:
    """One fenced code block of a page: its language, its text, the line it starts on and its ``%`` notes."""

    page: str
    line: int
    language: str
    text: str
    notes: dict[str, str] = field(default_factory=dict)

    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[str]:
    """Every page written by hand (relative to the repository), the README first."""
    found = sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md")
                   if "_ext" not in p.parts and not any(str(p.relative_to(DOCS)).startswith(g) for g in GENERATED))
    return ["README.md", *found]


def text_of(path: str) -> str | None:
    """The Markdown of the page ``path`` (relative to the repository): read from the file when it is written
    by hand, written from the code when it is generated (whether or not a build has left it on disk);
    ``None`` when there is no such page."""
    relative = Path(path).relative_to("docs") if path.startswith("docs/") else None
    if relative is not None and any(str(relative).startswith(g) for g in GENERATED):
        import sys

        sys.path.insert(0, str(DOCS / "_ext"))
        try:
            import rankscope_site
        finally:
            sys.path.remove(str(DOCS / "_ext"))
        return rankscope_site.pages().get(str(relative))
    target = ROOT / path
    return target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None


def blocks(page: str) -> list[Block]:
    """The fenced code blocks of ``page`` (a path relative to the repository), in order."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, info = match.group("fence"), match.group("info").strip()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith(fence) and not lines[j].strip(fence[0])),
                   None)
        if end is None:
            raise AssertionError(f"{page}:{i + 1}: a code block that is never closed")
        notes, j = {}, i - 1
        while j >= 0 and lines[j].startswith("% "):
            key, _, value = lines[j][2:].partition(":")
            notes[key.strip()] = value.strip()
            j -= 1
        if not info.startswith("{"):  # a MyST directive (```{toctree}) is markup, not code
            out.append(Block(page, i + 1, info.split()[0] if info else "", "\n".join(lines[i + 1:end]) + "\n", notes))
        i = end + 1
    return out


def demo_folder(where: Path) -> Path:
    """``where`` holding a copy of the demo collection, as the getting-started page makes it."""
    import sample_data

    shutil.copytree(sample_data.DEMO_DIR, where, dirs_exist_ok=True)
    return where


class Page:
    """The state the blocks of one page share: the folder, the environment, the Python namespace."""

    def __init__(self, folder: Path) -> None:
        self.cwd = folder
        self.env: dict[str, str] = {}
        self.namespace: dict = {"__name__": "__docs__"}
        self.stderr = ""  # what the last command printed on stderr

    @contextlib.contextmanager
    def inside(self):
        before_cwd, before_env = Path.cwd(), dict(os.environ)
        os.chdir(self.cwd)
        os.environ.update(self.env)
        try:
            yield
        finally:
            os.chdir(before_cwd)
            os.environ.clear()
            os.environ.update(before_env)

    def run(self, block: Block) -> None:
        """Run one block (see the module's documentation); an AssertionError names the block and the line."""
        if "checked by" in block.notes:
            test = ROOT / block.notes["checked by"]
            assert test.is_file() and block.page in test.read_text(encoding="utf-8"), \
                f"{block.where()}: {test} does not exist or does not read {block.page}"
            return
        if "file" in block.notes:
            (self.cwd / block.notes["file"]).parent.mkdir(parents=True, exist_ok=True)
            (self.cwd / block.notes["file"]).write_text(block.text, encoding="utf-8")
        if "wrote" in block.notes:
            written = (self.cwd / block.notes["wrote"]).read_text(encoding="utf-8")
            assert _matches(block.text.splitlines(), written.splitlines()), \
                f"{block.where()}: {block.notes['wrote']} holds\n{written}\nnot\n{block.text}"
            return
        status = int(block.notes.get("exit", "0"))
        with self.inside():
            if block.language == "python" and "not run" in block.notes:
                compile(block.text, block.where(), "exec")  # a syntax error still fails
                named = re.search(r"\btests/\S+\.py", block.notes["not run"])
                assert named and (ROOT / named.group(0)).is_file(), \
                    f"{block.where()}: '% not run:' names the test that runs it instead"
            elif block.language == "python":
                exec(compile(block.text, block.where(), "exec"), self.namespace)
            elif block.language == "pycon":
                self._doctest(block)
            elif block.language in ("bash", "sh", "shell"):
                for n, line in enumerate(block.text.splitlines()):
                    if line.strip() and not line.lstrip().startswith("#"):
                        self._command(line, f"{block.where()}+{n + 1}", status)
            elif block.language == "console":
                self._console(block, status)
            elif block.language == "yaml":
                yaml.safe_load(block.text)
            elif block.language == "toml":
                tomllib.loads(block.text)
            elif block.language == "json":
                json.loads(block.text)

    def _doctest(self, block: Block) -> None:
        test = doctest.DocTestParser().get_doctest(block.text, self.namespace, block.where(), block.page, block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        out = io.StringIO()
        runner.run(test, out=out.write, clear_globs=False)
        assert not runner.failures, out.getvalue()

    def _console(self, block: Block, status: int) -> None:
        lines = block.text.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        assert starts and starts[0] == 0, f"{block.where()}: a console block starts with a '$ ' line"
        for k, start in enumerate(starts):
            stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
            printed = self._command(lines[start][2:], f"{block.where()}+{start + 1}", status)
            expected = lines[start + 1:stop]
            assert _matches(expected, printed.splitlines()), \
                f"{block.where()}+{start + 1}: `{lines[start][2:]}` printed\n{printed}\nnot\n" + "\n".join(expected)

    def _command(self, line: str, where: str, status: int) -> str:
        """Run one command line; what it printed on stdout."""
        printed, code = run_line(line, self)
        assert code in (None, status), \
            f"{where}: `{line}` ended with status {code}, not {status}:\n{printed}\n[stderr]\n{self.stderr}"
        return printed


def _matches(expected: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` is ``expected`` line for line (trailing spaces aside), a ``...`` line standing
    for any number of lines and ``...`` in a line for any text (an id drawn at random)."""
    expected = [e.rstrip() for e in expected]
    printed = [p.rstrip() for p in printed]
    pattern = "\n".join(".*?" if e == "..." else "[^\n]*?".join(map(re.escape, e.split("..."))) for e in expected)
    return re.fullmatch(pattern.replace("\n.*?\n", "(?:\n.*?)?\n"), "\n".join(printed), re.S) is not None


# What a command line of an example may be, and how each is checked: run, or parsed without running, with
# the reason it is not run here (and the tests that run it for real).
NOT_RUN = (
    (lambda argv: argv[:1] == ["dashboard"], "starts a web server (tests/e2e run it)"),
    (lambda argv: any(a.startswith("postgresql://") for a in argv), "needs a PostgreSQL server (tests/workspace)"),
    (lambda argv: "--scheduler" in argv, "needs a Dask cluster (tests/distributed)"),
    (lambda argv: "--exports" in argv, "draws every chart as PNG and SVG in Chromium, 20 s (tests/dashboard)"),
    (lambda argv: any(a.startswith("irds:") for a in argv) or "--dataset" in argv,
     "reads ir_datasets' local store (tests/metrics/io run it on one made for them)"),
)


def run_line(line: str, page: Page) -> tuple[str, int | None]:
    """Run one command line of an example in ``page``'s folder and environment: (stdout, exit status), the
    status None for a line that is only checked (see :data:`NOT_RUN`)."""
    words = shlex.split(line, comments=True)
    if not words:
        return "", 0
    background = words[-1] == "&"
    words = words[:-1] if background else words
    assign = re.fullmatch(r"(\w+)=\$\((rankscope .*)\)", " ".join(shlex.split(line, comments=True)))
    if assign:  # ID=$(rankscope workspace add ...)
        printed, code = run_line(assign.group(2), page)
        page.env[assign.group(1)] = printed.strip()
        return printed, code
    if words[0] == "export":
        name, _, value = words[1].partition("=")
        page.env[name] = _expand(shlex.quote(value), page)[0]
        return "", 0
    if words[0] == "cd":
        page.cwd = (page.cwd / _expand(shlex.quote(words[1]), page)[0]).resolve()
        return "", 0
    if words[0] == "python3" and words[1:2] == ["dev.py"]:
        commands = re.findall(r"^``(\w+)``", (ROOT / "dev.py").read_text(encoding="utf-8"), re.M)
        assert words[2] in commands, f"dev.py has no command {words[2]!r} (it has {commands})"
        return "", None
    if words[:3] == ["python", "-m", "sample_data.generate"]:  # regenerates the shipped files byte for byte
        # (tests/sample_data/test_sample_data.py): a copy of them is the same, and 4 s faster
        assert words[3:4] == ["--out"] and len(words) == 5, f"sample_data.generate takes --out DIR: {line}"
        demo_folder(page.cwd / _expand(shlex.quote(words[4]), page)[0])
        return "", 0
    if words[0] == ".venv/bin/python" and words[1:2] and words[1].startswith("benchmarks/"):
        source = (ROOT / words[1]).read_text(encoding="utf-8")  # a benchmark: minutes of a quiet machine
        flags = [w.split("=")[0] for w in words[2:] if w.startswith("--")]
        assert all(f'"{flag}"' in source for flag in flags), f"{words[1]} takes no such flag: {line}"
        return "", None
    if words[:2] == ["pip", "install"]:
        extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
        for spec in words[2:]:
            match = re.fullmatch(r"rankscope(?:\[([\w,]+)\])?", spec)
            assert match, f"pip install of something other than rankscope: {spec}"
            assert set((match.group(1) or "").split(",")) - {""} <= set(extras), f"no such extra: {spec}"
        return "", None
    if words[0] != "rankscope":
        raise AssertionError(f"an example command the docs' test does not know how to run: {line}")
    argv = _expand(re.sub(r"&\s*(#.*)?$", "", line.strip()).split(None, 1)[1], page)
    if background or any(rule(argv) for rule, _ in NOT_RUN):
        from rankscope.cli import build_parser

        build_parser(argv[0]).parse_args(argv)  # a renamed flag still fails
        return "", None
    from rankscope.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse: a usage error
            code = exit_.code
    page.stderr = err.getvalue()
    return out.buffer.getvalue().decode("utf-8"), code


def _expand(words: str, page: Page) -> list[str]:
    """The words of (part of) a command line as the shell makes them (quotes, variables, globs), by bash
    itself, in the page's folder and environment."""
    done = subprocess.run(["bash", "-c", f"words() {{ printf '%s\\0' \"$@\"; }}; words {words}"], cwd=page.cwd,
                          env={**os.environ, **page.env}, capture_output=True, text=True, check=True)
    return done.stdout.split("\0")[:-1]
