#!/usr/bin/env python3
"""Benchmark the `small` CLI on generated SMALL workspaces.

usage: bench/run.py --small PATH [--runs N] [--workdir DIR] [--keep] [--json FILE]
                    [--workspace NAME ...] [--command NAME ...] [--timeout SECONDS]

Workspaces are made once by ../shared/bench/gen_workspace.py (relative to the repository)
and reused for every run. Each command runs once to warm up and then N times; the table
shows median/min/max wall time, the peak resident set size of the child and its exit code.
A non-zero exit code is flagged and makes this script exit 1.

Standard library only.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_workspace.py")

# Workspaces handed to gen_workspace.py.
WORKSPACES = [
    {"name": "large", "tasks": 1000, "entries": 100000},
    {"name": "small", "tasks": 3, "entries": 10},
]

# Commands to time. `argv` follows the binary; `--dir <workspace>` is appended.
# A command that changes the workspace sets "mutates": True: each run (warm-up included)
# then gets a fresh copy of the generated workspace, made outside the timed region;
# "mutates": "once": all runs share one copy, made before the warm-up.
# "expect_exit" is the exit code that counts as success.
COMMANDS = [
    {"name": "validate", "argv": ["validate"], "mutates": False, "expect_exit": 0},
    {"name": "lint --strict", "argv": ["lint", "--strict"], "mutates": False, "expect_exit": 0},
    {"name": "check --strict", "argv": ["check", "--strict"], "mutates": False, "expect_exit": 0},
    {"name": "verify --strict", "argv": ["verify", "--strict"], "mutates": False, "expect_exit": 0},
    # Appends grow one copy of the workspace run after run, as in real use: the
    # warm-up builds the tail cache, the timed runs are the steady state.
    {"name": "progress add", "argv": ["progress", "add", "--task", "task-1", "--status", "completed",
                                      "--evidence", "bench run"], "mutates": "once", "expect_exit": 0},
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def exit_code_of(status):
    if hasattr(os, "waitstatus_to_exitcode"):
        return os.waitstatus_to_exitcode(status)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def generate(workdir, spec):
    """Creates workdir/<name> unless an identical one is already there."""
    ws = os.path.join(workdir, spec["name"])
    stamp = os.path.join(workdir, spec["name"] + ".params.json")
    params = {"tasks": spec["tasks"], "entries": spec["entries"]}
    if os.path.isdir(os.path.join(ws, ".small")) and os.path.exists(stamp):
        with open(stamp) as f:
            if json.load(f) == params:
                log("reusing workspace %s (%d tasks, %d entries)" % (ws, spec["tasks"], spec["entries"]))
                return ws
    shutil.rmtree(ws, ignore_errors=True)
    log("generating workspace %s (%d tasks, %d entries)" % (ws, spec["tasks"], spec["entries"]))
    subprocess.run([sys.executable, GENERATOR, ws, "--tasks", str(spec["tasks"]),
                    "--entries", str(spec["entries"])], check=True)
    with open(stamp, "w") as f:
        json.dump(params, f)
    return ws


def run_once(argv, cwd, timeout):
    """Runs argv; returns (wall seconds, peak RSS in KiB, exit code, output path)."""
    out = tempfile.NamedTemporaryFile(prefix="small-bench-", suffix=".out", delete=False)
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
    finally:
        out.close()
    proc.returncode = exit_code_of(status)  # tell Popen the child is reaped
    return wall, usage.ru_maxrss, proc.returncode, out.name


def tail(path, lines=8):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()
    except OSError:
        return ""


def bench(small, ws_spec, ws, cmd, runs, workdir, timeout):
    times, rss, codes = [], [], []
    failure_output = None
    scratch = os.path.join(workdir, "scratch-" + ws_spec["name"])
    for i in range(runs + 1):  # run 0 is the warm-up
        target = ws
        if cmd.get("mutates") == "once":
            target = scratch
            if i == 0:
                shutil.rmtree(scratch, ignore_errors=True)
                shutil.copytree(ws, scratch, symlinks=True)
        elif cmd.get("mutates"):
            target = scratch
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ws, target, symlinks=True)
        argv = [small] + cmd["argv"] + ["--dir", target]
        wall, maxrss_kb, code, out = run_once(argv, workdir, timeout)
        if code != cmd.get("expect_exit", 0) and failure_output is None:
            failure_output = "$ %s\n%s" % (" ".join(argv), tail(out))
        os.unlink(out)
        if i == 0:
            continue
        times.append(wall * 1000.0)
        rss.append(maxrss_kb / 1024.0)
        codes.append(code)
    bad = [c for c in codes if c != cmd.get("expect_exit", 0)]
    return {
        "workspace": ws_spec["name"],
        "tasks": ws_spec["tasks"],
        "entries": ws_spec["entries"],
        "command": cmd["name"],
        "argv": cmd["argv"],
        "runs": runs,
        "times_ms": [round(t, 3) for t in times],
        "median_ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "max_ms": round(max(times), 3),
        "peak_rss_mb": round(max(rss), 2),
        "exit_codes": codes,
        "exit_code": bad[0] if bad else codes[0],
        "expect_exit": cmd.get("expect_exit", 0),
        "ok": not bad and failure_output is None,
        "failure_output": failure_output,
    }


def print_table(results):
    head = ["workspace", "command", "median ms", "min ms", "max ms", "peak RSS MB", "exit"]
    rows = []
    for r in results:
        code = str(r["exit_code"]) + ("" if r["ok"] else "  <-- FAILED")
        rows.append([r["workspace"], r["command"], "%.1f" % r["median_ms"], "%.1f" % r["min_ms"],
                     "%.1f" % r["max_ms"], "%.1f" % r["peak_rss_mb"], code])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    right = {2, 3, 4, 5}

    def fmt(row):
        cells = [(str(c).rjust(w) if i in right else str(c).ljust(w))
                 for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    print(fmt(head))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))


def main():
    ap = argparse.ArgumentParser(description="Benchmark the small CLI on generated workspaces.")
    ap.add_argument("--small", required=True, help="path to the small binary")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command (default 7)")
    ap.add_argument("--workdir", help="where workspaces are generated and reused (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary workdir")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--workspace", action="append", metavar="NAME",
                    help="only these workspaces (%s)" % ", ".join(w["name"] for w in WORKSPACES))
    ap.add_argument("--command", action="append", metavar="NAME",
                    help="only these commands (%s)" % ", ".join(c["name"] for c in COMMANDS))
    ap.add_argument("--timeout", type=float, default=600.0, help="kill a run after this many seconds")
    args = ap.parse_args()

    if args.runs < 1:
        ap.error("--runs must be at least 1")
    small = os.path.abspath(args.small)
    if not (os.path.isfile(small) and os.access(small, os.X_OK)):
        ap.error("%s is not an executable file" % args.small)
    if not os.path.isfile(GENERATOR):
        sys.exit("bench: workspace generator not found at %s (is ../shared beside the checkout?)"
                 % os.path.normpath(GENERATOR))
    workspaces = [w for w in WORKSPACES if not args.workspace or w["name"] in args.workspace]
    commands = [c for c in COMMANDS if not args.command or c["name"] in args.command]
    if not workspaces or not commands:
        ap.error("no workspace or command selected")

    if args.workdir:
        workdir = os.path.abspath(args.workdir)
        os.makedirs(workdir, exist_ok=True)
        temporary = False
    else:
        workdir = tempfile.mkdtemp(prefix="small-bench-")
        temporary = True

    results = []
    try:
        paths = {w["name"]: generate(workdir, w) for w in workspaces}
        for w in workspaces:
            for c in commands:
                log("running %-8s %-16s x%d (+1 warm-up)" % (w["name"], c["name"], args.runs))
                results.append(bench(small, w, paths[w["name"]], c, args.runs, workdir, args.timeout))
    finally:
        if temporary and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        elif temporary:
            log("workdir kept: %s" % workdir)

    print("small: %s   runs: %d (+1 warm-up)" % (small, args.runs))
    print_table(results)
    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print("\nFAILED %s / %s: exit codes %s (expected %d)\n%s"
              % (r["workspace"], r["command"], r["exit_codes"], r["expect_exit"], r["failure_output"] or ""))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"small": small, "runs": args.runs, "results": results}, f, indent=2)
            f.write("\n")
        log("results written to %s" % args.json)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
