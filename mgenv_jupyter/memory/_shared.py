"""The kernel's one sampler, shared by every consumer: each inline chart, the sidebar's memory panel and the
out-of-memory recorder subscribe to it with the rate they want, and it samples at the fastest rate asked for, only
while someone subscribes. So with a chart and the sidebar open, NVML is read once per tick, not once per consumer.

    subscription = kernel_sampler().subscribe(send_batch, interval=0.1)
    ...
    subscription.close()          # the last one to leave stops the sampler's thread; the history stays
"""

from __future__ import annotations

import logging

from ..base._kernel_state import Slot, kernel_state
from ._sampler import Sampler

log = logging.getLogger(__name__)

_SAMPLER: Slot[Sampler] = Slot("the sampler and its history")


def kernel_sampler() -> Sampler:
    """The kernel's sampler (created on first use with the default sources, the kernel's session for the overlays,
    and the running IPython shell for cell markers).

    `MGENV_SIMULATE_GPU` is read again on every call, so a notebook that sets it before `%memchart` gets the simulated
    GPU even when the sidebar's memory panel started the sampler earlier: its NVML source follows whichever NVML is
    installed."""
    with kernel_state().lock:
        sampler = _SAMPLER.get()
        if sampler is not None:
            _follow_simulation()
        else:
            from ..runtime import session
            from ._sources import default_sources

            # the session (and its catalog) is made when a chart first asks for the overlays, not at `%load_ext`
            sampler = Sampler(default_sources(), session_factory=session, on_demand=True)
            _SAMPLER.set(sampler)
        if not sampler.cells.registered:  # made now, or its markers ended with `%unload_ext`
            shell = _shell()
            if shell is not None:
                sampler.attach(shell)
        return sampler


def made_sampler() -> Sampler | None:
    """The kernel's sampler if one is made, without making one (nor re-reading the simulation's setting)."""
    return _SAMPLER.get()


def _follow_simulation() -> None:
    from ..base._errors import InvalidValueError
    from .simulated._simulation import from_environment

    try:
        from_environment()
    except InvalidValueError as exc:  # a new sampler shows this as a source's state; this one keeps what it had
        log.warning("%s", exc)


def stop_marking_cells() -> None:
    """The kernel's sampler no longer marks cells (`%unload_ext`); the next `kernel_sampler()` marks them again."""
    sampler = _SAMPLER.get()
    if sampler is not None:
        sampler.cells.unregister()


def close_kernel_sampler() -> None:
    """Close the kernel's sampler (its sources and cell hooks); the next `kernel_sampler()` makes a new one. For tests
    and for unloading the extension."""
    sampler = _SAMPLER.take()
    if sampler is not None:
        sampler.close()


def _shell() -> object | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
