#!/usr/bin/env python3
"""Multi-agent simulator (issue 36, point 6): N agents on 3 worktrees of one clone and 2 worktrees
of a second clone, sharing a remote served by a real `git daemon` on 127.0.0.1, each looping
ready -> claim -> (discover a task) -> checkpoint -> commit -> pull/merge -> push, with random
SIGKILLs of in-flight `small` commands. Standard library only.

    python3 bench/agents_sim.py --small build/small                 # 6 agents, 180 s
    python3 bench/agents_sim.py --small build/small --seconds 45     # the CI run

Asserts: no conflict in .small/ ever, no task completed by two agents, never two live holders of
one task, no entry lost, every entry attached to the task its agent meant, `small check --strict`
passes on every side at the end, and the work converges (every task settled). Prints the figures
and ends with `N passed, N failed`; exits 1 on any violation (2 when the run could not be set up).
See bench/README.md."""
import argparse, collections, datetime, json, os, random, re, shutil, signal, socket, subprocess
import sys, tempfile, threading, time, traceback

SMALL_CMDS_KILLABLE = ("claim", "checkpoint", "plan")
SEED_TASKS = 12
# task index (1-based) -> the indices it depends on
SEED_DEPS = {4: [1], 5: [2], 7: [4, 5], 9: [6], 10: [7], 12: [10, 11]}
TOKEN_RE = re.compile(r"sim:(\S+) agent=(\S+) task=(\S+)")


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc)


def parse_ts(s):
    """RFC 3339 with up to 9 fraction digits, UTC 'Z' (what small writes)."""
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", s or "")
    if not m:
        return None
    frac = (m.group(2) or "0")[:6].ljust(6, "0")
    tz = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.datetime.fromisoformat(f"{m.group(1)}.{frac}{tz}")


RANK = {"completed": 4, "cancelled": 3, "blocked": 2, "in_progress": 1, "pending": 0}


def parse_plan(text):
    """The tasks of a plan small wrote (id, title, status), enough to resolve a conflict."""
    tasks, cur = [], None
    for line in text.splitlines():
        m = re.match(r'\s*-\s+id:\s*"?([^"]*)"?\s*$', line)
        if m:
            cur = dict(id=m.group(1), title=None, status="pending")
            tasks.append(cur)
            continue
        m = re.match(r'\s+(title|status):\s*"?(.*?)"?\s*$', line)
        if m and cur is not None and line.startswith("    ") and not line.startswith("      "):
            cur[m.group(1)] = m.group(2)
    return tasks


def pctl(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def proc_table():
    """pid -> (ppid, state, cmdline) of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            out[int(d)] = (int(fields[1]), fields[0], cmd)
        except (OSError, ValueError, IndexError):
            pass
    return out


def descendants(pid):
    """The pids below pid (children, their children, ...), whatever their process group."""
    table = proc_table()
    kids = collections.defaultdict(list)
    for p, (pp, _, _) in table.items():
        kids[pp].append(p)
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pids):
    """Of pids, those still running (not zombies), as (pid, cmdline)."""
    table = proc_table()
    return [(p, table[p][2]) for p in pids if p in table and table[p][1] not in ("Z", "X")]


class Side:
    def __init__(self, name, path, clone, branch, local_branches=()):
        self.name, self.path, self.clone, self.branch = name, path, clone, branch
        self.local_branches = list(local_branches)  # worktree branches this (main) side merges
        self.lock = threading.Lock()


class Agent:
    def __init__(self, name, side, seed):
        self.name, self.side = name, side
        self.rng = random.Random(seed)
        self.rounds = 0
        self.idle_streak = 0
        self.seq = 0
        self.discovered = 0


class Sim:
    def __init__(self, a):
        self.a = a
        self.small = os.path.realpath(a.small)
        self.mu = threading.RLock()
        self.commands = []           # every command: dict(kind, side, agent, argv, rc, dt, killed)
        self.violations = []         # (kind, detail)
        self.notes = []              # non-violations worth reporting
        self.counts = collections.Counter()
        self.holders = {}            # task -> dict(agent, clone, offline, releasing, at)
        self.settled = {}            # task -> dict(agent, clone, at)  (completing checkpoint exited 0)
        self.offline_grants = set()  # (agent, task) granted --offline or not published
        self.grants = collections.defaultdict(set)  # task -> agents ever granted it
        self.grant_log = []          # dict(task, agent, clone, side, weak, t0, t1) of every granted claim
        self.resolved = set()        # tasks a conflict's resolution set to a settled status
        self.completions = []        # dict(task, agent, side, t0, t1) of every completing checkpoint that exited 0
        self.tokens = {}             # token -> dict(agent, side, task, title, status, rc, killed)
        self.discovered = {}         # title -> dict(agent, side, rc, killed, id)
        self.phase = "work"
        self.max_discovered = a.max_discovered if a.max_discovered is not None else max(16, int(a.seconds / 2))
        self.daemon = None
        self.tmp = None
        self.stop = threading.Event()

    # ---------------------------------------------------------------- processes
    def env_for(self, agent=None):
        env = dict(os.environ)
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="sim",
                   GIT_AUTHOR_EMAIL="sim@example.com", GIT_COMMITTER_NAME="sim",
                   GIT_COMMITTER_EMAIL="sim@example.com", SMALL_NO_UPDATE_CHECK="1",
                   GIT_TERMINAL_PROMPT="0", LC_ALL="C")
        env["PATH"] = self.bindir + os.pathsep + env.get("PATH", "")
        env.pop("SMALL_AGENT", None)
        env.pop("SMALL_CLAIMS_REMOTE", None)
        if agent:
            env["SMALL_AGENT"] = agent
        return env

    def run(self, argv, cwd, side="-", agent="-", kill_p=0.0, rng=None, timeout=180, record=True):
        """Runs argv; with probability kill_p sends SIGKILL to it after a random short delay.
        Returns dict(rc, out, err, killed, dt, t0, t1)."""
        kind = self.kind_of(argv)
        env = self.env_for(agent if agent != "-" else None)
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        killed = False
        out = err = ""
        if kill_p and rng and rng.random() < kill_p:
            delay = rng.uniform(0.0, self.a.kill_max_delay)
            try:
                out, err = p.communicate(timeout=delay)
            except subprocess.TimeoutExpired:
                below = descendants(p.pid)
                os.kill(p.pid, signal.SIGKILL)
                p.wait()
                killed = True
                time.sleep(self.a.orphan_grace)
                left = alive(below)
                if left:
                    self.violation("orphan-children", f"{side}/{agent}: killed `{' '.join(argv[1:])}` "
                                   f"left {len(left)} process(es) running: "
                                   + "; ".join(c[:160] for _, c in left))
                    for q, _ in left:
                        try:
                            os.kill(q, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                try:
                    out, err = p.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    out, err = "", "(output not collected)"
        else:
            try:
                out, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                self.violation("timeout", f"{side}/{agent}: `{' '.join(argv)}` ran over {timeout} s")
        t1 = time.monotonic()
        r = dict(rc=p.returncode, out=out or "", err=err or "", killed=killed, dt=t1 - t0, t0=t0, t1=t1)
        if record:
            rec = dict(kind=kind, side=side, agent=agent, argv=[os.path.basename(argv[0])] + argv[1:],
                       rc=p.returncode, dt=round(t1 - t0, 4), killed=killed)
            if (p.returncode not in (0,) and not killed) or self.a.json_full:
                rec["stderr"] = r["err"][-1500:]
                rec["stdout"] = r["out"][-1500:]
            with self.mu:
                self.commands.append(rec)
                if killed:
                    self.counts["kills"] += 1
                    self.counts[f"kills {kind}"] += 1
        return r

    def kind_of(self, argv):
        base = os.path.basename(argv[0])
        rest = [x for x in argv[1:] if not x.startswith("-")]
        if base == "git":
            return "git " + (rest[0] if rest else "?")
        if os.path.abspath(argv[0]) == self.small or base == "small":
            return "small " + (rest[0] if rest else "?")
        return base

    def small_cmd(self, args, side, agent="-", kill=False, rng=None, retries_busy=40):
        """small --json ARGS in the side's checkout; retries exit 3 (workspace busy)."""
        argv = [self.small, "--json"] + args
        kp = self.a.kill_rate if (kill and self.phase == "work") else 0.0
        for i in range(retries_busy):
            r = self.run(argv, side.path, side.name, agent, kill_p=kp, rng=rng)
            if r["rc"] != 3 or r["killed"]:
                break
            time.sleep(0.1 + 0.05 * i)
        else:
            self.violation("stuck-lock", f"{side.name}/{agent}: `small {' '.join(args)}` still exit 3 "
                           f"(workspace busy) after {retries_busy} tries: {r['err'][-300:]}")
        r["json"] = None
        if not r["killed"]:
            try:
                r["json"] = json.loads(r["out"]) if r["out"].strip() else None
            except ValueError:
                pass
        return r

    def git(self, args, side, agent="-", check=False, cwd=None):
        r = self.run(["git"] + args, cwd or side.path, side.name if side else "-", agent)
        if check and r["rc"] != 0:
            raise RuntimeError(f"git {' '.join(args)} in {cwd or side.path}: exit {r['rc']}\n{r['err']}")
        return r

    def violation(self, kind, detail):
        with self.mu:
            self.violations.append((kind, detail))
        if self.a.verbose:
            print(f"VIOLATION {kind}: {detail}", file=sys.stderr, flush=True)

    # ---------------------------------------------------------------- setup
    def free_port(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        return port

    def start_daemon(self):
        for attempt in range(5):
            self.port = self.free_port()
            self.daemon = subprocess.Popen(
                ["git", "daemon", "--reuseaddr", f"--base-path={self.tmp}", "--export-all",
                 "--enable=receive-pack", "--listen=127.0.0.1", f"--port={self.port}"],
                env=self.env_for(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                start_new_session=True)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if self.daemon.poll() is not None:
                    break
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        pass
                    self.url = f"git://127.0.0.1:{self.port}/remote.git"
                    r = self.run(["git", "ls-remote", self.url], self.tmp, record=False)
                    if r["rc"] == 0:
                        return
                except OSError:
                    pass
                time.sleep(0.1)
            self.stop_daemon()
        raise RuntimeError("git daemon did not start")

    def stop_daemon(self):
        d, self.daemon = self.daemon, None
        if d and d.poll() is None:
            try:
                os.killpg(d.pid, signal.SIGTERM)
                d.wait(timeout=5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(d.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                d.wait()

    def setup(self):
        T = self.tmp
        # git runs the merge driver and the pre-commit hook as `small`, found on PATH: a folder
        # of our own with `small` (and `git-merge-small`) naming the binary under test
        for name in ("small", "git-merge-small"):
            os.symlink(self.small, os.path.join(self.bindir, name))
        self.git(["init", "-q", "--bare", "-b", "main", os.path.join(T, "remote.git")], None, cwd=T, check=True)
        self.start_daemon()
        A, B = os.path.join(T, "A"), os.path.join(T, "B")
        self.git(["clone", "-q", self.url, A], None, cwd=T, check=True)
        sa = Side("A", A, "A", "main")
        r = self.small_cmd(["init", "--no-agents"], sa)
        if r["rc"] != 0:
            raise RuntimeError(f"small init: {r['err']}")
        args = ["plan", "--title", "task-1", "Seed task 1"]
        for i in range(2, SEED_TASKS + 1):
            args += ["--add", f"Seed task {i}"]
        for t, deps in SEED_DEPS.items():
            args += ["--depends", f"task-{t}:" + ",".join(f"task-{d}" for d in deps)]
        r = self.small_cmd(args, sa)
        if r["rc"] != 0:
            raise RuntimeError(f"small {' '.join(args)}: {r['err']}")
        r = self.small_cmd(["hooks", "install", "git"], sa)
        if r["rc"] != 0:
            raise RuntimeError(f"small hooks install git: {r['err']}")
        self.git(["add", "-A"], sa, check=True)
        self.git(["commit", "-q", "-m", "seed plan"], sa, check=True)
        self.git(["push", "-q", "origin", "main"], sa, check=True)
        self.git(["clone", "-q", self.url, B], None, cwd=T, check=True)
        sb = Side("B", B, "B", "main")
        r = self.small_cmd(["hooks", "install", "git"], sb)
        if r["rc"] != 0:
            raise RuntimeError(f"small hooks install git (B): {r['err']}")
        st = self.git(["status", "--porcelain"], sb)
        if st["out"].strip():
            self.notes.append(f"hooks install in clone B changed tracked files: {st['out'].strip()}")
        self.sides = [sa, sb]
        for clone, base, names in (("A", A, ["A2", "A3"]), ("B", B, ["B2"])):
            main_side = sa if clone == "A" else sb
            for n in names:
                p = os.path.join(T, n)
                br = f"side-{n.lower()}"
                self.git(["worktree", "add", "-q", "-b", br, p, "main"], main_side, check=True)
                self.sides.append(Side(n, p, clone, br))
                main_side.local_branches.append(br)
        self.sides.sort(key=lambda s: s.name)
        self.observer = os.path.join(T, "observer.git")
        self.git(["init", "-q", "--bare", self.observer], None, cwd=T, check=True)
        self.agents = []
        for i in range(self.a.agents):
            side = self.sides[i % len(self.sides)]
            self.agents.append(Agent(f"agent-{i + 1}", side, (self.a.seed or 0) * 1000 + i))

    # ---------------------------------------------------------------- git sync
    def commit(self, side, agent, msg):
        self.git(["add", "-A", "--", ".small", ".gitattributes"], side, agent)
        if self.git(["diff", "--cached", "--quiet"], side, agent)["rc"] == 0:
            return False
        r = self.git(["commit", "-q", "-m", msg], side, agent)
        if r["rc"] != 0:
            self.violation("commit-refused", f"{side.name}/{agent}: the pre-commit hook (check --strict) "
                           f"refused `{msg}`: {(r['out'] + r['err'])[-600:]}")
            r = self.git(["commit", "-q", "--no-verify", "-m", msg], side, agent)
        with self.mu:
            self.counts["commits"] += 1
        return r["rc"] == 0

    def merge(self, side, agent, args, what):
        """A merge or pull; a conflict in .small/ is a violation, resolved with --ours to go on."""
        r = self.git(args, side, agent)
        text = r["out"] + r["err"]
        if r["rc"] == 0:
            if "Already up to date" not in text:
                with self.mu:
                    self.counts["merges"] += 1
            return True
        u = self.git(["diff", "--name-only", "--diff-filter=U"], side, agent)["out"].split()
        if u:
            small_paths = [p for p in u if p.startswith(".small/")]
            with self.mu:
                self.counts["conflicts"] += 1
            if small_paths:
                self.violation("conflict", f"{side.name}/{agent}: `git {' '.join(args)}` ({what}) left "
                               f"{', '.join(small_paths)} in conflict: " + " | ".join(
                                   l for l in text.splitlines() if "small merge" in l or "task id" in l
                                   or "CONFLICT" in l or "conflict" in l)[:900])
            else:
                self.notes.append(f"{side.name}: conflict outside .small/: {u}")
            plan = ".small/plan.small.yml"
            ours = parse_plan(self.git(["show", f":2:{plan}"], side, agent)["out"]) if plan in u else []
            theirs = parse_plan(self.git(["show", f":3:{plan}"], side, agent)["out"]) if plan in u else []
            self.git(["checkout", "--ours", "--"] + u, side, agent)
            if plan in u:
                # The driver left the plan as this side had it. Put the other side's changes back,
                # as docs/git.md says: its tasks under new ids, its settled statuses.
                by_title = {t["title"]: t for t in ours}
                edits = []
                for t in theirs:
                    o = by_title.get(t["title"])
                    if o is None:
                        edits.append(dict(title=t["title"], status=t["status"]))
                    elif RANK.get(t["status"], 0) > RANK.get(o["status"], 0):
                        edits.append(dict(id=o["id"], status=t["status"]))
                        with self.mu:
                            self.resolved.add(o["id"])
                if edits:
                    f = os.path.join(self.tmp, f"resolve-{side.name}.json")
                    with open(f, "w") as fh:
                        json.dump(edits, fh)
                    r = self.small_cmd(["plan", "--from", f, "--force", "--agent", agent], side, agent)
                    if r["rc"] != 0:
                        self.notes.append(f"{side.name}: resolving the plan with plan --from failed: "
                                          f"{r['err'][-300:]}")
            self.git(["add", "-A", "--", ".small"] + u, side, agent)
            self.git(["commit", "-q", "--no-verify", "--no-edit"], side, agent)
            with self.mu:
                self.counts["merges"] += 1
            return True
        if "lock" in text:   # another worktree of the clone fetching at the same moment
            return False
        with self.mu:
            self.counts["git errors"] += 1
        self.notes.append(f"{side.name}/{agent}: `git {' '.join(args)}` exit {r['rc']}: {text.strip()[-300:]}")
        self.git(["merge", "--abort"], side, agent)
        return False

    def sync(self, side, agent, rng):
        """Commit, merge (worktree branches into main; origin/main into everyone) and push to
        origin main, retrying a rejected (non-fast-forward) push."""
        self.commit(side, agent, f"{agent} on {side.name}")
        if side.branch == "main":
            for b in side.local_branches:
                self.merge(side, agent, ["merge", "--no-edit", b], f"main merges {b}")
        for attempt in range(10):
            if side.branch == "main":
                ok = self.merge(side, agent, ["pull", "--no-rebase", "--no-edit", "origin", "main"], "pull")
            else:
                f = self.git(["fetch", "-q", "origin"], side, agent)
                ok = f["rc"] == 0 and self.merge(side, agent, ["merge", "--no-edit", "origin/main"],
                                                  f"{side.branch} merges origin/main")
            if ok:
                revs = self.git(["rev-parse", "HEAD", "origin/main"], side, agent)["out"].split()
                if len(revs) == 2 and revs[0] == revs[1]:
                    return True
                p = self.git(["push", "-q", "origin", "HEAD:main"], side, agent)
                if p["rc"] == 0:
                    with self.mu:
                        self.counts["pushes"] += 1
                    return True
                with self.mu:
                    self.counts["push rejected"] += 1
            time.sleep(rng.uniform(0.05, 0.3))
        self.notes.append(f"{side.name}/{agent}: gave up pushing after 10 tries")
        return False

    # ---------------------------------------------------------------- claims tables
    def remote_table(self):
        r = self.run(["git", "fetch", "-q", self.url, "+refs/small/claims:refs/small/claims"],
                     self.observer, "observer")
        if r["rc"] != 0:
            return None
        m = self.run(["git", "log", "-1", "--format=%B", "refs/small/claims"], self.observer, "observer")
        body = m["out"].split("\n\n", 1)
        try:
            return json.loads(body[1]) if len(body) > 1 else json.loads(body[0])
        except ValueError:
            self.violation("bad-remote-table", f"refs/small/claims message is not JSON: {m['out'][:300]}")
            return None

    def check_tables(self, agent):
        """After a claim: no table has two live holders of a task, and no claim an agent holds
        has vanished from its clone's table (or, when published, from the remote's)."""
        with self.mu:
            snapshot = {t: dict(h) for t, h in self.holders.items()}
        t_read = time.monotonic()
        tables = {}
        for clone in ("A", "B"):
            side = next(s for s in self.sides if s.clone == clone and s.branch == "main")
            r = self.small_cmd(["claims"], side, agent)
            if r["json"] is None:
                continue
            tables[clone] = [(c["task"], c["agent"]) for c in r["json"].get("claims", [])
                             if c.get("state") == "live"]
        rt = self.remote_table()
        if rt is not None:
            now = now_utc()
            tables["remote"] = [(c.get("task"), c.get("agent")) for c in rt.get("claims", [])
                                if (parse_ts(c.get("expires_at")) or now) > now]
        for name, live in tables.items():
            by_task = collections.defaultdict(set)
            for t, ag in live:
                by_task[t].add(ag)
            for t, ags in by_task.items():
                if len(ags) > 1:
                    self.violation("two-holders", f"table {name}: {t} has live claims by {sorted(ags)}")
            for t, h in snapshot.items():
                if h["releasing"] or h["at"] > t_read:
                    continue
                if name in ("A", "B") and h["clone"] != name:
                    continue
                if name == "remote" and h["offline"]:
                    continue
                with self.mu:
                    still = self.holders.get(t)
                    rival = h["offline"] and bool(self.grants[t] - {h["agent"]})
                    # settled by another agent, or by a conflict's resolution: dropping the
                    # claim is then right (the claim itself was the fault, reported elsewhere)
                    other = (self.settled.get(t, {}).get("agent", h["agent"]) != h["agent"]
                             or t in self.resolved)
                if still is None or still["agent"] != h["agent"] or still["releasing"] or rival or other:
                    continue
                if h["agent"] not in by_task.get(t, ()):
                    self.violation("claim-vanished", f"{h['agent']}'s {'offline ' if h['offline'] else ''}"
                                   f"claim on {t} (granted on clone {h['clone']}) is not in table {name}")

    # ---------------------------------------------------------------- one agent's round
    def task_title(self, side, agent, task, ready):
        for t in ready:
            if t.get("id") == task and t.get("title"):
                return t["title"]
        r = self.small_cmd(["plan", "show", task], side, agent.name)
        if r["json"]:
            for t in r["json"].get("tasks", []):
                if t.get("id") == task:
                    return t.get("title")
        return None

    def checkpoint(self, side, agent, task, title, status, kill=True, weak=False):
        agent.seq += 1
        token = f"{agent.name}.{agent.seq}"
        ev = f"sim:{token} agent={agent.name} task={task} title={title}"
        r = self.small_cmd(["checkpoint", "--task", task, "--status", status, "--evidence", ev,
                            "--agent", agent.name], side, agent.name, kill=kill, rng=agent.rng)
        with self.mu:
            self.tokens[token] = dict(agent=agent.name, side=side.name, task=task, title=title,
                                      status=status, rc=r["rc"], killed=r["killed"])
        if not r["killed"] and r["rc"] != 0 and not weak:
            self.violation("own-work-refused", f"{side.name}/{agent.name}: checkpoint {task} {status} "
                           f"(held by it) exit {r['rc']}: {(r['err'] or r['out']).strip()[-400:]}")
        return r

    def round(self, agent):
        """ready -> claim -> work (and now and then a discovered task) -> complete, then commit,
        merge and push; an agent that finds nothing only syncs."""
        side = agent.side
        with side.lock:
            agent.rounds += 1
            try:
                self.work(agent, side, agent.rng)
            finally:
                self.sync(side, agent.name, agent.rng)

    def work(self, agent, side, rng):
        t_ready = time.monotonic()
        rr = self.small_cmd(["ready", "--agent", agent.name], side, agent.name)
        ready = (rr["json"] or {}).get("ready", []) + (rr["json"] or {}).get("held", [])
        with self.mu:
            for t in (rr["json"] or {}).get("ready", []):
                s = self.settled.get(t.get("id"))
                if s and s["clone"] == side.clone and s["at"] < t_ready:
                    self.violation("reoffered-settled", f"{side.name}/{agent.name}: `ready` lists {t['id']}, "
                                   f"completed by {s['agent']} on clone {s['clone']} (same clone)")
        offline = self.phase == "work" and rng.random() < self.a.offline_rate
        args = ["claim", "--next", "--agent", agent.name] + (["--offline"] if offline else [])
        t_claim = time.monotonic()
        rc = self.small_cmd(args, side, agent.name, kill=True, rng=rng)
        if rc["killed"]:
            return
        js = rc["json"] or {}
        if rc["rc"] != 0 or not js.get("claim"):
            agent.idle_streak += 1
            with self.mu:
                self.counts["claims without a task"] += 1
            if self.phase == "work" and rng.random() < 0.5:
                self.discover(agent, side, rng)   # keep work coming for the whole run
            time.sleep(rng.uniform(0.05, 0.3))
            return
        task = js["claim"]["task"]
        published = bool(js["claim"].get("published", js.get("published")))
        weak = offline or not published
        with self.mu:
            self.counts["claims granted"] += 1
            if weak:
                self.counts["claims not published"] += 1
            h = self.holders.get(task)
            if h and h["agent"] != agent.name and not h["releasing"]:
                if (weak or h["offline"]) and h["clone"] != side.clone:
                    self.counts["offline rivalries"] += 1
                else:
                    self.violation("two-holders", f"{side.name}/{agent.name} was granted {task} while "
                                   f"{h['agent']} (clone {h['clone']}"
                                   f"{', offline' if h['offline'] else ''}) holds it")
            s = self.settled.get(task)
            if s and s["at"] < t_claim and not (weak and s["clone"] != side.clone):
                self.violation("reoffered-settled", f"{side.name}/{agent.name}: `claim --next` granted "
                               f"{task}, completed by {s['agent']} on clone {s['clone']} "
                               f"{t_claim - s['at']:.1f} s earlier")
            self.holders[task] = dict(agent=agent.name, clone=side.clone, offline=weak,
                                      releasing=False, at=time.monotonic())
            self.grants[task].add(agent.name)
            self.grant_log.append(dict(task=task, agent=agent.name, clone=side.clone, side=side.name,
                                       weak=weak, t0=rc["t0"], t1=rc["t1"]))
            if weak:
                self.offline_grants.add((agent.name, task))
        agent.idle_streak = 0
        if self.a.table_checks:
            self.check_tables(agent.name)
        title = self.task_title(side, agent, task, ready)
        r = self.checkpoint(side, agent, task, title, "in_progress", weak=weak)
        if r["killed"]:
            # The agent does not know whether its start landed, nor, after an offline claim,
            # whether the claim is still its own (an exchange by anyone on its clone drops an
            # offline claim the remote gave to another agent, D19): it starts again, as it
            # completes again below, and learns it there.
            r = self.checkpoint(side, agent, task, title, "in_progress", kill=False, weak=weak)
        if r["rc"] != 0 and not r["killed"] and weak:
            # an offline claim another agent's published claim beat: drop it, as D19 says
            with self.mu:
                self.counts["offline claims lost"] += 1
                h = self.holders.get(task)
                if h and h["agent"] == agent.name:
                    del self.holders[task]
            self.small_cmd(["release", task, "--agent", agent.name], side, agent.name)
            return
        if self.phase == "work" and rng.random() < self.a.discover_rate:
            self.discover(agent, side, rng)
        time.sleep(rng.uniform(0.0, self.a.work_time))
        with self.mu:
            if task in self.holders:
                self.holders[task]["releasing"] = True
        r = self.checkpoint(side, agent, task, title, "completed")
        if r["killed"]:  # the agent does not know whether it landed: it does it again (not killed)
            r = self.checkpoint(side, agent, task, title, "completed", kill=False)
        with self.mu:
            if r["rc"] == 0 and not r["killed"]:
                self.settled.setdefault(task, dict(agent=agent.name, clone=side.clone, at=r["t1"]))
                self.completions.append(dict(task=task, agent=agent.name, side=side.name, t0=r["t0"], t1=r["t1"]))
            h = self.holders.get(task)
            if h and h["agent"] == agent.name:
                del self.holders[task]

    def discover(self, agent, side, rng):
        """small plan --add a task found on the way (up to --max-discovered)."""
        with self.mu:
            if len(self.discovered) >= self.max_discovered:
                return
            agent.discovered += 1
            dt = f"Found by {agent.name} #{agent.discovered}"
            self.discovered[dt] = dict(agent=agent.name, side=side.name, rc=None, killed=None, id=None)
        r = self.small_cmd(["plan", "--add", dt, "--agent", agent.name], side, agent.name, kill=True, rng=rng)
        with self.mu:
            self.discovered[dt].update(rc=r["rc"], killed=r["killed"], id=(r["json"] or {}).get("added_task_id"))

    def agent_loop(self, agent, deadline, limit_rounds):
        try:
            while not self.stop.is_set():
                if self.phase == "work" and time.monotonic() >= deadline:
                    break
                if self.phase == "converge":
                    if agent.conv_rounds >= limit_rounds or self.converged():
                        break
                    agent.conv_rounds += 1
                self.round(agent)
        except Exception:
            self.violation("simulator-error", f"{agent.name}: {traceback.format_exc()[-1500:]}")

    def converged(self):
        return all(ag.idle_streak >= 2 for ag in self.agents)

    # ---------------------------------------------------------------- final state
    def final_sync(self):
        rng = random.Random(1)
        for _ in range(2):
            for side in self.sides:
                with side.lock:
                    self.sync(side, "final", rng)
        main_a = next(s for s in self.sides if s.name == "A")
        with main_a.lock:
            r = self.small_cmd(["handoff"], main_a, "final")
            if r["rc"] != 0:
                self.notes.append(f"small handoff on A: exit {r['rc']}: {r['err'][-300:]}")
            self.sync(main_a, "final", rng)
        for _ in range(2):
            for side in self.sides:
                with side.lock:
                    self.sync(side, "final", rng)
        for side in self.sides:   # everyone at origin/main
            if side.branch == "main":
                self.merge(side, "final", ["pull", "--no-rebase", "--no-edit", "origin", "main"], "final pull")
            else:
                self.git(["fetch", "-q", "origin"], side, "final")
                self.merge(side, "final", ["merge", "--no-edit", "origin/main"], "final merge")

    def final_state(self, side):
        r = self.small_cmd(["emit", "--include", "plan,progress", "--recent", "0"], side, "final")
        js = r["json"] or {}
        tasks = (js.get("plan") or {}).get("tasks") or []
        entries = (js.get("progress") or {}).get("recent") or []
        return tasks, entries

    # ---------------------------------------------------------------- main
    def execute(self):
        t_start = self.t_base = time.monotonic()
        self.setup()
        t_setup = time.monotonic() - t_start
        deadline = time.monotonic() + self.a.seconds
        for ag in self.agents:
            ag.conv_rounds = 0
        threads = [threading.Thread(target=self.agent_loop, args=(ag, deadline, 0), daemon=True)
                   for ag in self.agents]
        for t in threads:
            t.start()
        self.wait_threads(threads)
        work_rounds = sum(ag.rounds for ag in self.agents)
        self.phase = "converge"
        t_conv = time.monotonic()
        for ag in self.agents:
            ag.idle_streak = 0
        threads = [threading.Thread(target=self.agent_loop, args=(ag, 0, self.a.converge_rounds), daemon=True)
                   for ag in self.agents]
        for t in threads:
            t.start()
        self.wait_threads(threads)
        conv_time = time.monotonic() - t_conv
        self.phase = "final"
        self.final_sync()
        return self.assess(t_start, t_setup, work_rounds, conv_time)

    def wait_threads(self, threads):
        for t in threads:
            while t.is_alive():
                t.join(0.5)

    def assess(self, t_start, t_setup, work_rounds, conv_time):
        results = []   # (name, ok, detail)

        def kinds(*ks):
            return [v for v in self.violations if v[0] in ks]

        main_a = next(s for s in self.sides if s.name == "A")
        tasks, entries = self.final_state(main_a)
        by_id = {t.get("id"): t for t in tasks}
        heads = {}
        for side in self.sides:
            heads[side.name] = self.git(["rev-parse", "HEAD:.small"], side, "final")["out"].strip()
        remote_head = self.run(["git", "ls-remote", self.url, "refs/heads/main"], self.tmp)["out"].split()[:1]

        results.append(("no conflict in .small/", not kinds("conflict"), kinds("conflict")))

        completed_by = collections.defaultdict(set)
        found = {}
        for e in entries:
            m = TOKEN_RE.search(e.get("evidence") or "")
            if not m:
                continue
            found.setdefault(m.group(1), []).append(e)
            if e.get("status") == "completed":
                completed_by[e.get("task_id")].add(m.group(2))
        twice = []
        for t, ags in completed_by.items():
            if len(ags) > 1:
                off = [ag for ag in ags if (ag, t) in self.offline_grants]
                detail = f"{t} ({by_id.get(t, {}).get('title')!r}) completed by {sorted(ags)}"
                if off:
                    self.notes.append(f"excused (offline claim by {off}): {detail}")
                else:
                    twice.append(detail)
        results.append(("no task done twice", not twice, twice))
        # D19: exactly one agent wins a task through the remote. Claims are released only by
        # settling the task, so a second agent granted a task online means two live holders or
        # a settled task handed out again, whatever the timing.
        twice_granted = []
        t_base = self.t_base
        by_task = collections.defaultdict(list)
        for g in self.grant_log:
            if not g["weak"]:
                by_task[g["task"]].append(g)
        for t, gs in sorted(by_task.items()):
            gs.sort(key=lambda g: g["t1"])
            first = gs[0]
            for g in gs[1:]:
                if g["agent"] == first["agent"]:
                    continue
                done = [c for c in self.completions if c["task"] == t and c["agent"] == first["agent"]]
                if any(c["t1"] < g["t0"] for c in done):
                    how = "handed out again after its completion had returned"
                elif any(c["t0"] < g["t1"] for c in done):
                    how = "granted while its holder's completing checkpoint ran (the release is not a settlement)"
                else:
                    how = "two live holders: granted before its holder began to complete it"
                twice_granted.append(
                    f"{t} granted to {first['agent']} on {first['side']} at +{first['t1'] - t_base:.1f} s and to "
                    f"{g['agent']} on {g['side']} at +{g['t1'] - t_base:.1f} s ({how}; completions: "
                    + ", ".join(f"{c['agent']} at +{c['t1'] - t_base:.1f} s" for c in self.completions
                                if c["task"] == t) + ")")
                break
        results.append(("never two live holders (one online winner per task)",
                        not kinds("two-holders") and not twice_granted, kinds("two-holders") + twice_granted))
        results.append(("a settled task is never handed out again", not kinds("reoffered-settled"),
                        kinds("reoffered-settled")))
        results.append(("no claim vanishes", not kinds("claim-vanished"), kinds("claim-vanished")))

        lost = []
        for tok, info in self.tokens.items():
            if info["rc"] == 0 and not info["killed"] and tok not in found:
                lost.append(f"{tok}: {info['task']} {info['status']} by {info['agent']} on {info['side']}")
        titles = collections.Counter(t.get("title") for t in tasks)
        for title, info in self.discovered.items():
            if info["rc"] == 0 and not info["killed"] and titles[title] == 0:
                lost.append(f"task {title!r} added as {info['id']} on {info['side']} is not in the final plan")
        dup = [f"title {t!r} appears {n} times in the final plan" for t, n in titles.items() if n > 1]
        results.append(("no entry lost", not lost and not dup, lost + dup))

        misattached = []
        for tok, es in found.items():
            info = self.tokens.get(tok)
            if not info:
                continue
            for e in es:
                t = by_id.get(e.get("task_id"))
                if t is None or t.get("title") != info["title"]:
                    misattached.append(f"{tok} meant {info['task']} {info['title']!r}, the entry names "
                                       f"{e.get('task_id')} ({(t or {}).get('title')!r})")
        results.append(("every entry attached to the task its side meant", not misattached, misattached))

        strict = []
        for side in self.sides:
            r = self.small_cmd(["check", "--strict"], side, "final")
            if r["rc"] != 0:
                strict.append(f"{side.name}: exit {r['rc']}: " + " | ".join(
                    (r["err"] + r["out"]).strip().splitlines()[:8])[:700])
        results.append(("check --strict passes on every side", not strict, strict))

        unsettled = [f"{t.get('id')} {t.get('title')!r}: {t.get('status')}" for t in tasks
                     if t.get("status") not in ("completed", "cancelled")]
        same = len(set(heads.values())) == 1
        conv = []
        if unsettled:
            conv.append(f"{len(unsettled)} task(s) not settled: " + "; ".join(unsettled[:12]))
        if not same:
            conv.append("sides differ in .small/: " + ", ".join(f"{k}={v[:10]}" for k, v in heads.items()))
        if not tasks:
            conv.append("no final plan could be read")
        results.append(("the work converges (every task settled, every side the same)", not conv, conv))

        left = []
        for clone in ("A", "B"):
            side = next(x for x in self.sides if x.clone == clone and x.branch == "main")
            r = self.small_cmd(["claims"], side, "final")
            for c in (r["json"] or {}).get("claims", []):
                if c.get("state") == "live":
                    left.append(f"table of clone {clone}: {c.get('task')} still held by {c.get('agent')} "
                                f"until {c.get('expires_at')} ({by_id.get(c.get('task'), {}).get('status')} in the plan)")
        rt = self.remote_table()
        now = now_utc()
        for c in (rt or {}).get("claims", []):
            if (parse_ts(c.get("expires_at")) or now) > now:
                left.append(f"remote table: {c.get('task')} still held by {c.get('agent')} until {c.get('expires_at')}")
        results.append(("every claim is released once its task is settled", not left, left))

        others = kinds("orphan-children", "stuck-lock", "own-work-refused", "commit-refused", "timeout",
                       "bad-remote-table", "simulator-error")
        results.append(("no killed command leaves children, no stuck lock, no refused own work, "
                        "no refused commit", not others, others))

        wall = time.monotonic() - t_start
        lat = collections.defaultdict(list)
        for c in self.commands:
            if not c["killed"] and c["side"] != "observer":
                lat[c["kind"]].append(c["dt"])
        summary = dict(
            seed=self.a.seed, agents=len(self.agents), sides=len(self.sides),
            assignment={ag.name: ag.side.name for ag in self.agents},
            rounds=sum(ag.rounds for ag in self.agents), work_rounds=work_rounds,
            rounds_per_agent={ag.name: ag.rounds for ag in self.agents},
            commands=len(self.commands), tasks=len(tasks), entries=len(entries),
            discovered=len(self.discovered), checkpoints=len(self.tokens),
            counts=dict(self.counts), wall_s=round(wall, 1), setup_s=round(t_setup, 1),
            converge_s=round(conv_time, 1),
            violations=dict(collections.Counter(k for k, _ in self.violations)),
            latency={k: dict(n=len(v), median_ms=round(pctl(v, 0.5) * 1000, 1),
                             p90_ms=round(pctl(v, 0.9) * 1000, 1), max_ms=round(max(v) * 1000, 1))
                     for k, v in sorted(lat.items())},
            remote_main=remote_head[0] if remote_head else None)
        return results, summary

    def report(self, results, summary):
        s = summary
        c = s["counts"]
        print(f"agents_sim: {s['agents']} agents on {s['sides']} sides "
              f"({', '.join(f'{a}@{b}' for a, b in s['assignment'].items())}), seed {s['seed']}")
        print(f"rounds {s['rounds']} ({s['work_rounds']} with kills, the rest converging), "
              f"commands {s['commands']}, claims granted {c.get('claims granted', 0)}, "
              f"checkpoints {s['checkpoints']}, discovered tasks {s['discovered']}")
        print(f"commits {c.get('commits', 0)}, merges {c.get('merges', 0)}, pushes {c.get('pushes', 0)} "
              f"(rejected {c.get('push rejected', 0)}), kills {c.get('kills', 0)} "
              + "(" + ", ".join(f"{k[6:]} {v}" for k, v in sorted(c.items()) if k.startswith("kills ")) + ")"
              f", conflicts {c.get('conflicts', 0)}, git errors {c.get('git errors', 0)}")
        print(f"final plan: {s['tasks']} tasks, {s['entries']} progress entries; wall {s['wall_s']} s "
              f"(setup {s['setup_s']} s, converging {s['converge_s']} s)")
        print("violations: " + (", ".join(f"{k} {v}" for k, v in sorted(s["violations"].items())) or "none"))
        print(f"{'command':<20}{'n':>6}{'median ms':>11}{'p90 ms':>9}{'max ms':>9}")
        for k, v in s["latency"].items():
            print(f"{k:<20}{v['n']:>6}{v['median_ms']:>11}{v['p90_ms']:>9}{v['max_ms']:>9}")
        for n in self.notes[:15]:
            print(f"note: {n}")
        if len(self.notes) > 15:
            print(f"note: ... {len(self.notes) - 15} more")
        passed = failed = 0
        for name, ok, detail in results:
            print(f"{'PASS' if ok else 'FAIL'}  {name}")
            if not ok:
                for d in detail[:self.a.show]:
                    print(f"      {d if isinstance(d, str) else d[0] + ': ' + d[1]}")
                if len(detail) > self.a.show:
                    print(f"      ... {len(detail) - self.a.show} more")
            passed += ok
            failed += not ok
        print(f"{passed} passed, {failed} failed")
        return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", default="build/small", help="the binary (default: build/small)")
    ap.add_argument("--agents", type=int, default=6, help="agents (default 6, at least 6)")
    ap.add_argument("--seconds", type=float, default=180, help="time with kills and discoveries (default 180)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock; printed)")
    ap.add_argument("--kill-rate", type=float, default=0.05,
                    help="probability that a claim, checkpoint or plan --add is SIGKILLed (default 0.05)")
    ap.add_argument("--kill-max-delay", type=float, default=0.15, help="kill within this many seconds (0.15)")
    ap.add_argument("--orphan-grace", type=float, default=0.05,
                    help="a child of a killed command still running this long after the kill is an orphan (0.05 s)")
    ap.add_argument("--offline-rate", type=float, default=0.05, help="share of claims made --offline (0.05)")
    ap.add_argument("--discover-rate", type=float, default=0.3, help="chance per task of a plan --add (0.3)")
    ap.add_argument("--max-discovered", type=int, default=None,
                    help="cap on discovered tasks (default: one per 2 s of --seconds, at least 16)")
    ap.add_argument("--work-time", type=float, default=0.3, help="max sleep between start and completion (0.3 s)")
    ap.add_argument("--converge-rounds", type=int, default=40, help="round limit per agent after the time is up")
    ap.add_argument("--no-table-checks", dest="table_checks", action="store_false",
                    help="skip reading every claims table after each claim")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (printed)")
    ap.add_argument("--workdir", help="parent of the temporary directory")
    ap.add_argument("--json", metavar="FILE", help="write the summary, results, violations and every command")
    ap.add_argument("--json-full", action="store_true", help="with --json: keep every command's output")
    ap.add_argument("--show", type=int, default=6, help="details shown per failed assertion (6)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print violations as they happen")
    a = ap.parse_args()
    if a.agents < 6:
        ap.error("--agents must be at least 6")
    if a.seed is None:
        a.seed = int(time.time()) % 100000
    if not os.path.isfile(a.small) or not os.access(a.small, os.X_OK):
        print(f"agents_sim: {a.small} is not an executable", file=sys.stderr)
        return 2
    sim = Sim(a)
    sim.tmp = tempfile.mkdtemp(prefix="small-agents-sim-", dir=a.workdir)
    sim.bindir = os.path.join(sim.tmp, "bin")
    os.mkdir(sim.bindir)
    old_int = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    code = 2
    try:
        results, summary = sim.execute()
        failed = sim.report(results, summary)
        code = 1 if failed else 0
        if a.json:
            with open(a.json, "w") as f:
                json.dump(dict(summary=summary, results=[dict(name=n, ok=o, detail=[
                    d if isinstance(d, str) else list(d) for d in det]) for n, o, det in results],
                    violations=sim.violations, notes=sim.notes, commands=sim.commands), f, indent=1)
    except KeyboardInterrupt:
        sim.stop.set()
        print("agents_sim: interrupted", file=sys.stderr)
        code = 130
    except Exception:
        sim.stop.set()
        traceback.print_exc()
        code = 2
    finally:
        sim.stop.set()
        sim.stop_daemon()
        signal.signal(signal.SIGINT, old_int)
        if a.keep:
            print(f"kept: {sim.tmp} (remote: {sim.tmp}/remote.git; sides A A2 A3 B B2)")
        else:
            shutil.rmtree(sim.tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
