"""The server's GPU view: every GPU's memory and what each of the server's kernels (and, through the session manager,
each notebook) holds on it, answered by the server extension at `GET <base_url>mgenv-jupyter/gpus` (`GPUS_PATH`).

The request is authenticated and authorised like the server's own kernel endpoints (the `kernels` resource); without
a token it gets 403 and no data. The front end shuts a kernel down or interrupts it through the server's own kernel
API (`DELETE /api/kernels/<id>`, `POST /api/kernels/<id>/interrupt`), never by pid: a process that belongs to no
kernel of this server is listed as "other" with its pid, user and name only, and nothing is offered for it.

Figures: a kernel's `used` on a device is what NVML lists for the kernel's process tree (`figure` "nvml": exact, as
exact as the driver); when NVML's pids are not this server's (a container with its own pid namespace, `namespace`
"foreign") no process can be attributed: a kernel's share is then what the kernel itself reports of its framework's
allocator (`figure` "kernel_report"), or null (`figure` "unknown") instead of 0, and the view says why. State codes
cross the wire; the front end labels them.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ._culling import CullingPolicy

GPUS_PATH = "mgenv-jupyter/gpus"
# `GET <base_url>mgenv-jupyter/gpus/owners?pid=<pid>&pid=…` (at most MAX_OWNER_PIDS): which kernel of this server holds
# each process, as a kernel's out-of-memory report asks about the processes NVML lists beside it.
OWNERS_PATH = "mgenv-jupyter/gpus/owners"
MAX_OWNER_PIDS = 64
GPUS_VERSION = 1

# ok: devices read. no_driver: no NVIDIA library or driver. no_gpu: NVML sees none. error: NVML failed (`detail`).
GpuViewState = Literal["ok", "no_driver", "no_gpu", "error"]
# same: NVML's pids are this server's, so processes are attributed. foreign: none of them exists here (a container
# with its own pid namespace). unknown: nothing listed, nothing to tell.
PidNamespace = Literal["same", "foreign", "unknown"]
# nvml: the share is NVML's per-process figure for the kernel's process tree (exact). kernel_report: NVML cannot
# attribute it (a container's pid namespace) and the kernel reported what its framework's allocator reserved
# (memory/_self_report.py). unknown: neither.
FigureSource = Literal["nvml", "kernel_report", "unknown"]


# What a kernel's idle time counts from: the end of the last cell a user ran in it (an execute request), its start
# (no cell run since), or the moment the server began watching it (no cell seen since).
IdleSince = Literal["cell", "start", "watch"]


class GpuKernelInfo(TypedDict):
    """One kernel of this server: its id and kernel spec name, the notebook paths of its sessions (none for a kernel
    started without one), its execution state and last activity (ISO 8601, UTC) as the server's kernel manager
    tracks them (any message counts there, a chart's too), whether its pid is known (a remote or non-local kernel has
    none, so none of its memory can be attributed), and its use by a user: whether it is running a cell a user sent
    (an execute request) and for how long (seconds), or how long it has been idle (seconds since that last cell
    ended, or, `idle_since`, since it started or since the server began watching it with none run; null while a cell
    runs or when unknown). Messages of charts, widgets and the sidebar never count as a cell. `cull_at`: when
    GPU-aware culling (server/_culler.py) will shut it down unless a cell runs first (ISO 8601, UTC), or null."""

    id: str
    name: str
    notebooks: list[str]
    execution_state: str
    last_activity: str | None
    idle_seconds: float | None
    idle_since: IdleSince | None
    running_cell: bool
    running_seconds: float | None
    pid_known: bool
    cull_at: str | None


class GpuKernelShare(TypedDict):
    """What one kernel's process tree holds on one device (bytes, or null when it cannot be attributed)."""

    kernel_id: str
    used: int | None
    figure: FigureSource


class GpuOtherProcess(TypedDict):
    """A process on the device that belongs to no kernel of this server: its pid, user, name and bytes — never more
    (user and name are null when the process is not visible here)."""

    pid: int
    user: str | None
    name: str | None
    used: int | None


class GpuDeviceView(TypedDict):
    """One GPU: its label (gpu<index>, "(simulated)" on the simulated device), model name, total and used bytes
    (NVML's device figures, exact), the kernels' shares largest first (kernels holding nothing are left out), the
    other processes largest first, the used bytes no listed process accounts for (`unlisted`: other containers, the
    driver), and a problem with the process list (MIG, permissions) in the driver's words, or null."""

    index: int
    label: str
    name: str
    total: int
    used: int
    shares: list[GpuKernelShare]
    others: list[GpuOtherProcess]
    unlisted: int
    problem: str | None


class GpuHost(TypedDict):
    """The machine the server runs on, so that a hub's page groups its servers' GPUs by node: its host name, and `id`,
    the same for every server of this machine and for nobody else's, that tells nothing about the machine (derived
    from systemd's machine id as sd_id128_get_machine_app_specific derives one for an application, never the machine
    id itself; null where the system has none, and a container with a machine id of its own is a machine of its own)."""

    hostname: str
    id: str | None


class GpuServerView(TypedDict):
    """The whole view: the state code and its detail (the driver's words, or null), whether the simulated GPU answered
    (and its scenario), the pid namespace verdict, every kernel of the server (also those holding no GPU memory), the
    devices, when it was read (seconds since the epoch), the server's GPU-aware culling policy (null: off), and the
    machine it runs on (null: not known)."""

    v: int
    state: GpuViewState
    detail: str | None
    simulated: bool
    simulation: str | None
    namespace: PidNamespace
    kernels: list[GpuKernelInfo]
    devices: list[GpuDeviceView]
    read_at: float
    culling: CullingPolicy | None
    host: GpuHost | None


class GpuOwner(TypedDict):
    """One process asked about: the kernel of this server whose process tree holds it, or null (not a kernel's)."""

    pid: int
    kernel: GpuKernelInfo | None


class GpuOwnersReply(TypedDict):
    """The answer to `OWNERS_PATH`: one entry per pid asked, in the order asked."""

    v: int
    owners: list[GpuOwner]
