#!/usr/bin/env python3
"""Self-test of tests/check_layers.py: it must fail on broken trees, not only pass on ours.

    tests/check_layers_selftest.py [path/to/check_layers.py]

Builds small fake trees in a temporary directory and runs the checker on each: a clean
tree must pass, and each kind of violation must exit 1 and name file:line.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "check_layers.py")

# A tree that obeys every rule: own and lower layers, an ops .cpp with its own header,
# a private header beside its source, cli on top, comments and system headers ignored.
CLEAN = {
    "include/small/base/result.hpp": "#pragma once\n#include <string>\n",
    "include/small/doc/document.hpp": '#pragma once\n#include "small/base/result.hpp"\n',
    "include/small/store/log.hpp": '#pragma once\n#include "small/doc/document.hpp"\n',
    "include/small/ops/plan.hpp": '#pragma once\n#include "small/store/log.hpp"\n',
    "include/small/ops/reset.hpp": '#pragma once\n#include "small/doc/document.hpp"\n',
    "src/base/result.cpp": '#include "small/base/result.hpp"\n',
    "src/doc/yaml_internal.hpp": '#pragma once\n#include "small/doc/document.hpp"\n',
    "src/doc/document.cpp": '#include "small/doc/document.hpp"\n#include "yaml_internal.hpp"\n',
    "src/ops/plan.cpp": (
        '#include "small/ops/plan.hpp"\n'
        "// #include \"small/ops/reset.hpp\" (a comment, not an include)\n"
        "/* #include \"small/cli/cli.hpp\"\n"
        "   #include \"small/ops/reset.hpp\" */\n"
        '#include "small/store/log.hpp"\n'
        'const char* glob = "x/*";\n'
        "char quote = '\"';\n"
    ),
    "include/small/mcp/server.hpp": '#pragma once\n#include "small/ops/plan.hpp"\n',
    "src/mcp/tools.hpp": '#pragma once\n#include "small/ops/plan.hpp"\n',
    "src/mcp/server.cpp": '#include "small/mcp/server.hpp"\n#include "tools.hpp"\n',
    "src/cli/cli.hpp": '#pragma once\n#include "small/ops/plan.hpp"\n',
    "src/cli/main.cpp": '#include "cli.hpp"\n#include "small/ops/reset.hpp"\n#include "small/mcp/server.hpp"\n',
}


def run(root):
    proc = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


class CheckLayers(unittest.TestCase):
    def tree(self, extra=None, remove=()):
        tmp = tempfile.TemporaryDirectory(prefix="small-layers-")
        self.addCleanup(tmp.cleanup)
        files = dict(CLEAN)
        files.update(extra or {})
        for rel in remove:
            files.pop(rel)
        for rel, text in files.items():
            path = os.path.join(tmp.name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return tmp.name

    def assert_fails(self, root, *expected):
        code, out = run(root)
        self.assertEqual(code, 1, out)
        for text in expected:
            self.assertIn(text, out)
        return out

    def test_clean_tree_passes(self):
        code, out = run(self.tree())
        self.assertEqual(code, 0, out)
        self.assertIn(f"layers: {len(CLEAN)} files, no upward include", out)

    def test_upward_include_fails(self):
        text = '#include "small/doc/document.hpp"\n#include "small/store/log.hpp"\n'
        root = self.tree({"src/doc/document.cpp": text})
        out = self.assert_fails(root, "src/doc/document.cpp:2:", "upward include", "small/store/log.hpp")
        self.assertNotIn("src/ops/plan.cpp", out)

    def test_upward_include_in_public_header_fails(self):
        root = self.tree({"include/small/base/result.hpp": '#pragma once\n\n#include "small/model/x.hpp"\n'})
        self.assert_fails(root, "include/small/base/result.hpp:3:", "upward include")

    def test_library_including_cli_fails(self):
        root = self.tree({"src/store/log.cpp": '#include "../cli/cli.hpp"\n'})
        self.assert_fails(root, "src/store/log.cpp:1:", "upward include", "../cli/cli.hpp")

    def test_library_including_mcp_fails(self):
        root = self.tree({"src/ops/plan.cpp": '#include "small/mcp/server.hpp"\n'})
        self.assert_fails(root, "src/ops/plan.cpp:1:", "upward include", "small/mcp/server.hpp")

    def test_mcp_including_cli_fails(self):
        root = self.tree({"src/mcp/server.cpp": '#include "../cli/cli.hpp"\n'})
        self.assert_fails(root, "src/mcp/server.cpp:1:", "upward include", "../cli/cli.hpp")

    def test_ops_including_ops_fails(self):
        root = self.tree({"src/ops/reset.cpp": '#include "small/ops/reset.hpp"\n#include "small/ops/plan.hpp"\n'})
        out = self.assert_fails(root, "src/ops/reset.cpp:2:", "ops/ includes another ops/ header", "small/ops/plan.hpp")
        self.assertNotIn("reset.cpp:1:", out)

    def test_ops_header_including_ops_header_fails(self):
        root = self.tree({"include/small/ops/reset.hpp": '#pragma once\n#include "small/ops/plan.hpp"\n'})
        self.assert_fails(root, "include/small/ops/reset.hpp:2:", "ops/ includes another ops/ header")

    def test_flat_include_fails(self):
        root = self.tree({"src/base/result.cpp": '#include "small/base/result.hpp"\n#include <small/result.hpp>\n'})
        self.assert_fails(root, "src/base/result.cpp:2:", "not under a layer folder", "small/result.hpp")

    def test_unknown_layer_fails(self):
        root = self.tree({"src/base/result.cpp": '#include "small/core/result.hpp"\n'})
        self.assert_fails(root, "src/base/result.cpp:1:", "not under a layer folder")

    def test_public_header_including_private_header_fails(self):
        root = self.tree({"include/small/doc/yaml.hpp": '#pragma once\n#include "yaml_internal.hpp"\n'})
        self.assert_fails(root, "include/small/doc/yaml.hpp:2:", "public header includes private header")

    def test_public_header_including_src_path_fails(self):
        text = '#pragma once\n#include "../../../src/doc/yaml_internal.hpp"\n'
        root = self.tree({"include/small/doc/yaml.hpp": text})
        self.assert_fails(root, "include/small/doc/yaml.hpp:2:", "public header includes private header")

    def test_file_outside_layer_folder_fails(self):
        root = self.tree({"src/core/old.cpp": "int x;\n"})
        self.assert_fails(root, "src/core/old.cpp:1:", "not in a layer folder")

    def test_every_finding_is_reported(self):
        root = self.tree({
            "src/doc/document.cpp": '#include "small/ops/plan.hpp"\n',
            "src/ops/reset.cpp": '#include "small/ops/plan.hpp"\n',
        })
        self.assert_fails(root, "src/doc/document.cpp:1:", "src/ops/reset.cpp:1:", "2 finding(s)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SCRIPT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
