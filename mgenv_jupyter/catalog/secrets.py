"""Recognising secrets, by the variable's name and by the shape of its value, and masking them.

A value is a secret when its name says so (OPENAI_API_KEY, DB_PASSWORD, GITHUB_PAT) or when the value itself has the
shape of a credential: a URL with a password in it, or one of the well-known token forms (GitHub, OpenAI/Anthropic,
Hugging Face, AWS, Slack, GitLab, Google, Stripe, JWTs, PEM private keys). Secrets are never shown, stored, exported or
echoed in clear; `redact` is the last line of defence for any text that might carry one.
"""

from __future__ import annotations

import re

MASK = "********"

# The name rule, defined here once: the front end gets these markers and MASK as generated constants in
# labextension/src/schema.ts (protocol/typescript.py), with `is_secret_name` written out there as `isSecretName`.
# The value patterns below stay in the kernel: a front end learns of a secret by value from the kernel (`secret` on a
# change, MASK as the value), never by matching values itself.
# Substrings of the upper-cased name that mark a secret wherever they appear (API_KEY, MYTOKEN, DB_PASSWD).
NAME_SUBSTRINGS = ("KEY", "TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "COOKIE")
# Whole words of the upper-cased name (split at NAME_SEPARATOR) that mark a secret; as substrings they would catch
# innocent names ("enable_scope_fusion_passes", "GIT_AUTHOR_NAME").
NAME_WORDS = frozenset({"PAT", "AUTH", "DSN", "PASS", "APIKEY", "BEARER"})
NAME_SEPARATOR = "_"

_VALUE_PATTERNS = (
    # A URL with a password (postgres://user:pw@host). Bounded parts and a start that no scheme character precedes
    # keep the search linear in the value's length.
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}://[^/\s:@]{0,256}:[^/\s@]{1,256}@",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bsk-[A-Za-z0-9_-]{16,}",  # OpenAI, Anthropic (sk-proj-…, sk-ant-…)
    r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
    r"\bhf_[A-Za-z0-9]{20,}",  # Hugging Face
    r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",  # AWS access key ids
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack
    r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab
    r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
)
_VALUE_RE = re.compile("|".join(f"(?:{p})" for p in _VALUE_PATTERNS))


def is_secret_name(name: str) -> bool:
    """True for names that say they hold a secret: KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, … in the name."""
    upper = name.upper()
    if any(marker in upper for marker in NAME_SUBSTRINGS):
        return True
    return any(word in NAME_WORDS for word in upper.split(NAME_SEPARATOR))


def is_secret_value(value: str) -> bool:
    """True for values shaped like a credential (a URL with a password, a well-known token form)."""
    return bool(_VALUE_RE.search(value))


def is_secret(name: str, value: str | None = None) -> bool:
    """A secret by its name, or by its value when one is given."""
    return is_secret_name(name) or (value is not None and is_secret_value(value))


def shown(name: str, value: str | None) -> str | None:
    """`value` as it may be displayed or stored: masked when it is a secret (by name or by value)."""
    if value is None or not is_secret(name, value):
        return value
    return MASK


def redact(text: str) -> str:
    """`text` with every credential-shaped part masked: the safety net for messages that quote user input."""
    return _VALUE_RE.sub(MASK, text)
