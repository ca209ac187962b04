#!/usr/bin/env python3
"""Runs the steps of action.yml (the composite GitHub Action) as the runner
would, in a temporary repository: the `${{ ... }}` expressions of each step's
env given their values, GITHUB_PATH and GITHUB_OUTPUT as files. With the cache
restored (small is there): the annotations, the exit code output and the SARIF
file, on a broken workspace and a clean one. Then the install step against a
local HTTP server standing in for the release host: the real archive made by
scripts/release.sh is downloaded, verified and used without a build; a wrong
checksum and a missing archive fall back to the build (SMALL_BUILD_COMMAND, a
copy of the built binary, stands in for scripts/setup.sh).

The job's log of two runs (a release archive installed, a missing one built,
then a broken workspace's annotations) is docs/ci.md's "what the log shows":
the test makes it (paths, ports and digests masked) and fails when the docs
show another; SMALL_DOCS_UPDATE=1 writes it into the docs.

Usage: action_test.py SOURCE_DIR SMALL_BINARY
"""
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

SOURCE, SMALL = sys.argv[1], os.path.abspath(sys.argv[2])
FAILURES = []
LOGS = {}  # the job log's parts docs/ci.md shows, by case


def check(condition, what):
    if not condition:
        FAILURES.append(what)


def expand(value, context):
    """The ${{ ... }} expressions this action uses, with the test's values."""
    def one(match):
        expr = match.group(1).strip()
        if expr not in context:
            raise SystemExit(f"action.yml uses an expression the test does not know: {expr}")
        return context[expr]
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def run_action(repo, inputs, runner_temp, extra_env=None):
    """Runs every step; returns the check step's result, the outputs and each step's result by id."""
    with open(os.path.join(SOURCE, "action.yml")) as f:
        action = yaml.safe_load(f)
    check(action["runs"]["using"] == "composite", "not a composite action")
    context = {"runner.temp": runner_temp, "github.action_path": SOURCE,
               "github.action_repository": "", "github.server_url": "https://github.invalid"}
    for name, spec in action["inputs"].items():
        context[f"inputs.{name}"] = inputs.get(name, spec.get("default", ""))
    github_path = os.path.join(runner_temp, "github_path")
    github_output = os.path.join(runner_temp, "github_output")
    open(github_path, "w").close()
    open(github_output, "w").close()
    result = None
    results = {}
    for step in action["runs"]["steps"]:
        if "uses" in step:
            check(step["uses"].startswith("actions/cache@"), "unexpected action " + step["uses"])
            key = open(github_output).read()
            check(re.search(r"^key=small-[A-Za-z]+-.*-v\d+\.\d+\.\d+-[0-9a-f]{16}$", key, re.M),
                  "no cache key before the cache step: " + key)
            check(step["with"]["key"] == "${{ steps.key.outputs.key }}", "the cache key is not the key step's")
            continue
        env = dict(os.environ, GITHUB_PATH=github_path, GITHUB_OUTPUT=github_output, GITHUB_ACTIONS="true",
                   **(extra_env or {}))
        env["PATH"] = os.pathsep.join([p for p in open(github_path).read().split("\n") if p] + ["/usr/bin", "/bin"])
        for key, value in step.get("env", {}).items():
            env[key] = expand(value, context)
        result = subprocess.run(["bash", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        results[step.get("id", step["name"])] = result
        if step.get("id") != "check":
            check(result.returncode == 0, f"step {step['name']} failed: {result.stderr}")
    outputs = dict(line.split("=", 1) for line in open(github_output).read().splitlines() if "=" in line)
    return result, outputs, results


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    """A release host on 127.0.0.1 (python's http.server), stopped by the caller."""
    handler = functools.partial(QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def release_hosts(tmp):
    """good/: the real archive and .sha256 from scripts/release.sh; bad/: its .sha256 wrong; missing/: empty."""
    host = os.path.join(tmp, "host")
    good = os.path.join(host, "good")
    made = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "release.sh"), SMALL, good],
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise SystemExit("scripts/release.sh failed:\n" + made.stderr)
    archive = [f for f in os.listdir(good) if f.endswith(".tar.gz")][0]
    bad = os.path.join(host, "bad")
    os.makedirs(bad)
    shutil.copy(os.path.join(good, archive), bad)
    with open(os.path.join(bad, archive + ".sha256"), "w") as f:
        f.write(hashlib.sha256(b"another archive").hexdigest() + "  " + archive + "\n")
    os.makedirs(os.path.join(host, "missing"))
    return host, archive


def cache_keys():
    """The key names the OS image and the version: another image gives another key."""
    script = os.path.join(SOURCE, "scripts", "action-install.sh")
    keys = []
    for image in ("ubuntu22", "ubuntu24"):
        env = dict(os.environ, RUNNER_OS="Linux", ImageOS=image, ImageVersion="20260101.1")
        env.pop("GITHUB_OUTPUT", None)
        keys.append(subprocess.run(["bash", script, "cache-key"], env=env, capture_output=True, text=True).stdout)
    version = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "version.sh")], capture_output=True,
                             text=True).stdout.strip()
    check(keys[0].startswith("small-Linux-ubuntu22-20260101.1-") and f"-v{version}-" in keys[0],
          "cache key without the image or the version: " + keys[0])
    check(keys[0] != keys[1], "the same cache key on two images: " + keys[0])
    # An install cached before a pin (or from another host) is never used under it (second read).
    for extra in ({"SMALL_ARCHIVE_SHA256": "0" * 64}, {"SMALL_RELEASE_URL": "https://mirror.example/small"}):
        env = dict(os.environ, RUNNER_OS="Linux", ImageOS="ubuntu22", ImageVersion="20260101.1", **extra)
        env.pop("GITHUB_OUTPUT", None)
        other = subprocess.run(["bash", script, "cache-key"], env=env, capture_output=True, text=True).stdout
        check(other != keys[0], f"the same cache key with {extra}: {other}")


def install_cases(tmp):
    host, archive = release_hosts(tmp)
    server = serve(host)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        # pinned: the good archive, but the archive-sha256 input names another digest.
        for case, expected in (("good", "release"), ("bad", "build"), ("missing", "build"), ("pinned", "build")):
            base = os.path.join(tmp, "install-" + case)
            repo, runner_temp = os.path.join(base, "repo"), os.path.join(base, "runner")
            os.makedirs(repo)
            os.makedirs(runner_temp)
            subprocess.run([SMALL, "init", "--intent", "install test", "--no-agents"], cwd=repo, check=True,
                           capture_output=True)
            marker = os.path.join(base, "built")
            build = f'touch "{marker}" && mkdir -p "$SMALL_BUILD_DIR" && cp "{SMALL}" "$SMALL_BUILD_DIR/small"'
            inputs = {"release-url": f"{url}/{'good' if case == 'pinned' else case}"}
            if case == "pinned":
                inputs["archive-sha256"] = hashlib.sha256(b"another archive").hexdigest()
            clean, outputs, steps = run_action(repo, inputs, runner_temp, {"SMALL_BUILD_COMMAND": build})
            log = steps["install"].stdout + steps["install"].stderr
            LOGS[case] = (log, url, tmp)
            check(outputs.get("source") == expected, f"{case}: installed from {outputs.get('source')}, not {expected}\n{log}")
            check(os.path.exists(marker) == (expected == "build"), f"{case}: built? {os.path.exists(marker)}\n{log}")
            check(clean.returncode == 0, f"{case}: small check after the install: exit {clean.returncode}\n{clean.stderr}")
            installed = os.path.join(runner_temp, "small-install", "bin", "small")
            if case == "good":
                sums = os.path.join(tmp, "host", "good", archive)
                check(not os.path.islink(installed), "good: bin/small is not the archive's")
                check(f"installed {archive[:-7]} from {url}/good" in log, "good: no install line\n" + log)
                inside = subprocess.run(["tar", "-xzOf", sums, archive[:-7] + "/SHA256SUMS"], capture_output=True,
                                        text=True).stdout
                digest = hashlib.sha256(open(installed, "rb").read()).hexdigest()
                check(f"{digest}  bin/small" in inside, "good: the installed binary is not the archive's")
            if case in ("bad", "pinned"):
                check("::notice title=small install::checksum mismatch" in log, "bad: no checksum notice\n" + log)
            if case == "missing":
                check("::notice title=small install::no release archive" in log and "404" in log,
                      "missing: no notice naming the 404\n" + log)
    finally:
        server.shutdown()


def masked(text, url, tmp):
    """The log as the docs show it: the host, the folders and the digests stand for any."""
    version = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "version.sh")], capture_output=True,
                             text=True).stdout.strip()
    text = re.sub(re.escape(url) + r"/[a-z]+", f"https://github.com/OWNER/small/releases/download/v{version}", text)
    text = text.replace(tmp, "/tmp").replace(SOURCE, f"/home/runner/work/_actions/OWNER/small/v{version}")
    text = re.sub(r"\b[0-9a-f]{64}\b", "<sha256>", text)
    return re.sub(r"/tmp/install-[a-z]+/runner/", "/home/runner/work/_temp/", text)


def docs_show_the_log():
    """docs/ci.md's block between the markers is this run's log (masked)."""
    if not all(k in LOGS for k in ("good", "missing", "annotations")):
        check(False, "the log's parts were not all made")
        return
    good, url, tmp = LOGS["good"]
    missing = LOGS["missing"][0]
    shown = ("# Install small (a release of the action's version exists)\n" + masked(good, url, tmp).strip() +
             "\n\n# Install small (no release archive: the build fallback)\n" +
             masked(missing, url, tmp).strip() + "\n\n# small check (a broken workspace)\n" +
             LOGS["annotations"].strip() + "\n")
    docs = os.path.join(SOURCE, "docs", "ci.md")
    text = open(docs).read()
    begin, end = "<!-- action-log: made by tests/ci/action_test.py -->\n```text\n", "```\n<!-- /action-log -->"
    if begin not in text or end not in text:
        check(False, "docs/ci.md has no action-log block")
        return
    head, rest = text.split(begin, 1)
    current, tail = rest.split(end, 1)
    if os.environ.get("SMALL_DOCS_UPDATE") == "1":
        open(docs, "w").write(head + begin + shown + end + tail)
    else:
        check(current == shown, "docs/ci.md shows another job log than the Action prints now "
              "(SMALL_DOCS_UPDATE=1 rewrites it):\n" + shown)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        runner_temp = os.path.join(tmp, "runner")
        os.makedirs(os.path.join(runner_temp, "small-install", "bin"))
        os.makedirs(repo)
        # The cache step restored an install: the binary is where the install step looks.
        os.symlink(SMALL, os.path.join(runner_temp, "small-install", "bin", "small"))
        subprocess.run([SMALL, "init", "--intent", "action test", "--no-agents"], cwd=repo, check=True,
                       capture_output=True)

        clean, outputs, _ = run_action(repo, {}, runner_temp)
        check(clean.returncode == 0, f"clean workspace: exit {clean.returncode}\n{clean.stdout}{clean.stderr}")
        check(outputs.get("exit-code") == "0", f"clean workspace: exit-code output {outputs}")
        check(outputs.get("source") == "cache", f"a restored cache was not used: {outputs}")

        plan = os.path.join(repo, ".small", "plan.small.yml")
        text = open(plan).read().replace('owner: "agent"', 'owner: "human"', 1)
        open(plan, "w").write(text)
        sarif = os.path.join(tmp, "small.sarif")
        broken, outputs, _ = run_action(repo, {"sarif-file": sarif}, runner_temp)
        check(broken.returncode == 1, f"broken workspace: exit {broken.returncode}\n{broken.stderr}")
        check(outputs.get("exit-code") == "1", f"broken workspace: exit-code output {outputs}")
        check(broken.stdout.startswith("::error file=.small/plan.small.yml,line=2,"),
              "no annotation at the plan's owner:\n" + broken.stdout)
        LOGS["annotations"] = broken.stdout + broken.stderr
        doc = json.load(open(sarif))
        check(doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
              == ".small/plan.small.yml", "SARIF file: " + json.dumps(doc)[:400])

        usage, outputs, _ = run_action(repo, {"args": "--strict --workspace nowhere"}, runner_temp)
        check(usage.returncode == 2 and outputs.get("exit-code") == "2", f"usage error: exit {usage.returncode}")

        cache_keys()
        install_cases(tmp)
        docs_show_the_log()

    if FAILURES:
        print("\n".join("FAIL: " + f for f in FAILURES))
        return 1
    print("PASS: action.yml installs small (cache, verified release archive, build on 404 or a bad checksum) "
          "and runs small check with annotations, exit-code output and SARIF")
    return 0


if __name__ == "__main__":
    sys.exit(main())
