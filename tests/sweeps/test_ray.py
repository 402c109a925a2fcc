"""The Ray side without a cluster: whether the user's code connected Ray (asked without importing it), and what env
a point's kernel gets from the notebook's kernelspec on a Ray node, where the worker never had it (the cluster tier
runs real points: tests/ray_cluster)."""

from __future__ import annotations

import sys

from jupyter_client.kernelspec import KernelSpec

from mgenv_jupyter.sweeps._kernels import KernelChoice, point_spec
from mgenv_jupyter.sweeps._ray import ray_connected

ARGV = ("python", "-m", "ipykernel_launcher", "-f", "{connection_file}")


def test_ray_not_imported_means_not_connected():
    assert "ray" not in sys.modules or not ray_connected()
    assert "ray" not in sys.modules  # asking imported nothing


def _choice(how: str) -> KernelChoice:
    spec = KernelSpec(argv=list(ARGV), language="python", display_name="spec",
                      env={"SWEPT": "spec", "CHANGED": "spec", "ONLY_SPEC": "spec"})
    return KernelChoice("spec", ARGV, how, spec)


def test_the_notebooks_own_spec_env_applies_on_a_ray_node_less_the_swept_and_the_sessions_names():
    own = _choice("same_python")
    # Here, this kernel's environment already holds the spec's env, as the session left it: nothing more is added.
    assert point_spec(own, {"SWEPT"}).env == {}
    # On a node, the worker holds the session's changes (its runtime_env) but never the spec's env: the spec's
    # applies, less the point's own names and what the session changed.
    assert point_spec(own, {"SWEPT"}, session_changed=["CHANGED"]).env == {"ONLY_SPEC": "spec"}
    # A named spec is the same wherever the point runs: its env less the point's own names.
    named = _choice("named")
    assert point_spec(named, {"SWEPT"}).env == point_spec(named, {"SWEPT"}, session_changed=[]).env == {
        "CHANGED": "spec", "ONLY_SPEC": "spec"}
