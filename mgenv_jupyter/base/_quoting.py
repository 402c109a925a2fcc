"""How a message or a display shows user input: in full when short, else its start and its length, so a message or a
table stays readable whatever was pasted. Base layer: files, the catalog and the runtime all quote input."""

from __future__ import annotations

_SHOWN_CHARACTERS = 60


def truncated(text: str) -> str:
    """User input as a display shows it: in full when short, else its start and its length (a message or a table
    must stay readable whatever was pasted)."""
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    return f"{text[:40]}… ({len(text):,} characters)"


def quoted(text: object) -> str:
    """User input as a message quotes it: `repr` when short, else its start quoted and its length."""
    text = text if isinstance(text, str) else repr(text)
    if len(text) <= _SHOWN_CHARACTERS:
        return repr(text)
    return f"{text[:40] + '…'!r} ({len(text):,} characters)"
