#!/usr/bin/env python3
"""Benchmark the `small` CLI on generated SMALL workspaces.

usage: bench/run.py --small PATH [--runs N] [--workdir DIR] [--keep] [--json FILE]
                    [--workspace NAME ...] [--command NAME ...] [--timeout SECONDS]
                    [--scaling] [--scaling-entries N ...] [--floor] [--floor-runs N]
                    [--verdicts] [--reference PATH] [--reference-runs N] [--cold-pairs] [--sides] [--mcp]
                    [--mcp-calls N] [--no-commands]

Workspaces are made once by ../shared/bench/gen_workspace.py (relative to the repository)
and reused for every run; each must pass `small validate` before it is measured. Each
command runs once to warm up and then N times, every run a fresh process; the table shows
median/p90/min/max wall time, the median CPU time, the peak resident set size of the child
(exact with GNU time at /usr/bin/time, else an upper bound), the warm-up run's time and the
exit code. A non-zero exit code is flagged and makes this script exit 1.

--scaling measures `progress add`, `checkpoint`, `progress list --limit 20`, `status`, `status --brief` and `emit`
on workspaces of 1,000 tasks with 1k, 10k, 100k and 1M progress entries instead, and adds a table of
entries against median time and peak RSS. Use --workdir to generate the 1M workspace once.

--floor also measures the start-up floor: `small version` and `check --strict` / `status --brief` on a
fresh `small init` workspace next to /bin/true, wall time over --floor-runs interleaved runs and
instructions (valgrind --tool=callgrind, when installed). --verdicts also times check --strict and
verify --strict on a copy of each workspace cold (--no-cache, or the verified-prefix cache deleted
before each run when the binary lacks the flag), warm, and warm after a one-entry append.
--reference PATH adds another SMALL CLI (the Go reference) to --floor's interleaved runs and
--verdicts' workspaces, and prints how many times faster small is in the same runs.
--cold-pairs (with --reference) runs validate, lint --strict, verify --strict and check --strict of both
CLIs cold (small with --no-cache; the reference has no cache) in turn on each selected workspace, --runs
rounds after a warm-up round, and prints each pair's medians, CPU, peak RSS and ratio: one paired run.
--sides measures `status --all` on a git repository whose 1,000-task workspace (1k and 100k entries)
is checked out in 8 work trees (each with its own entry and task) plus 2 branches not checked out.
--mcp times one long-lived `small mcp` server answering resume, ready and check (bench/mcp_bench.py) on a
copy of each selected workspace made a git repository: the first call of each tool and the median, p90 and
max of the --mcp-calls after it (answered from memory while nothing changes, issue 39).
--no-commands skips the per-command table.

Standard library only.
"""

import argparse
import json
import os
import hashlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcp_bench  # noqa: E402  (beside this script)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(REPO, "..", "shared", "bench", "gen_workspace.py")
GNU_TIME = "/usr/bin/time"

# Workspaces handed to gen_workspace.py.
WORKSPACES = [
    {"name": "large", "tasks": 1000, "entries": 100000},
    {"name": "small", "tasks": 3, "entries": 10},
    # `plan --add` on a 10k-task plan (every command runs on it).
    {"name": "plan-10k", "tasks": 10000, "entries": 10000},
]

# --scaling: the write commands on logs of growing size (1,000 tasks each).
SCALING_TASKS = 1000
SCALING_ENTRIES = [1000, 10000, 100000, 1000000]
SCALING_COMMANDS = ["progress add", "checkpoint", "progress list", "status", "status --brief", "emit"]

# Commands to time. `argv` follows the binary; `--dir <workspace>` is appended.
# A command that changes the workspace sets "mutates": True: each run (warm-up included)
# then gets a fresh copy of the generated workspace, made outside the timed region;
# "mutates": "once": all runs share one copy, made before the warm-up.
# "expect_exit" is the exit code that counts as success. "cold": True adds --no-cache when
# the binary has it (the whole log is read every run).
# `argv` items are formatted with {run} (0 for the warm-up, then 1..N), {last_task} (the
# generator's last task: pending, its one dependency completed) and every key of "cycle",
# which takes the values of its list in turn, run after run.
COMMANDS = [
    {"name": "validate", "argv": ["validate"], "mutates": False, "expect_exit": 0, "cold": True},
    {"name": "lint --strict", "argv": ["lint", "--strict"], "mutates": False, "expect_exit": 0, "cold": True},
    {"name": "check --strict", "argv": ["check", "--strict"], "mutates": False, "expect_exit": 0, "cold": True},
    {"name": "verify --strict", "argv": ["verify", "--strict"], "mutates": False, "expect_exit": 0, "cold": True},
    # Appends grow one copy of the workspace run after run, as in real use: the
    # warm-up builds the tail cache, the timed runs are the steady state.
    {"name": "progress add", "argv": ["progress", "add", "--task", "task-1", "--status", "completed",
                                      "--evidence", "bench run"], "mutates": "once", "expect_exit": 0},
    # Plan edit + progress entry as one journaled change. The status alternates so that
    # every run really changes the plan (the warm-up sets "blocked", run 1 "completed", ...).
    {"name": "checkpoint", "argv": ["checkpoint", "--task", "{last_task}", "--status", "{status}",
                                    "--evidence", "bench run"],
     "cycle": {"status": ["blocked", "completed"]}, "mutates": "once", "expect_exit": 0},
    # The read-only views: the newest entries (reads only the log's tail) and the task list.
    {"name": "progress list", "argv": ["progress", "list", "--limit", "20"], "mutates": False, "expect_exit": 0},
    {"name": "plan show", "argv": ["plan", "show"], "mutates": False, "expect_exit": 0},
    # Where the run stands: plan, handoff, workspace and the log's tail only (flat in the log).
    {"name": "status", "argv": ["status", "--json"], "mutates": False, "expect_exit": 0},
    {"name": "emit", "argv": ["emit"], "mutates": False, "expect_exit": 0},
    # The tasks an agent may take now (D19): plan outline, log facts and claims, all cached.
    {"name": "ready", "argv": ["ready"], "mutates": False, "expect_exit": 0},
    # The resume primer an agent's session hook prints: bounded, flat in the log.
    {"name": "status --brief", "argv": ["status", "--brief"], "mutates": False, "expect_exit": 0},
    # The views (issue 23): the board reads the run's newest 2,000 entries from the log's end;
    # the graph's SVG is laid out by Graphviz (libgvc); the report page is both and more.
    {"name": "board", "argv": ["board", "--width", "160"], "mutates": False, "expect_exit": 0},
    {"name": "graph --format svg", "argv": ["graph", "--format", "svg"], "mutates": False, "expect_exit": 0},
    # Issue 39: the open work and what it waits on, in rows at most 4,000 px wide.
    {"name": "graph --format svg --open", "argv": ["graph", "--format", "svg", "--open"], "mutates": False,
     "expect_exit": 0},
    {"name": "report --html", "argv": ["report", "--html"], "mutates": False, "expect_exit": 0},
    # Every entry of the log as JSON: linear in the log by nature.
    {"name": "emit --include progress", "argv": ["emit", "--include", "progress"], "mutates": False,
     "expect_exit": 0},
    # One status flag alone (D20 item 6): checkpoint's in-place edit from the plan's caches.
    {"name": "plan --blocked", "argv": ["plan", "{flag}", "{last_task}"],
     "cycle": {"flag": ["--blocked", "--pending"]}, "mutates": "once", "expect_exit": 0},
    # A new task per run: the plan grows by one task, the log by one entry.
    {"name": "plan --add", "argv": ["plan", "--add", "Bench task {run}"], "mutates": "once", "expect_exit": 0},
    # The run store (issue 9): a snapshot copies the five artifacts (the whole log) and is
    # swapped in whole with --force; diff compares two snapshots whose logs differ by 1,000
    # appended entries (prepared once per workspace, see prepare_diff_store).
    {"name": "run snapshot", "argv": ["run", "snapshot", "--force"], "mutates": "once", "expect_exit": 0},
    {"name": "run diff", "argv": ["run", "diff", "{from}", "{to}"], "setup": "diff-store", "mutates": False,
     "expect_exit": 0},
    {"name": "run diff --full", "argv": ["run", "diff", "{from}", "{to}", "--full"], "setup": "diff-store",
     "mutates": False, "expect_exit": 0},
    # The git merge driver (issue 11): two branches that each appended MERGE_APPENDED entries
    # to the workspace's log (some timestamps tied across the branches), merged three-way.
    # CURRENT is restored before each run, outside the timed region; no --dir.
    {"name": "merge", "argv": ["merge", "{ancestor}", "{current}", "{other}", ".small/progress.small.yml"],
     "setup": "merge-files", "no_dir": True, "mutates": False, "expect_exit": 0},
]

MERGE_APPENDED = 1000  # entries each side of the merge appended

DIFF_APPENDED = 1000  # entries the second snapshot's log has beyond the first's


# --floor: what every command pays before it does anything (issue 19). Each entry's argv is
# formatted with {small} and {init} (a fresh `small init` workspace). The runs of all entries
# are interleaved, so that a machine whose speed drifts affects them alike; the first entry
# is the baseline the others are compared with.
FLOOR = [
    {"name": "/bin/true", "argv": ["{true}"]},
    {"name": "small version", "argv": ["{small}", "version"]},
    {"name": "check --strict (fresh init)", "argv": ["{small}", "check", "--strict", "--dir", "{init}"]},
    {"name": "check --strict --no-cache (fresh init)",
     "argv": ["{small}", "check", "--strict", "--no-cache", "--dir", "{init}"], "needs": "--no-cache"},
    {"name": "status --brief (fresh init)", "argv": ["{small}", "status", "--brief", "--dir", "{init}"]},
    # --reference: the same commands of another SMALL CLI (the Go reference), interleaved.
    {"name": "reference version", "argv": ["{reference}", "version"], "reference": True},
    {"name": "reference check --strict (fresh init)",
     "argv": ["{reference}", "check", "--strict", "--dir", "{init}"], "reference": True},
]
# Paired ratios printed under the floor table: (small's row, the reference's row).
FLOOR_PAIRS = [("small version", "reference version"),
               ("check --strict (fresh init)", "reference check --strict (fresh init)")]
# Set for every child when --reference is given (small ignores it): the reference
# must not look for updates over the network.
REFERENCE_ENV = {"SMALL_NO_UPDATE_CHECK": "1"}
FLOOR_RUNS = 50
VALGRIND = "valgrind"


def supports_flag(small, command, flag, timeout):
    """Whether `small <command> --help` names flag (e.g. --no-cache, which older builds lack)."""
    try:
        probe = subprocess.run([small, command, "--help"], stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return False
    return flag in probe.stdout + probe.stderr


def count_instructions(argv, cwd, timeout):
    """Instructions the process executes in user space (callgrind's "I refs": the dynamic
    loader included), or a string saying why there is no count. Repeatable whatever the load."""
    valgrind = shutil.which(VALGRIND)
    if not valgrind:
        return None, "n/a (valgrind not installed)"
    fd, log_file = tempfile.mkstemp(prefix="small-bench-", suffix=".callgrind.log")
    os.close(fd)
    try:
        proc = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null",
                               "--log-file=" + log_file] + argv, cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
        with open(log_file, errors="replace") as f:
            text = f.read()
    except (OSError, subprocess.SubprocessError) as e:
        return None, "n/a (valgrind: %s)" % e
    finally:
        os.unlink(log_file)
    if proc.returncode != 0:  # e.g. a Go binary dying on an instruction valgrind lacks: a partial count
        return None, "n/a (exit %d under valgrind)" % proc.returncode
    for line in text.splitlines():
        if "I   refs:" in line or "I refs:" in line:
            return int(line.split(":", 1)[1].strip().replace(",", "")), None
    return None, "n/a (no I refs from valgrind)"


def measure_floor(small, runs, workdir, timeout, reference=None):
    """Wall time of each FLOOR entry over `runs` interleaved runs (after one warm-up round),
    and its instruction count. Returns (results, init workspace problem or None)."""
    init = os.path.join(workdir, "floor-init")
    shutil.rmtree(init, ignore_errors=True)
    os.makedirs(init)
    made = subprocess.run([small, "init", "--intent", "Benchmark floor", "--no-agents", "--dir", init],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    if made.returncode != 0:
        return [], "small init in %s: exit %d\n%s" % (init, made.returncode, (made.stdout + made.stderr)[-2000:])
    fields = {"small": small, "init": init, "true": shutil.which("true") or "/bin/true", "reference": reference}
    entries = []
    for spec in FLOOR:
        if spec.get("reference") and not reference:
            continue
        need = spec.get("needs")
        if need and not supports_flag(small, spec["argv"][1], need, timeout):
            log("floor: skipping %s (this small has no %s)" % (spec["name"], need))
            continue
        entries.append({"spec": spec, "argv": [a.format(**fields) for a in spec["argv"]],
                        "times": [], "cpu": [], "codes": [], "failure": None})
    log("floor: %d commands x%d interleaved runs (+1 warm-up round)" % (len(entries), runs))
    for i in range(runs + 1):
        for e in entries:
            wall, cpu_s, _, code, out = run_once(e["argv"], workdir, timeout)
            if code != 0 and e["failure"] is None:
                e["failure"] = "$ %s\n%s" % (" ".join(e["argv"]), tail(out))
            os.unlink(out)
            if i == 0:
                continue
            e["times"].append(wall * 1000.0)
            e["cpu"].append(cpu_s * 1000.0)
            e["codes"].append(code)
    results = []
    baseline = None
    for e in entries:
        log("floor: counting instructions of %s" % e["spec"]["name"])
        instructions, why = count_instructions(e["argv"], workdir, timeout)
        median = statistics.median(e["times"])
        if baseline is None:
            baseline = median
        bad = [c for c in e["codes"] if c != 0]
        results.append({
            "command": e["spec"]["name"],
            "argv": e["argv"],
            "runs": runs,
            "times_ms": [round(t, 3) for t in e["times"]],
            "median_ms": round(median, 3),
            "p90_ms": round(percentile(e["times"], 90), 3),
            "min_ms": round(min(e["times"]), 3),
            "max_ms": round(max(e["times"]), 3),
            "median_cpu_ms": round(statistics.median(e["cpu"]), 3),
            "over_baseline_ms": round(median - baseline, 3),
            "instructions": instructions,
            "instructions_note": why,
            "exit_codes": e["codes"],
            "ok": not bad and e["failure"] is None,
            "failure_output": e["failure"],
        })
    return results, None


def print_floor_table(results):
    base = results[0]["command"] if results else "baseline"
    head = ["command", "median ms", "p90 ms", "min ms", "max ms", "CPU ms", "over %s ms" % base,
            "instructions"]
    rows = []
    for r in results:
        ins = "{:,}".format(r["instructions"]) if r["instructions"] is not None else r["instructions_note"]
        rows.append([r["command"] + ("" if r["ok"] else "  <-- FAILED"), "%.2f" % r["median_ms"],
                     "%.2f" % r["p90_ms"], "%.2f" % r["min_ms"], "%.2f" % r["max_ms"],
                     "%.2f" % r["median_cpu_ms"], "%+.2f" % r["over_baseline_ms"], ins])
    print_rows(head, rows, right=set(range(1, len(head))))


def print_floor_pairs(results):
    """small against the reference, per FLOOR_PAIRS: medians of the same interleaved runs."""
    by_name = {r["command"]: r for r in results}
    for mine, theirs in FLOOR_PAIRS:
        if mine in by_name and theirs in by_name:
            a, b = by_name[mine], by_name[theirs]
            if not (a["ok"] and b["ok"]):
                print("paired: %s: FAILED (see below), no ratio" % mine)
                continue
            print("paired: %s %.2f ms, reference %.2f ms: %.1fx faster (CPU %.2f vs %.2f ms)" % (
                mine, a["median_ms"], b["median_ms"], b["median_ms"] / a["median_ms"],
                a["median_cpu_ms"], b["median_cpu_ms"]))


# --verdicts: the verdict commands with and without the verified-prefix cache
# (.small-cache/progress.verified), in three states, on a copy of each workspace:
#   cold    the whole log is read: --no-cache when the binary has it, else the cache files
#           are deleted before every run (outside the timed region);
#   warm    the cache holds the whole log (the warm-up run fills it), nothing changed since;
#   +1      before every run one entry is appended (VERDICT_APPEND, outside the timed region),
#           so each timed run finds exactly one entry after the cached prefix.
VERDICT_COMMANDS = [
    {"name": "check --strict", "argv": ["check", "--strict"]},
    {"name": "verify --strict", "argv": ["verify", "--strict"]},
]
VERDICT_STATES = ["cold", "warm", "+1 entry"]
VERDICT_CACHE_FILES = ("progress.verified", "verified")  # prefixes of the cache's files in .small-cache/
VERDICT_APPEND = ["progress", "add", "--task", "task-1", "--status", "in_progress", "--evidence", "bench"]


# --mcp: one `small mcp` server per workspace copy (the generated one is never written),
# a git repository as a workspace in use is; bench/mcp_bench.py times its calls.
def measure_mcp(small, ws_spec, ws, calls, workdir):
    copy = os.path.join(workdir, "mcp-" + ws_spec["name"])
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(ws, copy, symlinks=True)
    subprocess.run(["git", "init", "-q", copy], check=True)
    rows = mcp_bench.measure(small, copy, calls)
    for r in rows:
        r["workspace"] = ws_spec["name"]
    return rows


def print_mcp_table(rows):
    for name in dict.fromkeys(r["workspace"] for r in rows):
        print("%s:" % name)
        mcp_bench.print_rows([r for r in rows if r["workspace"] == name])


def drop_verified_cache(ws):
    cache = os.path.join(ws, ".small-cache")
    for name in os.listdir(cache) if os.path.isdir(cache) else []:
        if name.startswith(VERDICT_CACHE_FILES):
            path = os.path.join(cache, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)


def has_verified_cache(ws):
    cache = os.path.join(ws, ".small-cache")
    return os.path.isdir(cache) and any(n.startswith(VERDICT_CACHE_FILES) for n in os.listdir(cache))


def measure_verdicts(small, ws_spec, ws, runs, workdir, timeout, rss_wrapper, reference=None, reference_runs=3,
                     reference_max_entries=100000):
    """Each VERDICT_COMMANDS entry in each of VERDICT_STATES on one copy of ws (the generated
    workspace is never written); the copy must still validate at the end.

    The verdict commands write their cache only into an existing .small-cache/ (they do not
    create it; `small init` and the write commands do), and a generated workspace may have
    none, so the copy gets one: a workspace in use has it. A warm state whose warm-up left no
    cache file is flagged ("no cache written"): its timed runs were cold. With `reference`,
    that CLI's check --strict runs last on the same copy (state "reference", reference_runs
    runs: it has no cache and reads the whole log every time)."""
    copy = os.path.join(workdir, "verdicts-" + ws_spec["name"])
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(ws, copy, symlinks=True)
    drop_verified_cache(copy)
    os.makedirs(os.path.join(copy, ".small-cache"), exist_ok=True)
    results = []
    for vc in VERDICT_COMMANDS:
        no_cache = supports_flag(small, vc["argv"][0], "--no-cache", timeout)
        cold_method = ("--no-cache" if no_cache else
                       "deleted .small-cache/%s* before each run (this small has no --no-cache)"
                       % "*, ".join(VERDICT_CACHE_FILES))
        for state in VERDICT_STATES:
            problems = []
            notes = []
            before = None
            argv = list(vc["argv"])
            if state == "cold" and no_cache:
                argv.append("--no-cache")
            elif state == "cold":
                before = lambda target, i: drop_verified_cache(target)
            elif state == "warm":
                def before(target, i, notes=notes):
                    if i == 1 and not has_verified_cache(target):
                        notes.append("no cache written")
            elif state == "+1 entry":
                def before(target, i, problems=problems):
                    append = [small] + VERDICT_APPEND + ["--dir", target]
                    done = subprocess.run(append, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                          timeout=timeout)
                    if done.returncode != 0 and not problems:
                        problems.append("$ %s\n%s\n(exit %d)" % (" ".join(append),
                                                                 (done.stdout + done.stderr)[-2000:],
                                                                 done.returncode))
            cmd = {"name": "%s (%s)" % (vc["name"], state), "argv": argv, "mutates": False, "expect_exit": 0}
            log("running %-8s %-28s x%d (+1 warm-up)" % (ws_spec["name"], cmd["name"], runs))
            r = bench(small, ws_spec, copy, cmd, runs, workdir, timeout, rss_wrapper, before=before)
            r.update({"group": "verdicts", "verdict_command": vc["name"], "state": state,
                      "cold_method": cold_method if state == "cold" else None,
                      "note": notes[0] if notes else None})
            if problems:
                r["ok"] = False
                r["failure_output"] = r["failure_output"] or "an append before a run failed:\n" + problems[0]
            results.append(r)
    invalid = validate(small, copy, workdir, timeout)
    if invalid and results:
        results[-1]["ok"] = False
        results[-1]["failure_output"] = (results[-1]["failure_output"] or
                                         "the workspace no longer validates after the runs:\n" + invalid)
    if reference and ws_spec["entries"] > reference_max_entries:
        log("skipping the reference on %s: %d entries, more than --reference-max-entries %d"
            % (ws_spec["name"], ws_spec["entries"], reference_max_entries))
    elif reference:
        vc = VERDICT_COMMANDS[0]
        cmd = {"name": "%s (reference)" % vc["name"], "argv": list(vc["argv"]), "mutates": False, "expect_exit": 0}
        log("running %-8s %-28s x%d (+1 warm-up)" % (ws_spec["name"], cmd["name"], reference_runs))
        r = bench(reference, ws_spec, copy, cmd, reference_runs, workdir, timeout, rss_wrapper)
        r.update({"group": "verdicts", "verdict_command": vc["name"], "state": "reference",
                  "cold_method": None, "note": None})
        results.append(r)
    return results


# --cold-pairs: the four verdict commands, each of small (cold: --no-cache) and of the
# reference run in turn on the same workspace, so both see the same machine.
COLD_PAIRS = [["validate"], ["lint", "--strict"], ["verify", "--strict"], ["check", "--strict"]]


def measure_cold_pairs(small, reference, ws_spec, ws, runs, workdir, timeout, rss_wrapper):
    """One row per COLD_PAIRS command: `runs` rounds (after one warm-up round) in which small and
    the reference run one after the other; medians of wall and CPU time, peak RSS, exit codes."""
    rows = []
    for argv in COLD_PAIRS:
        sides = {"small": [small] + argv + ["--no-cache", "--dir", ws], "reference": [reference] + argv + ["--dir", ws]}
        got = {k: {"wall": [], "cpu": [], "rss": [], "codes": [], "failure": None} for k in sides}
        log("cold pairs: %s %s x%d rounds (+1 warm-up)" % (ws_spec["name"], " ".join(argv), runs))
        for i in range(runs + 1):
            for k, cmd in sides.items():
                wall, cpu_s, rss_kb, code, out = run_once(cmd, workdir, timeout, rss_wrapper)
                if code != 0 and got[k]["failure"] is None:
                    got[k]["failure"] = "$ %s\n%s" % (" ".join(cmd), tail(out))
                os.unlink(out)
                if i == 0:
                    continue
                got[k]["wall"].append(wall * 1000.0)
                got[k]["cpu"].append(cpu_s * 1000.0)
                got[k]["rss"].append(rss_kb / 1024.0)
                got[k]["codes"].append(code)
        row = {"workspace": ws_spec["name"], "entries": ws_spec["entries"], "command": " ".join(argv), "runs": runs}
        for k, g in got.items():
            row[k] = {"median_ms": round(statistics.median(g["wall"]), 1), "min_ms": round(min(g["wall"]), 1),
                      "max_ms": round(max(g["wall"]), 1), "median_cpu_ms": round(statistics.median(g["cpu"]), 1),
                      "peak_rss_mb": round(max(g["rss"]), 1), "exit_codes": g["codes"],
                      "ok": g["failure"] is None, "failure_output": g["failure"]}
        rows.append(row)
    return rows


def print_cold_pairs(rows):
    head = ["workspace", "command", "small median ms (min-max)", "CPU ms", "RSS MB",
            "reference median ms (min-max)", "CPU ms", "RSS MB", "x faster", "x less CPU"]
    out = []
    for r in rows:
        a, b = r["small"], r["reference"]
        ok = a["ok"] and b["ok"]
        out.append([r["workspace"], r["command"],
                    "%.1f (%.1f-%.1f)" % (a["median_ms"], a["min_ms"], a["max_ms"]), "%.1f" % a["median_cpu_ms"],
                    "%.0f" % a["peak_rss_mb"],
                    "%.1f (%.1f-%.1f)" % (b["median_ms"], b["min_ms"], b["max_ms"]), "%.1f" % b["median_cpu_ms"],
                    "%.0f" % b["peak_rss_mb"],
                    "%.0f" % (b["median_ms"] / a["median_ms"]) if ok else "FAILED",
                    "%.0f" % (b["median_cpu_ms"] / a["median_cpu_ms"]) if ok and a["median_cpu_ms"] else "-"])
    print_rows(head, out, right=set(range(2, len(head))))


def print_verdict_table(results):
    """One row per workspace and verdict command: the median and p90 in each state, and the
    peak RSS; with a reference, its median and how many times faster small's states are."""
    states = [s for s in VERDICT_STATES + ["reference"] if any(r["state"] == s for r in results)]
    head = ["workspace", "entries", "log MB", "command"]
    for s in states:
        head += ["%s median ms" % s, "p90 ms"]
    head += ["RSS MB %s" % "/".join(states)]
    if "reference" in states:
        head += ["x faster: %s" % "/".join(s for s in VERDICT_STATES)]
    rows = []
    keys = []
    for r in results:
        if (r["workspace"], r["verdict_command"]) not in keys:
            keys.append((r["workspace"], r["verdict_command"]))
    for ws, vc in keys:
        mine = {r["state"]: r for r in results if r["workspace"] == ws and r["verdict_command"] == vc}
        any_r = next(iter(mine.values()))
        row = [ws, "{:,}".format(any_r["entries"]), "%.1f" % any_r.get("log_mb", 0), vc]
        for s in states:
            r = mine.get(s)
            row += (["%.1f%s%s" % (r["median_ms"], " (%s)" % r["note"] if r["note"] else "",
                                   "" if r["ok"] else " FAILED"), "%.1f" % r["p90_ms"]]
                    if r else ["-", "-"])
        row.append("/".join("%.0f" % mine[s]["peak_rss_mb"] if s in mine else "-" for s in states))
        if "reference" in states:
            ref = mine.get("reference")
            row.append("/".join("%.0f" % (ref["median_ms"] / mine[s]["median_ms"])
                                if ref and ref["ok"] and s in mine and mine[s]["ok"] else "-"
                                for s in VERDICT_STATES))
        rows.append(row)
    print_rows(head, rows, right=set(range(1, len(head))) - {3})


def machine(workdir):
    """nproc, CPU model and the filesystem holding workdir: what the figures depend on."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
    except OSError:
        pass
    fs, best = "unknown filesystem", ""
    try:
        with open("/proc/mounts") as f:
            for line in f:
                dev, mnt, kind = line.split()[:3]
                mnt = mnt.replace("\\040", " ")
                if (workdir == mnt or workdir.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                    best, fs = mnt, "%s (%s on %s)" % (kind, dev, mnt)
    except OSError:
        pass
    return "%d CPUs (%s), workdir on %s" % (os.cpu_count() or 0, model, fs)


def load_average():
    return "%.2f %.2f %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else "unknown"


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


def scaling_workspaces(entries_list):
    def label(n):
        for div, suffix in ((1000000, "m"), (1000, "k")):
            if n >= div and n % div == 0:
                return "%d%s" % (n // div, suffix)
        return str(n)
    return [{"name": "scale-" + label(n), "tasks": SCALING_TASKS, "entries": n} for n in entries_list]


def validate(small, ws, workdir, timeout):
    """Runs `small validate` on ws; returns None when valid, else its output."""
    argv = [small, "validate", "--dir", ws]
    _, _, _, code, out = run_once(argv, workdir, timeout)
    text = tail(out)
    os.unlink(out)
    return None if code == 0 else "$ %s\n%s\n(exit %d)" % (" ".join(argv), text, code)


def percentile(values, pct):
    """Linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * pct / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def prepare_diff_store(small, ws, workdir, timeout):
    """A copy of `ws` whose run store holds two snapshots: the run's own (`small run
    snapshot`), and a second one under another id whose log has DIFF_APPENDED more entries
    (appended the way small appends them). Returns (dir, from_id, to_id)."""
    target = os.path.join(workdir, "diffstore-" + os.path.basename(ws))
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(ws, target, symlinks=True)
    subprocess.run([small, "run", "snapshot", "--dir", target], check=True, timeout=timeout,
                   stdout=subprocess.DEVNULL)
    runs = os.path.join(target, ".small-runs")
    from_id = [d for d in os.listdir(runs) if len(d) == 64][0]
    to_id = hashlib.sha256(b"bench-diff").hexdigest()
    shutil.copytree(os.path.join(runs, from_id), os.path.join(runs, to_id))
    with open(os.path.join(runs, to_id, "progress.small.yml"), "a") as f:
        for j in range(DIFF_APPENDED):
            f.write('  - timestamp: "2030-01-01T00:%02d:%02d.%09dZ"\n    task_id: "task-1"\n'
                    '    status: "completed"\n    evidence: "appended %d"\n    replayId: "%s"\n'
                    % (j // 60 % 60, j % 60, j + 1, j, from_id))
    return target, from_id, to_id


def prepare_merge_files(ws, workdir):
    """Three versions of the workspace's progress log, as git hands them to the merge
    driver: the ancestor (the log as generated) and two sides that each appended
    MERGE_APPENDED entries; every tenth timestamp is the same on both sides."""
    base = os.path.join(workdir, "merge-" + os.path.basename(ws))
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(ws, ".small", "progress.small.yml")) as f:
        ancestor = f.read()
    files = {"ancestor": os.path.join(base, "ancestor.yml"), "side": os.path.join(base, "current.orig"),
             "current": os.path.join(base, "current.yml"), "other": os.path.join(base, "other.yml")}
    with open(files["ancestor"], "w") as f:
        f.write(ancestor)
    for key, tag, offset in (("side", "a", 0), ("other", "b", 1)):
        with open(files[key], "w") as f:
            f.write(ancestor)
            for j in range(MERGE_APPENDED):
                nanos = 2 * j + (0 if j % 10 == 0 else offset)
                f.write('  - timestamp: "2030-01-01T00:00:00.%09dZ"\n    task_id: "task-1"\n'
                        '    status: "in_progress"\n    evidence: "side %s entry %d"\n' % (nanos + 1, tag, j))
    return files


def argv_for(cmd, ws_spec, run, extra=None):
    fields = {"run": run, "last_task": "task-%d" % ws_spec["tasks"]}
    fields.update(extra or {})
    for key, values in cmd.get("cycle", {}).items():
        fields[key] = values[run % len(values)]
    return [a.format(**fields) for a in cmd["argv"]]


def find_gnu_time():
    """GNU time, which reports the peak RSS of the process it starts (%M), or None."""
    try:
        probe = subprocess.run([GNU_TIME, "--version"], stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return GNU_TIME if "GNU" in probe.stdout + probe.stderr else None


def run_once(argv, cwd, timeout, rss_wrapper=None):
    """Runs argv; returns (wall seconds, CPU seconds (user + system), peak RSS in KiB, exit code,
    output path).

    The RSS that wait4 reports for a child of this script is never below this script's own RSS
    (Linux keeps ru_maxrss across execve, and the child starts as a copy of the Python process),
    so it is only an upper bound for small processes. With rss_wrapper (GNU time), the child is
    started by that small process and the RSS is exact; its start-up is then in the wall time.
    """
    out = tempfile.NamedTemporaryFile(prefix="small-bench-", suffix=".out", delete=False)
    rss_file = None
    if rss_wrapper:
        fd, rss_file = tempfile.mkstemp(prefix="small-bench-", suffix=".rss")
        os.close(fd)
        argv = [rss_wrapper, "-f", "%M", "-o", rss_file] + argv
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
    maxrss_kb = usage.ru_maxrss
    if rss_file:
        with open(rss_file) as f:
            last = f.read().strip().splitlines()[-1:]  # "Command exited with non-zero status N" first
        os.unlink(rss_file)
        if last and last[0].isdigit():
            maxrss_kb = int(last[0])
    return wall, usage.ru_utime + usage.ru_stime, maxrss_kb, proc.returncode, out.name


def tail(path, lines=8):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()
    except OSError:
        return ""


def bench(small, ws_spec, ws, cmd, runs, workdir, timeout, rss_wrapper, before=None):
    """Run 0 warms up, runs 1..N are timed; with rss_wrapper, the warm-up and one more run
    after the timed ones go through it and give the exact peak RSS (cold and steady).
    before(target, i), when given, is called before every run, outside the timed region."""
    times, cpu, rss, codes = [], [], [], []
    warmup_ms = warmup_rss = None
    failure_output = None
    scratch = os.path.join(workdir, "scratch-" + ws_spec["name"])
    last = runs + (1 if rss_wrapper else 0)
    extra = {}
    # The verdict rows read the whole log, as before the verified-prefix cache
    # (--verdicts measures the warm states).
    cold_flag = cmd.get("cold") and supports_flag(small, cmd["argv"][0], "--no-cache", timeout)
    if cmd.get("setup") == "diff-store":
        ws, extra["from"], extra["to"] = prepare_diff_store(small, ws, workdir, timeout)
    if cmd.get("setup") == "merge-files":
        extra = prepare_merge_files(ws, workdir)
    for i in range(last + 1):
        if cmd.get("setup") == "merge-files":
            shutil.copyfile(extra["side"], extra["current"])  # the driver writes CURRENT
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
        if before:
            before(target, i)
        argv = [small] + argv_for(cmd, ws_spec, i, extra) + ([] if cmd.get("no_dir") else ["--dir", target])
        if cold_flag:
            argv.append("--no-cache")
        timed = 1 <= i <= runs
        wall, cpu_s, maxrss_kb, code, out = run_once(argv, workdir, timeout,
                                                     None if timed else rss_wrapper)
        if code != cmd.get("expect_exit", 0) and failure_output is None:
            failure_output = "$ %s\n%s" % (" ".join(argv), tail(out))
        os.unlink(out)
        if i == 0:
            warmup_ms, warmup_rss = wall * 1000.0, maxrss_kb / 1024.0
            continue
        if not rss_wrapper or not timed:  # with GNU time, only the extra run's RSS counts
            rss.append(maxrss_kb / 1024.0)
        if not timed:
            continue
        times.append(wall * 1000.0)
        cpu.append(cpu_s * 1000.0)
        codes.append(code)
    bad = [c for c in codes if c != cmd.get("expect_exit", 0)]
    # What the writes left behind must still be a valid workspace.
    if cmd.get("mutates") and failure_output is None:
        invalid = validate(small, target, workdir, timeout)
        if invalid:
            failure_output = "the workspace no longer validates after the runs:\n" + invalid
    return {
        "workspace": ws_spec["name"],
        "tasks": ws_spec["tasks"],
        "entries": ws_spec["entries"],
        "command": cmd["name"],
        "argv": cmd["argv"],
        "runs": runs,
        "times_ms": [round(t, 3) for t in times],
        "median_ms": round(statistics.median(times), 3),
        "p90_ms": round(percentile(times, 90), 3),
        "cpu_ms": [round(t, 3) for t in cpu],
        "median_cpu_ms": round(statistics.median(cpu), 3),
        "min_ms": round(min(times), 3),
        "max_ms": round(max(times), 3),
        "peak_rss_mb": round(max(rss), 2),
        "warmup_ms": round(warmup_ms, 3),
        "warmup_rss_mb": round(warmup_rss, 2),
        "exit_codes": codes,
        "exit_code": bad[0] if bad else codes[0],
        "expect_exit": cmd.get("expect_exit", 0),
        "ok": not bad and failure_output is None,
        "failure_output": failure_output,
    }


def print_table(results):
    head = ["workspace", "command", "median ms", "p90 ms", "min ms", "max ms", "CPU ms", "peak RSS MB",
            "warm-up ms", "exit"]
    rows = []
    for r in results:
        code = str(r["exit_code"]) + ("" if r["ok"] else "  <-- FAILED")
        rows.append([r["workspace"], r["command"], "%.1f" % r["median_ms"], "%.1f" % r["p90_ms"],
                     "%.1f" % r["min_ms"], "%.1f" % r["max_ms"], "%.1f" % r["median_cpu_ms"],
                     "%.1f" % r["peak_rss_mb"], "%.1f" % r["warmup_ms"], code])
    print_rows(head, rows, right={2, 3, 4, 5, 6, 7, 8})


def print_scaling_table(results):
    """One row per log size: median/p90 ms and peak RSS of each scaling command, then the
    warm-up of the first one (no tail cache yet: it reads the whole log)."""
    commands = [c for c in SCALING_COMMANDS if any(r["command"] == c for r in results)]
    head = ["entries", "log MB"]
    for c in commands:
        head += ["%s median ms" % c, "p90 ms", "RSS MB"]
    rows = []
    for entries in sorted({r["entries"] for r in results}):
        mine = {r["command"]: r for r in results if r["entries"] == entries}
        row = ["{:,}".format(entries), "%.1f" % next(iter(mine.values()))["log_mb"]]
        for c in commands:
            r = mine.get(c)
            row += (["%.1f%s" % (r["median_ms"], "" if r["ok"] else " FAILED"), "%.1f" % r["p90_ms"],
                     "%.1f" % r["peak_rss_mb"]] if r else ["-", "-", "-"])
        first = mine.get(commands[0]) if commands else None
        row += ["%.1f" % first["warmup_ms"], "%.1f" % first["warmup_rss_mb"]] if first else ["-", "-"]
        rows.append(row)
    if commands:
        head += ["%s cold ms" % commands[0], "cold RSS MB"]
    print_rows(head, rows, right=set(range(len(head))))


def print_rows(head, rows, right):
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]

    def fmt(row):
        cells = [(str(c).rjust(w) if i in right else str(c).ljust(w))
                 for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    print(fmt(head))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))


SIDES_WORKTREES = 8
SIDES_ENTRIES = [1000, 100000]


def git(args, cwd):
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
    subprocess.run(["git"] + args, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def make_sides_repo(small, workdir, entries, timeout):
    """A repository with the generated workspace in SIDES_WORKTREES work trees (the main one and
    linked ones, each with one more task and entry, uncommitted) and 2 branches not checked out."""
    root = os.path.join(workdir, "sides-%d" % entries)
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    main = os.path.join(root, "main")
    subprocess.run([sys.executable, GENERATOR, "--tasks", "1000", "--entries", str(entries), main], check=True,
                   stdout=subprocess.DEVNULL, timeout=timeout)
    git(["init", "-q", "-b", "main"], main)
    git(["add", "-A"], main)
    git(["commit", "-qm", "base"], main)
    git(["branch", "old-1"], main)
    git(["branch", "old-2"], main)
    trees = [main]
    for i in range(1, SIDES_WORKTREES):
        wt = os.path.join(root, "wt%d" % i)
        git(["worktree", "add", "-q", "-b", "wt%d" % i, wt], main)
        trees.append(wt)
    for i, wt in enumerate(trees):
        for argv in (["plan", "--add", "Side %d" % i],
                     ["progress", "add", "--task", "task-1000", "--status", "in_progress", "--evidence", "side %d" % i]):
            subprocess.run([small] + argv, cwd=wt, check=True, stdout=subprocess.DEVNULL, timeout=timeout)
    return main


def measure_sides(small, runs, workdir, timeout, rss_wrapper):
    rows = []
    for entries in SIDES_ENTRIES:
        log("sides: %d work trees + 2 branches of a 1,000-task workspace, %s entries" % (SIDES_WORKTREES,
                                                                                         "{:,}".format(entries)))
        main = make_sides_repo(small, workdir, entries, timeout)
        spec = {"name": "sides-%dk" % (entries // 1000), "tasks": 1000, "entries": entries}
        cmd = {"name": "status --all", "argv": ["status", "--all"], "mutates": False, "expect_exit": 0}
        rows.append(bench(small, spec, main, cmd, runs, workdir, timeout, rss_wrapper))
    return rows


def main():
    ap = argparse.ArgumentParser(description="Benchmark the small CLI on generated workspaces.")
    ap.add_argument("--small", required=True, help="path to the small binary")
    ap.add_argument("--runs", type=int, default=9, help="timed runs per command (default 9)")
    ap.add_argument("--workdir", help="where workspaces are generated and reused (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary workdir")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--workspace", action="append", metavar="NAME",
                    help="only these workspaces (%s)" % ", ".join(w["name"] for w in WORKSPACES))
    ap.add_argument("--command", action="append", metavar="NAME",
                    help="only these commands (%s)" % ", ".join(c["name"] for c in COMMANDS))
    ap.add_argument("--timeout", type=float, default=600.0, help="kill a run after this many seconds")
    ap.add_argument("--scaling", action="store_true",
                    help="time %s on %d-task workspaces with growing logs and print entries against "
                         "median and peak RSS" % (" and ".join(SCALING_COMMANDS), SCALING_TASKS))
    ap.add_argument("--scaling-entries", type=int, nargs="+", metavar="N", default=SCALING_ENTRIES,
                    help="log sizes for --scaling (default %s)" % " ".join(map(str, SCALING_ENTRIES)))
    ap.add_argument("--floor", action="store_true",
                    help="also measure the floor: `small version` and `check --strict` on a fresh init "
                         "workspace against /bin/true, wall time and instructions (callgrind)")
    ap.add_argument("--floor-runs", type=int, default=FLOOR_RUNS, metavar="N",
                    help="timed runs per floor command (default %d)" % FLOOR_RUNS)
    ap.add_argument("--verdicts", action="store_true",
                    help="also time check --strict and verify --strict cold (--no-cache), warm and warm "
                         "after a one-entry append, on a copy of each selected workspace")
    ap.add_argument("--reference", metavar="PATH",
                    help="another SMALL CLI with the same command line (the Go reference): --floor adds "
                         "its `version` and fresh-init `check --strict` to the interleaved runs, --verdicts "
                         "its check --strict on each workspace; ratios are printed (children run with "
                         "SMALL_NO_UPDATE_CHECK=1)")
    ap.add_argument("--reference-runs", type=int, default=3, metavar="N",
                    help="timed runs of the reference's check --strict per workspace in --verdicts (default 3)")
    ap.add_argument("--reference-max-entries", type=int, default=100000, metavar="N",
                    help="skip the reference's verdicts on workspaces with more entries (default 100000: "
                         "it needs ~1.4 GB and ~20 s per run at 100k)")
    ap.add_argument("--cold-pairs", action="store_true",
                    help="with --reference: validate, lint --strict, verify --strict and check --strict of "
                         "small (--no-cache) and the reference in turn on each selected workspace, --runs rounds")
    ap.add_argument("--sides", action="store_true",
                    help="also time `status --all` over %d work trees and 2 branches of a 1,000-task "
                         "workspace (1k and 100k entries)" % SIDES_WORKTREES)
    ap.add_argument("--mcp", action="store_true",
                    help="also time one long-lived `small mcp` answering resume, ready and check "
                         "(bench/mcp_bench.py) on a copy of each selected workspace")
    ap.add_argument("--mcp-calls", type=int, default=mcp_bench.DEFAULT_CALLS, metavar="N",
                    help="calls per tool for --mcp, the first one cold (default %d)" % mcp_bench.DEFAULT_CALLS)
    ap.add_argument("--no-commands", action="store_true",
                    help="skip the per-command table (to run only --floor, --verdicts, --sides and/or --mcp)")
    args = ap.parse_args()

    if args.runs < 1 or args.floor_runs < 1:
        ap.error("--runs and --floor-runs must be at least 1")
    if args.mcp_calls < 2:
        ap.error("--mcp-calls must be at least 2 (the first call is the cold one)")
    small = os.path.abspath(args.small)
    reference = os.path.abspath(args.reference) if args.reference else None
    if reference and not (os.path.isfile(reference) and os.access(reference, os.X_OK)):
        ap.error("%s is not an executable file" % args.reference)
    if reference and not (args.floor or args.verdicts or args.cold_pairs):
        ap.error("--reference is measured only with --floor, --verdicts or --cold-pairs")
    if args.cold_pairs and not reference:
        ap.error("--cold-pairs needs --reference PATH")
    if args.reference_runs < 1:
        ap.error("--reference-runs must be at least 1")
    if reference:
        os.environ.update(REFERENCE_ENV)
    if not (os.path.isfile(small) and os.access(small, os.X_OK)):
        ap.error("%s is not an executable file" % args.small)
    if not os.path.isfile(GENERATOR):
        sys.exit("bench: workspace generator not found at %s (is ../shared beside the checkout?)"
                 % os.path.normpath(GENERATOR))
    if args.scaling:
        all_workspaces = scaling_workspaces(args.scaling_entries)
        all_commands = [c for c in COMMANDS if c["name"] in SCALING_COMMANDS]
    else:
        all_workspaces, all_commands = WORKSPACES, COMMANDS
    workspaces = [w for w in all_workspaces if not args.workspace or w["name"] in args.workspace]
    commands = [] if args.no_commands else [c for c in all_commands if not args.command or c["name"] in args.command]
    if not args.no_commands and (not workspaces or not commands):
        ap.error("no workspace or command selected")
    if args.no_commands and not (args.floor or args.verdicts or args.sides or args.mcp or args.cold_pairs):
        ap.error("--no-commands leaves nothing to measure without --floor, --verdicts, --cold-pairs, --sides or --mcp")
    if (args.verdicts or args.mcp or args.cold_pairs) and not workspaces:
        ap.error("no workspace selected")
    if not commands and not args.verdicts and not args.mcp and not args.cold_pairs:
        workspaces = []

    if args.workdir:
        workdir = os.path.abspath(args.workdir)
        os.makedirs(workdir, exist_ok=True)
        temporary = False
    else:
        workdir = tempfile.mkdtemp(prefix="small-bench-")
        temporary = True

    host, load_before = machine(workdir), load_average()
    rss_wrapper = find_gnu_time()
    if not rss_wrapper:
        log("GNU time not found at %s: peak RSS comes from wait4 and is an upper bound "
            "(never below this script's own RSS)" % GNU_TIME)
    results = []
    sides = []
    floor = []
    verdicts = []
    pairs = []
    mcp = []
    invalid = []
    try:
        if args.floor:
            floor, problem = measure_floor(small, args.floor_runs, workdir, args.timeout, reference)
            if problem:
                invalid.append("the floor's workspace could not be made:\n" + problem)
        if args.sides:
            sides = measure_sides(small, args.runs, workdir, args.timeout, rss_wrapper)
        paths = {w["name"]: generate(workdir, w) for w in workspaces}
        for w in workspaces:
            problem = validate(small, paths[w["name"]], workdir, args.timeout)
            if problem:
                invalid.append("workspace %s does not validate:\n%s" % (w["name"], problem))
            else:
                log("validated %s: small validate exit 0" % w["name"])
        for w in workspaces if not invalid else []:
            log_mb = os.path.getsize(os.path.join(paths[w["name"]], ".small", "progress.small.yml")) / 1e6
            for c in commands:
                log("running %-8s %-16s x%d (+1 warm-up)" % (w["name"], c["name"], args.runs))
                r = bench(small, w, paths[w["name"]], c, args.runs, workdir, args.timeout, rss_wrapper)
                r["log_mb"] = round(log_mb, 2)
                results.append(r)
            if args.verdicts:
                for r in measure_verdicts(small, w, paths[w["name"]], args.runs, workdir, args.timeout,
                                          rss_wrapper, reference, args.reference_runs,
                                          args.reference_max_entries):
                    r["log_mb"] = round(log_mb, 2)
                    verdicts.append(r)
            if args.cold_pairs and w["entries"] > args.reference_max_entries:
                log("cold pairs: skipping %s: %d entries, more than --reference-max-entries %d"
                    % (w["name"], w["entries"], args.reference_max_entries))
            elif args.cold_pairs:
                pairs += measure_cold_pairs(small, reference, w, paths[w["name"]], args.runs, workdir, args.timeout,
                                            rss_wrapper)
            if args.mcp:
                log("mcp: %s, %d calls per tool" % (w["name"], args.mcp_calls))
                try:
                    mcp += measure_mcp(small, w, paths[w["name"]], args.mcp_calls, workdir)
                except RuntimeError as e:
                    invalid.append("small mcp failed on %s: %s" % (w["name"], e))
    finally:
        if temporary and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        elif temporary:
            log("workdir kept: %s" % workdir)

    if invalid:
        print("\n\n".join(invalid))
        return 1
    if reference:
        print("reference: %s" % reference)
    print("small: %s   runs: %d (+1 warm-up)   peak RSS: %s" % (
        small, args.runs, "GNU time, one more run after the timed ones" if rss_wrapper
        else "wait4 over the timed runs (upper bound)"))
    print("machine: %s; load average %s at the start, %s at the end" % (host, load_before, load_average()))
    if workspaces:
        print("workspaces: %s; each passed `small validate` before it was measured (and the copies "
              "the write commands grew, again after their runs)"
              % ", ".join("%s (%d tasks, %s entries)" % (w["name"], w["tasks"], "{:,}".format(w["entries"]))
                          for w in workspaces))
    if floor:
        print("\nfloor: %d interleaved runs each (+1 warm-up round); instructions: %s" % (
            args.floor_runs, "valgrind --tool=callgrind, one run (repeatable whatever the load)"
            if shutil.which(VALGRIND) else "n/a (valgrind not installed)"))
        print_floor_table(floor)
        print_floor_pairs(floor)
    if results:
        if floor:
            print()
        print_table(results)
    if args.scaling and results:
        print()
        print_scaling_table(results)
    if sides:
        print("\nsides: `status --all` in the main work tree of %d, with 2 branches not checked out"
              % SIDES_WORKTREES)
        print_table(sides)
    if verdicts:
        methods = sorted({r["cold_method"] for r in verdicts if r["cold_method"]})
        print("\nverdicts: on a copy of each workspace; cold: %s; warm: the cache filled by the warm-up, "
              "nothing changed; +1 entry: `small %s` before each run (untimed)"
              % ("; ".join(methods), " ".join(VERDICT_APPEND)))
        print_table(verdicts)
        print()
        print_verdict_table(verdicts)
    if pairs:
        print("\ncold pairs: small (--no-cache) and the reference in turn, %d rounds after a warm-up round; "
              "medians; peak RSS the largest of the rounds" % args.runs)
        print_cold_pairs(pairs)
    if mcp:
        print("\nmcp: one `small mcp` per workspace copy (a git repository); first = a tool's first call, "
              "median/p90/max over the %d after it; ping = the client's and the pipe's own cost" % (args.mcp_calls - 1))
        print_mcp_table(mcp)
    failed = [r for r in results + verdicts + sides if not r["ok"]]
    for r in pairs:
        for k in ("small", "reference"):
            if not r[k]["ok"]:
                print("\nFAILED cold pair %s / %s (%s)\n%s" % (r["workspace"], r["command"], k, r[k]["failure_output"]))
    for r in failed:
        print("\nFAILED %s / %s: exit codes %s (expected %d)\n%s"
              % (r["workspace"], r["command"], r["exit_codes"], r["expect_exit"], r["failure_output"] or ""))
    floor_failed = [r for r in floor if not r["ok"]]
    for r in floor_failed:
        print("\nFAILED floor / %s: exit codes %s (expected 0)\n%s"
              % (r["command"], r["exit_codes"], r["failure_output"] or ""))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"small": small, "reference": reference, "runs": args.runs, "validated": True,
                       "rss_method": "gnu-time" if rss_wrapper else "wait4",
                       "machine": host, "load_average": load_before, "results": results,
                       "floor": floor, "verdicts": verdicts, "cold_pairs": pairs, "mcp": mcp}, f, indent=2)
            f.write("\n")
        log("results written to %s" % args.json)
    pairs_failed = [r for r in pairs if not (r["small"]["ok"] and r["reference"]["ok"])]
    return 1 if failed or floor_failed or pairs_failed else 0


if __name__ == "__main__":
    sys.exit(main())
