#!/usr/bin/env python3
"""Time the `small mcp` server's answers to resume, ready and check (issue 39).

usage: bench/mcp_bench.py --small PATH [--workspace DIR | --tasks N --entries M] [--calls N]
                          [--tool NAME ...] [--workdir DIR] [--keep] [--no-git] [--json FILE]

Starts `small mcp --dir WORKSPACE` as a client would (stdin/stdout, one JSON-RPC message a
line), does the initialize handshake, then calls each tool N times in a row and times every
call from writing the request to reading the answer. The first call of a tool is the cold one
(the server has not answered it yet; the disk caches under .small-cache/ may be cold too); the
others find nothing changed, so the server answers from memory once the files it read are older
than the racy-clean window (100 ms). `ping` is timed the same way first: the cost of the client,
the pipe and the JSON framing, which every call pays too. Prints, per tool, the first call and
the median, p90 and max of the others in milliseconds.

Without --workspace, a workspace of --tasks tasks and --entries progress entries (default 1000
and 100,000) is generated with ../shared/bench/gen_workspace.py in --workdir (default a
temporary directory, removed unless --keep) and made a git repository (unless --no-git), as a
workspace in use is. Every answer must be a success (isError false), else the script exits 1.

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
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_workspace.py")
TOOLS = ["resume", "ready", "check"]
DEFAULT_CALLS = 200


def log(msg):
    print("mcp-bench: " + msg, file=sys.stderr, flush=True)


def percentile(values, pct):
    ordered = sorted(values)
    if not ordered:
        return None
    k = (len(ordered) - 1) * pct / 100.0
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def generate(workdir, tasks, entries, git):
    """A generated workspace (made once per size in workdir), a git repository unless git is False."""
    ws = os.path.join(workdir, "mcp-%dt-%de" % (tasks, entries))
    if not os.path.isdir(os.path.join(ws, ".small")):
        log("generating %d tasks, %s entries in %s" % (tasks, "{:,}".format(entries), ws))
        subprocess.run([sys.executable, GENERATOR, "--tasks", str(tasks), "--entries", str(entries), ws],
                       check=True, stdout=subprocess.DEVNULL)
    if git and not os.path.exists(os.path.join(ws, ".git")):
        subprocess.run(["git", "init", "-q", ws], check=True)
    return ws


class Server:
    """`small mcp` on a workspace, spoken to line by line."""

    def __init__(self, small, ws):
        env = dict(os.environ, SMALL_NO_UPDATE_CHECK="1")
        self.stderr = tempfile.TemporaryFile()  # read only when it ends: a pipe nobody reads could fill
        self.proc = subprocess.Popen([small, "mcp", "--dir", ws], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, env=env)
        self.next_id = 0

    def send(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        if notify:
            return None
        line = self.proc.stdout.readline()
        if not line:
            self.stderr.seek(0)
            raise RuntimeError("small mcp ended: %s" % self.stderr.read().decode(errors="replace"))
        reply = json.loads(line)
        if reply.get("id") != self.next_id or "error" in reply:
            raise RuntimeError("unexpected answer to %s: %s" % (method, line[:400]))
        return reply["result"]

    def timed(self, method, params=None):
        start = time.perf_counter()
        result = self.send(method, params)
        return (time.perf_counter() - start) * 1000.0, result

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.stderr.close()


def handshake(server):
    server.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "mcp-bench", "version": "1"}})
    server.send("notifications/initialized", notify=True)


def row(name, times, first=None):
    return {"tool": name, "calls": len(times) + (first is not None), "first_ms": first,
            "median_ms": statistics.median(times), "p90_ms": percentile(times, 90), "max_ms": max(times)}


def measure(small, ws, calls, tools=TOOLS):
    """One row per tool (ping first): the first call, then median/p90/max of the calls after it."""
    server = Server(small, ws)
    try:
        handshake(server)
        rows = [row("ping", [server.timed("ping")[0] for _ in range(calls)])]
        for tool in tools:
            times = []
            for _ in range(calls):
                ms, result = server.timed("tools/call", {"name": tool, "arguments": {}})
                if result.get("isError"):
                    raise RuntimeError("%s failed: %s" % (tool, result["content"][0]["text"][:400]))
                times.append(ms)
            rows.append(row(tool, times[1:], times[0]))
        return rows
    finally:
        server.close()


def print_rows(rows):
    fmt = lambda v: "-" if v is None else "%.3f" % v
    print("%-8s %6s %10s %10s %10s %10s" % ("tool", "calls", "first ms", "median ms", "p90 ms", "max ms"))
    for r in rows:
        print("%-8s %6d %10s %10s %10s %10s" % (r["tool"], r["calls"], fmt(r["first_ms"]), fmt(r["median_ms"]),
                                               fmt(r["p90_ms"]), fmt(r["max_ms"])))


def main():
    ap = argparse.ArgumentParser(description="Time small mcp's resume, ready and check calls.")
    ap.add_argument("--small", required=True, help="path to the small binary")
    ap.add_argument("--workspace", help="an existing workspace (default: a generated one)")
    ap.add_argument("--tasks", type=int, default=1000, help="tasks of the generated workspace (default 1000)")
    ap.add_argument("--entries", type=int, default=100000, help="entries of the generated workspace (default 100000)")
    ap.add_argument("--calls", type=int, default=DEFAULT_CALLS, help="calls per tool (default %d)" % DEFAULT_CALLS)
    ap.add_argument("--tool", action="append", choices=TOOLS, help="only these tools (default: all three)")
    ap.add_argument("--workdir", help="where the workspace is generated and reused (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary workdir")
    ap.add_argument("--no-git", action="store_true", help="do not make the generated workspace a git repository")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args()
    if args.calls < 2:
        ap.error("--calls must be at least 2 (the first call is the cold one)")
    small = os.path.abspath(args.small)
    if not (os.path.isfile(small) and os.access(small, os.X_OK)):
        ap.error("%s is not an executable file" % args.small)
    workdir = os.path.abspath(args.workdir) if args.workdir else tempfile.mkdtemp(prefix="small-mcp-bench-")
    os.makedirs(workdir, exist_ok=True)
    try:
        if args.workspace:
            ws = os.path.abspath(args.workspace)
        elif not os.path.isfile(GENERATOR):
            sys.exit("mcp-bench: workspace generator not found at %s" % os.path.normpath(GENERATOR))
        else:
            ws = generate(workdir, args.tasks, args.entries, not args.no_git)
        log("%d calls per tool on %s" % (args.calls, ws))
        try:
            rows = measure(small, ws, args.calls, args.tool or TOOLS)
        except RuntimeError as e:
            print("mcp-bench: FAILED: %s" % e)
            return 1
    finally:
        if not args.workdir and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print("small mcp on %s: %d calls per tool; first = the tool's first call; median/p90/max over the others"
          % (ws, args.calls))
    print_rows(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"small": small, "workspace": ws, "calls": args.calls, "rows": rows}, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
