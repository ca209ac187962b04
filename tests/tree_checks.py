"""What the tree checks (check_layers.py, check_architecture.py) and their self-tests share."""

import os
import subprocess
import sys
import tempfile


def read_layers(root):
    """The layer names of ROOT/src/layers.txt, lowest first (comments and blank lines skipped)."""
    with open(os.path.join(root, "src", "layers.txt"), encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]


def report(name, findings, success):
    """Prints each finding, then the verdict line; the exit code (1 on any finding, else 0)."""
    for line in findings:
        print(line)
    if findings:
        print(f"{name}: {len(findings)} finding(s)")
        return 1
    print(f"{name}: {success}")
    return 0


def make_tree(testcase, files):
    """A temporary folder holding `files` ({relative path: text}), removed after the test."""
    tmp = tempfile.TemporaryDirectory(prefix="small-tree-")
    testcase.addCleanup(tmp.cleanup)
    for rel, text in files.items():
        path = os.path.join(tmp.name, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return tmp.name


def run_script(script, root):
    """(exit code, stdout + stderr) of `python3 script root`."""
    proc = subprocess.run([sys.executable, script, root], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr
