#!/usr/bin/env python3
"""Layer check for the small source tree (Python 3 standard library only).

    tests/check_layers.py [ROOT]        (ROOT: the checkout, default: this file's ../)

libsmall is built in layers, lowest first, as listed in src/layers.txt: the one list,
also read by CMakeLists.txt (one target per layer) and by check_architecture.py
(ARCHITECTURE.md's diagram and its order line).

Public headers live in include/small/<layer>/, sources and private headers in
src/<layer>/ (src/cli is the executable). Every #include in a .cpp/.hpp file under
include/small and src is checked:

  * "small/<layer>/..." must name the file's own layer or a lower one;
  * an ops/ file never includes another ops/ header (a .cpp may include its own .hpp);
  * "small/..." must name a layer folder (an old flat "small/x.hpp" is refused);
  * a quoted include that is not "small/..." is a private header: named bare (no
    folder) and found beside the including file, in a layer folder; a private header
    is never reached across folders ("../check/x.hpp");
  * a public header (include/small) never includes a private header from src/;
  * every file itself sits in a layer folder (no leftover src/core/ or flat headers);
  * no include cycle inside a layer: a module (a public header and its source, or a
    private header with a source of its own) never reaches itself through the includes
    of other modules of its layer. A private header without a source is part of the
    modules that include it, so its includes count as theirs.

Each finding is printed as file:line: message. Exit 1 on any finding, 2 on a bad
ROOT; on success print "layers: N files, no upward include, no cycle" and exit 0.
"""

import os
import re
import sys

from tree_checks import read_layers, report

LAYERS = []
RANK = {}
EXTENSIONS = (".cpp", ".hpp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def source_files(root):
    """Every .cpp/.hpp under include/small and src, as sorted relative paths."""
    found = []
    for top in ("include/small", "src"):
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in filenames:
                if name.endswith(EXTENSIONS):
                    full = os.path.join(dirpath, name)
                    found.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return sorted(found)


def layer_of(rel):
    """(layer, is_public) of a path relative to ROOT, or (None, is_public) outside a layer folder."""
    parts = rel.split("/")
    if parts[:2] == ["include", "small"]:
        is_public, rest = True, parts[2:]
    elif parts[:1] == ["src"]:
        is_public, rest = False, parts[1:]
    else:
        return None, False
    if len(rest) >= 2 and rest[0] in RANK:
        return rest[0], is_public
    return None, is_public


def strip_comments(line, in_block):
    """The code of one line with comments blanked, and whether a /* comment is still open.

    String and character literals are skipped, so "a/*b" opens no comment; a ' after a
    letter or digit is a digit separator (1'000), not a character literal."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            in_block = False
            out.append(" ")
            i = end + 2
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block = True
            i += 2
            continue
        if c == '"' or (c == "'" and not (i > 0 and line[i - 1].isalnum())):
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(line[i : j + 1])
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_block


def includes(path):
    """(line number, delimiter, target) of each #include outside comments."""
    result = []
    in_block = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            code, in_block = strip_comments(line, in_block)
            match = INCLUDE_RE.match(code)
            if match:
                result.append((number, match.group(1), match.group(2).strip()))
    return result


def private_headers(files):
    """Basenames of the headers under src/ (private to their layer)."""
    return {rel.rsplit("/", 1)[-1] for rel in files if rel.startswith("src/") and rel.endswith(".hpp")}


def own_header(rel):
    """The public header a source file implements: src/ops/x.cpp -> small/ops/x.hpp."""
    parts = rel.split("/")
    if parts[0] == "src" and rel.endswith(".cpp"):
        return "small/" + "/".join(parts[1:])[: -len(".cpp")] + ".hpp"
    if parts[:2] == ["include", "small"]:
        return "/".join(parts[1:])
    return None


def check_target(rel, layer, target_layer, target, findings, number):
    """Layer order and the ops rule between the including file and the included one."""
    if RANK[target_layer] > RANK[layer]:
        message = f'upward include: {layer}/ includes "{target}" ({target_layer}/ is a higher layer)'
        findings.append((rel, number, message))
    elif layer == "ops" and target_layer == "ops":
        findings.append((rel, number, f'ops/ includes another ops/ header "{target}" (ops files are independent)'))


def check_file(root, rel, private, findings):
    layer, is_public = layer_of(rel)
    if layer is None:
        findings.append((rel, 1, "file is not in a layer folder (" + ", ".join(LAYERS) + ")"))
        return
    here = os.path.dirname(os.path.join(root, rel))
    mine = own_header(rel)
    for number, delim, target in includes(os.path.join(root, rel)):
        parts = target.split("/")
        if parts[0] == "small":
            if len(parts) < 3 or parts[1] not in RANK:
                findings.append((rel, number, f'"{target}" is not under a layer folder (small/<layer>/...)'))
                continue
            if target == mine:
                continue
            check_target(rel, layer, parts[1], target, findings, number)
            continue
        resolved = os.path.normpath(os.path.join(here, target))
        resolved_rel = os.path.relpath(resolved, root).replace(os.sep, "/")
        exists = delim == '"' and os.path.isfile(resolved)
        if is_public and (resolved_rel.startswith("src/") or (not exists and parts[-1] in private)):
            findings.append((rel, number, f'public header includes private header "{target}" (src/ is not installed)'))
            continue
        if delim == "<":
            continue  # system and third-party headers
        if not exists:
            findings.append((rel, number, f'"{target}" is not under a layer folder (not found beside the file)'))
            continue
        target_layer, _ = layer_of(resolved_rel)
        if target_layer is None:
            findings.append((rel, number, f'"{target}" ({resolved_rel}) is not under a layer folder'))
            continue
        if resolved_rel.startswith("include/small/") and resolved_rel[len("include/"):] == mine:
            continue
        if "/" in target and RANK[target_layer] <= RANK[layer]:
            findings.append((rel, number, f'private header "{target}" reached across folders '
                                          "(a private header is included by bare name from its own folder only)"))
            continue
        check_target(rel, layer, target_layer, target, findings, number)


def module_of(rel):
    """A file's module inside its layer: include/small/store/x.hpp and src/store/x.cpp are store/x."""
    parts = rel.split("/")
    rest = parts[2:] if parts[:2] == ["include", "small"] else parts[1:]
    return "/".join(rest).rsplit(".", 1)[0]


def same_layer_targets(root, rel):
    """(line, module) of each include of a module of the file's own layer."""
    layer, _ = layer_of(rel)
    found = []
    for number, delim, target in includes(os.path.join(root, rel)):
        if target.startswith("small/"):
            module = target[len("small/"):].rsplit(".", 1)[0]
        elif delim == '"' and "/" not in target:
            module = os.path.dirname(module_of(rel)) + "/" + target.rsplit(".", 1)[0]
        else:
            continue
        if module.split("/")[0] == layer:
            found.append((number, module))
    return found


def module_graph(root, files):
    """Module -> {included module: (file, line)} inside each layer, header-only private modules folded in."""
    sources = {module_of(rel) for rel in files if rel.endswith(".cpp")}
    header_only_private = {module_of(rel) for rel in files
                           if rel.startswith("src/") and rel.endswith(".hpp") and module_of(rel) not in sources}
    direct = {}
    for rel in files:
        if layer_of(rel)[0] is None:
            continue
        edges = direct.setdefault(module_of(rel), {})
        for number, target in same_layer_targets(root, rel):
            edges.setdefault(target, (rel, number))
    graph = {}
    for module, edges in direct.items():
        if module in header_only_private:
            continue
        resolved, todo, seen = {}, list(edges.items()), set()
        while todo:
            target, where = todo.pop()
            if target in seen:
                continue
            seen.add(target)
            if target in header_only_private:
                todo.extend((t, where) for t in direct.get(target, {}))
            elif target != module:
                resolved.setdefault(target, where)
        graph[module] = resolved
    return graph


def include_cycles(graph):
    """Each strongly connected set of two or more modules, as a path that closes on itself."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(start):
        # Tarjan's algorithm without recursion: (module, iterator over its targets).
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, {})))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == module:
                        break
                if len(members) > 1:
                    cycles.append(sorted(members))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def cycle_findings(graph, cycles):
    """One finding per cycle, at the include that leaves its first module."""
    findings = []
    for members in cycles:
        inside = set(members)
        path = [members[0]]
        while True:
            step = min(t for t in graph[path[-1]] if t in inside)
            if step in path:
                path = path[path.index(step):] + [step]
                break
            path.append(step)
        rel, number = graph[path[0]][path[1]]
        findings.append((rel, number, "include cycle inside a layer: " + " -> ".join(path) +
                         " (move what both need into a module of its own, or drop an include the file does not use)"))
    return findings


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    root = os.path.abspath(root)
    if not os.path.isdir(os.path.join(root, "include", "small")) or not os.path.isdir(os.path.join(root, "src")):
        print(f"layers: {root} has no include/small and src", file=sys.stderr)
        return 2
    try:
        LAYERS[:] = read_layers(root)
    except OSError as e:
        print(f"layers: cannot read the layer list: {e}", file=sys.stderr)
        return 2
    RANK.clear()
    RANK.update({name: i for i, name in enumerate(LAYERS)})
    files = source_files(root)
    private = private_headers(files)
    findings = []
    for rel in files:
        check_file(root, rel, private, findings)
    graph = module_graph(root, files)
    findings.extend(cycle_findings(graph, include_cycles(graph)))
    lines = [f"{rel}:{number}: {message}" for rel, number, message in findings]
    return report("layers", lines, f"{len(files)} files, no upward include, no cycle")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
