#!/usr/bin/env python3
"""Random tester of issue 41, point 2: no write or merge loses a comment, a
byte order mark or the file's line endings without a word.

usage: bench/write_fuzz.py --small PATH [--plans N] [--merges N] [--seed S] [--workdir DIR]

Each round writes a random hand-formatted plan (comments on their own lines
and after values, quoting styles, flow and block lists, blank lines, a BOM,
CRLF line breaks, indentations) into a fresh workspace, runs one random plan
write (--add, --title, --step, --acceptance, --depends, --undepend, a status
flag, --remove, --from with a field set to null) and checks the result:

* a BOM the file had is still there, and CRLF line breaks stay CRLF;
* every comment of the old text is in the new one, or the write's warnings
  (stderr) name the file and the comment's line, or say the file was
  rewritten in house style (naming the file and the line that forced it).

--merges N rounds run `small merge` (the git merge driver) on three versions
of a random plan (the ancestor and two sides, each changed by a random write)
with the same checks against CURRENT, the notes being the driver's.

CI runs a small size (tests/CMakeLists.txt, ctest -R write_fuzz); the default
size is the longer run. Exit 1 on the first failure, with the case kept in the
work folder. Standard library only.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

BOM = "\ufeff"


def comments(text):
    """(line, '# text') of every comment: a '#' at a line's start or after a blank, outside quotes."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        quote = None
        i = 0
        while i < len(line):
            c = line[i]
            prev = line[i - 1] if i else " "
            if quote == '"' and c == "\\":
                i += 2
                continue
            if quote and c == quote:
                quote = None
            elif not quote and c in "\"'" and prev in " \t[{,:-":
                quote = c
            elif not quote and c == "#" and prev in " \t":
                out.append((n, line[i:].rstrip(" \t")))
                break
            i += 1
    return out


def scalar(rng, text):
    style = rng.choice(["plain", "double", "single"])
    if style == "double":
        return '"' + text + '"'
    if style == "single":
        return "'" + text + "'"
    return text


def eol(rng, words):
    return "  # " + rng.choice(words) if rng.random() < 0.3 else ""


WORDS = ["note", "why: later", "keep me", "TODO", "see task", "owner: ann", "x # y"]


def random_plan(rng, tasks):
    ind = rng.choice([2, 4])
    pad = " " * ind
    lines = []
    if rng.random() < 0.6:
        lines.append("# " + rng.choice(WORDS))
    lines.append('small_version: "1.0.0"' + eol(rng, WORDS))
    lines.append('owner: "agent"')
    lines.append("tasks:" + eol(rng, WORDS))
    for k in range(1, tasks + 1):
        if rng.random() < 0.3:
            lines.append(pad + "# about task-%d" % k)
        if rng.random() < 0.2:
            lines.append("")
        lines.append(pad + "- id: " + scalar(rng, "task-%d" % k) + eol(rng, WORDS))
        lines.append(pad + "  title: " + scalar(rng, "Task %d" % k) + eol(rng, WORDS))
        status = rng.choice(["pending", "pending", "in_progress", "completed", "blocked"])
        lines.append(pad + "  status: " + scalar(rng, status) + eol(rng, WORDS))
        if rng.random() < 0.5:
            steps = ["step %d.%d" % (k, s) for s in range(rng.randint(1, 3))]
            form = rng.choice(["block", "flow", "flow-multi"])
            if form == "block":
                lines.append(pad + "  steps:" + eol(rng, WORDS))
                for s in steps:
                    lines.append(pad + "    - " + scalar(rng, s) + eol(rng, WORDS))
            elif form == "flow":
                lines.append(pad + "  steps: [" + ", ".join('"%s"' % s for s in steps) + "]" + eol(rng, WORDS))
            else:
                lines.append(pad + "  steps: [")
                for s in steps:
                    lines.append(pad + '    "%s",' % s + eol(rng, WORDS))
                lines.append(pad + "  ]")
        if k > 1 and rng.random() < 0.5:
            deps = sorted(rng.sample(range(1, k), rng.randint(1, min(2, k - 1))))
            if rng.random() < 0.5:
                lines.append(pad + "  depends_on: [" + ", ".join("task-%d" % d for d in deps) + "]" + eol(rng, WORDS))
            else:
                lines.append(pad + "  depends_on:")
                for d in deps:
                    lines.append(pad + "    - task-%d" % d + eol(rng, WORDS))
    if rng.random() < 0.3:
        lines.append("# the end")
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.3:
        text = BOM + text
    return text


def random_write(rng, tasks, workdir):
    t = lambda: "task-%d" % rng.randint(1, tasks)
    kind = rng.choice(["add", "title", "step", "acceptance", "depends", "undepend", "done", "pending", "remove",
                       "from-null", "from-title"])
    if kind == "add":
        return ["plan", "--add", "New # not a comment"]
    if kind == "title":
        return ["plan", "--title", t(), "Retitled"]
    if kind == "step":
        return ["plan", "--step", t() + ": one more"]
    if kind == "acceptance":
        return ["plan", "--acceptance", t() + ": it works"]
    if kind == "depends":
        a, b = sorted(rng.sample(range(1, tasks + 1), 2)) if tasks > 1 else (1, 1)
        return ["plan", "--depends", "task-%d:task-%d" % (b, a)]
    if kind == "undepend":
        a, b = sorted(rng.sample(range(1, tasks + 1), 2)) if tasks > 1 else (1, 1)
        return ["plan", "--undepend", "task-%d:task-%d" % (b, a)]
    if kind in ("done", "pending"):
        return ["plan", "--" + kind, t(), "--force"]
    if kind == "remove":
        return ["plan", "--remove", "task-%d" % tasks]
    path = os.path.join(workdir, "from.yml")
    field = "steps" if kind == "from-null" else "title"
    value = "null" if kind == "from-null" else '"From a file"'
    with open(path, "w") as f:
        f.write("- id: %s\n  title: \"Task\"\n  %s: %s\n" % (t(), field, value))
    return ["plan", "--from", path]


def check(old, new, said, what):
    """The problems of `new` against `old`, given what the write said (stderr / notes)."""
    problems = []
    if old.startswith(BOM) and not new.startswith(BOM):
        problems.append("the BOM was dropped")
    old_breaks = old.count("\n")
    if old_breaks and old.count("\r\n") == old_breaks and new.count("\r\n") != new.count("\n"):
        problems.append("CRLF line breaks became LF")
    if "house style" in said:
        return problems  # the file and the line that forced it are named
    now = [c for _, c in comments(new)]
    for line, c in comments(old):
        if c in now:
            now.remove(c)
        elif ("plan.small.yml:%d:" % line) not in said:
            problems.append("comment %r (line %d) dropped without a word" % (c, line))
    return problems


def run(small, args, cwd, stdin=None):
    return subprocess.run([small] + args, cwd=cwd, capture_output=True, text=True, input=stdin, timeout=60)


def write_round(small, rng, workdir, index):
    ws = os.path.join(workdir, "ws-%d" % index)
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(ws)
    r = run(small, ["init", "--no-agents", "--intent", "fuzz"], ws)
    if r.returncode != 0:
        return ["init failed: " + r.stderr]
    tasks = rng.randint(2, 5)
    old = random_plan(rng, tasks)
    plan = os.path.join(ws, ".small", "plan.small.yml")
    with open(plan, "w", newline="") as f:
        f.write(old)
    args = random_write(rng, tasks, ws)
    r = run(small, args, ws)
    with open(plan, newline="") as f:
        new = f.read()
    if r.returncode != 0:
        return [] if new == old else ["a refused write changed the plan: %s" % " ".join(args)]
    problems = check(old, new, r.stderr, args)
    if problems:
        with open(os.path.join(ws, "CASE.txt"), "w") as f:
            f.write("$ small %s\n%s\n--- old\n%s\n--- new\n%s\n" % (" ".join(args), r.stderr, old, new))
        return ["%s: %s (kept in %s)" % (" ".join(args), p, ws) for p in problems]
    shutil.rmtree(ws, ignore_errors=True)
    return []


def side(small, rng, workdir, base, tasks, name):
    ws = os.path.join(workdir, name)
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(ws)
    run(small, ["init", "--no-agents", "--intent", "fuzz"], ws)
    plan = os.path.join(ws, ".small", "plan.small.yml")
    with open(plan, "w", newline="") as f:
        f.write(base)
    run(small, random_write(rng, tasks, ws), ws)
    with open(plan, newline="") as f:
        return f.read()


def merge_round(small, rng, workdir, index):
    tasks = rng.randint(2, 5)
    base = random_plan(rng, tasks)
    current = side(small, rng, workdir, base, tasks, "m-a")
    other = side(small, rng, workdir, base, tasks, "m-b")
    case = os.path.join(workdir, "merge-%d" % index)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(os.path.join(case, ".small"))
    files = {}
    for name, text in (("O", base), ("A", current), ("B", other)):
        files[name] = os.path.join(case, name)
        with open(files[name], "w", newline="") as f:
            f.write(text)
    r = run(small, ["merge", "--", files["O"], files["A"], files["B"], ".small/plan.small.yml"], case)
    with open(files["A"], newline="") as f:
        merged = f.read()
    if r.returncode != 0:
        shutil.rmtree(case, ignore_errors=True)
        return []  # a conflict leaves CURRENT as it was
    problems = check(current, merged, r.stderr, ["merge"])
    if problems:
        with open(os.path.join(case, "CASE.txt"), "w") as f:
            f.write("%s\n--- current\n%s\n--- merged\n%s\n" % (r.stderr, current, merged))
        return ["merge: %s (kept in %s)" % (p, case) for p in problems]
    shutil.rmtree(case, ignore_errors=True)
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", required=True)
    ap.add_argument("--plans", type=int, default=1000)
    ap.add_argument("--merges", type=int, default=200)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--workdir")
    args = ap.parse_args()
    small = os.path.abspath(args.small)
    workdir = args.workdir or tempfile.mkdtemp(prefix="small-write-fuzz-")
    os.makedirs(workdir, exist_ok=True)
    rng = random.Random(args.seed)
    failures = []
    for i in range(args.plans):
        failures += write_round(small, rng, workdir, i)
    for i in range(args.merges):
        failures += merge_round(small, rng, workdir, i)
    for f in failures:
        print("FAIL " + f)
    print("%d writes, %d merges, %d failures (seed %d)" % (args.plans, args.merges, len(failures), args.seed))
    if not failures and not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
