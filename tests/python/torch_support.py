"""PyTorch for the Python tests: `torch` (None when it cannot be imported) and require_torch().

Debian's python3-torch serves /usr/bin/python3 (scripts/install-deps --torch). Without it, and with
tests/ on sys.path, "import torch" finds tests/torch as a namespace package: that is no torch. Under
CI=true a missing torch fails the test instead of skipping it.
"""

import os
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None
if torch is not None and not hasattr(torch, "nn"):
    torch = None

IN_CI = os.environ.get("CI", "").lower() == "true"


def require_torch():
    if torch is not None:
        return
    message = ("torch is not importable by " + sys.executable + ": install Debian's python3-torch "
               "(scripts/install-deps --torch) and run with /usr/bin/python3")
    if IN_CI:
        raise RuntimeError("CI=true: " + message)
    raise unittest.SkipTest(message)
