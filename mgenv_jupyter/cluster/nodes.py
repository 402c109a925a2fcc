"""The nodes of the Ray cluster the kernel is connected to, each with the label its series are shown under.

A node's label is its own custom resource when it has exactly one (`ray start --resources='{"trainer_a": 1}'`: that is
how Ray users name a node's role), otherwise its IP address, with the start of its node id where several nodes share
an address (nodes started on one machine).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# Resources Ray defines for every node; anything else was given with `ray start --resources`.
_RAY_RESOURCES = frozenset({"CPU", "GPU", "TPU", "memory", "object_store_memory"})
_RAY_PREFIXES = ("node:", "accelerator_type:", "TPU-")


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
    addresses = Counter(record.get("NodeManagerAddress", "") for record in alive)
    nodes = []
    for record in alive:
        node_id, address = str(record["NodeID"]), str(record.get("NodeManagerAddress", ""))
        resources = {str(k): float(v) for k, v in (record.get("Resources") or {}).items()}
        own = custom_resources(resources)
        if len(own) == 1:
            label = own[0]
        elif addresses[address] == 1 and address:
            label = address
        else:
            label = f"{address}/{node_id[:6]}"
        nodes.append(Node(node_id, label, address, resources))
    counts = Counter(node.label for node in nodes)  # two nodes with the same resource: tell them apart
    nodes = [node if counts[node.label] == 1 else Node(node.id, f"{node.label}/{node.id[:6]}", node.address,
                                                       node.resources) for node in nodes]
    return sorted(nodes, key=lambda node: node.label)


def alive_nodes() -> list[Node]:
    """The alive nodes of the connected Ray cluster (`ray.init` first)."""
    import ray

    return labelled(ray.nodes())


def pinned(node: Node) -> Any:
    """A scheduling strategy that runs a task or actor on `node` and nowhere else."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node.id, soft=False)
