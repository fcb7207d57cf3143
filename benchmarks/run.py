#!/usr/bin/env python3
"""Time rankscope against pytrec_eval, ranx and ir_measures, end to end from the files.

    python benchmarks/run.py [--workloads sparse,strings,dense,mid] [--repeat 3] [--repeat-slow N]
                             [--tools rankscope-cli,pytrec_eval,...] [--json results.json]

Every measurement is a fresh process that reads the qrels and run files and computes the same measures
(map, ndcg_cut_10, ndcg, P_10, recall_100, recall_1000, recip_rank, Rprec, iprec_at_recall at 11 levels;
ranx has no interpolated precision, so it computes the first eight only). A small wrapper process starts
it, times it from start to exit and reads its peak resident memory and its CPU time (user + system, all its
threads) with ``resource.getrusage(RUSAGE_CHILDREN)``, so each number belongs to one tool run alone. On a
busy machine the wall times stretch with the load; the least CPU time of a row's runs ("min cpu s", and
"x cli cpu", its ratio to rankscope-cli's) is the comparison that load changes least.

Before a workload's times are printed, rankscope's values (the API and the command line's JSON output, full
precision) are checked against pytrec_eval's on map, ndcg_cut_10, P_10, recall_1000 and recip_rank to
1e-6; the script stops with status 1 if they disagree.

A tool is a name and either a command line or a Python snippet (``TOOLS`` in ``benchmarks/peers.py``): to add
a row, add an entry there. Snippets get the qrels and run paths as ``sys.argv[1:3]`` and print one line
``BENCH {json}`` with their aggregate values under trec_eval's names (and ``"part"``: the seconds of reading
and evaluating alone, shown as a note; every row's time is the whole process). A tool's ``prepare`` snippet
runs once, untimed, before its first measurement (ranx-warm: numba compiles into the on-disk cache the
measured processes then load). Workload files come from ``benchmarks/generate.py``, which this script calls
first (it skips files that are up to date). ``strings`` is ``sparse`` with ClueWeb09-style text document ids,
the row beside the numeric one: what reading, checking and ranking text ids cost. """

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
RESULTS = HERE / "results"

from peers import GATE, GATE_RUNS, GATE_TOLERANCE, MEASURES, TOOLS, Tool  # noqa: E402  (beside this script)

# runs in a fresh interpreter: starts the tool, waits, reports wall time and the tool's peak RSS (KiB)
WRAPPER = textwrap.dedent("""\
    import json, resource, subprocess, sys, time
    spec = json.loads(sys.argv[1])
    t0 = time.perf_counter()
    p = subprocess.run(spec["argv"], env=spec["env"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=spec["timeout"])
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = usage.ru_maxrss
    json.dump({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "maxrss_kib": rss, "rc": p.returncode,
               "stdout": p.stdout.decode(errors="replace")[-200000:],
               "stderr": p.stderr.decode(errors="replace")[-4000:]}, sys.stdout)
    """)


# --------------------------------------------------------------------------------------------------------
# measuring


@dataclass
class Env:
    python: str
    rankscope: str
    timeout: float


def command(tool: Tool, env: Env, qrels: Path, run: Path, tmpdir: str) -> tuple[list[str], dict[str, str]]:
    fill = {"qrels": str(qrels), "run": str(run), "rankscope": env.rankscope, "python": env.python,
            "tmpdir": tmpdir, "query": first_query(qrels)}
    if tool.argv is not None:
        argv = [a.format(**fill) for a in tool.argv]
    else:
        argv = [env.python, "-c", tool.code, str(qrels), str(run)]
    child_env = dict(os.environ)
    child_env.update({k: v.format(**fill) for k, v in tool.env.items()})
    return argv, child_env


def first_query(qrels: Path) -> str:
    """The topic of the qrels' first line (the anatomy row's query); '-' when there is no file."""
    if not qrels.is_file():
        return "-"
    with qrels.open("rb") as f:
        return f.readline().split()[0].decode()


def prepare(name: str, tool: Tool, env: Env) -> None:
    """Run a tool's untimed preparation once (ranx-warm: fill numba's on-disk cache from scratch)."""
    if tool.prepare is None:
        return
    cache = tool.env.get("NUMBA_CACHE_DIR")
    if cache and "{" not in cache:
        shutil.rmtree(cache, ignore_errors=True)  # "warm" means warmed by this very preparation
    with tempfile.TemporaryDirectory(prefix="rankscope-bench-") as tmpdir:
        _, child_env = command(tool, env, Path("-"), Path("-"), tmpdir)
        print(f"[prepare] {name} ...", file=sys.stderr, flush=True)
        p = subprocess.run([env.python, "-c", tool.prepare], env=child_env, capture_output=True, text=True,
                           timeout=env.timeout)
    if p.returncode != 0:
        fail(f"preparing {name} failed:\n{p.stderr[-2000:]}")


def measure(tool: Tool, env: Env, qrels: Path, run: Path) -> dict:
    """One fresh-process measurement: wall seconds, peak RSS, the values the tool printed."""
    with tempfile.TemporaryDirectory(prefix="rankscope-bench-") as tmpdir:
        argv, child_env = command(tool, env, qrels, run, tmpdir)
        spec = json.dumps({"argv": argv, "env": child_env, "timeout": env.timeout})
        try:
            p = subprocess.run([sys.executable, "-c", WRAPPER, spec], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=env.timeout + 60)
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"timed out after {env.timeout:.0f} s"}
    if p.returncode != 0:
        return {"ok": False, "error": p.stderr.decode(errors="replace").strip().splitlines()[-1:]}
    out = json.loads(p.stdout)
    result = {"ok": out["rc"] == 0, "wall": out["wall"], "cpu": out["cpu"], "rss_mb": out["maxrss_kib"] / 1024.0}
    if out["rc"] != 0:
        result["error"] = (out["stderr"].strip().splitlines() or [f"exit status {out['rc']}"])[-1]
        return result
    values, part = parse_output(tool.output, out["stdout"])
    result["values"] = values
    result["seconds"] = out["wall"]  # always the whole process
    if part is not None:
        result["part"] = part
    return result


def parse_output(kind: str, text: str) -> tuple[dict[str, float], float | None]:
    if kind == "none":
        return {}, None
    if kind == "bench":
        for line in reversed(text.splitlines()):
            if line.startswith("BENCH "):
                payload = json.loads(line[len("BENCH "):])
                return payload["values"], payload.get("part")
        raise RuntimeError("the snippet printed no BENCH line:\n" + text[-2000:])
    if kind == "json":
        return {r["measure"]: float(r["value"]) for r in json.loads(text) if r["query"] == "all"}, None
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            try:
                values[parts[0]] = float(parts[2])
            except ValueError:
                pass
    return values, None


def deviation(values: dict[str, float], reference: dict[str, float], decimals: int | None) -> tuple[float, int]:
    """Largest |difference| from the reference over the measures both have, and how many were compared.

    With ``decimals`` (trec_eval's text output) the reference is rounded the same way first.
    """
    common = [m for m in MEASURES if m in values and m in reference]
    if not common:
        return float("nan"), 0
    diffs = [abs(values[m] - (round(reference[m], decimals) if decimals else reference[m])) for m in common]
    return max(diffs), len(common)


# --------------------------------------------------------------------------------------------------------
# the gate


def gate(env: Env, qrels: Path, run: Path) -> tuple[dict[str, float], str]:
    """pytrec_eval's values; raises SystemExit if rankscope disagrees on the gate measures."""
    results = {}
    for name, tool in GATE_RUNS.items():
        r = measure(tool, env, qrels, run)
        if not r.get("ok"):
            fail(f"the correctness gate could not run {name}: {r.get('error')}")
        results[name] = r["values"]
    reference = results.pop("pytrec_eval")
    worst = 0.0
    problems = []
    for name, values in results.items():
        for m in GATE:
            if m not in values or m not in reference:
                problems.append(f"{name}: {m} missing")
                continue
            d = abs(values[m] - reference[m])
            worst = max(worst, d)
            if not d <= GATE_TOLERANCE:
                problems.append(f"{name}: {m} = {values[m]!r}, pytrec_eval {reference[m]!r} (|diff| {d:.3g})")
    if problems:
        fail("VALUES DISAGREE between rankscope and pytrec_eval:\n  " + "\n  ".join(problems))
    line = (f"values agree: {', '.join(results)} vs pytrec_eval on {', '.join(GATE)} "
            f"(max |diff| {worst:.2g}, tolerance {GATE_TOLERANCE:g})")
    return reference, line


def fail(message: str) -> None:
    print("\n" + "!" * 100 + "\n" + message + "\n" + "!" * 100, file=sys.stderr, flush=True)
    raise SystemExit(1)


# --------------------------------------------------------------------------------------------------------
# reporting


def machine(env: Env) -> dict:
    info = {"platform": platform.platform()}
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
        info["cpu"] = next((l.split(":", 1)[1].strip() for l in cpuinfo.splitlines() if l.startswith("model name")),
                           platform.processor())
    except OSError:
        info["cpu"] = platform.processor()
    info["cores"] = os.cpu_count()
    if hasattr(os, "sched_getaffinity"):
        info["cores_usable"] = len(os.sched_getaffinity(0))
    try:
        kib = int(next(l.split()[1] for l in Path("/proc/meminfo").read_text().splitlines()
                       if l.startswith("MemTotal:")))
        info["ram_gib"] = round(kib / 1024 ** 2, 1)
    except (OSError, StopIteration, ValueError):
        pass
    probe = textwrap.dedent("""\
        import json, sys
        from importlib import metadata
        v = {}
        for d in ["rankscope", "numpy", "pandas", "pyarrow", "scipy", "pytrec-eval-terrier", "ranx", "numba",
                  "ir-measures"]:
            try:
                v[d] = metadata.version(d)
            except metadata.PackageNotFoundError:
                v[d] = None
        print(json.dumps({"python": sys.version.split()[0], "packages": v}))
        """)
    out = subprocess.run([env.python, "-c", probe], capture_output=True, text=True, check=True).stdout
    info.update(json.loads(out))
    try:
        info["rankscope_tree"] = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def print_machine(info: dict) -> None:
    cores = f"{info['cores']}" + (f" ({info['cores_usable']} usable)" if info.get("cores_usable") not in
                                   (None, info["cores"]) else "")
    print(f"machine: {info['cpu']}, {cores} cores, {info.get('ram_gib', '?')} GiB RAM, {info['platform']}")
    print(f"python {info['python']}; " + ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v))
    if info.get("rankscope_tree"):
        print(f"rankscope working tree: {info['rankscope_tree']}")


def fmt_seconds(s: float) -> str:
    return f"{s:.3f}" if s < 10 else f"{s:.2f}" if s < 100 else f"{s:.1f}"


def table(workload: str, stats: dict, rows: dict[str, list[dict]], reference: dict[str, float]) -> str:
    head = (f"workload {workload}: {stats.get('topics', '?'):,} topics, {stats.get('run_lines', 0):,} run lines "
            f"({stats.get('run_bytes', 0) / 2 ** 20:.0f} MiB), {stats.get('qrels_lines', 0):,} qrels lines")
    cols = ["tool", "median s", "min s", "max s", "min cpu s", "runs", "peak RSS MB", "x cli", "x cli cpu",
            "max |diff| vs pytrec_eval", "note"]
    base = base_cpu = None
    if rows.get("rankscope-cli") and all(r.get("ok") for r in rows["rankscope-cli"]):
        base = statistics.median(r["seconds"] for r in rows["rankscope-cli"])
        base_cpu = min(r["cpu"] for r in rows["rankscope-cli"])
    lines = []
    for name, results in rows.items():
        tool = TOOLS[name]
        good = [r for r in results if r.get("ok")]
        if len(good) < len(results) or not good:
            err = next((r.get("error") for r in results if not r.get("ok")), "no runs")
            lines.append([name, "FAILED", "", "", "", str(len(results)), "", "", "", "", str(err)[:80]])
            continue
        secs = [r["seconds"] for r in good]
        med = statistics.median(secs)
        rss = max(r["rss_mb"] for r in good)
        ratio = f"{med / base:.2f}" if base else "-"
        cpu = min(r["cpu"] for r in good)  # the least CPU time: what the tool needs, whatever else runs
        ratio_cpu = f"{cpu / base_cpu:.2f}" if base_cpu else "-"
        decimals = 4 if tool.output == "trec" else None
        d, n = deviation(good[0]["values"], reference, decimals)
        dev = "-" if n == 0 else (f"{d:.1e}" if d else "0") + (f" ({n} measures" + (", 4 dp)" if decimals else ")"))
        note = tool.note
        if "part" in good[0]:
            part = statistics.median(r["part"] for r in good)
            note = (note + "; " if note else "") + f"reading + evaluation alone {fmt_seconds(part)} s"
        lines.append([name, fmt_seconds(med), fmt_seconds(min(secs)), fmt_seconds(max(secs)), fmt_seconds(cpu),
                      str(len(good)), f"{rss:,.0f}", ratio, ratio_cpu, dev, note])
    widths = [max(len(c), *(len(l[i]) for l in lines)) for i, c in enumerate(cols)]
    right = {1, 2, 3, 4, 5, 6, 7, 8}

    def row(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [head, row(cols), row(["-" * w for w in widths])] + [row(l) for l in lines]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workloads", default="sparse,strings,dense,mid", help="comma-separated (default all four)")
    p.add_argument("--repeat", type=int, default=3, help="fresh-process runs per tool (median reported)")
    p.add_argument("--repeat-slow", type=int, default=None,
                   help="runs for the slow tools (ranx-warm, ranx-cold, ir_measures); default --repeat")
    p.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated subset of {', '.join(TOOLS)}")
    p.add_argument("--json", type=Path, default=None,
                   help="write every measurement here (default benchmarks/results/latest.json)")
    p.add_argument("--data", type=Path, default=DATA, help="workload folder (default benchmarks/data)")
    p.add_argument("--python", default=None, help="interpreter for the tools (default .venv/bin/python)")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds before a measurement is abandoned")
    args = p.parse_args(argv)

    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        p.error(f"unknown tool(s) {unknown}; choose from {', '.join(TOOLS)}")
    if args.repeat < 1 or (args.repeat_slow is not None and args.repeat_slow < 1):
        p.error("--repeat and --repeat-slow must be at least 1")

    venv = ROOT / ".venv" / "bin"
    python = args.python or (str(venv / "python") if (venv / "python").exists() else sys.executable)
    rankscope = str(venv / "rankscope") if (venv / "rankscope").exists() else (shutil.which("rankscope") or "rankscope")
    env = Env(python=python, rankscope=rankscope, timeout=args.timeout)
    # rankscope's modules compiled to bytecode, as `pip install` leaves them (and the peers' modules, by their
    # install): a checkout installed in editable mode under PYTHONDONTWRITEBYTECODE compiles every module at
    # every start (0.15-0.2 s here)
    subprocess.run([python, "-m", "compileall", "-q", *(str(ROOT / pkg) for pkg in ("metrics", "rankscope")),
                    str(ROOT / "dashboard")], check=True)

    gen = subprocess.run([python, str(HERE / "generate.py"), "--out", str(args.data), "--only", ",".join(workloads)])
    if gen.returncode != 0:
        return gen.returncode

    info = machine(env)
    print_machine(info)
    print(f"measures: {', '.join(MEASURES[:8])}, iprec_at_recall (11 levels); "
          f"each time is a fresh process, end to end from the files", flush=True)
    report = {"machine": info, "measures": MEASURES, "repeat": args.repeat, "repeat_slow": args.repeat_slow,
              "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "workloads": {}}
    json_path = args.json or RESULTS / "latest.json"

    for t in tools:
        prepare(t, TOOLS[t], env)
    for workload in workloads:
        qrels, run = args.data / f"{workload}.qrels", args.data / f"{workload}.run"
        stats = json.loads((args.data / f"{workload}.stamp.json").read_text()).get("summary", {})
        print(f"\n[{workload}] correctness gate ...", file=sys.stderr, flush=True)
        reference, agree = gate(env, qrels, run)  # also brings the files into the page cache
        rows: dict[str, list[dict]] = {t: [] for t in tools}
        counts = {t: (args.repeat_slow if TOOLS[t].slow and args.repeat_slow else args.repeat) for t in tools}
        for rep in range(max(counts.values())):  # interleaved: one run of each tool per round
            for t in tools:
                if rep >= counts[t]:
                    continue
                r = measure(TOOLS[t], env, qrels, run)
                rows[t].append(r)
                shown = (f"{r['seconds']:.2f} s, {r['cpu']:.2f} s cpu, {r['rss_mb']:.0f} MB" if r.get("ok")
                         else f"FAILED: {r.get('error')}")
                print(f"[{workload}] {t} run {rep + 1}/{counts[t]}: {shown}", file=sys.stderr, flush=True)
        print()
        print(agree)
        print(table(workload, stats, rows, reference), flush=True)
        report["workloads"][workload] = {"stats": stats, "gate": agree, "reference": reference,
                                         "tools": {t: rows[t] for t in tools}}
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nall measurements: {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
