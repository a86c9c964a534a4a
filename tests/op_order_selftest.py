#!/usr/bin/env python3
"""scripts/check-op-order checked against a small fake tree and the real one.

The fake tree has a GraphBuilder header and one builder file; each case
plants a body and asserts what the check says: two building arguments in one
call fail (a builder method, a helper that builds through a GraphBuilder&, a
lambda that builds), named values built first pass, one building argument
passes, a lambda passed as an argument passes, and a same-named lambda of
another file does not count. Finally the real tree passes.

Usage: op_order_selftest.py [REPO_ROOT]
"""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
CHECK = os.path.join(ROOT, "scripts", "check-op-order")

HEADER = """\
class GraphBuilder {
 public:
  ValueId Unary(OpKind kind, const std::string& name, ValueId x);
  ValueId Binary(OpKind kind, const std::string& name, ValueId a, ValueId b);
  const TensorType& type(ValueId v) const;
};
"""

HELPER = """\
ValueId Square(GraphBuilder& b, ValueId x) { return b.Binary(OpKind::kMul, "square", x, x); }
"""


def run(body, other=""):
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "pir", "build"))
        with open(os.path.join(root, "src", "pir", "build", "graph_builder.h"), "w") as f:
            f.write(HEADER)
        with open(os.path.join(root, "src", "model.cc"), "w") as f:
            f.write(HELPER + "ValueId Build(GraphBuilder& b, ValueId x, ValueId y) {\n" + body + "\n}\n")
        if other:
            with open(os.path.join(root, "src", "other.cc"), "w") as f:
                f.write(other)
        return subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)


class CheckOpOrder(unittest.TestCase):
    def assert_fails(self, body, where):
        result = run(body)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(where, result.stdout)

    def assert_passes(self, body, other=""):
        result = run(body, other)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_two_builder_calls_fail(self):
        self.assert_fails('return b.Binary(OpKind::kAdd, "sum", b.Unary(OpKind::kExp, "e", x), '
                          'b.Unary(OpKind::kTanh, "t", y));', "src/model.cc:3: Binary(...) has 2 arguments")

    def test_a_helper_that_builds_counts(self):
        self.assert_fails('return b.Binary(OpKind::kAdd, "sum", Square(b, x), b.Unary(OpKind::kExp, "e", y));',
                          "Binary(...) has 2 arguments")

    def test_a_lambda_that_builds_counts(self):
        self.assert_fails('auto exp = [&](ValueId v) { return b.Unary(OpKind::kExp, "e", v); };\n'
                          'return b.Binary(OpKind::kAdd, "sum", exp(x), exp(y));', "Binary(...) has 2 arguments")

    def test_nested_in_one_argument_passes(self):
        self.assert_passes('return b.Binary(OpKind::kAdd, "sum", x, Square(b, b.Unary(OpKind::kExp, "e", y)));')

    def test_named_values_pass(self):
        self.assert_passes('ValueId e = b.Unary(OpKind::kExp, "e", x);\n'
                           'ValueId t = b.Unary(OpKind::kTanh, "t", y);\n'
                           'return b.Binary(OpKind::kAdd, "sum", e, t);')

    def test_lookups_and_lambda_arguments_pass(self):
        self.assert_passes('Apply([&](ValueId v) { return Square(b, v); }, [&](ValueId v) { return Square(b, v); });\n'
                           'return b.Binary(OpKind::kAdd, "sum", Square(b, x), Rank(b.type(x), b.type(y)));')

    def test_another_files_lambda_does_not_count(self):
        other = ('ValueId Other(GraphBuilder& b, ValueId x) {\n'
                 '  auto pick = [&](ValueId v) { return b.Unary(OpKind::kExp, "e", v); };\n'
                 '  return pick(x);\n}\n')
        self.assert_passes('auto pick = [](int i) { return i; };\nreturn Mix(Square(b, x), pick(1), pick(2));', other)

    def test_the_real_tree_passes(self):
        result = subprocess.run([sys.executable, CHECK, ROOT], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
