"""Beyond one machine, through Ray (`pip install "mgenv_jupyter[ray]"`): the session's variables to every worker, what
each node's workers actually see, and every node's memory in the kernel's history.

    import ray, mgenv_jupyter.cluster as cluster
    ray.init(address="auto", runtime_env=cluster.runtime_env())   # the notebook's variables, normalised
    cluster.verify()                                              # every node's workers, variable by variable
    watch = cluster.watch(interval=0.1)                           # a series per node and GPU in the history
    mgenv_jupyter.MemoryChart.for_cluster(watch)                  # inline; closing it ends the watch's actors

Ray is imported only when a function here needs it, so without Ray installed `runtime_env()` still works and nothing
else in mgenv_jupyter changes.
"""

from __future__ import annotations

from ._node_memory import ClusterMemory, NodeMemory, live_watch_actors, watch
from ._nodes import Node, alive_nodes
from ._remote_source import NodeBatch, RemoteSource
from ._runtime_env import NotCarriedWarning, runtime_env
from ._seen import Seen
from ._verify import verify
from ._verify_report import ClusterReport

__all__ = ["ClusterMemory", "ClusterReport", "Node", "NodeBatch", "NodeMemory", "NotCarriedWarning", "RemoteSource",
           "Seen", "alive_nodes", "live_watch_actors", "runtime_env", "verify", "watch"]
