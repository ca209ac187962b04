#!/usr/bin/env python3
"""One door to the disk (Python 3 standard library only).

    tests/check_door.py [ROOT]        (ROOT: the checkout, default: this file's ../)

The library reaches the disk only through its door: base/ (the FileSystem interface, its
real implementation with the write half: atomic replace, appends, truncation, renames,
the lock; path arithmetic; git's own files) and the few files of store/ that still make
their own system calls, named in DOOR_FILES below (folders published by one rename, the
git hooks folder, selftest's scratch folder, both in folder_publish). Everywhere else under include/small/ and src/ (the CLI included), code
may not
  * name std::filesystem (or any filesystem:: namespace), <filesystem> or <fstream>, the
    file streams (ifstream / ofstream / fstream, their basic_ forms, filebuf), fopen,
    fdopen, popen, opendir, fdopendir, scandir, mkstemp;
  * call a system call on a path or a descriptor of a file, plain, `::` or `std::`
    qualified: open, open64, openat, creat, stat, stat64, lstat, fstat, fstatat, statx,
    access, faccessat, unlink, unlinkat, rename, renameat, renameat2, mkdir, mkdirat,
    rmdir, chmod, fchmod, truncate, ftruncate, fsync, fdatasync, flock, readlink,
    readlinkat, realpath, symlink, link, getcwd, chdir.
(`remove` is not listed: std::remove is also the algorithm; a declaration named like one
of the calls is reported too — name it otherwise.)
And the runtime paths are spelled only in model/layout: elsewhere, a string literal that is
a path into the workspace's own folders (".small", "/.small/x", ".small-cache/lock",
".small-runs", ".small-archive/…") is refused. (A literal with a space is prose: a message
may name a folder.)
Comments and string literals are not code: a comment may name what it likes.

Each finding is printed as file:line: message. Exit 1 on any finding, 2 on a bad ROOT; on
success print "door: N files, the disk reached only through base/ and the store's door".
"""

import os
import re
import sys

from tree_checks import report

# The store's durability files: they implement the writes behind the door.
DOOR_FILES = {"folder_publish", "hook_files"}
LAYOUT_FILES = {"include/small/model/layout.hpp", "src/model/layout.cpp"}

NAMES = [r"\bstd::(?:experimental::)?filesystem\b|\bfilesystem::", r"#\s*include\s*<(?:filesystem|fstream)>",
         r"\b(?:basic_)?(?:i|o)?fstream\b", r"\bfilebuf\b", r"\b(?:fopen|fdopen|popen|opendir|fdopendir|scandir|mkstemp)\b"]
CALLS = ("open open64 openat creat stat stat64 lstat fstat fstatat statx access faccessat unlink unlinkat "
         "rename renameat renameat2 mkdir mkdirat rmdir chmod fchmod truncate ftruncate fsync fdatasync "
         "flock readlink readlinkat realpath symlink link getcwd chdir").split()
# A free call, plain, ::name( or std::name(: not a member (x.stat(, x->stat() and not
# another qualified name (Class::stat().
CALL_RE = re.compile(r"(?:(?<![\w.>:])|(?<=[^\w:]std::)|(?<=^std::))(?:::)?(" + "|".join(CALLS) + r")\s*\(",
                     re.M)
NAME_RE = re.compile("|".join(NAMES))
RUNTIME_PATH_RE = re.compile(r"^/?\.small(?:-cache|-runs|-archive)?(?:/\S*)?$")
# A digit separator (10'000) is not a character literal: the quote follows a digit.
LITERAL_RE = re.compile(r'R"([^(\s]*)\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"|(?<![0-9A-Fa-f])\'(?:[^\'\\\n]|\\.)*\''
                        r'|//[^\n]*|/\*.*?\*/', re.S)


def split_code(text):
    """(code, literals): the text with comments and literals blanked (lines kept), and
    each string literal's (line, value)."""
    literals = []
    out = []
    last = 0
    for m in LITERAL_RE.finditer(text):
        out.append(text[last:m.start()])
        token = m.group(0)
        if token.startswith(("R\"", "\"")):
            value = m.group(2) if m.group(2) is not None else m.group(3)
            literals.append((text.count("\n", 0, m.start()) + 1, value))
        out.append(re.sub(r"[^\n]", " ", token))
        last = m.end()
    out.append(text[last:])
    return "".join(out), literals


def is_door(rel):
    parts = rel.split("/")
    layer = parts[2] if parts[:2] == ["include", "small"] else parts[1]
    stem = os.path.splitext(parts[-1])[0]
    return layer == "base" or (layer == "store" and stem in DOOR_FILES)


def findings_of(rel, text):
    code, literals = split_code(text)
    found = []
    if not is_door(rel):
        for number, line in enumerate(code.splitlines(), 1):
            for m in NAME_RE.finditer(line):
                found.append(f"{rel}:{number}: {m.group(0)} outside the door: use the FileSystem interface "
                             "(base/filesystem), base/path, or a durable write of store/")
            for m in CALL_RE.finditer(line):
                found.append(f"{rel}:{number}: {m.group(1)}() outside the door: use the FileSystem interface "
                             "(base/filesystem) or a durable write of store/")
    if rel not in LAYOUT_FILES:
        for number, value in literals:
            if RUNTIME_PATH_RE.match(value):
                found.append(f"{rel}:{number}: the runtime path \"{value}\" is spelled outside model/layout: "
                             "name it there and use the name")
    return found


def source_files(root):
    for top in ("include/small", "src"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith((".cpp", ".hpp")):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"door: {root} has no src/ folder", file=sys.stderr)
        return 2
    files = list(source_files(root))
    findings = []
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            findings += findings_of(rel, f.read())
    return report("door", findings, f"{len(files)} files, the disk reached only through base/ and the store's door")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
