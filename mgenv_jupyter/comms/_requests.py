"""Kernel side of the sidebar's comm (target `mgenv_jupyter`): JSON requests in, JSON replies out. This module only
routes: it checks each request field by field, asks the session, and sends what presentation/_wire.py builds.

Requests are checked before anything happens; a malformed or unknown message gets an "error" reply and changes
nothing. Names and values only ever reach `EnvSession.set`, never code. Every change to the session, whoever made it
(a magic, a widget, the sidebar), is pushed to every open comm as a "changed" notice.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..base._errors import InvalidValueError
from ..base._text import LANGUAGES, Text, current_language, learn_language
from ..oom import _report as oom_report
from ..oom._report import OomReport
from ..presentation import _wire as wire
from ..protocol import PROTOCOL_VERSION, REQUEST_TYPES, SIDEBAR_SOURCES, checked_interval
from ..protocol._memory import DEFAULT_INTERVAL
from ..protocol._messages import KernelMessage, Reply
from ..protocol._sidebar import MAX_HISTORY_WINDOW
from ..runtime import EnvSession, SetReport
from ..runtime import _profile as profile
from ..runtime._carry import still_to_carry
from ..runtime._profile_trust import ProfileTrust
from ._routing import handle_where_sent

if TYPE_CHECKING:
    from ..cluster._verify_report import ClusterReport
    from ..protocol._oom import OomNotice
    from ..protocol._sidebar import ErrorReply, VerifyNotice
    from ..sweeps._offers import CellOffer, ProfileOffer

log = logging.getLogger(__name__)

MAX_ID = 200
MAX_ITEMS = 1000
MAX_TEXT = 100_000
STATE_HISTORY = 100  # changes sent with every "state"; older ones on request ("history")
VERIFY_TIMEOUT = 30.0  # seconds a "verify" request waits for the nodes (the kernel is busy meanwhile, as in a cell)

Send = Callable[[KernelMessage], None]


_NO_RAY = Text(
    "Ray is not initialised in this kernel: connect it in a cell first (import ray; ray.init(address='auto', "
    "runtime_env=mgenv_jupyter.cluster.runtime_env())), then verify the nodes again.",
    "此内核中尚未初始化 Ray:请先在单元格中连接集群(import ray; ray.init(address='auto', "
    "runtime_env=mgenv_jupyter.cluster.runtime_env())),然后再次验证各节点。")


_OUTPUTS_FROM_A_CELL = Text(
    "a 'free' request never clears the output cache (Out, _, __): it holds results, so only %memfree --outputs in a "
    "cell does; nothing was freed",
    "'free' 请求从不清除输出缓存(Out、_、__):其中保存着结果,只有在单元中运行 %memfree --outputs 才会清除;"
    "未释放任何内存")
_NOT_A_REMEDY = Text(
    "this button's remedy is not one of this kernel's last out-of-memory report (the report is from an earlier "
    "failure or another kernel, or the id is unknown): only a remedy of the latest report can be applied from its "
    "button; nothing was changed",
    "此按钮的补救措施不属于本内核最近一次内存不足报告(报告来自更早的失败或其他内核,或 id 未知):只能通过按钮应用"
    "最新报告中的补救措施;未做任何更改")


_NOT_THE_LAST_FAILURE = Text(
    "this button belongs to an earlier out-of-memory report than the kernel's last: what it offered to free is not "
    "held any more; run %memfree in a cell to give back what the kernel holds now; nothing was freed",
    "此按钮属于比本内核最近一次更早的内存不足报告:它要释放的内存已不再被保留;如需归还内核当前占用的内存,请在单元中运行 "
    "%memfree;未释放任何内存")


class BadRequest(ValueError):
    """A message that does not follow the protocol; its text goes back in the error reply."""


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if name not in data:
        if default is ...:
            raise BadRequest(f"missing field {name!r}")
        return default
    value = data[name]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool) and bool not in _tuple(kind)):
        raise BadRequest(f"field {name!r} must be {_kind_name(kind)}, not {type(value).__name__}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _tuple(kind))


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise BadRequest(f"{what} must be text of at most {MAX_TEXT} characters")
    return value


class RequestHandler:
    """Turns one request into its replies. Pure of comms, so tests drive it directly."""

    def __init__(self, env: EnvSession, memory: MemoryStream | None = None, trust: ProfileTrust | None = None) -> None:
        self.env = env
        self.memory = memory
        self.language = current_language()  # the sidebar's, once it said hello: texts in messages use it
        self._trust = trust

    @property
    def trust(self) -> ProfileTrust:
        if self._trust is None:
            self._trust = ProfileTrust()
        return self._trust

    def handle(self, data: object) -> list[Reply]:
        """The replies to one message; never raises. Every reply to a request carries its id (`reply_to`)."""
        request_id: str | None = None
        if isinstance(data, dict):
            raw_id = data.get("id")
            request_id = raw_id if isinstance(raw_id, str) and len(raw_id) <= MAX_ID else None
        try:
            return self._dispatch(data, request_id)
        except BadRequest as exc:
            return [self.error(str(exc), request_id, code="bad_request")]
        except InvalidValueError as exc:
            return [self.error(str(exc), request_id, exc.field, exc.code)]
        except Exception as exc:  # the kernel never crashes because of a message, and the request still gets an answer
            log.exception("mgenv_jupyter comm handler failed")
            return [self.error(f"internal error ({type(exc).__name__}); nothing was changed", request_id,
                               code="internal")]

    def _dispatch(self, data: object, request_id: str | None) -> list[Reply]:
        if not isinstance(data, dict):
            raise BadRequest(f"a message must be a JSON object, not {type(data).__name__}")
        version = _field(data, "v", int)
        if version != PROTOCOL_VERSION:
            raise BadRequest(f"protocol version {version} is not supported: this kernel speaks {PROTOCOL_VERSION}")
        if request_id is None:
            raise BadRequest(f"field 'id' must be text of at most {MAX_ID} characters")
        kind = _field(data, "type", str)
        if kind not in REQUEST_TYPES:
            raise BadRequest(f"unknown request type {kind[:50]!r}: use one of {', '.join(REQUEST_TYPES)}")
        replies: list[Reply] = getattr(self, f"_on_{kind}")(data, request_id)
        return replies

    # ---- the messages, in this sidebar's language (built by presentation/_wire.py) -------------------------------

    def error(self, message: str, reply_to: str | None, field: str | None = None, code: str = "invalid") -> ErrorReply:
        return wire.error_reply(message, reply_to, field, code)

    def changed(self, report: SetReport) -> Reply:
        return wire.changed_notice(self.env, report, self.language)

    def oom(self, report: OomReport) -> OomNotice:
        """The out-of-memory report for the panel, in this sidebar's language."""
        return wire.oom_notice(report, self.language)

    def verify(self, report: ClusterReport, made: float) -> VerifyNotice:
        """The last cluster.verify() result for the panel (codes, labelled by the sidebar in its language)."""
        return wire.verify_notice(report, made)

    # ---- requests ------------------------------------------------------------------------------------------------

    def _on_hello(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        language = _field(data, "language", str, current_language())
        if language not in LANGUAGES:
            raise BadRequest(f"unknown language {language[:20]!r}: use one of {', '.join(LANGUAGES)}")
        self.language = language
        learn_language(language)  # the magics and reports under cells speak the user's JupyterLab language too
        return [wire.catalog_reply(self.env, language, request_id),
                wire.state_reply(self.env, language, request_id, STATE_HISTORY, _last_report_id())]

    def _on_verify(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        """Run cluster.verify() with the session's variables; its result reaches every sidebar as a "verify" notice
        (verify() records it). Only where the user's own code has connected Ray: the sidebar never starts a cluster."""
        ray = sys.modules.get("ray")
        if ray is None or not getattr(ray, "is_initialized", lambda: False)():
            raise BadRequest(_NO_RAY.get(self.language))
        from ..cluster._verify import verify

        try:
            verify(session=self.env, timeout=VERIFY_TIMEOUT)
        except Exception as exc:  # Ray's own failure (the cluster went away): say so instead of "internal error"
            raise BadRequest(f"verify() failed: {type(exc).__name__}: {exc}"[:500]) from exc
        return [wire.result_reply(None, self.language, request_id)]

    def _on_free(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        """Give back what the failed cell holds (the report's "Free what the failed cell holds"): what to clear is the
        kernel's own decision (oom/_free.py). Never the output cache: it holds results, and a message is not the user's
        consent to drop them; `%memfree --outputs` in a cell is."""
        if "outputs" in data:
            raise BadRequest(_OUTPUTS_FROM_A_CELL.get(self.language))
        from ..oom._free import free

        report_id = _field(data, "report_id", str, None)
        if report_id is not None:  # a report's button: that report's failed cell, once
            last = oom_report.last_report()
            if last is None or report_id != last.key:
                raise BadRequest(_NOT_THE_LAST_FAILURE.get(self.language))
            earlier = oom_report.freed(last)
            if earlier is not None:  # given back already (%memfree, the other view's button): said, not done again
                return [wire.freed_reply(earlier, self.language, request_id, earlier=True)]
        return [wire.freed_reply(free(), self.language, request_id)]

    def _on_refresh(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        return [wire.state_reply(self.env, self.language, request_id, STATE_HISTORY, _last_report_id())]

    def _source(self, data: dict[str, Any]) -> str:
        source = _field(data, "source", str, "sidebar")
        if source not in SIDEBAR_SOURCES:
            raise BadRequest(f"source must be one of {', '.join(SIDEBAR_SOURCES)}")
        return source

    def _on_set(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        assignments = _field(data, "assignments", dict)
        if not assignments or len(assignments) > MAX_ITEMS:
            raise BadRequest(f"'assignments' must hold 1 to {MAX_ITEMS} NAME: VALUE pairs")
        pairs = [(_text(name, "a name"), _text(value, f"the value of {str(name)[:50]}"))
                 for name, value in assignments.items()]
        source = self._source(data)
        force = _field(data, "force", bool, False)
        live = not _field(data, "env_only", bool, False)
        if source == "restart":
            pairs = still_to_carry(self.env, pairs)
            if not pairs:
                return [wire.result_reply(None, self.language, request_id)]
        report = self.env.set(pairs, source=source, force=force, live=live)
        return [wire.result_reply(report, self.language, request_id)]

    def _on_remedy(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        """A click on an out-of-memory report's button: the remedy its id names in this kernel's own last report, set
        through the session as that report has it (source "oom_report": catalog variables only, never force). An
        unknown or stale id changes nothing."""
        remedy = oom_report.made_remedy(_text(_field(data, "report_id", str), "'report_id'"),
                                        _text(_field(data, "remedy_id", str), "'remedy_id'"))
        if remedy is None:
            raise BadRequest(_NOT_A_REMEDY.get(self.language))
        report = self.env.set(list(remedy.assignments), source="oom_report", force=False, live=True)
        return [wire.result_reply(report, self.language, request_id)]

    def _on_memtrace(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        """The out-of-memory report's "Record allocation sites": what `%memtrace on|off` does, for this kernel."""
        on = _field(data, "on", bool)
        from IPython import get_ipython

        shell = get_ipython()
        if shell is None:
            raise BadRequest("this kernel has no IPython shell to record cells of")
        from ..memory._memtrace import kernel_memtrace

        kernel_memtrace(shell).switch(shell, on)
        return [wire.result_reply(None, self.language, request_id)]

    def _on_history(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        before = _field(data, "before", (int, type(None)), None)
        limit = _field(data, "limit", int, STATE_HISTORY)
        if not 1 <= limit <= MAX_HISTORY_WINDOW:
            raise BadRequest(f"'limit' must be from 1 to {MAX_HISTORY_WINDOW}")
        changes, total = self.env.history_window(before, limit)
        return [wire.history_reply(changes, total, self.language, request_id)]

    def _on_profile(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        """Review a notebook profile; record the user's approval (`approve`); apply it (`apply`) only if this exact
        profile is approved. Nothing changes for a profile the user has not approved."""
        raw = _field(data, "profile", dict)
        if len(raw) > MAX_ITEMS:
            raise BadRequest(f"'profile' must hold at most {MAX_ITEMS} NAME: VALUE pairs")
        chosen = {_text(name, "a name"): _text(value, "a profile value") for name, value in raw.items()}
        approve = _field(data, "approve", bool, False)
        wanted = _field(data, "apply", bool, True)
        trust = self.trust
        digest = trust.digest(chosen)
        stored = True
        if approve:
            stored = trust.approve(digest)
        approved = approve or trust.is_approved(digest)
        items = profile.review(self.env, chosen)
        report = profile.apply(self.env, chosen, items) if approved and wanted else None
        return [wire.profile_reply(digest, approved, stored, items, report, self.env.catalog, self.language,
                                   request_id)]

    def _on_unset(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        names = _field(data, "names", list)
        if not names or len(names) > MAX_ITEMS:
            raise BadRequest(f"'names' must hold 1 to {MAX_ITEMS} names")
        checked = [_text(name, "a name") for name in names]
        return [wire.result_reply(self.env.unset(checked, source=self._source(data)), self.language, request_id)]

    def _on_sweep_cell(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        """A `%%envsweep` cell for one catalog variable ("try several values…"): the sidebar inserts it, unrun."""
        name = _text(_field(data, "name", str), "a name")
        entry = self.env.catalog.get(name)
        if entry is None or not entry.is_env:
            raise BadRequest(f"{name[:100]!r} is not a catalog environment variable")
        from ..presentation.sweep._cell import sweep_cell
        from ..sweeps._suggest import suggested_values

        values = suggested_values(entry, self.env.get(name), _gpu_total())
        if not values:  # a sweep of one value compares nothing: say so rather than insert one
            raise BadRequest(f"{name}: its type gives no values to compare; write the values yourself: "
                             f"%%envsweep {name}=A,B")
        return [{"v": PROTOCOL_VERSION, "type": "sweep_cell", "reply_to": request_id,
                 "code": sweep_cell({name: values}, None, self.language)}]

    def _on_memory(self, data: dict[str, Any], request_id: str) -> list[Reply]:
        on = _field(data, "on", bool)
        interval = checked_interval(_field(data, "interval", (int, float), DEFAULT_INTERVAL))
        if self.memory is None:
            raise BadRequest("this comm has no memory stream")
        self.memory.switch(on, interval)
        return [wire.result_reply(None, self.language, request_id)]


def _last_report_id() -> str | None:
    last = oom_report.last_report()
    return last.key if last is not None else None


def _gpu_total() -> int | None:
    from ..memory._sources import gpu_total_bytes

    return gpu_total_bytes()


class MemoryStream:
    """The live memory panel's feed: a subscription to the kernel's one sampler, whose batches go out over the comm
    while the panel is shown."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._subscription: Any = None
        self._lock = threading.Lock()

    def switch(self, on: bool, interval: float) -> None:
        with self._lock:
            if not on:
                self.close()
                return
            if self._subscription is None:
                from ..memory._shared import kernel_sampler

                sampler = kernel_sampler()
                self._subscription = sampler.subscribe(self._send, interval=interval)
                self._send(sampler.snapshot())
            else:
                self._subscription.interval = interval

    def close(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            subscription.close()


class SidebarComm:
    """One open sidebar: routes its requests, pushes every session change to it, and cleans up when it closes."""

    def __init__(self, comm: Any, env: EnvSession) -> None:
        self.comm = comm
        handle_where_sent(comm)  # its live memory goes out from the sampler's thread (see _comm_routing)
        self.env = env
        self.memory = MemoryStream(self._send)
        self.handler = RequestHandler(env, self.memory)
        comm.on_msg(self._on_msg)
        comm.on_close(self._on_close)
        env.observe(self._on_change)
        oom_report.observe(self._on_oom)
        from ..cluster import _last_verify as last_verify

        last_verify.observe(self._on_verified)
        from ..sweeps._offers import cell_offers, profile_offers

        profile_offers().observe(self._on_profile_offer)
        cell_offers().observe(self._on_cell_offer)

    def _send(self, data: KernelMessage) -> None:
        try:
            self.comm.send(data)
        except Exception:  # a closed or broken comm must not break the sampler or the user's cell
            log.debug("mgenv_jupyter comm send failed", exc_info=True)

    def _on_msg(self, msg: dict[str, Any]) -> None:
        try:
            data = msg.get("content", {}).get("data")
            replies = self.handler.handle(data)
        except Exception as exc:  # handle() answers everything itself; this only guards against the unforeseen
            log.exception("mgenv_jupyter comm handler failed")
            replies = [self.handler.error(f"internal error ({type(exc).__name__})", None, code="internal")]
        for reply in replies:
            self._send(reply)
        if replies and replies[0]["type"] == "catalog":  # a hello answered: the last OOM report and verify() too
            last = oom_report.last_report()
            if last is not None:
                self._send(self.handler.oom(last))
            from ..cluster import _last_verify as last_verify

            verified = last_verify.last()
            if verified is not None:
                self._send(self.handler.verify(*verified))

    def _on_change(self, report: SetReport) -> None:
        self._send(self.handler.changed(report))

    def _on_oom(self, report: OomReport) -> None:
        self._send(self.handler.oom(report))

    def _on_verified(self, report: ClusterReport, made: float) -> None:
        self._send(self.handler.verify(report, made))

    def _on_profile_offer(self, offer: ProfileOffer) -> None:
        """A sweep's `.apply()` set values the running framework had already read: the sidebar keeps them in the
        notebook profile, for "Restart and apply"."""
        self._send({"type": "profile_offer", "assignments": dict(offer.assignments)})

    def _on_cell_offer(self, offer: CellOffer) -> None:
        """A `%%envsweep` cell the user asked for (a widget's "try several values…"): the sidebar inserts it."""
        self._send({"type": "cell_offer", "code": offer.code})

    def _on_close(self, msg: Any = None) -> None:
        self.env.unobserve(self._on_change)
        oom_report.unobserve(self._on_oom)
        from ..cluster import _last_verify as last_verify
        from ..sweeps._offers import cell_offers, profile_offers

        last_verify.unobserve(self._on_verified)
        profile_offers().unobserve(self._on_profile_offer)
        cell_offers().unobserve(self._on_cell_offer)
        self.memory.close()
