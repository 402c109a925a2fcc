"""The kernel asks its own Jupyter server which notebook holds a GPU process (issue 28, findings 5-9).

Everything the call meets here is real: a runtime file named by the kernel's parent pid in a real runtime directory
(JUPYTER_RUNTIME_DIR, as Jupyter sets it), real TCP servers on loopback answering each in its own way (the server,
a proxy, a redirect to another port, a server trickling bytes or never finishing, hostile answers), a FIFO, files
another user owns or anyone can write. What is checked: the token reaches the server named by a trusted runtime file
and nothing else, the whole call ends by its deadline, and nothing raises."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The module, not its names: these tests also ran against the code before issue 28, which lacked some of them.
from mgenv_jupyter.memory import _server_owners as server_owners
from mgenv_jupyter.memory._server_owners import TIMEOUT_SECONDS, NotebookOwner, notebook_owners, own_server
from mgenv_jupyter.protocol._gpus import OWNERS_PATH

from loopback_servers import Answer, Listener, answering, listening, never_finishing, silent, trickling

TOKEN = "c0ffee-test-token-4d2"
PID = 4242  # the process asked about
KERNEL = {"id": "k-1", "name": "python3", "notebooks": ["big.ipynb"], "execution_state": "idle",
          "last_activity": "2026-01-01T00:00:00+00:00", "idle_seconds": 7200.5, "pid_known": True}
OWNERS = json.dumps({"v": 1, "owners": [{"pid": PID, "kernel": KERNEL}]}).encode()

@pytest.fixture
def listen() -> Iterator[Callable[[Answer], Listener]]:
    yield from listening()


def write_runtime_file(directory: Path, url: str, token: str = TOKEN, mode: int = 0o600, name: str = "",
                       **fields: Any) -> Path:
    """The file a Jupyter server writes for `jupyter server list`, named by this process's parent pid: to the code
    under test, this process is the kernel."""
    path = directory / (name or f"jpserver-{os.getppid()}.json")
    path.write_text(json.dumps({"url": url, "hostname": "127.0.0.1", "base_url": "/", "token": token,
                                "pid": os.getppid(), "secure": False, "sock": "", **fields}))
    path.chmod(mode)
    return path


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh Jupyter runtime directory, as the kernel finds it (JUPYTER_RUNTIME_DIR)."""
    directory = tmp_path / "runtime"
    directory.mkdir(mode=0o700)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(directory))
    return directory


def ask(pids: list[int], cap: float = 8.0, **kwargs: Any) -> tuple[dict[int, NotebookOwner], float]:
    """notebook_owners(pids) on a thread, as the out-of-memory report calls it: its answer and how long it took.
    Fails if it is still waiting after `cap` seconds or raised."""
    box: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            box["answer"] = notebook_owners(pids, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - what it raised is the finding
            box["raised"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        box["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(cap)
    assert not thread.is_alive(), f"notebook_owners is still waiting after {cap} s"
    assert "raised" not in box, box["raised"]
    return box["answer"], box["seconds"]


# ---- the server, asked as it should be ------------------------------------------------------------------------------

def test_the_kernel_asks_its_own_server_with_the_token_and_reads_the_notebook(runtime, listen):
    server = listen(answering(OWNERS))
    write_runtime_file(runtime, f"http://127.0.0.1:{server.port}/jh/", base_url="/jh/")
    answer, _ = ask([PID, 77])
    assert answer == {PID: NotebookOwner("k-1", ("big.ipynb",), "idle", 7200.5)}
    (request,) = server.requests
    assert request.startswith(f"GET /jh/{OWNERS_PATH}?pid={PID}&pid=77 HTTP/1.1\r\n".encode()), request
    assert f"\r\nAuthorization: token {TOKEN}\r\n".encode() in request


def test_localhost_and_a_server_listening_everywhere_are_asked_on_loopback(runtime, listen):
    """`localhost` is 127.0.0.1 (then ::1) without asking a resolver; a server started with --ip=0.0.0.0 writes the
    machine's name in its URL and 0.0.0.0 as its hostname, and loopback reaches it."""
    server = listen(answering(OWNERS))
    write_runtime_file(runtime, f"http://localhost:{server.port}/", hostname="localhost")
    assert ask([PID])[0][PID].notebooks == ("big.ipynb",)
    write_runtime_file(runtime, f"http://{socket.gethostname()}:{server.port}/", hostname="0.0.0.0")
    assert ask([PID])[0][PID].notebooks == ("big.ipynb",)
    assert len(server.requests) == 2 and all(b"Host: 127.0.0.1:" in r for r in server.requests)


# ---- finding 5: the token never goes through a proxy ----------------------------------------------------------------

def test_the_token_never_goes_to_the_users_proxy(runtime, listen):
    """A notebook sets http_proxy for its downloads (all_proxy too, no no_proxy), then runs out of GPU memory: the
    request still goes straight to the server, and the proxy sees no connection at all. In a Python of its own, as a
    kernel is: urllib reads the proxy variables when it first builds its opener, so an earlier request in this
    process would hide what a kernel does."""
    proxy = listen(answering(b"", status="502 Bad Gateway"))
    server = listen(answering(OWNERS))
    # The child's parent is this process: the runtime file is named by this process's pid.
    write_runtime_file(runtime, f"http://127.0.0.1:{server.port}/", name=f"jpserver-{os.getpid()}.json")
    notebook = f"""
import json, os
for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "https_proxy", "HTTPS_PROXY"):
    os.environ[name] = "http://127.0.0.1:{proxy.port}"
for name in ("no_proxy", "NO_PROXY"):
    os.environ.pop(name, None)
from mgenv_jupyter.memory._server_owners import notebook_owners
print(json.dumps({{pid: owner.kernel_id for pid, owner in notebook_owners([{PID}]).items()}}))
"""
    done = subprocess.run([sys.executable, "-c", notebook], capture_output=True, text=True, timeout=60, cwd=runtime,
                          env={**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)})
    assert done.returncode == 0, done.stderr
    assert proxy.connections == 0 and not any(TOKEN.encode() in r for r in proxy.requests), proxy.requests
    assert json.loads(done.stdout) == {str(PID): "k-1"} and len(server.requests) == 1


# ---- finding 6: a redirect is a failure, never followed -------------------------------------------------------------

@pytest.mark.parametrize("status", ["301 Moved Permanently", "302 Found", "303 See Other", "307 Temporary Redirect",
                                    "308 Permanent Redirect"])
def test_a_redirect_is_not_followed_and_the_token_stays_with_the_server(runtime, listen, status):
    elsewhere = listen(answering(OWNERS))
    server = listen(answering(b"", status=status,
                              headers=f"Location: http://127.0.0.1:{elsewhere.port}/{OWNERS_PATH}?pid={PID}"))
    write_runtime_file(runtime, f"http://127.0.0.1:{server.port}/")
    answer, _ = ask([PID])
    assert elsewhere.connections == 0 and elsewhere.requests == []
    assert answer == {} and len(server.requests) == 1


# ---- finding 7: one deadline for the whole request ------------------------------------------------------------------

SLOW_BODY = OWNERS + b" " * 40  # at 0.2 s a byte: about 50 s

# (a name, the server). A trickle of the head too: the status line and the headers, a byte at a time.
SLOW_SERVERS = {
    "body trickled": trickling(f"HTTP/1.1 200 OK\r\nContent-Length: {len(SLOW_BODY)}\r\n\r\n".encode(), SLOW_BODY,
                               0.2),
    "head trickled": trickling(b"", b"HTTP/1.1 200 OK\r\n" + b"X-Padding: slow\r\n" * 40, 0.2),
    "never finishes": never_finishing,
    "never answers": silent,
}


@pytest.mark.parametrize("name", list(SLOW_SERVERS))
def test_a_slow_server_is_cut_at_the_deadline(runtime, listen, name):
    """The report waits at most TIMEOUT_SECONDS for the server, whatever it does (it used to wait 8 s for a server
    trickling a byte every half second, and forever for one that never finishes)."""
    server = listen(SLOW_SERVERS[name])
    write_runtime_file(runtime, f"http://127.0.0.1:{server.port}/")
    answer, seconds = ask([PID], cap=TIMEOUT_SECONDS + 6)
    assert answer == {}
    # The deadline plus the time a loaded 2-core machine takes to schedule the thread back.
    assert seconds < TIMEOUT_SECONDS + 0.5, f"{name}: {seconds:.2f} s"


# ---- finding 8: hostile answers are data, never an exception --------------------------------------------------------

def owners_with(**kernel: Any) -> bytes:
    return json.dumps({"v": 1, "owners": [{"pid": PID, "kernel": {**KERNEL, **kernel}}]}).encode()


HOSTILE = {
    "nested [ x 100,000": b"[" * 100_000,
    "nested objects": b'{"owners": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_001,
    "a 400-digit idle_seconds": owners_with(idle_seconds=1).replace(b'"idle_seconds": 1', b'"idle_seconds": '
                                                                    + b"9" * 400),
    "idle_seconds 1e400": owners_with(idle_seconds=1).replace(b'"idle_seconds": 1', b'"idle_seconds": 1e400'),
    "idle_seconds NaN": owners_with(idle_seconds=float("nan")),
    "a 400-digit pid": OWNERS.replace(f'"pid": {PID}'.encode(), b'"pid": ' + b"4" * 400),
    "larger than 1 MiB": owners_with(notebooks=["x" * (1 << 20)]),
    "not UTF-8": b'{"owners": "\xff\xfe"}',
    "not JSON": b"<html>Jupyter</html>",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_answer_gives_nothing_and_never_raises(runtime, listen, name):
    server = listen(answering(HOSTILE[name]))
    write_runtime_file(runtime, f"http://127.0.0.1:{server.port}/")
    answer, _ = ask([PID])
    assert answer == {} and len(server.requests) == 1


def test_the_answer_is_read_as_data_and_anything_of_another_shape_is_left_out():
    reply = {"v": 1, "owners": [
        {"pid": 10, "kernel": KERNEL},
        {"pid": 11, "kernel": None},
        {"pid": "12", "kernel": KERNEL},
        {"pid": 13, "kernel": {**KERNEL, "notebooks": "big.ipynb"}},
        {"pid": 14, "kernel": {**KERNEL, "idle_seconds": True, "notebooks": ["x" * 5000, 7] + ["n"] * 40}},
        {"pid": 15, "kernel": {**KERNEL, "idle_seconds": -3.0}},
        {"pid": 16, "kernel": {**KERNEL, "idle_seconds": 1e300}},
        {"pid": 99, "kernel": KERNEL},  # not asked about
        "nonsense",
    ]}
    found = server_owners._parse(reply, {10, 11, 12, 13, 14, 15, 16})
    assert found[10] == NotebookOwner("k-1", ("big.ipynb",), "idle", 7200.5)
    assert set(found) == {10, 14, 15, 16}
    assert found[14].idle_seconds is None and len(found[14].notebooks) == 15 and len(found[14].notebooks[0]) == 1024
    assert found[15].idle_seconds is None and found[16].idle_seconds is None
    for hostile in (None, [], {"owners": "x"}, {"owners": [None]}, 7):
        assert server_owners._parse(hostile, {10}) == {}


# ---- finding 9: the runtime file is trusted only as the server wrote it ---------------------------------------------

def test_a_fifo_in_place_of_the_runtime_file_is_not_waited_on(runtime, listen):
    server = listen(answering(OWNERS))
    fifo = runtime / f"jpserver-{os.getppid()}.json"
    os.mkfifo(fifo, 0o600)
    try:
        answer, seconds = ask([PID], cap=5)
    finally:  # a reader still waiting (the code as it was) gets an end of file and leaves
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert answer == {} and server.connections == 0 and seconds < 1


def hostile_runtime_file(path: Path, how: str) -> None:
    if how == "world-writable":
        path.chmod(0o666)
    elif how == "group-writable":
        path.chmod(0o620)
    elif how == "another user's":
        if os.geteuid() != 0:
            pytest.skip("only root can give a file to another user")
        os.chown(path, 65534, 65534)  # nobody
    elif how == "a link to it":
        target = path.with_name("elsewhere.json")
        path.rename(target)
        path.symlink_to(target)


@pytest.mark.parametrize("how", ["world-writable", "group-writable", "another user's", "a link to it"])
def test_a_runtime_file_others_could_write_is_not_trusted_and_its_server_never_asked(runtime, listen, how):
    """Whoever else could write the file could name their own server and collect the token: nothing is sent."""
    server = listen(answering(OWNERS))
    path = write_runtime_file(runtime, f"http://127.0.0.1:{server.port}/")
    hostile_runtime_file(path, how)
    assert own_server() is None
    answer, _ = ask([PID])
    assert answer == {} and server.connections == 0


def test_a_runtime_file_naming_another_host_or_scheme_is_never_asked(tmp_path):
    def address(url: str, **fields: Any) -> tuple[tuple[str, ...], int, str] | None:
        server = server_owners.local_server({"url": url, "token": TOKEN, **fields})
        return None if server is None else (server.addresses, server.port, server.base_path)

    assert address("http://127.0.0.1:8888/jh/", hostname="127.0.0.1") == (("127.0.0.1",), 8888, "/jh/")
    assert address("http://[::1]:8888/", hostname="::1") == (("::1",), 8888, "/")
    assert address("http://LocalHost:8888/x", hostname="localhost") == (("127.0.0.1", "::1"), 8888, "/x/")
    assert address("http://gpu-box:8888/", hostname="0.0.0.0") == (("127.0.0.1",), 8888, "/")
    assert address("http://gpu-box:8888/", hostname="::") == (("::1", "127.0.0.1"), 8888, "/")
    for url in ("http://192.0.2.7:8888/", "http://example.com:8888/", "http://127.0.0.1.example.com:8888/",
                "http://localhost.example.com:8888/", "https://127.0.0.1:8888/", "file:///etc/passwd",
                "http+unix://%2Ftmp%2Fjp.sock/", "http://127.0.0.1/", "http://127.0.0.1:99999/",
                "http://127.0.0.1:8888/a b", "http://127.0.0.1:8888/?x=1", "http://user@evil:8888/"):
        assert address(url, hostname="gpu-box") is None, url
    # A token that would add a header or end the request line is not sent anywhere.
    assert server_owners.local_server({"url": "http://127.0.0.1:8888/", "token": "t\r\nX-Evil: 1"}) is None
    assert server_owners.local_server({"url": "http://127.0.0.1:8888/", "token": 7}) is None
    # The token is never shown.
    assert TOKEN not in repr(server_owners.LocalServer(("127.0.0.1",), 8888, "/", TOKEN))


def test_a_runtime_file_of_another_shape_gives_no_server(runtime):
    assert own_server() is None  # none at all
    for content in ("not json", "[" * 100_000, json.dumps([1, 2]), json.dumps({"url": 7}), "{" + " " * 70_000 + "}"):
        path = runtime / f"jpserver-{os.getppid()}.json"
        path.write_text(content)
        path.chmod(0o600)
        assert own_server() is None, content[:40]


@pytest.mark.parametrize("pids", [[], [0, -1, 2**32]])
def test_nothing_to_ask_asks_nothing(pids, listen):
    server = listen(answering(OWNERS))
    assert notebook_owners(pids, server=server_owners.LocalServer(("127.0.0.1",), server.port, "/", "t")) == {}
    assert server.connections == 0


def test_a_server_that_is_gone_gives_nothing_at_once():
    with socket.create_server(("127.0.0.1", 0)) as taken:  # a port nobody listens on once this closes
        port = taken.getsockname()[1]
    answer, seconds = ask([1], server=server_owners.LocalServer(("127.0.0.1", "::1"), port, "/", "t"))
    assert answer == {} and seconds < TIMEOUT_SECONDS
