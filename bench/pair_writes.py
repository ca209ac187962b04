#!/usr/bin/env python3
"""Two builds of small, run in turn on the same write: a paired measurement.

    bench/pair_writes.py --small build/small --other OLD/small --workspace DIR
                         [--command checkpoint|progress-add] [--rounds 60]

This VM's speed drifts during a day by far more than one change to a write
command is worth, so figures of one build taken at one hour and of another at
the next say little. Here each round runs both builds, in alternating order, on
two copies of the same workspace (made in a temporary folder and checked with
`small validate` before and after), and the medians are compared within the
same minutes. `checkpoint` alternates blocked/completed on the plan's last task
(every run rewrites the plan); `progress-add` appends an in_progress entry to
the first task. A fixed Python loop is timed before and after, to say how fast
the machine was. Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def machine_probe_ms():
    start = time.perf_counter()
    total = 0
    for i in range(3_000_000):
        total += i
    return (time.perf_counter() - start) * 1000


def task_ids(workspace):
    with open(os.path.join(workspace, ".small", "plan.small.yml"), encoding="utf-8") as f:
        return re.findall(r'^\s*-?\s*id:\s*"?([^"\n]+?)"?\s*$', f.read(), re.M)


def command_args(command, round_number, tasks):
    if command == "checkpoint":
        status = "blocked" if round_number % 2 else "completed"
        return ["checkpoint", "--task", tasks[-1], "--status", status, "--evidence", "paired run"]
    return ["progress", "add", "--task", tasks[0], "--status", "in_progress", "--evidence", "paired run"]


def run_once(binary, args, cwd):
    start = time.perf_counter()
    done = subprocess.run([binary] + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    return elapsed


def validate(binary, workspace):
    done = subprocess.run([binary, "validate"], cwd=workspace, capture_output=True)
    if done.returncode != 0:
        sys.exit(f"{workspace} does not validate: {done.stdout.decode()}{done.stderr.decode()}")


def summary(times):
    ordered = sorted(times)
    return statistics.median(ordered), ordered[len(ordered) // 10], ordered[(9 * len(ordered)) // 10]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", required=True, help="this build's binary")
    ap.add_argument("--other", required=True, help="the build to compare with")
    ap.add_argument("--workspace", required=True, help="a workspace folder (copied, never changed)")
    ap.add_argument("--command", choices=["checkpoint", "progress-add"], default="checkpoint")
    ap.add_argument("--rounds", type=int, default=60, help="timed rounds (after 2 warm-up rounds)")
    args = ap.parse_args()
    builds = {"this": os.path.abspath(args.small), "other": os.path.abspath(args.other)}
    with tempfile.TemporaryDirectory(prefix="small-pair-") as tmp:
        copies = {}
        for name, binary in builds.items():
            copies[name] = os.path.join(tmp, name)
            shutil.copytree(args.workspace, copies[name], symlinks=True)
            validate(binary, copies[name])
        tasks = task_ids(copies["this"])
        if not tasks:
            sys.exit("the workspace's plan has no task ids")
        before = machine_probe_ms()
        times = {name: [] for name in builds}
        for r in range(args.rounds + 2):
            order = ["this", "other"] if r % 2 else ["other", "this"]
            for name in order:
                elapsed = run_once(builds[name], command_args(args.command, r, tasks), copies[name])
                if r >= 2:
                    times[name].append(elapsed)
        after = machine_probe_ms()
        for name, binary in builds.items():
            validate(binary, copies[name])
    print(f"{args.command}, {args.rounds} rounds, workspace {args.workspace}")
    print(f"machine probe (a fixed Python loop): {before:.0f} ms before, {after:.0f} ms after")
    for name in builds:
        median, p10, p90 = summary(times[name])
        print(f"  {name:5} {builds[name]}: median {median:.2f} ms  p10 {p10:.2f}  p90 {p90:.2f}")
    ratio = summary(times["this"])[0] / summary(times["other"])[0]
    print(f"  this / other: {ratio:.2f}")


if __name__ == "__main__":
    main()
