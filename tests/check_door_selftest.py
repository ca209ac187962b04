#!/usr/bin/env python3
"""Self-test of tests/check_door.py: it must fail when code goes around the door.

    tests/check_door_selftest.py [path/to/check_door.py]
"""

import os
import sys
import unittest

from tree_checks import make_tree, run_script

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_door.py")

CLEAN = {
    "src/layers.txt": "base\nmodel\nstore\nops\n",
    "src/base/filesystem.cpp": "#include <filesystem>\nint f() { return ::lstat(p, &st); }\n",
    "src/store/folder_publish.cpp": "int g() { return ::fsync(fd) + ::rename(a, b); }\n",
    "include/small/store/hook_files.hpp": "inline int h(int fd) { return ::flock(fd, 2); }\n",
    "include/small/model/layout.hpp": 'constexpr auto kCache = ".small-cache";\n',
    "src/ops/plan.cpp": ("// std::filesystem and ::unlink( in a comment are fine\n"
                         'auto s = fs.stat(path); auto m = "cannot rename(x) .small/ here";\n'
                         "int RealFileSystem::stat(int) { return x->open(1); }\n"
                         'auto raw = R"(std::filesystem)";\n'
                         "std::string link_of(int); auto n = 10'000; char q = '\"';\n"),
}


class DoorCheck(unittest.TestCase):
    def check(self, extra):
        tree = dict(CLEAN)
        tree.update(extra)
        return run_script(SCRIPT, make_tree(self, tree))

    def expect_finding(self, extra, needle):
        code, out = self.check(extra)
        self.assertEqual(code, 1, out)
        self.assertIn(needle, out)

    def test_clean_tree_passes(self):
        code, out = self.check({})
        self.assertEqual(code, 0, out)
        self.assertIn("door: 5 files", out)

    def test_std_filesystem_outside_the_door(self):
        self.expect_finding({"src/ops/init.cpp": "namespace fs = std::filesystem;\n"},
                            "src/ops/init.cpp:1: std::filesystem outside the door")

    def test_fstream_include(self):
        self.expect_finding({"src/check/schema.cpp": "#include <fstream>\n"}, "src/check/schema.cpp:1: #include <fstream>")

    def test_raw_system_call(self):
        self.expect_finding({"src/domain/x.cpp": "\nbool e = ::lstat(p.c_str(), &st) == 0;\n"},
                            "src/domain/x.cpp:2: lstat() outside the door")

    def test_unqualified_system_call(self):
        self.expect_finding({"src/ops/y.cpp": "void f() { unlink(path); }\n"}, "unlink() outside the door")

    def test_store_writers_above_the_write_half(self):
        # atomic replace, the lock and the change journal write through the FileSystem now
        self.expect_finding({"src/store/atomic_file.cpp": "int g() { return ::renameat(a, b, c, d); }\n"},
                            "src/store/atomic_file.cpp:1: renameat() outside the door")
        self.expect_finding({"src/store/workspace_lock.cpp": "int h(int fd) { return ::flock(fd, 2); }\n"},
                            "flock() outside the door")

    def test_store_file_that_is_not_a_door_file(self):
        self.expect_finding({"src/store/run_store.cpp": "void f() { std::ifstream in(p); }\n"},
                            "src/store/run_store.cpp:1: ifstream outside the door")

    def test_cli_is_checked_too(self):
        self.expect_finding({"src/cli/cmd_x.cpp": "FILE* f = fopen(p, \"r\");\n"}, "fopen outside the door")

    def test_std_qualified_call(self):
        self.expect_finding({"src/ops/m.cpp": "void f() { std::rename(a, b); }\n"}, "rename() outside the door")

    def test_call_after_a_digit_separator(self):
        # 10'000 is not the start of a character literal that would hide the call.
        self.expect_finding({"src/ops/n.cpp": "auto n = 10'000; int r = open(p, 0); char q = 'x';\n"},
                            "src/ops/n.cpp:1: open() outside the door")

    def test_call_after_a_quote_character_and_an_escaped_quote(self):
        self.expect_finding({"src/ops/q.cpp": "char c = '\"'; auto s = \"a\\\"b // c\"; fsync(fd);\n"},
                            "src/ops/q.cpp:1: fsync() outside the door")

    def test_runtime_path_outside_layout(self):
        self.expect_finding({"src/store/lock.cpp": 'auto d = root + "/.small-cache";\n'},
                            'the runtime path "/.small-cache" is spelled outside model/layout')

    def test_runtime_path_in_raw_literal(self):
        self.expect_finding({"src/ops/z.cpp": 'auto d = R"(.small-runs/x)";\n'}, '".small-runs/x"')


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SCRIPT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
