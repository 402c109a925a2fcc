"""MXNet's worker threads as a witness: MXNET_CPU_WORKER_NTHREADS is read at import, MXNET_ENGINE_TYPE at the first op.

argv[1] is the scenario: baseline | before_import | after_import | engine_after_import
"""

import os
import sys

from _shell import emit, envset, shell


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


def first_op() -> None:
    import mxnet as mx

    (mx.nd.ones((2, 2)) + 1).wait_to_read()
    mx.nd.waitall()


scenario = sys.argv[1]
ip = shell()
result: dict = {"scenario": scenario}
if scenario == "before_import":
    result["set"] = envset(ip, "MXNET_CPU_WORKER_NTHREADS=6")
import mxnet  # noqa: E402, F401

if scenario == "after_import":
    result["set"] = envset(ip, "MXNET_CPU_WORKER_NTHREADS=6")
if scenario == "engine_after_import":
    result["set"] = envset(ip, "MXNET_ENGINE_TYPE=NaiveEngine")
first_op()
result["threads"] = threads()
if scenario == "engine_after_import":
    result["set_after_first_op"] = envset(ip, "MXNET_ENGINE_TYPE=ThreadedEnginePerDevice")
    first_op()
    result["threads_after"] = threads()
emit(result)
