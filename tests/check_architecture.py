#!/usr/bin/env python3
"""ARCHITECTURE.md stays a true map of the tree (Python 3 standard library only).

    tests/check_architecture.py [ROOT]      (ROOT: the checkout, default: this file's ../)

For every layer of src/layers.txt:
  * the layer diagram (the fenced block under "## Layers") has a row for it;
  * "What lives where" has a section for it, starting with a line "**<layer>/** — ...";
  * every file of include/small/<layer>/ and src/<layer>/ is named in that section, in
    backquotes: by its stem (`process` stands for process.hpp + process.cpp), by its file
    name (`yaml_internal.hpp`), or by a pattern with a <placeholder> (`cmd_<command>.cpp`);
    a file in a sub-folder by its path from the layer's folder (`session/plan`);
  * every name in the first column of the section's table is a file of the layer (a row
    left behind by a move or a deletion is found).
Every line that spells the order with arrows ("base → doc → ...") spells src/layers.txt's,
and src/<layer>/CMakeLists.txt lists every source of the layer (small_add_layer), no more.
No folder of include/small/ or src/ holds more than 16 files (src/cli, one file per command,
excepted): a folder a newcomer must scan stays short. And one naming pattern for the operations: a function of include/small/ops/ that returns a
Result or takes the FileSystem first is an entry point named `<command>_command`
(`plan_show_command` for `small plan show`), or a helper named `parse_...` or `resolve_...`.
Every ops/ file sits in a job's sub-folder (`ops/<job>/<command>`).
Every library source (src/<layer>/**.cpp, every layer but cli) has a unit test: a file of
tests/unit/ that includes its header (small/<layer>/<path>.hpp), or one named
tests/unit/<layer>/<name>_test.cpp; or it has a row in the table under "### Sources covered
end to end", naming the test files that cover it, which exist. A row for a source that has a
unit test, or for no source, is a finding too.
Each finding is printed as ARCHITECTURE.md: message. Exit 1 on any finding, 2 when ROOT
lacks the files; on success print "architecture: N files in M layers, all on the map".
"""

import os
import re
import sys

from tree_checks import read_layers, report

CODE = re.compile(r"`([^`\s]+)`")


def layer_files(root, layer):
    """Paths, relative to the layer's folder, of the sources and headers of
    include/small/<layer>/ and src/<layer>/ (sub-folders included: "session/plan.cpp")."""
    names = set()
    for top in (os.path.join("include", "small", layer), os.path.join("src", layer)):
        folder = os.path.join(root, top)
        for dirpath, _, filenames in os.walk(folder):
            for n in filenames:
                if n.endswith((".cpp", ".hpp")):
                    names.add(os.path.relpath(os.path.join(dirpath, n), folder).replace(os.sep, "/"))
    return sorted(names)


def diagram(text):
    """The first fenced block after "## Layers"."""
    start = text.find("## Layers")
    fence = text.find("```", start)
    end = text.find("```", fence + 3)
    return text[fence:end] if start >= 0 and fence >= 0 and end >= 0 else ""


def sections(text, layers):
    """{layer: the text from its "**<layer>/**" line to the next layer's or the next heading}."""
    found = {}
    lines = text.splitlines()
    current = None
    for line in lines:
        match = re.match(r"\*\*([a-z]+)/\*\*", line)
        if match and match.group(1) in layers:
            current = match.group(1)
            found[current] = []
            continue
        if line.startswith("#"):
            current = None
        if current:
            found[current].append(line)
    return {layer: "\n".join(body) for layer, body in found.items()}


def named(name, words):
    """Whether a file name is named by one of the backquoted words of its section."""
    stem = name.rsplit(".", 1)[0]
    for word in words:
        if word in (name, stem):
            return True
        if "<" in word:
            pattern = re.escape(word)
            pattern = re.sub(r"\\<[^>]*\\>|<[^>]*>", ".+", pattern)
            if re.fullmatch(pattern, name):
                return True
    return False


def first_column_names(section):
    """The backquoted names in the first cell of each table row of a section."""
    names = []
    for line in section.splitlines():
        cells = line.split("|")
        if line.startswith("| `") and len(cells) > 2:
            names += CODE.findall(cells[1])
    return names


ENTRY = re.compile(r"^(?:Result<.*?>\s+([a-z_0-9]+)\(|[A-Za-z][\w:<>,]*\s+([a-z_0-9]+)\(const FileSystem&)", re.M)


def misnamed_operations(root):
    """(header, name) of each ops/ function returning a Result outside the naming pattern."""
    found = []
    for name in layer_files(root, "ops"):
        if not name.endswith(".hpp"):
            continue
        with open(os.path.join(root, "include", "small", "ops", name), encoding="utf-8") as f:
            for groups in ENTRY.findall(f.read()):
                function = groups[0] or groups[1]
                if not function.endswith("_command") and not function.startswith(("parse_", "resolve_")):
                    found.append((name, function))
    return found


INCLUDE = re.compile(r'^#include "small/([^"]+)\.hpp"', re.M)
E2E_HEADING = "### Sources covered end to end"


def library_sources(root, layers):
    """"<layer>/<path>" (no .cpp) of each library source: src/<layer>/**.cpp, cli excepted."""
    return [f"{layer}/{name[:-4]}" for layer in layers if layer != "cli"
            for name in layer_files(root, layer) if name.endswith(".cpp")]


def unit_tests(root):
    """(the headers the files of tests/unit/ include, as "<layer>/<path>"; the test files'
    names without _test.cpp, as "<layer>/<path>")."""
    included, named = set(), set()
    top = os.path.join(root, "tests", "unit")
    for dirpath, _, filenames in os.walk(top):
        for n in filenames:
            if not n.endswith((".cpp", ".hpp")):
                continue
            path = os.path.join(dirpath, n)
            if n.endswith("_test.cpp"):
                named.add(os.path.relpath(path, top).replace(os.sep, "/")[: -len("_test.cpp")])
            with open(path, encoding="utf-8") as f:
                included.update(INCLUDE.findall(f.read()))
    return included, named


def end_to_end_rows(text):
    """{source: [test files]} of the table under E2E_HEADING (up to the next heading)."""
    start = text.find(E2E_HEADING)
    if start < 0:
        return {}
    body = text[start + len(E2E_HEADING):]
    end = re.search(r"^#", body, re.M)
    rows = {}
    for line in (body[: end.start()] if end else body).splitlines():
        cells = line.split("|")
        if line.startswith("| `") and len(cells) > 3:
            for source in CODE.findall(cells[1]):
                rows[source] = CODE.findall(cells[2])
    return rows


def untested_sources(root, layers, text):
    """Findings of the unit-test-or-named-end-to-end rule, and the two counts."""
    included, named = unit_tests(root)
    rows = end_to_end_rows(text)
    findings, unit, e2e = [], 0, 0
    sources = library_sources(root, layers)
    for source in sources:
        layer, name = source.split("/", 1)
        tested = source in included or source in named or f"{layer}/{name.rsplit('/', 1)[-1]}" in named
        if tested:
            unit += 1
            if source in rows:
                findings.append(f"ARCHITECTURE.md: {source} has a unit test: take its row out of \"{E2E_HEADING[4:]}\"")
        elif source in rows:
            e2e += 1
        else:
            findings.append(f"src/{source}.cpp has no unit test (tests/unit/{layer}/{name.rsplit('/', 1)[-1]}_test.cpp "
                            f"including small/{source}.hpp) and no row under \"{E2E_HEADING[4:]}\" in ARCHITECTURE.md")
    for source, tests in sorted(rows.items()):
        if source not in sources:
            findings.append(f"ARCHITECTURE.md: \"{E2E_HEADING[4:]}\" names `{source}`, which is not a library source")
        if not tests:
            findings.append(f"ARCHITECTURE.md: the row of `{source}` names no test file")
        for test in tests:
            if not os.path.isfile(os.path.join(root, test)):
                findings.append(f"ARCHITECTURE.md: the row of `{source}` names {test}, which does not exist")
    return findings, unit, e2e


MAX_FILES = 16


def crowded_folders(root):
    """(folder, file count) of each folder of include/small/ and src/ over MAX_FILES (src/cli excepted)."""
    found = []
    for top in (os.path.join(root, "include", "small"), os.path.join(root, "src")):
        for dirpath, _, filenames in os.walk(top):
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            count = sum(1 for n in filenames if n.endswith((".cpp", ".hpp")))
            if rel != "src/cli" and count > MAX_FILES:
                found.append((rel, count))
    return sorted(found)


ARROWS = re.compile(r"\b[a-z]+(?: → [a-z]+)+")


def wrong_orders(text, layers):
    """Each arrow chain of layer names in the text that is not the layer list's order."""
    wanted = " → ".join(layers)
    return [chain for chain in ARROWS.findall(text)
            if set(chain.split(" → ")) <= set(layers) and chain != wanted]


def unlisted_sources(root, layer):
    """(missing, extra): the layer's .cpp files its CMakeLists.txt leaves out, and names it lists that are none."""
    path = os.path.join(root, "src", layer, "CMakeLists.txt")
    try:
        with open(path, encoding="utf-8") as f:
            cmake = f.read()
    except OSError:
        return None
    match = re.search(r"small_add_layer\(\s*" + re.escape(layer) + r"\s+([^)]*)\)", cmake)
    listed = set(match.group(1).split()) if match else set()
    sources = {name for name in layer_files(root, layer) if name.endswith(".cpp")}
    return sorted(sources - listed), sorted(listed - sources)


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    try:
        layers = read_layers(root)
        with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"architecture: {e}", file=sys.stderr)
        return 2
    findings = []
    picture = diagram(text)
    by_layer = sections(text, layers)
    total = 0
    for layer in layers:
        if not re.search(r"\|\s*" + re.escape(layer) + r"\s", picture):
            findings.append(f"the layer diagram has no row for {layer}")
        if layer not in by_layer:
            findings.append(f'no section "**{layer}/** — ..." under "What lives where"')
            continue
        words = first_column_names(by_layer[layer])
        files = layer_files(root, layer)
        for name in files:
            total += 1
            if not named(name, words):
                findings.append(f"{layer}/{name} is not named in the {layer}/ section")
        for word in first_column_names(by_layer[layer]):
            if not any(named(name, [word]) for name in files):
                findings.append(f"the {layer}/ table names `{word}`, which is not a file of {layer}/")
    findings += [f'the order "{chain}" is not src/layers.txt\'s' for chain in wrong_orders(text, layers)]
    lines = [f"ARCHITECTURE.md: {message}" for message in findings]
    for layer in layers:
        if layer == "cli":
            continue
        unlisted = unlisted_sources(root, layer)
        if unlisted is None:
            lines.append(f"src/{layer}/CMakeLists.txt: missing (each layer lists its sources)")
            continue
        lines += [f"src/{layer}/CMakeLists.txt: {name} is not listed" for name in unlisted[0]]
        lines += [f"src/{layer}/CMakeLists.txt: lists {name}, which is not a source of {layer}/" for name in unlisted[1]]
    lines += [f"include/small/ops/{header}: {function}() is an operation: name it <command>_command"
              for header, function in misnamed_operations(root)]
    lines += [f"{folder}/: {count} files, more than {MAX_FILES}: split it by job"
              for folder, count in crowded_folders(root)]
    lines += [f"ops/{name}: an ops file sits in a job's folder (ops/<job>/{name})"
              for name in layer_files(root, "ops") if "/" not in name]
    untested, unit, e2e = untested_sources(root, layers, text)
    lines += untested
    return report("architecture", lines, f"{total} files in {len(layers)} layers, all on the map; "
                  f"{unit} sources unit-tested, {e2e} covered end to end")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
