"""Ray's `runtime_env` carrying the session's variables to every worker.

Ray does not pass the driver's environment on: a worker gets the environment of the node's raylet plus the job's (or
the task's) `runtime_env={"env_vars": ...}`. So the variables set in the notebook reach the workers only through it:

    ray.init(address="auto", runtime_env=mgenv_jupyter.cluster.runtime_env())

Building it needs no Ray: it is a plain dict.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..runtime._launchers import NotCarriedWarning, carried, ray_runtime_env

if TYPE_CHECKING:
    from ..runtime import EnvSession


__all__ = ["NotCarriedWarning", "runtime_env"]


def runtime_env(session: EnvSession | None = None, *, include: Iterable[str] = (), everything: bool = False,
                base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Ray's runtime_env with the session's variables as `env_vars`: what was changed through the session, with the
    text it normalised (`5GB` → `5368709120` where the framework wants bytes).

    Left out, with a `NotCarriedWarning` naming each and why: secrets and variables that load code (`LD_PRELOAD`,
    `PYTHONPATH`...), unless `include` names them; a value holding `$NAME` or `${`, which Ray would replace on the
    worker; a variable unset in the notebook (env_vars can only set). `everything` adds every change since the kernel
    started and every catalog variable that is set. `base` is a runtime_env of yours (pip, working_dir...): it is
    kept, and the session's variables are added to its env_vars (they win over the same names there).
    """
    if session is None:
        from ..runtime import session as kernel_session

        session = kernel_session()
    chosen = carried(session, everything=everything, include=include, secrets=True)
    left_out = dict(chosen.left_out)
    env_vars = ray_runtime_env(chosen, left_out)["env_vars"]
    if left_out:
        warnings.warn("not carried to Ray's workers: " + "; ".join(f"{name} ({why})" for name, why in left_out.items()),
                      NotCarriedWarning, stacklevel=2)
    result: dict[str, Any] = dict(base or {})
    result["env_vars"] = {**dict(result.get("env_vars") or {}), **env_vars}
    return result
