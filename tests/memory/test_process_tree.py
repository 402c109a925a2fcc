"""The kernel's process tree (memory/_process_tree.py): the kernel and every descendant, real child processes
included, walked at most every `max_age` seconds, with the ones that exited remembered."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import psutil
import pytest

from mgenv_jupyter.memory import _process_tree as process_tree
from mgenv_jupyter.memory._process_tree import ProcessTree

# A child that starts a grandchild; both wait for the child's stdin to close.
FAMILY = ("import subprocess, sys; g = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'], "
          "stdin=subprocess.PIPE); print(g.pid, flush=True); sys.stdin.read(); g.stdin.close(); g.wait()")


@pytest.fixture
def family() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A real child of this process and its own child (the grandchild's PID)."""
    proc = subprocess.Popen([sys.executable, "-c", FAMILY], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    grandchild = int(proc.stdout.readline())
    yield proc, grandchild
    end(proc)


def end(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    if not proc.stdin.closed:
        proc.stdin.close()
    proc.wait(timeout=10)


def test_the_tree_is_this_process_and_every_descendant(family):
    child, grandchild = family
    tree = ProcessTree(max_age=0)
    assert tree.root == os.getpid()
    assert {os.getpid(), child.pid, grandchild} <= tree.pids()
    assert os.getppid() not in tree.pids()  # the parent is not the kernel's descendant


def test_a_descendant_that_exits_leaves_the_tree_and_is_remembered(family):
    child, grandchild = family
    tree = ProcessTree(max_age=0)
    assert child.pid in tree.pids()
    end(child)
    assert child.pid not in tree.pids() and grandchild not in tree.pids()
    assert {child.pid, grandchild} <= tree.former()


def test_the_walk_is_reused_for_max_age_seconds_unless_refreshed():
    tree = ProcessTree(max_age=3600)
    # This process and what it runs already (in a whole suite run, the session's JupyterLab servers and scenarios).
    assert os.getpid() in tree.pids() and tree.pids() == ProcessTree(max_age=0).pids()
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert proc.pid not in tree.pids()  # a worker started since the walk is missed until the next one
        tree.refresh()
        assert proc.pid in tree.pids()
    finally:
        end(proc)


def test_without_procs_children_files_psutil_finds_the_same_tree(family, monkeypatch):
    child, grandchild = family
    with monkeypatch.context() as patched:
        patched.setattr(process_tree.os.path, "exists", lambda path: False)
        tree = ProcessTree(max_age=0)
    assert {os.getpid(), child.pid, grandchild} <= tree.pids()


def test_resident_memory_is_summed_over_the_tree(family):
    child, grandchild = family
    tree = ProcessTree(max_age=0)
    mine = psutil.Process().memory_info().rss
    others = sum(psutil.Process(pid).memory_info().rss for pid in (child.pid, grandchild))
    assert tree.rss() >= (mine + others) * 0.8  # memory moves a little between the two readings
