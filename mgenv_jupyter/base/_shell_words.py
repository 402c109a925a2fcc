"""A magic line split into words as `shlex.split(line, posix=True)` splits it, in time linear in the line's length.

shlex builds each word a character at a time and takes time that grows with the square of the word (an 800 KB
value took 17 s); the magics read every line through here instead. Same rules: words end at space, tab, CR or LF;
'single quotes' keep everything; inside "double quotes" a backslash escapes only \\ and "; outside quotes it escapes
any character; quoted parts join the word around them, and '' is an empty word. An unclosed quote or a trailing
backslash raises ValueError with shlex's words.
"""

from __future__ import annotations

import re

_PIECES = re.compile(
    r"""'(?P<single>[^']*)'                   # 'single quoted'
      | "(?P<double>(?:[^"\\]|\\.)*)"          # "double quoted", \x kept as one unit
      | \\(?P<escaped>.)                       # \x outside quotes
      | (?P<space>[ \t\r\n]+)
      | (?P<plain>[^'"\\ \t\r\n]+)
      | (?P<open>['"]|\\\Z)                    # a quote never closed, or a backslash ending the line
    """,
    re.VERBOSE | re.DOTALL,
)
_ENDS_IN_ESCAPE = re.compile(r'(?:[^"\\]|\\.)*\\', re.DOTALL)  # an open "...: a backslash ends the line
_DOUBLE_ESCAPES = re.compile(r'\\(["\\])|\\(.)', re.DOTALL)
_PLAIN_WORDS = re.compile(r"[^ \t\r\n]+")


def split_words(line: str) -> list[str]:
    if "'" not in line and '"' not in line and "\\" not in line:
        return _PLAIN_WORDS.findall(line)  # nothing quoted or escaped (most lines): the runs between separators
    words: list[str] = []
    parts: list[str] = []
    in_word = False
    for piece in _PIECES.finditer(line):
        kind = piece.lastgroup
        if kind == "space":
            if in_word:
                words.append("".join(parts))
                parts, in_word = [], False
            continue
        if kind == "open":
            rest = line[piece.end():]
            if piece.group() == "\\" or (piece.group() == '"' and _ENDS_IN_ESCAPE.fullmatch(rest)):
                raise ValueError("No escaped character")
            raise ValueError("No closing quotation")
        in_word = True
        if kind == "double":
            parts.append(_DOUBLE_ESCAPES.sub(lambda m: m.group(1) or "\\" + m.group(2), piece.group("double")))
        else:
            parts.append(piece.group(kind or ""))
    if in_word:
        words.append("".join(parts))
    return words
