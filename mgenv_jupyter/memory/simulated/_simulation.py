"""The simulated GPU: `MGENV_SIMULATE_GPU=<preset or scenario file>` in the kernel's environment.

It exists for tests and demos on machines without a GPU. A scenario drives a fake NVML library (`_fake_nvml.py`)
installed behind the real pynvml, so the NVML source runs its real code path; every reading from it is labelled
"simulated" (`Sample.simulated`, the source's name, the device label), and the source names the scenario
(`NvmlSource.simulation`).

Presets (`MGENV_SIMULATE_GPU=training`):

- `a100-40gb`: one A100 40 GB; the kernel holds about 2 GiB, rising and falling a little.
- `2xv100`: two V100 16 GB; the kernel works on gpu0; 5 GiB that are not the kernel's sit on gpu1.
- `training`: one A100 40 GB; the kernel grows 256 MiB a step (1 s) with a 1 GiB activation sawtooth, two worker
  processes (real children of the kernel, like DataLoader workers) appear at 3 s with 300 MiB each, and NVML fails
  from 20 s to 23 s (NVML_ERROR_UNKNOWN) then recovers; the timeline repeats every 90 s.
- `no-driver`: libnvidia-ml.so.1 is missing. `driver-not-loaded`: the library loads, the driver is not loaded.
- `mig`: an A100 in MIG mode; per-process memory is refused (NO_PERMISSION) as for a full-device handle.
- `no-process-memory`: the driver lists processes but reports their memory as not available (as under WDDM).
- `container`: the kernel's memory is listed under host PIDs that do not exist in this PID namespace.
- `mirror-1gb`, `mirror-4x1gb`: one or four 1 GiB devices on which the kernel holds what its process tree really
  holds in host memory, on the device CUDA_VISIBLE_DEVICES gives it first: a sweep's points peak as their cells
  really allocate, pinned one per device.

Served by a Jupyter server (`MGENV_SIMULATE_GPU` in the server's environment), the server extension passes
`kernels`: then the device's processes are the server's real kernels instead of this process, each holding the
scenario's kernel memory (a little more for each later kernel, so that they differ) or, for a kernel of a notebook
the device's `notebooks` names, exactly that share.

The scenario format, its bounds and the presets are in `_scenario.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._fake_nvml import FakeDevice, FakeNvml, FakeProcess
from ._scenario import ENV, PRESETS, DeviceSpec, Scenario, nvml_error

__all__ = ["ENV", "PRESETS", "Scenario", "Simulation", "from_environment", "running", "stop_environment"]

_SAME_MOMENT = 0.001  # seconds: NVML calls closer than this belong to one sample
_RELIST_SECONDS = 1.0  # how often the simulation checks whether its worker processes are still alive
_FOREIGN_PID_OFFSET = 1 << 22  # above Linux's largest pid_max: such a PID cannot exist in this namespace
_KERNEL_STAGGER = 512 * 1024**2  # each later kernel of a server holds this much more than the one before (cycling)
_STAGGER_CYCLE = 5

# A server's kernels as the simulation sees them: (pid, the notebook paths of the kernel's sessions) each.
KernelPids = Callable[[], Sequence[tuple[int, tuple[str, ...]]]]


class Simulation:
    """A running scenario: a `FakeNvml` whose devices follow the scenario's timeline, with real worker processes.

    Time starts at `install()`. `clock` (monotonic seconds) can be replaced in tests to step through the timeline.
    """

    def __init__(self, scenario: Scenario | str, clock: Callable[[], float] = time.monotonic,
                 kernels: KernelPids | None = None) -> None:
        self.scenario = Scenario.load(scenario) if isinstance(scenario, str) else scenario
        self.clock = clock
        # A server's kernels (see the module help); None: this process is the kernel. Its result is compared by
        # identity: a new sequence means the kernels changed, and the devices are listed again at once.
        self.kernels = kernels
        self._listed_kernels: object = None
        self.fake = FakeNvml(
            [FakeDevice(name=d.name, total=d.total, others=d.others, reserved=d.reserved, mig=d.mig)
             for d in self.scenario.devices],
            library=self.scenario.library,
            driver=self.scenario.driver,
            before_call=self.advance,
            name=self.scenario.name,
        )
        self.workers: list[_Worker] = []
        self._no_permission = nvml_error("NO_PERMISSION")
        self._spawned: set[tuple[int, int]] = set()
        self._start: float | None = None
        self._advanced_at = -1.0
        self._listed_at = -float("inf")
        self._next_spawn = float("inf")
        # Per device and kernel: its entry, updated in place, and its fixed share (a scenario's notebook) or the bytes
        # it holds beyond the scenario's kernel memory.
        self._kernels: list[tuple[DeviceSpec, FakeProcess, int | None, int]] = []
        self._released = False  # this kernel gave its cached memory back (release())
        self._tree: Any = None  # the kernel's process tree, for a device whose kernel memory is its host memory
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        return f"simulated ({self.scenario.name})"

    @property
    def elapsed(self) -> float:
        return 0.0 if self._start is None else self.clock() - self._start

    def install(self) -> Simulation:
        if self._start is None:
            self._start = self.clock()
        self.fake.install()
        self.advance()
        return self

    def uninstall(self) -> None:
        self.fake.uninstall()
        for worker in self.workers:
            _stop(worker.process)
        self.workers.clear()
        self._spawned.clear()
        self._start = None
        self._advanced_at = -1.0
        self._listed_at = -float("inf")

    def __enter__(self) -> Simulation:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    def advance(self) -> None:
        """Bring the fake devices to the scenario's state at the current time (called before every NVML call)."""
        if abs(self.elapsed - self._advanced_at) < _SAME_MOMENT:
            return  # the other calls of the same sample see the same state, as from a real driver
        with self._lock:
            elapsed = self.elapsed
            self._advanced_at = elapsed
            scenario = self.scenario
            t = elapsed % scenario.period if scenario.period > 0 else elapsed
            kernels = self.kernels() if self.kernels is not None else None
            if (elapsed - self._listed_at >= _RELIST_SECONDS or elapsed >= self._next_spawn
                    or kernels is not self._listed_kernels):
                self._list_processes(elapsed, kernels)  # who is on each device: changes rarely
            for spec, kernel, fixed, extra in self._kernels:
                if not spec.process_memory:
                    kernel.used = None
                elif fixed is not None:
                    kernel.used = fixed
                elif spec.kernel is not None and spec.kernel.host:
                    kernel.used = self._host_bytes()
                else:
                    at = 0.0 if self._released and self.kernels is None else t  # given back: its start from then on
                    kernel.used = spec.kernel.at(at, scenario.step_seconds) + extra if spec.kernel else 0
            failure = None
            for window in scenario.errors:
                if window.at <= t < window.at + window.duration:
                    failure = window.code
                    break
            self.fake.failure = failure

    def _host_bytes(self) -> int:
        """What the kernel's process tree holds in host memory now, in the 2 MB pages a CUDA allocator hands out."""
        if self._tree is None:
            from .._process_tree import ProcessTree

            self._tree = ProcessTree(max_age=0.1)
        return self._tree.rss() // (2 * 1024**2) * (2 * 1024**2)

    def release(self) -> bool:
        """This kernel gave its allocators' cached memory back (`oom.free`): from now on its process holds its
        scenario's `start` on every device (what its live objects hold), as a real driver sees a process shrink after
        `torch.cuda.empty_cache()`. The simulation has no allocations of its own to give back; this is its whole model
        of a release. False when no device lists this kernel."""
        with self._lock:
            self._released = True
            self._advanced_at = -1.0  # the next NVML call sees it
            return any(spec.kernel is not None for spec in self.scenario.devices)

    def _list_processes(self, elapsed: float,
                        kernels: Sequence[tuple[int, tuple[str, ...]]] | None = None) -> None:
        self._listed_at = elapsed
        self._listed_kernels = kernels
        self._kernels = []
        for index, (spec, device) in enumerate(zip(self.scenario.devices, self.fake.devices, strict=True)):
            def listed(pid: int, used: int | None, spec: DeviceSpec = spec) -> FakeProcess:
                pid = pid + _FOREIGN_PID_OFFSET if spec.foreign_namespace else pid
                return FakeProcess(pid, used if spec.process_memory else None)

            processes = []
            if kernels is not None:  # a server's kernels; its worker processes would belong to no kernel: none
                shares = dict(spec.notebooks)
                for order, (pid, notebooks) in enumerate(kernels):
                    fixed = next((shares[path] for path in notebooks if path in shares), None)
                    if fixed is None and spec.kernel is None:
                        continue
                    kernel = listed(pid, None)
                    self._kernels.append((spec, kernel, fixed, order % _STAGGER_CYCLE * _KERNEL_STAGGER))
                    processes.append(kernel)
            elif spec.kernel is not None and (not spec.kernel.host or index == _first_visible()):
                kernel = listed(os.getpid(), None)
                self._kernels.append((spec, kernel, None, 0))
                processes.append(kernel)
            for group, workers in enumerate(spec.workers if kernels is None else ()):
                if elapsed >= workers.at and (index, group) not in self._spawned:
                    self._spawned.add((index, group))
                    self.workers.extend(_Worker(index, workers.bytes, _spawn_worker()) for _ in range(workers.count))
            processes.extend(listed(w.process.pid, w.size) for w in self.workers
                             if w.device == index and w.process.poll() is None)
            processes.extend(FakeProcess(pid, used if spec.process_memory else None)
                             for pid, used in spec.other_processes)
            device.processes = processes
            device.process_error = self._no_permission if spec.mig else None
        waiting = [workers.at for index, spec in enumerate(self.scenario.devices)
                   for group, workers in enumerate(spec.workers)
                   if kernels is None and (index, group) not in self._spawned]
        self._next_spawn = min(waiting, default=float("inf"))


def _first_visible() -> int:
    """The device a process would use: the first CUDA_VISIBLE_DEVICES names, or 0 (-1: it hides every device)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None or not visible.strip():
        return 0
    first = visible.split(",")[0].strip()
    return int(first) if first.isdigit() else -1


@dataclass(frozen=True)
class _Worker:
    device: int
    size: int
    process: subprocess.Popen[bytes]


def _spawn_worker() -> subprocess.Popen[bytes]:
    # A real child of the kernel, so the process-tree walk finds it; it exits when its stdin closes (us, or our exit).
    return subprocess.Popen([sys.executable, "-I", "-S", "-c", "import sys; sys.stdin.buffer.read()"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stop(worker: subprocess.Popen[bytes]) -> None:
    try:
        if worker.stdin is not None:
            worker.stdin.close()
        worker.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        worker.kill()
        worker.wait()


_from_environment: tuple[str, Simulation] | None = None
_environment_lock = threading.Lock()


def from_environment() -> Simulation | None:
    """The simulation `MGENV_SIMULATE_GPU` asks for, installed (once per process and value); None when unset.

    Raises `InvalidValueError` for an unknown preset or a bad scenario file.
    """
    global _from_environment
    spec = os.environ.get(ENV, "").strip()
    with _environment_lock:
        if _from_environment is not None and _from_environment[0] != spec:
            _from_environment[1].uninstall()
            _from_environment = None
        if not spec:
            return None
        if _from_environment is None:
            _from_environment = (spec, Simulation(spec).install())
        return _from_environment[1]


def running() -> Simulation | None:
    """The simulation `from_environment()` installed in this process, if any (never starts one)."""
    with _environment_lock:
        return _from_environment[1] if _from_environment is not None else None


def stop_environment() -> None:
    """Uninstall the simulation `from_environment()` started, whatever `MGENV_SIMULATE_GPU` says now (the real NVML,
    if any, answers again). Tests that set the variable call this afterwards."""
    global _from_environment
    with _environment_lock:
        if _from_environment is not None:
            _from_environment[1].uninstall()
            _from_environment = None
