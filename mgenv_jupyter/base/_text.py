"""Bilingual text and the language setting (Chinese or English) used for every description shown to users; the
language chosen and the front end's are kept in the kernel's state (_kernel_state.py)."""

from __future__ import annotations

import locale
import os
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from ._kernel_state import Slot

LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Text:
    """One sentence or paragraph in English and Chinese."""

    en: str
    zh: str

    def get(self, language: str | None = None) -> str:
        return self.zh if (language or current_language()) == "zh" else self.en


class Message(NamedTuple):
    """A sentence in English and Chinese with its blanks filled, said in the language of the moment it is shown:
    `fields` values are text, or a `Text` or `Message` chosen in the same language. What a status says and what a
    change notes keep it, so a report made under `%envlang zh` reads in English once `%envlang en` is in effect. A
    named tuple, as immutable as a frozen dataclass and made in half the time: every change makes one."""

    template: Text
    fields: tuple[tuple[str, str | Text | Message], ...] = ()

    def get(self, language: str | None = None) -> str:
        if not self.fields:  # a template without blanks is shown as written (braces included)
            return self.template.get(language)
        values = {name: localised(value, language) for name, value in self.fields}
        return self.template.get(language).format(**values)

    def __str__(self) -> str:
        return self.get()

    def __contains__(self, part: object) -> bool:  # words of the sentence, not the tuple's two fields
        return isinstance(part, str) and part in self.get()


def message(template: Text, **fields: str | Text | Message) -> Message:
    return Message(template, tuple(fields.items()))


def localised(value: str | Text | Message, language: str | None = None) -> str:
    """`value` in `language`: a `Text`'s or a `Message`'s words, or a string that is the same in every language (a
    name, a source location, a value): catalog fields such as `Entry.read_at`, and a message's fields."""
    return value if isinstance(value, str) else value.get(language)


@cache  # the locale's, read once
def _language_from_locale() -> str:
    candidates = [os.environ.get(k, "") for k in ("LC_ALL", "LC_MESSAGES", "LANG")]
    try:
        candidates.append(locale.getlocale()[0] or "")
    except ValueError:  # malformed locale variables must not break loading
        pass
    for value in candidates:
        if value:
            return _zh_or_en(value)
    return "en"


def _zh_or_en(value: str) -> str:
    return "zh" if value.lower().startswith("zh") else "en"


# The language chosen by `%envlang` (set_language) and the one the front end said it speaks.
CHOSEN_LANGUAGE: Slot[str] = Slot("the language chosen by %envlang")
FRONT_END_LANGUAGE: Slot[str] = Slot("the front end's language")


def current_language() -> str:
    """The language descriptions are shown in: `set_language()` (`%envlang`) if called, else `MGENV_LANG`, else the
    language of the JupyterLab the sidebar or a chart connected from (`learn_language()`), else the locale."""
    chosen = CHOSEN_LANGUAGE.get()
    if chosen is not None:  # chosen with set_language() (%envlang): wins over everything
        return chosen
    explicit = os.environ.get("MGENV_LANG")
    if explicit:
        return _zh_or_en(explicit)
    front_end = FRONT_END_LANGUAGE.get()
    if front_end is not None:  # the JupyterLab's the sidebar or a chart connected from
        return front_end
    return _language_from_locale()


def page_language() -> str:
    """The language of what the JupyterLab page draws itself: the sidebar, the memory charts (their legends and status
    lines, whose words the sampler sends) and the cells' badges follow the page's language, told by the sidebar or a
    chart when it connects (`learn_language()`), so that one screen speaks one language; `%envlang` chooses the
    language of what the kernel writes into outputs. Where no page told one, `current_language()`."""
    front_end = FRONT_END_LANGUAGE.get()
    return front_end if front_end is not None else current_language()


def set_language(language: str | None) -> str:
    """Choose "zh" or "en" for descriptions; None goes back to MGENV_LANG, the front end's language or the locale."""
    CHOSEN_LANGUAGE.set(_checked(language))
    return current_language()


def learn_language(language: str | None) -> str:
    """The front end's language ("zh" or "en"; None forgets it), told when the sidebar or a chart connects. It counts
    only where neither `set_language()` nor MGENV_LANG chose one, so a user's explicit choice stays."""
    FRONT_END_LANGUAGE.set(_checked(language))
    return current_language()


def _checked(language: str | None) -> str | None:
    if language is not None and language not in LANGUAGES:
        from ._errors import InvalidValueError

        raise InvalidValueError(f"unknown language {str(language)[:20]!r}: use one of {', '.join(LANGUAGES)}")
    return language
