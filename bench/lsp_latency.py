#!/usr/bin/env python3
"""Time `small lsp` from a didChange to its publishDiagnostics (issue 40).

usage: bench/lsp_latency.py --small PATH [--workspace DIR | --tasks N --entries M] [--changes N]
                            [--workdir DIR] [--keep] [--json FILE]

Starts `small lsp --dir WORKSPACE` as an editor would (stdin/stdout, Content-Length frames),
does the initialize handshake, opens the plan, then sends --changes didChange notifications
(default 200), each the whole plan with one task's status typed wrong and then right again, and
times each from writing the change to reading the publishDiagnostics for the plan. Every
change re-runs the real `check --strict` verdict over the unsaved plan and the files on disk.
Prints the first (cold) change and the median, p95 and max of the others in milliseconds, and
the server's CPU time per change (user + system, all its threads: on a loaded machine the wall
times wait for a core, the CPU time does not).

Without --workspace, a workspace of --tasks tasks and --entries progress entries (default 1000
and 100,000) is generated with ../shared/bench/gen_workspace.py in --workdir (default a
temporary directory, removed unless --keep). A change whose diagnostics are not the expected
ones (one INV-P8 for a wrong status, none for the right one) fails the run (exit 1).

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


def log(msg):
    print("lsp-bench: " + msg, file=sys.stderr, flush=True)


def percentile(values, pct):
    ordered = sorted(values)
    k = (len(ordered) - 1) * pct / 100.0
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class Client:
    def __init__(self, small, workspace):
        self.proc = subprocess.Popen([small, "lsp", "--dir", workspace], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 1

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("lsp-bench: the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id:
                return message

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, uri):
        while True:
            message = self.receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return message["params"]["diagnostics"]

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def cpu_seconds(pid):
    """The server's user + system CPU time so far (Linux /proc), or None."""
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def generate(workdir, tasks, entries):
    ws = os.path.join(workdir, "lsp-%dt-%de" % (tasks, entries))
    if not os.path.isdir(os.path.join(ws, ".small")):
        log("generating %d tasks, %s entries in %s" % (tasks, "{:,}".format(entries), ws))
        subprocess.run([sys.executable, GENERATOR, "--tasks", str(tasks), "--entries", str(entries), ws],
                       check=True, stdout=subprocess.DEVNULL)
    return ws


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", required=True)
    ap.add_argument("--workspace")
    ap.add_argument("--tasks", type=int, default=1000)
    ap.add_argument("--entries", type=int, default=100000)
    ap.add_argument("--changes", type=int, default=200)
    ap.add_argument("--workdir")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    small = os.path.abspath(args.small)
    workdir = args.workdir or tempfile.mkdtemp(prefix="small-lsp-bench-")
    try:
        ws = os.path.realpath(args.workspace or generate(workdir, args.tasks, args.entries))
        plan_path = os.path.join(ws, ".small", "plan.small.yml")
        uri = "file://" + plan_path
        with open(plan_path, encoding="utf-8") as f:
            plan = f.read()
        # The last task's status, typed wrong and right in turn.
        at = plan.rfind('status: "')
        if at < 0:
            raise SystemExit("lsp-bench: the plan has no quoted status to edit")
        word_end = plan.index('"', at + 9)
        status = plan[at + 9:word_end]
        wrong = plan[:at + 9] + status + "x" + plan[word_end:]

        client = Client(small, ws)
        client.request("initialize", {"processId": None, "rootUri": "file://" + ws, "capabilities": {}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen",
                      {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": plan}})
        client.diagnostics_for(uri)
        times = []
        cpu_before = cpu_seconds(client.proc.pid)
        for n in range(args.changes):
            broken = n % 2 == 0
            start = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": n + 2},
                                                     "contentChanges": [{"text": wrong if broken else plan}]})
            diagnostics = client.diagnostics_for(uri)
            times.append((time.perf_counter() - start) * 1000.0)
            codes = [d.get("code") for d in diagnostics]
            if codes != (["INV-P8"] if broken else []):
                log("change %d: unexpected diagnostics %s" % (n, codes))
                return 1
        cpu_after = cpu_seconds(client.proc.pid)
        code = client.close()
        if code != 0:
            log("the server exited %d after shutdown and exit" % code)
            return 1
        rest = times[1:]
        result = {"tasks": plan.count("- id:"), "log_bytes": os.path.getsize(os.path.join(ws, ".small", "progress.small.yml")),
                  "changes": len(times), "first_ms": round(times[0], 2), "median_ms": round(statistics.median(rest), 2),
                  "p95_ms": round(percentile(rest, 95), 2), "max_ms": round(max(rest), 2),
                  "cpu_ms_per_change": (round((cpu_after - cpu_before) * 1000.0 / len(times), 2)
                                        if cpu_before is not None and cpu_after is not None else None),
                  "load_average": os.getloadavg()[0]}
        print("didChange -> publishDiagnostics (%d tasks, log %s bytes): first %.2f ms, median %.2f ms, "
              "p95 %.2f ms, max %.2f ms over %d changes; server CPU %s ms per change; load average %.1f"
              % (result["tasks"], "{:,}".format(result["log_bytes"]), result["first_ms"], result["median_ms"],
                 result["p95_ms"], result["max_ms"], len(rest), result["cpu_ms_per_change"], result["load_average"]))
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(result, f, indent=2)
        return 0
    finally:
        if not args.workspace and not args.keep and not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
