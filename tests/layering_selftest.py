#!/usr/bin/env python3
"""scripts/check-layering checked against a small fake tree and the real one.

The fake tree's CMakeLists.txt declares

    base <- low <- high        side <- base        (a <- b: b depends on a)

and each case plants one file and asserts what the check says: an upward
include and an include of an undeclared sibling fail, a transitive
dependency passes, declaring the dependency in CMakeLists.txt makes the
sibling include pass (the graph is read from there, nowhere else), test code
is held to what its az_tests binary links, and test-only code stays out of
shipped libraries. Finally the real tree passes, and a copy of it fails when
the search includes the zoo or an importer.

Usage: layering_selftest.py [REPO_ROOT]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
CHECK = os.path.join(ROOT, "scripts", "check-layering")

FAKE_CMAKE = """\
# A comment mentioning az_library(az_fake fake) is not a declaration.
function(az_library name dir)
endfunction()
az_library(az_base base)
az_library(az_low_testing low/testing az_low)
az_library(az_low low az_base)
az_library(az_side side
           az_base)
az_library(az_high high az_low)
az_tests(az_low_tests low az_low az_low_testing)
az_tests(az_side_tests side az_side)
"""

FAKE_FILES = {
    "src/base/a.h": "#pragma once\n",
    "src/low/b.h": '#pragma once\n#include "base/a.h"\n',
    "src/low/b.cc": '#include "low/b.h"\n',
    "src/low/testing/helper.h": '#pragma once\n#include "low/b.h"\n',
    "src/low/b_test.cc": '#include "low/b.h"\n#include "low/testing/helper.h"\n',
    "src/side/d.h": '#pragma once\n#include "base/a.h"\n#include <vector>\n',
    "src/high/c.h": '#pragma once\n#include "low/b.h"\n',
    # base is reached through low: transitive dependencies are allowed.
    "src/high/c.cc": '#include "high/c.h"\n#include "base/a.h"\n',
}


def run_check(root):
    result = subprocess.run([CHECK, root], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


class FakeTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write("CMakeLists.txt", FAKE_CMAKE)
        for path, text in FAKE_FILES.items():
            self.write(path, text)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def assertFails(self, *pieces):
        code, output = run_check(self.root)
        self.assertEqual(code, 1, output)
        for piece in pieces:
            self.assertIn(piece, output)

    def test_clean_tree_passes(self):
        code, output = run_check(self.root)
        self.assertEqual(code, 0, output)
        self.assertIn("check-layering: ok (8 files, 5 libraries from CMakeLists.txt)", output)

    def test_upward_include_fails(self):
        self.write("src/low/up.cc", '#include "low/b.h"\n#include "high/c.h"\n')
        self.assertFails("low/up.cc:2 includes high/c.h (az_high), which az_low does not depend on")

    def test_undeclared_sibling_fails(self):
        # side and low both sit on base, and nothing orders them: side never
        # declared low, so including it is an error, not a lucky link.
        self.write("src/side/sibling.cc", '#include "side/d.h"\n#include "low/b.h"\n')
        self.assertFails("side/sibling.cc:2 includes low/b.h (az_low), which az_side does not depend on")

    def test_declaring_the_dependency_in_cmake_makes_it_pass(self):
        self.write("src/side/sibling.cc", '#include "low/b.h"\n')
        self.write("CMakeLists.txt", FAKE_CMAKE.replace("az_library(az_side side\n", "az_library(az_side side az_low\n"))
        code, output = run_check(self.root)
        self.assertEqual(code, 0, output)

    def test_a_test_includes_only_what_its_binary_links(self):
        self.write("src/side/d_test.cc", '#include "side/d.h"\n#include "high/c.h"\n')
        self.assertFails("side/d_test.cc:2 includes high/c.h (az_high), which az_side_tests (links az_side) "
                         "does not depend on")

    def test_test_only_code_stays_out_of_shipped_libraries(self):
        # The dependency rule alone would flag this too (az_low does not
        # depend on az_low_testing); the message says why it matters.
        self.write("src/low/leak.cc", '#include "low/testing/helper.h"\n')
        self.assertFails("low/leak.cc:1 includes low/testing/helper.h, test-only code, into az_low, which ships")

    def test_a_file_no_library_builds_fails(self):
        self.write("src/orphan/e.cc", '#include "base/a.h"\n')
        self.assertFails("orphan/e.cc is in a folder that no az_library(...) in CMakeLists.txt builds")


class RealTree(unittest.TestCase):
    def test_real_tree_passes(self):
        code, output = run_check(ROOT)
        self.assertEqual(code, 0, output)
        self.assertIn("check-layering: ok", output)

    def test_the_search_sees_workloads_not_the_zoo(self):
        # The planner reaches models through workload/ (az_search links
        # az_workload, not az_frontend): a search file that includes the zoo
        # or an importer fails on a copy of the real tree; its tests, which
        # link az_frontend to build real models, may.
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(ROOT, "CMakeLists.txt"), tmp)
            shutil.copytree(os.path.join(ROOT, "src"), os.path.join(tmp, "src"))
            with open(os.path.join(tmp, "src", "search", "leak_test.cc"), "w", encoding="utf-8") as f:
                f.write('#include "frontend/zoo/zoo.h"\n')
            code, output = run_check(tmp)
            self.assertEqual(code, 0, output)
            for header in ("frontend/zoo/zoo.h", "frontend/import/program_load.h"):
                with open(os.path.join(tmp, "src", "search", "leak.cc"), "w", encoding="utf-8") as f:
                    f.write('#include "workload/workload.h"\n#include "' + header + '"\n')
                code, output = run_check(tmp)
                self.assertEqual(code, 1, output)
                self.assertIn("search/leak.cc:2 includes " + header + " (az_frontend), which az_search does not "
                              "depend on", output)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
