"""The nodes of the Ray cluster the kernel is connected to, each with the label its series are shown under.

A node's label is its own custom resource when it has exactly one (`ray start --resources='{"trainer_a": 1}'`: that is
how Ray users name a node's role), otherwise its IP address, with the start of its node id where several nodes share
an address (nodes started on one machine).

A label is what a node says about itself, and its series are named "<label> <device> <quantity>" beside the kernel's
own ("torch gpu0 allocated"): so a label is one word of letters, digits and `_.:/-[]`, at most 64 characters, and never
a word a local device name starts with (a framework's name, `host`, `gpu0`...), which would make a node's readings
pass for this kernel's. A resource that is not such a word is not used as the label (the address is).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..catalog._frameworks import BY_KEY, GPU_MODULES

# Resources Ray defines for every node; anything else was given with `ray start --resources`.
_RAY_RESOURCES = frozenset({"CPU", "GPU", "TPU", "memory", "object_store_memory"})
_RAY_PREFIXES = ("node:", "accelerator_type:", "TPU-")
_LABEL = re.compile(r"[A-Za-z0-9_.:/\[\]-]{1,64}")
# First words of this machine's own device names (memory sources: "gpu0", "host", "torch gpu0", "jax cpu0", ...).
_LOCAL_DEVICE_WORDS = re.compile(r"(?i:host|(?:gpu|cpu|tpu|xpu)\d*|" + "|".join(sorted({*GPU_MODULES, *BY_KEY})) + ")")


@dataclass(frozen=True)
class Node:
    """One alive node: Ray's node id, the label shown for it, its address and its resources."""

    id: str
    label: str
    address: str
    resources: dict[str, float] = field(default_factory=dict)

    @property
    def custom_resources(self) -> list[str]:
        return custom_resources(self.resources)


def custom_resources(resources: dict[str, float]) -> list[str]:
    """The resources a user gave the node (not Ray's own CPU, GPU, memory, node:<ip>...)."""
    return sorted(name for name in resources if name not in _RAY_RESOURCES and not name.startswith(_RAY_PREFIXES))


def labelled(described: list[dict[str, Any]]) -> list[Node]:
    """Nodes from `ray.nodes()`'s records: the alive ones, labelled (see the module's help), in a stable order."""
    alive = [record for record in described if record.get("Alive")]
    addresses = Counter(str(record.get("NodeManagerAddress", "")) for record in alive)
    nodes = []
    for record in alive:
        node_id, address = str(record["NodeID"]), str(record.get("NodeManagerAddress", ""))
        resources = {str(k): float(v) for k, v in (record.get("Resources") or {}).items()}
        own = custom_resources(resources)
        short_id = re.sub(r"[^0-9A-Za-z]", "", node_id)[:6] or "node"
        shown_address = address if usable_label(address) else ""
        if len(own) == 1 and usable_label(own[0]):
            label = own[0]
        elif addresses[address] == 1 and shown_address:
            label = shown_address
        else:
            label = f"{shown_address or 'node'}/{short_id}"
        nodes.append(Node(node_id, label, address, resources))
    counts = Counter(node.label for node in nodes)  # two nodes with the same resource: tell them apart
    nodes = [node if counts[node.label] == 1 else Node(
        node.id, f"{node.label}/{re.sub(r'[^0-9A-Za-z]', '', node.id)[:6]}", node.address, node.resources)
        for node in nodes]
    return sorted(nodes, key=lambda node: node.label)


def usable_label(text: str) -> bool:
    """Whether `text` can name a node's series: one short word of plain characters that no local device name starts
    with (see the module's help)."""
    return _LABEL.fullmatch(text) is not None and _LOCAL_DEVICE_WORDS.fullmatch(text) is None


def alive_nodes() -> list[Node]:
    """The alive nodes of the connected Ray cluster (`ray.init` first)."""
    import ray

    return labelled(ray.nodes())


def pinned(node: Node) -> Any:
    """A scheduling strategy that runs a task or actor on `node` and nowhere else."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node.id, soft=False)
