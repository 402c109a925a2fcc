"""The hub's GPU page as HTML: each node's GPUs with the notebooks holding them (user, server, notebook, bytes, idle
time, when it will be culled) and what the rest of the device's used memory is, then every server with what went
wrong asking it. Every string from a server or the hub is escaped. The problem codes of _survey.py are labelled here,
in one table. A node is the machine its servers say they run on (protocol/_gpus.py GpuHost: its id, else its host
name); a server that does not say is a node of its own. Sizes and durations are written as everywhere else in the
package (catalog/_values.py).
"""

from __future__ import annotations

from html import escape

from ..catalog._values import format_duration, format_size
from ._reading import Device, Kernel, Share
from ._survey import Row

PROBLEM_WORDS = {
    "timeout": "did not answer in time",
    "too_large": "answered more than the page reads",
    "refused": "refused the connection",
    "http": "answered HTTP {status}",
    "error": "answered something that is not HTTP, or stopped in the middle",
    "bad_view": "answered something that is not a GPU view (at {field})",
}
# Where a kernel's bytes come from, when not from NVML's per-process list (protocol/_gpus.py FigureSource).
FIGURE_TITLES = {
    "kernel_report": " title='as the kernel reports its framework’s allocator: NVML lists the host’s pids, which the "
                     "server (in a pid namespace of its own, as in a container) does not see'",
    "unknown": " title='NVML lists the host’s pids, which the server does not see, and the kernel reports nothing'",
}
STATE_WORDS = {"ok": "", "no_driver": "no NVIDIA driver", "no_gpu": "no GPU", "error": "NVML failed"}

_STYLE = """
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #ffffff; --line: #d0d0d0; --muted: #5c5c5c; --bad: #b00020;
  --accent: #1f6feb; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #161616; --line: #3a3a3a; --muted: #a0a0a0;
  --bad: #ff6b6b; --accent: #58a6ff; } }
body { font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 1.5em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; } h3 { font-size: 1em; margin: 1em 0 .3em; }
table { border-collapse: collapse; width: 100%; max-width: 1100px; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
td.n, th.n { text-align: right; white-space: nowrap; }
td.n[title] { text-decoration: underline dotted; cursor: help; }  /* a figure not NVML's: its tooltip says whence */
.muted { color: var(--muted); } .bad { color: var(--bad); }
button { font: inherit; padding: .2em .7em; border: 1px solid var(--line); border-radius: 4px; background: var(--bg);
  color: var(--fg); cursor: pointer; } button.danger { border-color: var(--bad); color: var(--bad); }
dialog { color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; max-width: 32em; }
"""

_SCRIPT = """
const dialog = document.getElementById('confirm');
let target = null;
for (const button of document.querySelectorAll('button.shutdown')) {
  button.addEventListener('click', () => {
    target = button.dataset;
    document.getElementById('confirm-text').textContent =
      `Shut down the kernel of ${target.notebook} (user ${target.user}, holding ${target.held})? ` +
      'Its variables are lost; the notebook stays.';
    dialog.showModal();
  });
}
document.getElementById('confirm-no').addEventListener('click', () => dialog.close());
document.getElementById('confirm-yes').addEventListener('click', async () => {
  dialog.close();
  const reply = await fetch('api/shutdown', {method: 'POST', headers: {'Content-Type': 'application/json',
    'X-XSRFToken': document.body.dataset.xsrf}, body: JSON.stringify({user: target.user, server: target.server,
    kernel: target.kernel})});
  const status = document.getElementById('status');
  status.textContent = reply.ok ? `The kernel of ${target.notebook} was shut down.`
                                : `The shutdown failed (HTTP ${reply.status}).`;
  if (reply.ok) { setTimeout(() => location.reload(), 500); }
});
"""


def size(value: int | None) -> str:
    return "unknown" if value is None else format_size(value)


def idle(seconds: float | None, running: bool) -> str:
    if running:
        return "running a cell"
    return "unknown" if seconds is None else format_duration(seconds)


def node_of(row: Row) -> tuple[tuple[str, ...], str, str | None]:
    """The node a server's GPUs are on (a key), its host name and its id."""
    host = row.view.host if row.view is not None else None
    if host is None:
        return ("server", row.server.user, row.server.name), f"{row.server.user}’s server", None
    return (("id", host.id) if host.id is not None else ("hostname", host.hostname)), host.hostname, host.id


def render(rows: list[Row], who: str, admin: bool, xsrf: str) -> str:
    """The whole page for user `who` (shutdown buttons when `admin`)."""
    nodes: dict[tuple[str, ...], list[tuple[Row, Device]]] = {}
    names: dict[tuple[str, ...], tuple[list[str], str | None]] = {}
    for row in rows:
        if row.view is None:
            continue
        key, hostname, host_id = node_of(row)
        known = names.setdefault(key, ([], host_id))[0]
        if hostname not in known:  # containers of one machine may each have a host name of their own
            known.append(hostname)
        for device in row.view.devices:
            nodes.setdefault(key, []).append((row, device))
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>GPUs of the hub</title>"
             f"<style>{_STYLE}</style></head><body data-xsrf='{escape(xsrf)}'>",
             f"<h1>GPUs of the hub</h1><p class='muted'>Signed in as {escape(who)}"
             f"{' (admin: every user’s servers)' if admin else ' (your servers only)'}.</p><p id='status' "
             "role='status'></p>"]
    if not nodes:
        parts.append("<p class='muted'>No server answered with a GPU.</p>")
    for key, entries in nodes.items():
        hostnames, host_id = names[key]
        title = f" title='machine id (this package’s own, not the machine id itself): {escape(host_id)}'" \
            if host_id else ""
        parts.append(f"<h2 class='node' data-node='{escape(host_id or '')}'{title}>Node "
                     f"{escape(', '.join(hostnames))}</h2>")
        by_device: dict[int, list[tuple[Row, Device]]] = {}
        for row, device in entries:
            by_device.setdefault(device.index, []).append((row, device))
        for index in sorted(by_device):
            parts.append(_device_table(by_device[index], admin))
    parts.append(_servers_table(rows))
    if admin:  # the confirmation and the shutdown exist for an admin only (the service refuses anyone else too)
        parts.append("<dialog id='confirm'><p id='confirm-text'></p><p><button id='confirm-no'>Cancel</button> "
                     "<button id='confirm-yes' class='danger'>Shut down</button></p></dialog>"
                     f"<script>{_SCRIPT}</script>")
    parts.append("</body></html>")
    return "".join(parts)


def _device_table(entries: list[tuple[Row, Device]], admin: bool) -> str:
    first = entries[0][1]
    # Each server reads the device itself; on one machine they agree (but for what changed between their reads).
    # Where they do not (simulated GPUs: each server simulates its own), each server's figure is shown.
    readings = {(row.server.user, row.server.name): device.used for row, device in entries}
    agreed = len(set(readings.values())) == 1
    if agreed:
        used = f"<span class='used' data-used='{first.used}'>{size(first.used)}</span> used of {size(first.total)}"
    else:
        used = f"{size(first.total)}; used, as each server reads it: " + ", ".join(
            f"{escape(user)}{'/' + escape(name) if name else ''} {size(value)}"
            for (user, name), value in readings.items())
    holders: list[tuple[int, str]] = []
    for row, device in entries:
        kernels = {k.id: k for k in row.view.kernels} if row.view else {}
        for share in device.shares:
            kernel = kernels.get(share.kernel_id)
            holders.append((share.used or 0, _holder_row(row, share, kernel, admin)))
    holders.sort(key=lambda h: -h[0])
    columns = 7 if admin else 6
    rest = first.used - sum(held for held, _ in holders)
    if agreed and holders and rest > 0:  # the used figure in full: the notebooks above and whatever else holds memory
        holders.append((rest, f"<tr class='rest' data-bytes='{rest}'><td colspan='3' class='muted'>other processes, "
                              f"and notebooks this page does not list</td><td class='n'>{size(rest)}</td>"
                              f"<td colspan='{columns - 4}'></td></tr>"))
    head = ("<tr><th>user</th><th>server</th><th>notebook</th><th class='n'>bytes</th><th class='n'>idle</th>"
            "<th title='when GPU-aware culling will shut the kernel down unless a cell runs'>shut down at</th>"
            f"{'<th></th>' if admin else ''}</tr>")
    body = "".join(h for _, h in holders) or f"<tr><td colspan='{columns}' class='muted'>nothing held</td></tr>"
    return (f"<h3>{escape(first.label)} · {escape(first.name)} · {used}</h3><table class='gpu'>{head}{body}</table>")


def _holder_row(row: Row, share: Share, kernel: Kernel | None, admin: bool) -> str:
    kernel_id, used = share.kernel_id, share.used
    notebook = ", ".join(kernel.notebooks) if kernel and kernel.notebooks else f"kernel {kernel_id}"
    idle_time = idle(kernel.idle_seconds, kernel.running_cell) if kernel else "unknown"
    cull = escape(kernel.cull_at) if kernel and kernel.cull_at else "<span class='muted'>—</span>"
    button = ""
    if admin:
        data = {"user": row.server.user, "server": row.server.name, "kernel": kernel_id, "notebook": notebook,
                "held": size(used)}
        attributes = " ".join(f"data-{k}='{escape(v)}'" for k, v in data.items())
        button = f"<td><button class='shutdown danger' {attributes}>Shut down</button></td>"
    server = escape(row.server.name) if row.server.name else "<span class='muted'>default</span>"
    return (f"<tr class='holder' data-kernel='{escape(kernel_id)}' data-bytes='{used if used is not None else ''}' "
            f"data-figure='{escape(share.figure)}'><td>{escape(row.server.user)}</td><td>{server}</td>"
            f"<td>{escape(notebook)}</td><td class='n'{FIGURE_TITLES.get(share.figure, '')}>{size(used)}</td>"
            f"<td class='n'>{idle_time}</td><td>{cull}</td>{button}</tr>")


def _servers_table(rows: list[Row]) -> str:
    lines = []
    for row in rows:
        if row.view is None:
            words = PROBLEM_WORDS.get(row.problem or "", row.problem or "")
            state = f"<span class='bad'>{escape(words.format(status=row.status, field=row.field))}</span>"
            kernels = ""
        else:
            state = escape(STATE_WORDS.get(row.view.state, row.view.state)) or "answered"
            kernels = str(len(row.view.kernels))
        server = escape(row.server.name) if row.server.name else "<span class='muted'>default</span>"
        lines.append(f"<tr class='server' data-user='{escape(row.server.user)}' data-problem="
                     f"'{escape(row.problem or '')}'><td>{escape(row.server.user)}</td><td>{server}</td>"
                     f"<td class='n'>{kernels}</td><td>{state}</td></tr>")
    body = "".join(lines) or "<tr><td colspan='4' class='muted'>no running server</td></tr>"
    return ("<h2>Servers</h2><table class='servers'><tr><th>user</th><th>server</th><th class='n'>kernels</th>"
            f"<th>answer</th></tr>{body}</table>")
