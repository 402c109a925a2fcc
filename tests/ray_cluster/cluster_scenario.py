"""The notebook side of the Ray tier, run with .venvs/ray's Python against a LocalCluster (RAY_ADDRESS): a real
IPython shell with the extension sets the variables as a notebook does, then the session's runtime_env goes to Ray,
verify() asks every node, a task on each node reads the values back, watch() streams every node's simulated GPU into
the kernel's sampler, and one node's processes are killed. Prints `RESULT {json}`."""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings

import psutil
import ray
from IPython.core.interactiveshell import InteractiveShell

import mgenv_jupyter
from mgenv_jupyter import cluster
from mgenv_jupyter.cluster import _last_verify as last_verify
from mgenv_jupyter.cluster._verify import new_key, worker_view
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.memory._shared import kernel_sampler
from mgenv_jupyter.runtime import _launchers as launchers

PRESETS = {"node_a": "a100-40gb", "node_b": "2xv100", "node_c": "no-process-memory"}
HOSTILE = "$(touch CANARY) `touch CANARY`; touch CANARY \"' $- a$ $$ $(HOME)\nsecond line"


def wait(condition, seconds: float) -> float | None:
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if condition():
            return time.monotonic() - began
        time.sleep(0.1)
    return None


def main() -> dict:
    result: dict = {}
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mgenv_jupyter")
    shell.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=5GB FLAGS_eager_delete_tensor_gb=0")
    session = mgenv_jupyter.session()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # MGENV_DIGIT: Ray would put the worker's variable 1 in place of $1 (os.path.expandvars): left out
        session.set({"MGENV_HOSTILE": HOSTILE, "MGENV_EXPANDED": "$HOME/x", "MGENV_DIGIT": "$1",
                     "MY_API_TOKEN": "tok-123"}, force=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = cluster.runtime_env()
    result["runtime_env"] = env
    result["not_carried"] = [str(w.message) for w in caught if issubclass(w.category, cluster.NotCarriedWarning)]

    # The ray export format, validated by Ray's own RuntimeEnv.
    from ray.runtime_env import RuntimeEnv

    exported = json.loads(launchers.export(session, "ray").text)
    result["ray_format_valid"] = dict(RuntimeEnv(**exported).env_vars()) == exported["env_vars"]

    ray.init(address=os.environ["RAY_ADDRESS"], runtime_env=env, log_to_driver=False)
    result["nodes"] = [node.label for node in cluster.alive_nodes()]

    began = time.monotonic()
    report = cluster.verify()
    result["verify_seconds"] = time.monotonic() - began
    result["verify"] = report.frame().to_dict("records")
    result["verify_ok"] = report.ok

    # What the Framework Env sidebar is sent: the kernel's comm builds its "verify" notice from the result verify()
    # recorded; and the panel's "Verify nodes" JSON request, which runs verify() again now that Ray is initialised.
    handler = RequestHandler(session)
    recorded = last_verify.last()
    result["verify_notice"] = handler.verify(*recorded) if recorded is not None and recorded[0] is report else None
    result["verify_request"] = handler.handle({"v": 1, "id": "sidebar-1", "type": "verify"})
    again = last_verify.last()
    result["verify_request_notice"] = handler.verify(*again) if again is not None and again[0] is not report else None

    # A secret, asked for by name: a node answers with an HMAC under the call's own key, never the value or its
    # sha256; verify() still tells a match from a mismatch.
    with_secret = {"env_vars": {**env["env_vars"], "MY_API_TOKEN": "tok-123"}}
    right = cluster.verify(["MY_API_TOKEN"], runtime_env=with_secret)
    secret_recorded = last_verify.last()
    result["secret_notice"] = handler.verify(*secret_recorded) if secret_recorded is not None else None
    wrong = cluster.verify(["MY_API_TOKEN"], runtime_env={"env_vars": {**env["env_vars"], "MY_API_TOKEN": "tok-456"}})
    result["secret_verify"] = {"right": right.frame().to_dict("records"), "right_ok": right.ok,
                               "wrong": wrong.frame().to_dict("records"), "wrong_ok": wrong.ok}
    view = ray.remote(num_cpus=0)(worker_view).options(runtime_env=with_secret,
                                                                     resources={"node_a": 0.01})
    raw = ray.get([view.remote(["MY_API_TOKEN"], {}, new_key()) for _ in range(2)])
    result["secret_raw"] = {"text": json.dumps(raw), "plain_sha256": hashlib.sha256(b"tok-123").hexdigest(),
                            "digests": [answer["variables"]["MY_API_TOKEN"]["hmac"] for answer in raw]}

    @ray.remote(num_cpus=0)
    def read_back(names: list[str]) -> dict:
        return {"node": ray.get_runtime_context().get_node_id(), "values": {n: os.environ.get(n) for n in names},
                "canary": os.path.exists("CANARY"), "cwd": os.getcwd()}

    names = ["MEGENGINE_DTR_EVICTION_THRESHOLD", "FLAGS_eager_delete_tensor_gb", "MGENV_HOSTILE", "MGENV_EXPANDED",
             "MGENV_DIGIT", "MY_API_TOKEN"]
    ids = {node.label: node.id for node in cluster.alive_nodes()}
    read = ray.get([read_back.options(resources={label: 0.01}).remote(names) for label in PRESETS])
    result["read_back"] = {label: {**answer, "on_its_node": answer["node"] == ids[label]}
                           for label, answer in zip(PRESETS, read, strict=True)}
    result["hostile_expected"] = HOSTILE

    # Every node's memory in the kernel's history.
    watch = cluster.watch(0.1, node_env={label: {"MGENV_SIMULATE_GPU": preset} for label, preset in PRESETS.items()})
    chart = mgenv_jupyter.MemoryChart.for_cluster(watch)  # closing it, at the end, ends the watch
    result["streaming_after"] = wait(lambda: all(source.batches for source in watch.sources.values()), 60)
    result["states_before"] = watch.states()
    # Until every node has streamed for over a second (10 Hz): past its first once-a-second process list, and in the
    # kernel's history.
    wait(lambda: all(source.batches >= 12 for source in watch.sources.values()) and all(
        f"{label} gpu0 (simulated) used" in kernel_sampler().history.series for label in PRESETS), 60)
    history = kernel_sampler().history
    result["series"] = history.series
    # What the chart is sent: each series and source names its node (None: the kernel's own).
    result["series_nodes"] = {info["key"]: info["node"] for info in kernel_sampler().snapshot()["series"]}
    result["simulations"] = {label: source.simulation for label, source in watch.sources.items()}
    actor_pids = {label: ray.get(watch.actor(label).pid.remote()) for label in PRESETS}

    # Kill node_c: its raylet and everything under it (its workers, the actor, the simulated GPU's processes).
    raylet = psutil.Process(actor_pids["node_c"]).parent()
    result["killed"] = raylet.name()
    victims = [raylet, *raylet.children(recursive=True)]
    before = {label: source.batches for label, source in watch.sources.items()}
    frame_before = history.readings()
    for process in victims:
        process.kill()
    result["lost_after"] = wait(lambda: watch.states()["node_c"].startswith("lost"), 60)
    # The others keep streaming: until each has sent 20 more batches (2 s at 10 Hz), the window node_c is watched over.
    lost = {label: source.batches for label, source in watch.sources.items()}
    wait(lambda: all(watch.sources[label].batches >= lost[label] + 20 for label in ("node_a", "node_b")), 60)
    result["states_after"] = watch.states()
    result["wire_states_after"] = {state["node"]: state["text"] for state in kernel_sampler().states()
                                   if state["node"]}
    after = {label: source.batches for label, source in watch.sources.items()}
    result["batches"] = {"before": before, "after": after}
    frame_after = history.readings()  # the rows as sampled: nothing carried forward past the loss
    result["rows_with_values_after_loss"] = {
        label: int(frame_after[f"{label} gpu0 (simulated) used"].loc[frame_after.index > frame_before.index[-1]]
                   .notna().sum()) for label in PRESETS}

    names = watch.actor_names()
    result["named_before_close"] = sorted(set(names) & set(cluster.live_watch_actors()))
    chart.close()
    result["closed_with_chart"] = watch.closed
    result["states_after_close"] = watch.states()
    result["named_gone_after"] = wait(lambda: not set(names) & set(cluster.live_watch_actors()), 20)
    result["sources_after_close"] = [source.name for source in kernel_sampler().sources]
    result["actors_gone"] = wait(lambda: not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
                                                 for label, pid in actor_pids.items() if label != "node_c"), 20)
    ray.shutdown()
    return result


if __name__ == "__main__":
    print("RESULT " + json.dumps(main(), default=str))
