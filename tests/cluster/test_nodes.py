"""Node labels from what `ray.nodes()` returns (records shaped as Ray 2.60 gives them; the Ray tier checks the real
ones): a node's own custom resource, else its address, else the address and the start of its id."""

from __future__ import annotations

from mgenv_jupyter.cluster._nodes import custom_resources, labelled


def record(node_id: str, address: str, alive: bool = True, **extra: float) -> dict:
    resources = {"CPU": 1.0, "memory": 1e9, "object_store_memory": 1e8, f"node:{address}": 1.0, **extra}
    return {"NodeID": node_id, "Alive": alive, "NodeManagerAddress": address, "Resources": resources}


def test_a_nodes_own_custom_resource_is_its_label():
    nodes = labelled([record("b" * 56, "10.0.0.2", node_b=1.0), record("a" * 56, "10.0.0.1", node_a=1.0,
                                                                         **{"node:__internal_head__": 1.0})])
    assert [(n.label, n.id[0]) for n in nodes] == [("node_a", "a"), ("node_b", "b")]


def test_address_labels_nodes_without_one_resource_and_the_id_tells_shared_addresses_apart():
    nodes = labelled([record("aa1111" + "0" * 50, "10.0.0.1"), record("bb2222" + "0" * 50, "10.0.0.9", GPU=2.0),
                      record("cc3333" + "0" * 50, "10.0.0.1", x=1.0, y=1.0)])
    assert [n.label for n in nodes] == ["10.0.0.1/aa1111", "10.0.0.1/cc3333", "10.0.0.9"]


def test_dead_nodes_are_left_out_and_equal_resources_are_told_apart():
    nodes = labelled([record("a" * 56, "h", trainer=1.0), record("b" * 56, "h", trainer=1.0),
                      record("c" * 56, "h", alive=False, trainer=1.0)])
    assert [n.label for n in nodes] == ["trainer/aaaaaa", "trainer/bbbbbb"]


def test_rays_own_resources_are_not_custom():
    assert custom_resources({"CPU": 1, "GPU": 1, "TPU": 1, "memory": 1, "object_store_memory": 1, "node:1.2.3.4": 1,
                             "accelerator_type:A100": 1, "TPU-v4-8-head": 1, "mine": 2}) == ["mine"]


def test_a_label_that_would_pass_for_this_kernels_devices_or_carry_markup_is_not_used():
    # A node's series are "<label> <device> <quantity>": a node labelled "torch" would write "torch gpu0 allocated",
    # the kernel's own PyTorch series; markup, spaces or a huge name are not labels either.
    hostile = ["torch", "gpu0", "host", "jax", "<img src=x onerror=alert(1)>", "a b", "x" * 65, "node\n_b"]
    records = [record(f"{i:02d}" + "f" * 54, f"10.0.0.{i}", **{name: 1.0}) for i, name in enumerate(hostile)]
    labels = [n.label for n in labelled(records)]
    assert labels == sorted(f"10.0.0.{i}" for i in range(len(hostile)))
    assert labelled([record("ab" * 28, "<b>x</b>", trainer_a=1.0), record("cd" * 28, "<b>x</b>")])[0].label == (
        "node/cdcdcd")  # an address that is no plain word is not shown either
    assert [n.label for n in labelled([record("e" * 56, "10.0.0.1", node_a=1.0)])] == ["node_a"]
