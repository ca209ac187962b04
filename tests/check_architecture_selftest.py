#!/usr/bin/env python3
"""Self-test of tests/check_architecture.py: it must fail when the map is wrong.

    tests/check_architecture_selftest.py [path/to/check_architecture.py]
"""

import os
import sys
import unittest

from tree_checks import make_tree, run_script

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_architecture.py")

MAP = """# Architecture

## Layers

```
  | cli     src/cli/      the executable |
  | base    */small/base/ building blocks |
```

### What lives where

**base/** — building blocks.

| File | What |
|---|---|
| `result` | results |
| `fd.hpp` | a descriptor |

**cli/** — the executable.

| `cmd_<command>.cpp` | one file per command |

## Data flow
"""

TREE = {
    "src/layers.txt": "# lowest first\nbase\ncli\n",
    "include/small/base/result.hpp": "",
    "src/base/result.cpp": "",
    "include/small/base/fd.hpp": "",
    "src/cli/cmd_init.cpp": "",
    "src/cli/cmd_plan.cpp": "",
    "src/base/CMakeLists.txt": "small_add_layer(base\n  result.cpp\n)\n",
    "tests/unit/base/result_test.cpp": '#include "small/base/result.hpp"\n',
}

E2E = """
### Sources covered end to end

| Source | Covered by |
|---|---|
| `base/process` | `tests/e2e/process_test.cpp` |
"""


def run(root):
    return run_script(SCRIPT, root)


class CheckArchitecture(unittest.TestCase):
    def tree(self, extra=None, architecture=MAP):
        files = dict(TREE)
        files.update(extra or {})
        files["ARCHITECTURE.md"] = architecture
        return make_tree(self, files)

    def test_a_true_map_passes(self):
        code, out = run(self.tree())
        self.assertEqual(code, 0, out)
        self.assertIn("5 files in 2 layers", out)

    def test_a_source_missing_from_its_layers_cmake_list_fails(self):
        root = self.tree({"src/base/process.cpp": ""},
                         architecture=MAP.replace("| `fd.hpp` |", "| `process` | processes |\n| `fd.hpp` |"))
        code, out = run(root)
        self.assertEqual(code, 1, out)
        self.assertIn("src/base/CMakeLists.txt: process.cpp is not listed", out)

    def test_a_cmake_list_naming_no_source_fails(self):
        code, out = run(self.tree({"src/base/CMakeLists.txt": "small_add_layer(base\n  result.cpp\n  gone.cpp\n)\n"}))
        self.assertEqual(code, 1, out)
        self.assertIn("lists gone.cpp, which is not a source of base/", out)

    def test_an_order_line_other_than_the_layer_list_fails(self):
        code, out = run(self.tree(architecture=MAP + "\nThe order is cli → base.\n"))
        self.assertEqual(code, 1, out)
        self.assertIn('the order "cli → base" is not src/layers.txt\'s', out)
        code, out = run(self.tree(architecture=MAP + "\nThe order is base → cli.\n"))
        self.assertEqual(code, 0, out)

    def test_a_file_missing_from_its_section_fails(self):
        code, out = run(self.tree({"src/base/process.cpp": ""}))
        self.assertEqual(code, 1, out)
        self.assertIn("base/process.cpp is not named in the base/ section", out)

    def test_a_file_named_only_in_another_section_fails(self):
        code, out = run(self.tree({"src/cli/fd.hpp": ""}))
        self.assertEqual(code, 1, out)
        self.assertIn("cli/fd.hpp is not named in the cli/ section", out)

    def test_a_row_for_a_file_that_is_gone_fails(self):
        code, out = run(self.tree(architecture=MAP.replace("| `fd.hpp` | a descriptor |", "| `fd.hpp` | a descriptor |\n| `gone` | moved away |")))
        self.assertEqual(code, 1, out)
        self.assertIn("the base/ table names `gone`, which is not a file of base/", out)

    def test_an_operation_outside_the_naming_pattern_fails(self):
        good = "Result<int> plan_command(int);\nResult<int> parse_thing(int);\n"
        code, out = run(self.tree({"include/small/ops/session/plan.hpp": good}))
        self.assertEqual(code, 0, out)
        code, out = run(self.tree({"include/small/ops/session/plan.hpp": good + "Result<std::vector<int>> emit_state(int);\n"}))
        self.assertEqual(code, 1, out)
        self.assertIn("emit_state() is an operation: name it <command>_command", out)
        code, out = run(self.tree({"include/small/ops/session/plan.hpp": good + "Report diagnose(const FileSystem& fs);\n"}))
        self.assertIn("diagnose() is an operation", out)

    def test_an_ops_file_outside_a_job_folder_fails(self):
        code, out = run(self.tree({"src/ops/session/plan.cpp": ""}))
        self.assertEqual(code, 0, out)
        code, out = run(self.tree({"src/ops/loose.cpp": ""}))
        self.assertEqual(code, 1, out)
        self.assertIn("ops/loose.cpp: an ops file sits in a job's folder", out)

    def test_a_name_only_in_prose_does_not_count(self):
        prose = MAP.replace("| `fd.hpp` | a descriptor |", "| `fd.hpp` | a descriptor, unlike `process` |")
        code, out = run(self.tree({"src/base/process.cpp": ""}, architecture=prose))
        self.assertEqual(code, 1, out)
        self.assertIn("base/process.cpp is not named in the base/ section", out)

    def test_a_crowded_folder_fails_but_the_cli_may_be(self):
        many = {f"src/cli/cmd_{i}.cpp": "" for i in range(20)}
        code, out = run(self.tree(many))
        self.assertEqual(code, 0, out)
        many.update({f"src/base/f{i}.cpp": "" for i in range(17)})
        code, out = run(self.tree(many))
        self.assertEqual(code, 1, out)
        self.assertIn("src/base/: 18 files, more than 16", out)

    def test_a_source_without_a_unit_test_or_a_row_fails(self):
        with_text = MAP.replace("| `fd.hpp` | a descriptor |", "| `fd.hpp` | a descriptor |\n| `text` | text |")
        code, out = run(self.tree({"src/base/text.cpp": ""}, architecture=with_text))
        self.assertEqual(code, 1, out)
        self.assertIn("src/base/text.cpp has no unit test", out)
        # A test file named after the source is a unit test of it, even without the header.
        listed = "small_add_layer(base\n  result.cpp\n  text.cpp\n)\n"
        code, out = run(self.tree({"src/base/text.cpp": "", "tests/unit/base/text_test.cpp": "",
                                   "src/base/CMakeLists.txt": listed}, architecture=with_text))
        self.assertEqual(code, 0, out)
        self.assertIn("2 sources unit-tested", out)
        # The CLI is not the library.
        code, out = run(self.tree({"src/cli/cmd_init.cpp": ""}))
        self.assertEqual(code, 0, out)

    def test_a_row_names_an_existing_test_of_a_source_without_a_unit_test(self):
        with_process = MAP.replace("| `fd.hpp` | a descriptor |", "| `fd.hpp` | a descriptor |\n| `process` | a child |")
        process = {"src/base/process.cpp": "", "src/base/CMakeLists.txt": "small_add_layer(base\n  result.cpp\n  process.cpp\n)\n"}
        code, out = run(self.tree(process, architecture=with_process))
        self.assertEqual(code, 1, out)
        self.assertIn("src/base/process.cpp has no unit test", out)
        code, out = run(self.tree(process, architecture=with_process + E2E))
        self.assertEqual(code, 1, out)
        self.assertIn("the row of `base/process` names tests/e2e/process_test.cpp, which does not exist", out)
        process["tests/e2e/process_test.cpp"] = ""
        code, out = run(self.tree(process, architecture=with_process + E2E))
        self.assertEqual(code, 0, out)
        self.assertIn("1 covered end to end", out)
        process["tests/unit/base/process_test.cpp"] = ""
        code, out = run(self.tree(process, architecture=with_process + E2E))
        self.assertEqual(code, 1, out)
        self.assertIn("base/process has a unit test: take its row out", out)
        code, out = run(self.tree(architecture=MAP + E2E.replace("| `base/process` |", "| `base/gone` |")))
        self.assertEqual(code, 1, out)
        self.assertIn("names `base/gone`, which is not a library source", out)

    def test_a_layer_without_a_row_or_a_section_fails(self):
        code, out = run(self.tree({"src/layers.txt": "base\nmodel\ncli\n"}))
        self.assertEqual(code, 1, out)
        self.assertIn("the layer diagram has no row for model", out)
        self.assertIn('no section "**model/**', out)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SCRIPT = os.path.abspath(sys.argv.pop(1))
    unittest.main()
