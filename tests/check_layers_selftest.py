#!/usr/bin/env python3
"""Self-test of tests/check_layers.py: it must fail on broken trees, not only pass on ours.

    tests/check_layers_selftest.py [path/to/check_layers.py]

Builds small fake trees in a temporary directory and runs the checker on each: a clean
tree must pass, and each kind of violation must exit 1 and name file:line.
"""

import os
import sys
import unittest

from tree_checks import make_tree, run_script

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "check_layers.py")

# A tree that obeys every rule: own and lower layers, an ops .cpp with its own header,
# a private header beside its source, cli on top, comments and system headers ignored.
LAYER_LIST = "# lowest first\nbase\ndoc\nmodel\ncheck\nstore\nops\nreport\nmcp\ncli\n"

CLEAN = {
    "src/layers.txt": LAYER_LIST,
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
    return run_script(SCRIPT, root)


class CheckLayers(unittest.TestCase):
    def tree(self, extra=None, remove=()):
        files = dict(CLEAN)
        files.update(extra or {})
        for rel in remove:
            files.pop(rel)
        return make_tree(self, files)

    def assert_fails(self, root, *expected):
        code, out = run(root)
        self.assertEqual(code, 1, out)
        for text in expected:
            self.assertIn(text, out)
        return out

    def test_clean_tree_passes(self):
        code, out = run(self.tree())
        self.assertEqual(code, 0, out)
        self.assertIn(f"layers: {len(CLEAN) - 1} files, no upward include", out)  # layers.txt is no source

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

    def test_private_header_reached_across_folders_fails(self):
        root = self.tree({"src/store/log.cpp": '#include "../doc/yaml_internal.hpp"\n'})
        self.assert_fails(root, "src/store/log.cpp:1:", "reached across folders", "../doc/yaml_internal.hpp")

    def test_the_order_comes_from_the_layer_list(self):
        # store below doc in the list: doc's include of store is no longer upward, store's of doc is.
        order = "base\nmodel\ncheck\nstore\ndoc\nops\nreport\nmcp\ncli\n"
        root = self.tree({"src/layers.txt": order, "src/doc/document.cpp": '#include "small/store/log.hpp"\n'})
        out = self.assert_fails(root, "include/small/store/log.hpp:2:", "upward include")
        self.assertNotIn("src/doc/document.cpp", out)

    def test_missing_layer_list_is_an_error(self):
        code, out = run(self.tree(remove=("src/layers.txt",)))
        self.assertEqual(code, 2, out)
        self.assertIn("layer list", out)

    def test_include_cycle_inside_a_layer_fails(self):
        root = self.tree({
            "include/small/store/cache.hpp": '#pragma once\n#include "small/doc/document.hpp"\n',
            "src/store/cache.cpp": '#include "small/store/cache.hpp"\n#include "small/store/log.hpp"\n',
            "src/store/log.cpp": '#include "small/store/log.hpp"\n#include "small/store/cache.hpp"\n',
        })
        self.assert_fails(root, "src/store/cache.cpp:2: include cycle inside a layer: "
                                "store/cache -> store/log -> store/cache", "1 finding(s)")

    def test_longer_cycle_is_reported_once(self):
        root = self.tree({
            "include/small/store/a.hpp": "#pragma once\n",
            "include/small/store/b.hpp": "#pragma once\n",
            "src/store/a.cpp": '#include "small/store/b.hpp"\n',
            "src/store/b.cpp": '#include "small/store/log.hpp"\n',
            "src/store/log.cpp": '#include "small/store/a.hpp"\n',
        })
        self.assert_fails(root, "store/a -> store/b -> store/log -> store/a", "1 finding(s)")

    def test_cycle_through_a_private_header_fails(self):
        # yaml_internal.hpp has no source: its includes are document's own.
        root = self.tree({
            "src/doc/yaml_internal.hpp": '#pragma once\n#include "small/doc/emit.hpp"\n',
            "include/small/doc/emit.hpp": "#pragma once\n",
            "src/doc/emit.cpp": '#include "small/doc/emit.hpp"\n#include "small/doc/document.hpp"\n',
        })
        self.assert_fails(root, "include cycle inside a layer: doc/document -> doc/emit -> doc/document")

    def test_includes_across_layers_make_no_cycle(self):
        root = self.tree({"src/base/result.cpp": '#include "small/base/result.hpp"\n#include <vector>\n'})
        code, out = run(root)
        self.assertEqual(code, 0, out)
        self.assertIn("no cycle", out)

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
