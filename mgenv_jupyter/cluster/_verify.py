"""What each node's workers actually see: one small Ray task per node reads the variables in a worker there.

    report = mgenv_jupyter.cluster.verify()
    report.ok          # every node saw every variable with the session's normalised text
    report.frame()     # one row per node and variable
    report             # in a notebook: that table node by node, secrets masked

For each variable the task says the value the worker holds (a secret is compared by an HMAC, never sent back), and
when it arrived: in the environment the worker process started with (Ray's runtime_env puts it there, so a framework
imported in that worker reads it: import-time variables take effect) or only later; and which of the variable's
reader modules that worker had already imported when the task ran.

A secret comes back as HMAC-SHA256(key, value), the key a random nonce made for each verify() call and sent with its
tasks: what crosses Ray is never the value nor its plain sha256, so no precomputed table reverses it and equal secrets
do not look equal across calls. Someone who reads both a task's key and its answer can still test guesses against it,
one HMAC per guess, so a weak secret stays weak.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..catalog._secrets import MASK, is_secret, redact
from ..runtime._environ_limits import MAX_VARIABLE_BYTES
from ._last_verify import remember
from ._nodes import alive_nodes, pinned
from ._seen import AFTER_START, AT_START, MISSING, Seen
from ._verify_report import ClusterReport

if TYPE_CHECKING:
    from ..runtime import EnvSession

KEY_BYTES = 32  # the nonce that keys a verify() call's HMACs


def new_key() -> bytes:
    """A fresh HMAC key for one verify() call."""
    return secrets.token_bytes(KEY_BYTES)


def worker_view(names: list[str], readers: dict[str, list[str]], key: bytes) -> dict[str, Any]:
    """Run in a worker: per name the value (a secret's HMAC-SHA256 keyed with `key` instead), whether the worker
    started with it, and the reader modules already imported. Plain data, so any transport can carry it."""
    if not isinstance(key, bytes) or len(key) < 16:  # a short or fixed key would make the HMAC a plain hash again
        raise ValueError("worker_view needs a random key of at least 16 bytes")
    from ..runtime._import_watcher import process_start_environ

    start = process_start_environ()
    seen: dict[str, Any] = {}
    for name in names:
        value = os.environ.get(name)
        secret = value is not None and is_secret(name, value)
        seen[name] = {
            "value": None if value is None or secret else value,
            "hmac": _digest(key, value) if secret and value is not None else None,
            "at_start": value is not None and start.get(name) == value,
            "imported": [module for module in readers.get(name, []) if module in sys.modules],
        }
    return {"pid": os.getpid(), "variables": seen}


def _digest(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def verify(names: Iterable[str] | None = None, *, session: EnvSession | None = None,
           runtime_env: dict[str, Any] | None = None, timeout: float = 60.0) -> ClusterReport:
    """Ask a worker on every alive node what it holds for `names` (default: the variables the session would carry,
    see `runtime_env()`), and compare with the session's values.

    The tasks run with the job's runtime_env (what your tasks get), or `runtime_env` when given. A node that does not
    answer within `timeout` seconds is reported as such; the others still are.
    """
    import ray

    from ..runtime._launchers import carried, ray_runtime_env

    if session is None:
        from ..runtime import session as kernel_session

        session = kernel_session()
    expected = ray_runtime_env(carried(session, secrets=True, include=names or ()), {})["env_vars"]
    wanted = list(names) if names is not None else list(expected)
    readers = {name: list(entry.readers) for name in wanted if (entry := session.catalog.get(name)) is not None}
    nodes = alive_nodes()
    task = ray.remote(num_cpus=0, max_retries=0)(worker_view)
    options: dict[str, Any] = {} if runtime_env is None else {"runtime_env": runtime_env}
    key = new_key()
    pending = {node.label: task.options(scheduling_strategy=pinned(node), **options).remote(wanted, readers, key)
               for node in nodes}
    ready, _ = ray.wait(list(pending.values()), num_returns=len(pending), timeout=timeout)
    answers: dict[str, dict[str, Any]] = {}
    unanswered: dict[str, str] = {}
    for label, ref in pending.items():
        if ref not in ready:
            unanswered[label] = f"no answer within {timeout:g} s"
            ray.cancel(ref, force=True)
            continue
        try:
            answers[label] = ray.get(ref)
        except Exception as exc:  # the node died meanwhile: say so, keep the others
            unanswered[label] = why_unanswered(exc)
    seen = compared(answers, wanted, expected, unanswered, key)
    report = ClusterReport(nodes, seen, unanswered)
    remember(report)  # the Framework Env sidebar shows the last result, node by node
    return report


def why_unanswered(exc: BaseException) -> str:
    """A node's error as the report shows it (HTML, repr, the sidebar's notice): its class and first line, with every
    credential-shaped part masked before it is cut to 200 characters (a worker's error can quote a value)."""
    text = str(exc)
    first = text[:4096].splitlines()[0] if text else ""
    return redact(f"{type(exc).__name__}: {first}")[:200]


def compared(answers: dict[str, Any], wanted: list[str], expected: Mapping[str, str | None],
             unanswered: dict[str, str], key: bytes) -> list[Seen]:
    """The nodes' answers (label → what `worker_view(..., key)` returned there) compared with `expected`, a secret by
    its HMAC under `key`. An answer that is not
    shaped as `worker_view`'s (a node running other code, or a buggy one) is not used: its node goes into
    `unanswered`, saying so."""
    seen: list[Seen] = []
    for label, answer in answers.items():
        views = [_checked_view(answer, name) for name in wanted]
        if any(view is None for view in views):
            unanswered[label] = "its answer was not what verify() asks for (a different mgenv_jupyter there?)"
            continue
        seen += [_compare(label, name, expected.get(name), view, key)
                 for name, view in zip(wanted, views, strict=True) if view is not None]
    return seen


_HMAC_SHA256 = re.compile(r"[0-9a-f]{64}")


def _checked_view(answer: Any, name: str) -> dict[str, Any] | None:
    """A node's view of `name` when it has the shape `worker_view` gives (None: it has not)."""
    try:
        view = answer["variables"][name]
        value, digest, at_start, imported = view["value"], view["hmac"], view["at_start"], view["imported"]
    except (KeyError, TypeError, IndexError):
        return None
    if value is not None and (not isinstance(value, str) or len(value) > MAX_VARIABLE_BYTES):
        return None
    if digest is not None and (not isinstance(digest, str) or _HMAC_SHA256.fullmatch(digest) is None):
        return None
    if not isinstance(imported, list) or not all(isinstance(module, str) and len(module) <= 200
                                                  for module in imported[:100]) or len(imported) > 100:
        return None
    return {"value": value, "hmac": digest, "at_start": at_start is True, "imported": imported}


def _compare(label: str, name: str, expected: str | None, view: dict[str, Any], key: bytes) -> Seen:
    # The node says whether the value is a secret, but its mgenv_jupyter may know fewer secret names than this one:
    # what it sent in clear is judged here again.
    secret = (view["hmac"] is not None or (expected is not None and is_secret(name, expected))
              or (view["value"] is not None and is_secret(name, view["value"])))
    if view["hmac"] is not None:
        matches = expected is not None and hmac.compare_digest(_digest(key, expected), view["hmac"])
        value: str | None = MASK
    else:
        value = view["value"]
        matches = value == expected
    shown_expected = MASK if secret and expected is not None else expected
    if value is None and view["hmac"] is None:
        arrived = MISSING
    else:
        arrived = AT_START if view["at_start"] else AFTER_START
    return Seen(label, name, shown_expected, MASK if secret and value is not None else value, matches, arrived,
                tuple(view["imported"]))


__all__ = ["AFTER_START", "AT_START", "MISSING", "ClusterReport", "Seen", "compared", "new_key", "verify",
           "worker_view"]
