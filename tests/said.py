"""A memory source's state (a code and its arguments) in the English words a user reads (memory/_state_words.py), for
tests that check what a source says: the words stay those people see, while the code acts on the code."""

from __future__ import annotations

from mgenv_jupyter.base._source_state import State
from mgenv_jupyter.memory._state_words import state_text

# How the NVML source's words begin when the kernel's processes cannot be told apart (MIG, a container's namespace).
UNAVAILABLE = "per-process memory unavailable (MIG or container PID namespace)"


def said(state: State) -> str:
    """`state` as the chart shows it in English."""
    return state_text(state, "en")
