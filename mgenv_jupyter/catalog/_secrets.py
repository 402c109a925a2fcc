"""Recognising secrets, by the variable's name and by the shape of its value, and masking them.

A value is a secret when its name says so (OPENAI_API_KEY, DB_PASSWORD, GITHUB_PAT) or when the value itself has the
shape of a credential: a URL with a password in it, or one of the well-known token forms (GitHub, OpenAI/Anthropic,
Hugging Face, AWS, Slack tokens and webhook URLs, GitLab, Google, Stripe, JWTs, PEM private keys, Azure connection
strings' AccountKey= and SAS signatures). Secrets are never shown, stored, exported or
echoed in clear; `redact` is the last line of defence for any text that might carry one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache

from ..base._text import Message, Text

MASK = "********"

# The name rule, defined here once: the front end gets these markers and MASK as generated constants in
# labextension/src/schema.ts (comms/_typescript_schema.py), with `is_secret_name` written out there as `isSecretName`.
# The value patterns below stay in the kernel: a front end learns of a secret by value from the kernel (`secret` on a
# change, MASK as the value), never by matching values itself.
# Substrings of the upper-cased name that mark a secret wherever they appear (API_KEY, MYTOKEN, DB_PASSWD, MYSQL_PWD,
# AZURE_STORAGE_CONNECTION_STRING, SLACK_WEBHOOK_URL;
# "_PWD" and not "PWD", which would take the shell's working directory, PWD, for a password).
NAME_SUBSTRINGS = ("KEY", "TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "COOKIE", "_PWD",
                   "CONNECTION_STRING", "WEBHOOK")
# Whole words of the upper-cased name (split at NAME_SEPARATOR) that mark a secret; as substrings they would catch
# innocent names ("enable_scope_fusion_passes", "GIT_AUTHOR_NAME").
NAME_WORDS = frozenset({"PAT", "AUTH", "DSN", "PASS", "APIKEY", "BEARER"})
NAME_SEPARATOR = "_"

# Token shapes. Each pattern starts with a literal (or, for JWTs, at the start of a run of token characters, so a long
# run is tried once and not from each of its positions) and then takes a run greedily: a search is linear in the
# text's length. tests/quality/test_linear_patterns.py pumps every pattern of the package to show it.
_VALUE_PATTERNS = (
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bsk-[A-Za-z0-9_-]{16,}",  # OpenAI, Anthropic (sk-proj-…, sk-ant-…)
    r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
    r"\bhf_[A-Za-z0-9]{20,}",  # Hugging Face
    r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",  # AWS access key ids
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+",  # Slack webhook URLs
    r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    # Azure storage and service-bus connection strings (AccountKey=…;), SAS tokens (sig=…)
    r"\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=[^;&\s]+",
)
# One compiled pattern each, searched one after the other: each then scans for its own literal start at C speed,
# where one alternation of them all would try every alternative at every position (ten times slower on a long text).
_VALUE_RES = tuple(re.compile(p) for p in _VALUE_PATTERNS)
_SCHEME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
_MAX_SCHEME = 32


def _url_credentials(text: str) -> list[tuple[int, int]]:
    """Where `text` holds `scheme://user:password@` (a password may hold `/` and be of any length): (start, end) of
    each, from the scheme to the `@`.

    Read without a regular expression, in one pass: for each `@`, the last `://` since the previous `@` is the only
    URL whose user part can end there, so every character is looked at a bounded number of times.
    """
    found = []
    previous = 0
    at = text.find("@")
    while at >= 0:
        separator = text.rfind("://", previous, at)
        if separator > 0:
            userinfo = text[separator + 3:at]
            user, colon, password = userinfo.partition(":")
            start = separator
            while start > 0 and separator - start < _MAX_SCHEME and text[start - 1] in _SCHEME_CHARACTERS:
                start -= 1
            port = password.partition("/")[0]  # host:8080/path@x is a port and a path, not a password
            if (colon and "/" not in user and start < separator and text[start].isalpha()
                    and not ("/" in password and port.isdigit()) and not any(c.isspace() for c in userinfo)):
                found.append((start, at + 1))
        previous = at + 1
        at = text.find("@", previous)
    return found


def is_secret_name(name: str) -> bool:
    """True for names that say they hold a secret: KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, … in the name."""
    # Asked several times for every variable of every %envset: a real variable's answer is kept.
    return _secret_name(name) if len(name) <= _KEPT_NAME_CHARS else _judged_secret_name(name)


_KEPT_NAME_CHARS = 256  # longer names are judged each time, so that the kept answers stay small


@lru_cache(maxsize=1024)
def _secret_name(name: str) -> bool:
    return _judged_secret_name(name)


def _judged_secret_name(name: str) -> bool:
    upper = name.upper()
    if any(marker in upper for marker in NAME_SUBSTRINGS):
        return True
    return any(word in NAME_WORDS for word in upper.split(NAME_SEPARATOR))


def is_secret_value(value: str) -> bool:
    """True for values shaped like a credential (a URL with a password, a well-known token form)."""
    # Asked of the old and the new value of every change, several times each: the values found plain are kept (only
    # those, so no secret is held here; short ones, so what is kept stays small).
    if value in _PLAIN_VALUES:
        return False
    secret = any(pattern.search(value) for pattern in _VALUE_RES) or bool(_url_credentials(value))
    if not secret and len(value) <= _KEPT_VALUE_CHARS:
        if len(_PLAIN_VALUES) >= _KEPT_VALUES:
            _PLAIN_VALUES.clear()
        _PLAIN_VALUES[value] = None
    return secret


_PLAIN_VALUES: dict[str, None] = {}  # values that are no secret's, as is_secret_value found them
_KEPT_VALUES = 1024
_KEPT_VALUE_CHARS = 256


def is_secret(name: str, value: str | None = None) -> bool:
    """A secret by its name, or by its value when one is given."""
    return is_secret_name(name) or (value is not None and is_secret_value(value))


def shown(name: str, value: str | None) -> str | None:
    """`value` as it may be displayed or stored: masked when it is a secret (by name or by value)."""
    if value is None or not is_secret(name, value):
        return value
    return MASK


def redact_message(said: Message, known: Iterable[str | None] = ()) -> Message:
    """`said` with `redact` applied to every blank it fills, in both languages (the sentence itself is ours): a
    note kept to be shown later, in whatever language is then in effect, never holds a secret in either."""
    values = tuple(known)

    def clean(value: str | Text | Message) -> str | Text | Message:
        if isinstance(value, str):
            return redact(value, values)
        if isinstance(value, Text):
            return Text(redact(value.en, values), redact(value.zh, values))
        return redact_message(value, values)

    return Message(said.template, tuple((name, clean(value)) for name, value in said.fields))


def redact(text: str, known: Iterable[str | None] = ()) -> str:
    """`text` with every credential-shaped part masked, and every one of the `known` secret values (and, for a path,
    what `~` expands it to): the safety net for messages, notes and errors that quote user input."""
    for value in known:
        if value:
            for spelling in dict.fromkeys((value, os.path.expanduser(value))):
                text = text.replace(spelling, MASK)
    spans = _url_credentials(text)
    if spans:
        parts, last = [], 0
        for start, end in spans:
            parts += [text[last:start], MASK]
            last = end
        text = "".join(parts) + text[last:]
    for pattern in _VALUE_RES:
        text = pattern.sub(MASK, text)
    return text
