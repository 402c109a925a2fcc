"""Bilingual text and the language setting (Chinese or English) used for every description shown to users."""

from __future__ import annotations

import locale
import os
from dataclasses import dataclass

LANGUAGES = ("en", "zh")
_language: str | None = None


@dataclass(frozen=True)
class Text:
    """One sentence or paragraph in English and Chinese."""

    en: str
    zh: str

    def get(self, language: str | None = None) -> str:
        return self.zh if (language or current_language()) == "zh" else self.en


def _language_from_locale() -> str:
    candidates = [os.environ.get(k, "") for k in ("MGENV_LANG", "LC_ALL", "LC_MESSAGES", "LANG")]
    try:
        candidates.append(locale.getlocale()[0] or "")
    except ValueError:  # malformed locale variables must not break loading
        pass
    for value in candidates:
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def current_language() -> str:
    """The language descriptions are shown in: `set_language()` if called, else `MGENV_LANG`, else the locale."""
    global _language
    if _language is None:
        _language = _language_from_locale()
    return _language


def set_language(language: str | None) -> str:
    """Choose "zh" or "en" for descriptions; None goes back to the locale's choice."""
    global _language
    if language is not None and language not in LANGUAGES:
        from .errors import InvalidValueError

        raise InvalidValueError(f"unknown language {language!r}: use one of {', '.join(LANGUAGES)}")
    _language = language
    return current_language()
