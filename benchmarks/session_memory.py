#!/usr/bin/env python3
"""Sessions upload large files at once and close: is the server's memory back where it started?

    .venv/bin/python benchmarks/session_memory.py [--kind documents] [--sessions 3] [--records 730000] [--idle 60]

Starts ``streamlit run dashboard/app.py`` in a process session of its own (stopped as a group at the end) and
one Chromium (Debian's, through Playwright) with a browser context per session: each opens the data page and
gives the uploader of ``--kind`` a file of its own (``--records`` records, different in every session, so that
nothing comes from the cache): ``documents`` (TSV: id, title, a 12-word text), ``topics`` (TSV: id, text),
``runs`` (1,000 documents a topic) or ``qrels`` (100 judgments a topic).
Once every session has read its file, the contexts close. The server's memory (resident, summed over its
process group: the server, the guard's fork server and workers) is printed before the first session, once
every session has drawn the data page (the start: the app's libraries imported, the demo collection
evaluated), once every file is read, and every 10 seconds after the sessions closed until ``--idle`` seconds have passed
(``server.disconnectedSessionTTL`` is 30 s, the memory sweeper runs every 10 s). It ends by saying whether the
last figure is within ``--margin`` MiB of the start.
"""

from __future__ import annotations

import argparse
import random
import socket
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from upload_cycles import ARGS, CHROMIUM, session_rss_kib, session_ttl, start_server, stop_server  # noqa: E402

# the label of each kind's uploader on the data page (dashboard.panels.uploads.KINDS), and the text the page
# shows once a file of that kind is read
UPLOADERS = {"documents": ("Documents (optional)", "Documents: {}"), "topics": ("Topics (optional)", "Topics: {}"),
             "runs": ("Runs", "Load a qrels file"), "qrels": ("Qrels", "at least one run")}
WORDS = ("wing", "flow", "boundary", "layer", "pressure", "shock", "heat", "transfer", "plate", "cylinder",
         "supersonic", "laminar", "turbulent", "slender", "body", "nozzle")


def write(kind: str, path: Path, records: int, seed: int) -> Path:
    """A file of ``kind`` with ``records`` records, its words drawn from ``seed``."""
    rnd = random.Random(seed)
    with path.open("w") as out:
        if kind in ("documents", "topics"):
            for i in range(records):
                text = " ".join(rnd.choices(WORDS, k=12))
                out.write(f"d{seed}-{i}\t{rnd.choice(WORDS)} {i}\t{text}\n" if kind == "documents"
                          else f"{i + 1}\t{text}\n")
        elif kind == "runs":
            for i in range(records):
                out.write(f"{i // 1000 + 1} Q0 d{i % 5000} {i % 1000 + 1} {rnd.random() * 100:.4f} s{seed}\n")
        else:
            for i in range(records):
                out.write(f"{i // 100 + 1} 0 d{seed}-{i} {rnd.choice((0, 1, 2))}\n")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", choices=sorted(UPLOADERS), default="documents")
    p.add_argument("--sessions", type=int, default=3)
    p.add_argument("--records", type=int, default=730_000)
    p.add_argument("--idle", type=float, default=None, help="seconds after the sessions close (default TTL + 30)")
    p.add_argument("--margin", type=float, default=100.0, help="MiB above the start the end may be")
    args = p.parse_args(argv)
    from playwright.sync_api import expect, sync_playwright

    ttl = session_ttl()
    idle = ttl + 30 if args.idle is None else args.idle
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        files = [write(args.kind, Path(tmp) / f"s{i}.{args.kind}.tsv", args.records, i) for i in range(args.sessions)]
        print(f"{args.sessions} sessions, each a {args.kind} file of {args.records:,} records "
              f"({files[0].stat().st_size / 1e6:.0f} MB); server.disconnectedSessionTTL {ttl} s", flush=True)
        proc = start_server(port)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                expect.set_options(timeout=600_000)
                time.sleep(3)
                print(f"server before any session: {session_rss_kib(proc.pid) / 1024:.0f} MiB", flush=True)
                contexts = [browser.new_context() for _ in files]
                tabs = [c.new_page() for c in contexts]
                for tab in tabs:
                    tab.goto(f"http://127.0.0.1:{port}/data")
                    expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
                    expect(tab.locator('[data-testid="stFileUploader"]').first).to_be_attached()
                time.sleep(3)
                start = session_rss_kib(proc.pid)
                print(f"every session on the data page, before its upload: {start / 1024:.0f} MiB", flush=True)
                began = time.perf_counter()
                for tab, path in zip(tabs, files):
                    box = tab.locator('[data-testid="stFileUploader"]').filter(has_text=UPLOADERS[args.kind][0])
                    box.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
                for tab, path in zip(tabs, files):
                    expect(tab.locator('[data-testid="stFileChipName"]', has_text=path.name).first).to_be_attached()
                    expect(tab.locator('[data-testid="stStatusWidget"]')).to_have_count(0)
                    expect(tab.locator('[data-testid="stException"]')).to_have_count(0)
                    expect(tab.get_by_text(UPLOADERS[args.kind][1].format(path.name), exact=False).first).to_be_visible()
                loaded = session_rss_kib(proc.pid)
                print(f"every file read ({time.perf_counter() - began:.0f} s): {loaded / 1024:.0f} MiB", flush=True)
                for c in contexts:
                    c.close()
                browser.close()
            closed = time.monotonic()
            while (waited := time.monotonic() - closed) < idle:
                time.sleep(min(10.0, idle - waited))
                print(f"  {time.monotonic() - closed:4.0f} s after the sessions closed: "
                      f"{session_rss_kib(proc.pid) / 1024:7.0f} MiB", flush=True)
            end = session_rss_kib(proc.pid)
        finally:
            stop_server(proc)
    within = end <= start + args.margin * 1024
    print(f"start {start / 1024:.0f} MiB, every file read {loaded / 1024:.0f} MiB, {idle:.0f} s after the sessions "
          f"closed {end / 1024:.0f} MiB: {'within' if within else 'NOT within'} {args.margin:.0f} MiB of the start")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
