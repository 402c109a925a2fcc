"""What a text that should be Chinese looks like when part of it was left in English: shared by the catalog's language
test and the Chinese browser test."""

from __future__ import annotations

import re

HAN = re.compile("[\u4e00-\u9fff]")
# Quoted or code spans: a value, a framework's own message, a command, the same in every language.
_QUOTED = re.compile(r"`[^`]*`|'[^'\n]*'|\"[^\"\n]*\"|“[^”]*”")


def english_runs(text: str) -> list[str]:
    """Runs of three or more English words outside quotes and backticks ("is not allowed", "module level set"):
    a sentence, or part of one, left in English. Names and values stand alone, inside quotes or code, or in a list
    (a comma ends a run: "megengine, mxnet, paddle" are names)."""
    runs, run = [], []
    for token in _QUOTED.sub(" ", text).split() + [""]:
        word = re.fullmatch(r"[A-Za-z][a-z]*", token.strip(",.;:()"))
        if word:
            run.append(token)
        if not word or token.endswith(","):
            if len(run) >= 3:
                runs.append(" ".join(run))
            run = []
    return runs
