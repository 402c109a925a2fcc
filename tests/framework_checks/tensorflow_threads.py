"""TF_NUM_INTRAOP_THREADS is read when the eager context starts (the first operation): set after `import tensorflow`
but before the first operation, %envset applies it through tf.config.threading and TensorFlow uses it; after the first
operation a warning says it was already read and nothing changes. Thread counts come from /proc/self/task.
Usage: tensorflow_threads.py baseline | before_first_op | after_first_op | before_import"""

import os
import sys

from _shell import emit, envset, shell


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


ip = shell()
result = {}
if sys.argv[1] == "before_import":
    result["set"] = envset(ip, "TF_NUM_INTRAOP_THREADS=7")
import tensorflow as tf  # noqa: E402

baseline = threads()
if sys.argv[1] == "after_first_op":
    (tf.ones(2) + 1).numpy()
    baseline = threads()
    result["reported_before"] = tf.config.threading.get_intra_op_parallelism_threads()
if sys.argv[1] in ("before_first_op", "after_first_op"):
    result["set"] = envset(ip, "TF_NUM_INTRAOP_THREADS=7")
(tf.ones(2) + 1).numpy()
result["reported"] = tf.config.threading.get_intra_op_parallelism_threads()
result["new_threads"] = threads() - baseline
emit(result)
