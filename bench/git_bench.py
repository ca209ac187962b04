#!/usr/bin/env python3
"""Issue 11 git benchmarks: `verify --evidence` on 10k commit evidences and
`drift` on 10k changed files, and the same questions asked by spawning `git`
(what libgit2 was measured against). Usage: git_bench.py --small build/small"""
import argparse, os, subprocess, tempfile, time

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="b",
           GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")


def run(cmd, cwd, ok=(0,)):
    r = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True)
    if r.returncode not in ok:
        raise SystemExit(f"{cmd}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def best_of(cmd, cwd, n=5, ok=(0, 1)):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        run(cmd, cwd, ok)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def make_history(repo, commits):
    """`commits` commits through git fast-import (seconds, not minutes)."""
    lines = []
    for i in range(commits):
        when = 1_700_000_000 + i
        msg = f"c{i}"
        lines.append(f"commit refs/heads/main\nmark :{i + 1}\ncommitter b <b@example.com> {when} +0000\n"
                     f"data {len(msg)}\n{msg}\n" + (f"from :{i}\n" if i else "") +
                     f"M 644 inline f.txt\ndata {len(msg) + 1}\n{msg}\n\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, env=ENV, input="".join(lines), text=True, check=True)
    run(["git", "checkout", "-q", "-f", "main"], repo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", required=True)
    ap.add_argument("--n", type=int, default=10_000)
    a = ap.parse_args()
    small = os.path.abspath(a.small)
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.mkdir(repo)
        run(["git", "init", "-q", "-b", "main"], repo)
        make_history(repo, a.n)
        run([small, "init", "--no-agents"], repo)
        ids = run(["git", "rev-list", "HEAD"], repo).split()
        with open(os.path.join(repo, ".small", "progress.small.yml"), "a") as f:
            for i, c in enumerate(ids):
                f.write(f'  - task_id: "task-1"\n    timestamp: "2099-01-01T00:00:00.{i + 1:09d}Z"\n'
                        f'    evidence: "e"\n    commit: "{c if i % 2 else c[:10]}"\n')
        print(f"verify --evidence, {len(ids)} commit evidences: {best_of([small, 'verify', '--evidence'], repo):.3f} s")
        print(f"  plain verify on the same log: {best_of([small, 'verify'], repo):.3f} s")
        print(f"  git rev-list HEAD (the ancestor set by spawning git): {best_of(['git', 'rev-list', 'HEAD'], repo):.3f} s")
        batch = "\n".join(ids) + "\n"
        t = time.perf_counter()
        subprocess.run(["git", "cat-file", "--batch-check"], cwd=repo, env=ENV, input=batch, capture_output=True, text=True)
        print(f"  git cat-file --batch-check (existence of {len(ids)} ids): {time.perf_counter() - t:.3f} s")

        intent = os.path.join(repo, ".small", "intent.small.yml")
        text = open(intent).read().replace("include: []", 'include: ["src/**"]')
        open(intent, "w").write(text)
        for i in range(a.n):
            d = os.path.join(repo, "src" if i % 2 else "other", f"d{i % 100}")
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, f"f{i}.txt"), "w").write("x\n")
        print(f"drift, {a.n} changed (untracked) files: {best_of([small, 'drift', '--since', 'HEAD'], repo):.3f} s")
        print(f"  git status --porcelain -uall: {best_of(['git', 'status', '--porcelain', '-uall'], repo):.3f} s")
        print(f"  small --version (process start): {best_of([small, '--version'], repo):.3f} s")


if __name__ == "__main__":
    main()
