"""The GPU-only stand-ins (tests/framework_stand_ins.py) have the real APIs' parameters: each stand-in function against
the function it imitates in the installed CPU wheel (torch 2.13.0, jax 0.10.2, tensorflow-cpu 2.21.0), names and
defaults, read by tests/framework_checks/stand_in_signatures.py. A framework that renames or adds a parameter fails
here rather than leaving the stand-ins' tests passing against an API that no longer exists."""

from __future__ import annotations

import pytest
from framework_checks._signatures import parameters
from framework_stand_ins import functions

from framework_venvs import run

# Started ahead, two at a time, while the tests run (tests/frameworks/conftest.py).
SCENARIOS = [(framework, "stand_in_signatures.py", framework, *functions()[framework])
             for framework in ("torch", "jax", "tensorflow")]


@pytest.mark.parametrize("framework", ["torch", "jax", "tensorflow"])
def test_every_stand_in_has_the_real_parameters(framework):
    stand_ins = functions()[framework]
    real = run(framework, "stand_in_signatures.py", framework, *stand_ins)
    assert {path: parameters(function) for path, function in stand_ins.items()} == real
    assert "(unknown)" not in real.values()  # every real signature could be read, so the comparison means something
