"""One simulated machine for a Jupyter server and its kernels (memory/simulated/_shared_machine.py): real processes
join it through its file, every one of them lists the same processes with the same figures, a kernel whose variable
changes defines it anew for all, and a file that is not one to trust, or not one at all, is no machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mgenv_jupyter.memory.simulated._machine_file import MACHINE_ENV, machine_path
from mgenv_jupyter.memory.simulated._scenario import PRESETS, Scenario
from mgenv_jupyter.memory.simulated._shared_machine import SharedMachine, server_machine
from mgenv_jupyter.memory.simulated._simulation import Simulation

GiB = 1024**3
MiB = 1024**2
# A fixed kernel figure (no wave): whoever reads it, whenever, reads the same bytes.
FIXED = {"name": "fixed", "devices": [{"name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB",
                                       "kernel": "2GB", "notebooks": {"big.ipynb": "20GB"},
                                       "other_processes": [{"pid": 4000001, "bytes": "3GB"}]}]}


@pytest.fixture
def sleepers() -> Iterator[list[int]]:
    """Three real processes standing in for kernels."""
    procs = [subprocess.Popen(["sleep", "120"]) for _ in range(3)]
    yield [p.pid for p in procs]
    for p in procs:
        p.kill()
        p.wait()


def test_processes_join_in_order_and_a_second_reader_of_the_file_sees_the_same_machine(tmp_path, sleepers):
    machine = SharedMachine(tmp_path / "m.json")
    defined = machine.define("fixed", FIXED, "fixed", 1000.0, kept=True)
    for pid in sleepers:
        machine.join(pid, 1001.0)
    # The server lists its kernels with their notebooks; the third one's session is gone: so is its memory.
    machine.sync([(sleepers[0], ()), (sleepers[1], ("big.ipynb",))], 1002.0)
    other = SharedMachine(tmp_path / "m.json").read()  # another process's view: the file alone
    assert other is not None and other.id == defined.id and other.kept and other.scenario == FIXED
    assert [(h.pid, h.order, h.joined, h.notebooks) for h in other.holders] == [
        (sleepers[0], 0, 1001.0, ()), (sleepers[1], 1, 1001.0, ("big.ipynb",))]
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o600
    # Listed by the server again: it holds the scenario's start until it looks at the machine itself, in the lowest
    # place free (0 and 1 are held): a place, and so a figure, never depends on how many came and went before.
    machine.sync([(sleepers[0], ()), (sleepers[1], ("big.ipynb",)), (sleepers[2], ())], 1003.0)
    again = machine.read()
    assert again is not None and [(h.pid, h.order, h.joined) for h in again.holders][-1] == (sleepers[2], 2, None)
    looked = machine.join(sleepers[2], 1004.0)
    assert looked is not None and [(h.pid, h.order, h.joined) for h in looked.holders][-1] == (sleepers[2], 2, 1004.0)
    # The first one's kernel is shut down: the next to come takes its place, 0.
    machine.sync([(sleepers[1], ("big.ipynb",)), (sleepers[2], ())], 1005.0)
    machine.join(os.getpid(), 1006.0)
    last = machine.read()
    assert last is not None and [(h.pid, h.order) for h in last.holders] == [
        (sleepers[1], 1), (sleepers[2], 2), (os.getpid(), 0)]


def test_a_holder_whose_process_ended_leaves_and_a_machine_no_server_keeps_goes_with_its_last(tmp_path):
    machine = SharedMachine(tmp_path / "m.json")
    machine.define("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", time.time())
    child = subprocess.Popen(["sleep", "120"])
    machine.join(child.pid, time.time())
    machine.join(os.getpid(), time.time())
    child.kill()
    child.wait()
    after = machine.join(os.getpid(), time.time())  # any change leaves the ended processes out
    assert after is not None and [h.pid for h in after.holders] == [os.getpid()]
    assert machine.leave(os.getpid()) is None and machine.read() is None and not (tmp_path / "m.json").exists()
    kept = machine.define("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", time.time(), kept=True)
    assert kept.in_use and machine.leave(os.getpid()) is not None  # the server keeps it, held or not


def test_defining_it_anew_runs_the_new_timeline_for_the_process_that_asked_only(tmp_path, sleepers):
    machine = SharedMachine(tmp_path / "m.json")
    first = machine.define("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", 1000.0, kept=True)
    machine.join(sleepers[0], 1000.0)
    machine.join(sleepers[1], 1001.0)
    machine.update(sleepers[0], released=1005.0)
    again = machine.define("training", PRESETS["training"], "training", 2000.0, by=sleepers[1])
    assert again.id != first.id and again.kept and again.spec == "training" and again.started == 2000.0
    # The one that switched runs it from now; the other stays in its place holding the start: it did not ask.
    assert [(h.pid, h.order, h.joined, h.released) for h in again.holders] == [
        (sleepers[0], 0, None, None), (sleepers[1], 1, 2000.0, None)]
    by_a_newcomer = machine.define("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", 3000.0, by=sleepers[2])
    assert [(h.pid, h.order, h.joined) for h in by_a_newcomer.holders] == [
        (sleepers[0], 0, None), (sleepers[1], 1, None), (sleepers[2], 2, 3000.0)]


def test_every_process_on_the_machine_lists_the_same_processes_with_the_same_figures(tmp_path, sleepers):
    """A Simulation in another Python process (a kernel that holds memory on the machine) and this process (the
    server, which only lists it) read NVML through the real pynvml against the fake: the same pids, the same bytes."""
    path = tmp_path / "m.json"
    machine = SharedMachine(path)
    machine.define("fixed", FIXED, "fixed", time.time(), kept=True)
    machine.sync([(sleepers[0], ()), (sleepers[1], ("big.ipynb",))], time.time())
    kernel = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import json, os
        from pathlib import Path
        from mgenv_jupyter.memory.simulated._shared_machine import SharedMachine
        from mgenv_jupyter.memory.simulated._simulation import Simulation
        from mgenv_jupyter.memory._gpu_processes import GpuProcessReader
        machine = SharedMachine(Path({str(path)!r}))
        machine.join(os.getpid(), machine.read().started)
        with Simulation.following(machine, machine.read()):
            reading = GpuProcessReader().read()
        print(json.dumps([os.getpid(), [[p.pid, p.used] for p in reading.devices[0].processes]]))
        """)], capture_output=True, text=True, timeout=120, env={**os.environ})
    assert kernel.returncode == 0, kernel.stderr
    kernel_pid, kernel_listed = json.loads(kernel.stdout)
    # Here, after the kernel has gone: its holder is left out now, so compare what both list of the others, and
    # what the kernel listed of itself against the figure the formula gives it (order 2: the third to come).
    from mgenv_jupyter.memory._gpu_processes import GpuProcessReader

    with Simulation.following(machine, machine.read()):
        server_listed = [[p.pid, p.used] for p in GpuProcessReader().read().devices[0].processes]
    assert [sleepers[0], 2 * GiB] in kernel_listed and [sleepers[1], 20 * GiB] in kernel_listed
    assert [kernel_pid, 2 * GiB + 2 * 512 * MiB] in kernel_listed  # a little more for each later process
    assert [4000001, 3 * GiB] in kernel_listed
    assert sorted(server_listed) == sorted(p for p in kernel_listed if p[0] != kernel_pid)


def test_many_processes_joining_at_once_all_join_with_distinct_orders(tmp_path):
    path = tmp_path / "m.json"
    SharedMachine(path).define("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", time.time(), kept=True)
    code = (f"import os, time\nfrom pathlib import Path\n"
            f"from mgenv_jupyter.memory.simulated._shared_machine import SharedMachine\n"
            f"SharedMachine(Path({str(path)!r})).join(os.getpid(), time.time())\nimport sys; sys.stdin.read()")
    joiners = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE) for _ in range(8)]
    try:
        deadline = time.time() + 60
        while (found := SharedMachine(path).read()) is None or len(found.holders) < 8:
            assert time.time() < deadline, found
            time.sleep(0.1)
        assert {h.pid for h in found.holders} == {p.pid for p in joiners}
        assert sorted(h.order for h in found.holders) == list(range(8))
    finally:
        for p in joiners:
            assert p.stdin is not None
            p.stdin.close()
            p.wait(timeout=30)


@pytest.mark.parametrize("content", [
    b"[" * 100_000,  # nested too deep to be one
    b'{"v": 2, "machine": {"id": "x", "spec": "a", "name": "a", "scenario": {}, "started": 1e300, "kept": false, '
    b'"holders": []}}',  # a time out of bounds
    b'{"v": 1, "machine": {"id": "x", "spec": "a", "name": "a", "scenario": {}, "started": 1, "kept": false, '
    b'"came": 0, "holders": []}}',  # the version before, whose places counted every process that came
    b'{"v": 2, "machine": {}}',
    b"not json",
])
def test_a_file_that_is_not_a_machine_is_none(tmp_path, content):
    path = tmp_path / "m.json"
    path.write_bytes(content)
    path.chmod(0o600)
    assert SharedMachine(path).read() is None


@pytest.fixture
def servers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Two real processes standing in for two single-user servers."""
    procs = [subprocess.Popen(["sleep", "120"]) for _ in range(2)]
    yield procs
    for p in procs:
        p.kill()
        p.wait()


def test_two_servers_naming_one_file_share_one_machine_each_listing_its_own_kernels(tmp_path, sleepers, servers):
    """A hub's two single-user servers (MGENV_SIMULATE_GPU_MACHINE): the first defines the machine, the second joins
    it as it is (its own, other scenario is not applied: that would reset the first's kernels); each server's list of
    its kernels leaves the other's alone; the file and its lock go with the last server, not the first."""
    a, b = (p.pid for p in servers)
    path = tmp_path / "hub-machine.json"
    first = SharedMachine(path).share("fixed", FIXED, "fixed", 1000.0, a)
    second = SharedMachine(path).share("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", 1001.0, b)
    assert second.id == first.id and second.spec == "fixed" and second.keepers == (a, b)
    SharedMachine(path).sync([(sleepers[0], ("big.ipynb",))], 1002.0, a)
    SharedMachine(path).sync([(sleepers[1], ()), (sleepers[2], ())], 1002.0, b)
    SharedMachine(path).sync([(sleepers[0], ("big.ipynb",))], 1003.0, a)  # a's list again: b's kernels stay
    machine = SharedMachine(path).read()
    assert machine is not None and [(h.pid, h.server) for h in machine.holders] == [
        (sleepers[0], a), (sleepers[1], b), (sleepers[2], b)]
    SharedMachine(path).sync([(sleepers[2], ())], 1004.0, b)  # b's kernel shut down: gone, a's stays
    assert [h.pid for h in SharedMachine(path).read().holders] == [sleepers[0], sleepers[2]]
    SharedMachine(path).let_go(a)  # a stops: its kernels leave, b keeps the machine
    left = SharedMachine(path).read()
    assert left is not None and left.id == first.id and left.keepers == (b,)
    assert [h.pid for h in left.holders] == [sleepers[2]]
    servers[1].kill()  # b is killed: nobody keeps the machine, which lasts while b's kernel holds memory on it
    servers[1].wait()
    assert SharedMachine(path).read().in_use
    SharedMachine(path).let_go(b)  # (its last words, had it stopped cleanly): the file and its lock go
    assert not path.exists() and not path.with_name(path.name + ".lock").exists()


def test_a_file_others_can_write_or_a_link_is_not_trusted(tmp_path):
    machine = SharedMachine(tmp_path / "m.json")
    machine.define("a100-40gb", PRESETS["a100-40gb"], "a100-40gb", time.time(), kept=True)
    assert machine.read() is not None
    (tmp_path / "m.json").chmod(0o666)
    assert SharedMachine(tmp_path / "m.json").read() is None
    (tmp_path / "m.json").chmod(0o600)
    (tmp_path / "link.json").symlink_to(tmp_path / "m.json")
    assert SharedMachine(tmp_path / "link.json").read() is None


def test_a_kernel_finds_its_servers_machine_only_through_a_trusted_runtime_file(tmp_path):
    parent = 4242
    assert server_machine(str(tmp_path), parent) is None  # no server of that pid: a machine of its own
    info = tmp_path / f"jpserver-{parent}.json"
    info.write_text(json.dumps({"url": "http://127.0.0.1:8888/", "token": "t"}))
    info.chmod(0o666)
    assert server_machine(str(tmp_path), parent) is None  # a file others could have put there
    info.chmod(0o600)
    found = server_machine(str(tmp_path), parent)
    assert found is not None and found.path == machine_path(tmp_path, parent)


def test_a_kernel_of_a_server_that_shares_a_machine_file_finds_that_file(tmp_path, monkeypatch):
    """MGENV_SIMULATE_GPU_MACHINE, inherited from its server: the kernel uses the file it names, and still changes
    it only while its own server's runtime file is there."""
    parent = 4243
    (tmp_path / f"jpserver-{parent}.json").write_text("{}")
    (tmp_path / f"jpserver-{parent}.json").chmod(0o600)
    monkeypatch.setenv(MACHINE_ENV, str(tmp_path / "hub" / "machine.json"))
    found = server_machine(str(tmp_path), parent)
    assert found is not None and found.path == tmp_path / "hub" / "machine.json"
    assert found.owner == tmp_path / f"jpserver-{parent}.json"
    monkeypatch.setenv(MACHINE_ENV, "relative/machine.json")  # not a path anyone can agree on: the server's own
    found = server_machine(str(tmp_path), parent)
    assert found is not None and found.path == machine_path(tmp_path, parent)


def test_a_simulation_of_its_own_starts_the_kernels_timeline_at_install(monkeypatch):
    """Outside a server (nbclient, a console, a test) the process has a machine of its own in memory, holding only
    itself: the figures of the scenario from the moment it starts, as before machines were shared."""
    now = [500.0]
    with Simulation(Scenario.load("training"), clock=lambda: now[0]) as simulation:
        state = simulation.machine.read()
        assert state is not None and [h.pid for h in state.holders] == [os.getpid()]
        assert simulation.machine.path is None


KERNEL = textwrap.dedent("""
    import json, os, sys
    from mgenv_jupyter.memory._gpu_processes import GpuProcessReader
    from mgenv_jupyter.memory.simulated._simulation import from_environment
    for line in sys.stdin:  # "look", or "env <value>": a cell sets MGENV_SIMULATE_GPU, then the sampler looks
        command, _, value = line.strip().partition(" ")
        if command == "env":
            os.environ["MGENV_SIMULATE_GPU"] = value
        from_environment()
        device = GpuProcessReader().read().devices[0]
        print(json.dumps({"total": device.total, "processes": {p.pid: p.used for p in device.processes or ()}}),
              flush=True)
    """)


class Kernel:
    """A real process started by this one as a Jupyter server starts its kernels: with the server's environment, it
    finds the machine through the server's runtime file and looks at it as the sampler does (from_environment)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", KERNEL], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=env)
        self.pid = self.process.pid

    def look(self, command: str = "look") -> dict[int, int]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        reading = json.loads(self.process.stdout.readline())
        assert reading["total"] == 40 * GiB, reading
        return {int(pid): used for pid, used in reading["processes"].items()}

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def test_a_kernel_that_switches_the_shared_device_to_a_scenario_runs_it_alone_within_the_devices_total(tmp_path):
    """The README's recipe on a server-shared device: the server's environment holds a steady scenario, two kernels
    look at it, then one sets MGENV_SIMULATE_GPU to the fragmentation scenario (climbing to 38 GiB). That kernel
    climbs; the other did not ask and keeps holding the start, and the processes listed never add up to more than
    the device holds (others and reserved included), which leaves the climbing one what is left, as a real GPU
    would; every view (both kernels, the server) lists the same figures."""
    steady = tmp_path / "steady.json"
    steady.write_text(json.dumps({"name": "steady", "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "others": "400MB", "reserved": "512MB", "kernel": "2GB"}]}))
    fragmentation = Path(__file__).parents[2] / "data" / "oom" / "fragmentation.json"
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    info = runtime / f"jpserver-{os.getpid()}.json"
    info.write_text(json.dumps({"url": "http://127.0.0.1:8888/", "token": "t"}))
    info.chmod(0o600)
    machine = SharedMachine(machine_path(runtime, os.getpid()))
    machine.define(str(steady), *Scenario.source(str(steady)), time.time(), kept=True)  # as the server does
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime), "MGENV_SIMULATE_GPU": str(steady)}
    first, second = Kernel(env), Kernel(env)
    try:
        assert first.look() == {first.pid: 2 * GiB}
        assert second.look() == {first.pid: 2 * GiB, second.pid: 2 * GiB + 512 * MiB}  # a later place, a little more
        # It asks for 2 GiB more every 0.05 s, up to 38 GiB and its place's 0.5 GiB: 38.5 GiB. What is left beside
        # the other kernel, `others` and `reserved` is 37.1 GiB, in 2 MiB pages.
        left = (40 * GiB - 400 * MiB - 512 * MiB - 2 * GiB) // (2 * MiB) * (2 * MiB)
        climbing = [second.look(f"env {fragmentation}")]
        deadline = time.time() + 60
        while climbing[-1][second.pid] < left:  # about a second
            assert time.time() < deadline, climbing[-3:]
            climbing.append(second.look())
        climbing += [second.look() for _ in range(5)]  # it stays there
        assert len({reading[second.pid] for reading in climbing}) > 3, climbing  # it climbed
        # The other kernel never climbed: it holds the new scenario's start in its place.
        assert all(reading[first.pid] == 2 * GiB for reading in climbing), climbing
        assert climbing[-1] == {first.pid: 2 * GiB, second.pid: left}, climbing[-1]
        assert all(sum(reading.values()) + 400 * MiB + 512 * MiB <= 40 * GiB for reading in climbing), climbing
        # The other kernel's sampler looks again (its variable unchanged): it still does not climb, and it reads the
        # same figures; so does the server.
        assert first.look() == climbing[-1] and first.look() == climbing[-1]
        state = machine.read()
        assert state is not None and state.spec == str(fragmentation)
        from mgenv_jupyter.memory._gpu_processes import GpuProcessReader

        with Simulation.following(machine, state):
            server = {p.pid: p.used for p in GpuProcessReader().read().devices[0].processes or ()}
        assert server == climbing[-1]
    finally:
        first.stop()
        second.stop()
