"""TF_NUM_INTRAOP_THREADS is read when the eager context starts (the first operation): set after `import tensorflow`
but before the first operation, %envset applies it through tf.config.threading and TensorFlow uses it; after the first
operation a warning says it was already read and nothing changes. Thread counts come from /proc/self/task. The number
asked for (`asked`) is more than TensorFlow's default pool, which has at most one thread per CPU, on any machine.
Usage: tensorflow_threads.py baseline | before_first_op | after_first_op | before_import"""

import os
import sys

from _shell import emit, envset, shell


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


ip = shell()
result = {"asked": (os.cpu_count() or 1) + 5}
if sys.argv[1] == "before_import":
    result["set"] = envset(ip, f"TF_NUM_INTRAOP_THREADS={result['asked']}")
import tensorflow as tf  # noqa: E402

baseline = threads()
if sys.argv[1] == "after_first_op":
    (tf.ones(2) + 1).numpy()
    baseline = threads()
    result["reported_before"] = tf.config.threading.get_intra_op_parallelism_threads()
if sys.argv[1] in ("before_first_op", "after_first_op"):
    result["set"] = envset(ip, f"TF_NUM_INTRAOP_THREADS={result['asked']}")
(tf.ones(2) + 1).numpy()
result["reported"] = tf.config.threading.get_intra_op_parallelism_threads()
result["new_threads"] = threads() - baseline
emit(result)
