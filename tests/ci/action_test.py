#!/usr/bin/env python3
"""Runs the steps of action.yml (the composite GitHub Action) as the runner
would, in a temporary repository: the cache restored (a build is there), the
`${{ ... }}` expressions of each step's env given their values, GITHUB_PATH
and GITHUB_OUTPUT as files. Checks the annotations, the exit code output and
the SARIF file, on a broken workspace and a clean one.

Usage: action_test.py SOURCE_DIR SMALL_BINARY
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

SOURCE, SMALL = sys.argv[1], os.path.abspath(sys.argv[2])
FAILURES = []


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


def run_action(repo, inputs, runner_temp):
    with open(os.path.join(SOURCE, "action.yml")) as f:
        action = yaml.safe_load(f)
    check(action["runs"]["using"] == "composite", "not a composite action")
    context = {"runner.temp": runner_temp, "github.action_path": SOURCE}
    for name, spec in action["inputs"].items():
        context[f"inputs.{name}"] = inputs.get(name, spec.get("default", ""))
    github_path = os.path.join(runner_temp, "github_path")
    github_output = os.path.join(runner_temp, "github_output")
    open(github_path, "w").close()
    open(github_output, "w").close()
    result = None
    for step in action["runs"]["steps"]:
        if "uses" in step:
            check(step["uses"].startswith("actions/cache@"), "unexpected action " + step["uses"])
            continue
        env = dict(os.environ, GITHUB_PATH=github_path, GITHUB_OUTPUT=github_output)
        env["PATH"] = os.pathsep.join([p for p in open(github_path).read().split("\n") if p] + ["/usr/bin", "/bin"])
        for key, value in step.get("env", {}).items():
            env[key] = expand(value, context)
        result = subprocess.run(["bash", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
        if step.get("id") != "check":
            check(result.returncode == 0, f"step {step['name']} failed: {result.stderr}")
    outputs = dict(line.split("=", 1) for line in open(github_output).read().splitlines() if "=" in line)
    return result, outputs


def main():
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        runner_temp = os.path.join(tmp, "runner")
        os.makedirs(os.path.join(runner_temp, "small-build"))
        os.makedirs(repo)
        # The cache step restored a build: the binary is where the install step looks.
        os.symlink(SMALL, os.path.join(runner_temp, "small-build", "small"))
        subprocess.run([SMALL, "init", "--intent", "action test", "--no-agents"], cwd=repo, check=True,
                       capture_output=True)

        clean, outputs = run_action(repo, {}, runner_temp)
        check(clean.returncode == 0, f"clean workspace: exit {clean.returncode}\n{clean.stdout}{clean.stderr}")
        check(outputs.get("exit-code") == "0", f"clean workspace: exit-code output {outputs}")

        plan = os.path.join(repo, ".small", "plan.small.yml")
        text = open(plan).read().replace('owner: "agent"', 'owner: "human"', 1)
        open(plan, "w").write(text)
        sarif = os.path.join(tmp, "small.sarif")
        broken, outputs = run_action(repo, {"sarif-file": sarif}, runner_temp)
        check(broken.returncode == 1, f"broken workspace: exit {broken.returncode}\n{broken.stderr}")
        check(outputs.get("exit-code") == "1", f"broken workspace: exit-code output {outputs}")
        check(broken.stdout.startswith("::error file=.small/plan.small.yml,line=2,"),
              "no annotation at the plan's owner:\n" + broken.stdout)
        doc = json.load(open(sarif))
        check(doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
              == ".small/plan.small.yml", "SARIF file: " + json.dumps(doc)[:400])

        usage, outputs = run_action(repo, {"args": "--strict --workspace nowhere"}, runner_temp)
        check(usage.returncode == 2 and outputs.get("exit-code") == "2", f"usage error: exit {usage.returncode}")

    if FAILURES:
        print("\n".join("FAIL: " + f for f in FAILURES))
        return 1
    print("PASS: action.yml runs small check with annotations, exit-code output and SARIF")
    return 0


if __name__ == "__main__":
    sys.exit(main())
