"""One language on one screen, for what the catalog says: walked whole, every user-visible text it holds or makes
has a Chinese form with Chinese characters in it, and shows it on a Chinese screen; an English screen stays English.

What is walked: every entry, group, conflict and framework, field by field (value types and their keys included),
so a new field or a new entry is walked too. A field holds either a `Text` (English and Chinese) or a string that is
the same in every language: a name, a value, a pattern, a source location made only of code. What the value types
make at run time is asked of each entry's type under each language: what it allows, why it refuses a value (the
reason %envset and the sidebar show), and the notes on what a value became or what it will do that a user may not
expect (the traps: "'0' does NOT turn this off")."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from collections.abc import Iterator

import pytest
from language_checks import HAN, english_runs

import mgenv_jupyter.catalog
from mgenv_jupyter.base._errors import InvalidValueError
from mgenv_jupyter.base._text import Text, set_language
from mgenv_jupyter.catalog import Entry, catalog
from mgenv_jupyter.catalog._frameworks import FRAMEWORKS
from mgenv_jupyter.catalog._values import ValueType

CATALOG = catalog()

# Fields whose strings are the same in every language: names, values, spellings, patterns, where a source reads it.
SAME_IN_EVERY_LANGUAGE = {
    "Entry": {"name", "framework", "readers", "default", "live_api", "latch", "when"},
    "Group": {"key", "framework", "members", "on", "off", "live_api"},
    "Conflict": {"names"},
    "Condition": {"variable", "values"},
    "Framework": {"key", "homes", "options"},  # its catalog modules, and the call its options are keywords of
    "ConfigKey": {"name", "default", "parser", "at_least"},  # `parser` is not sent to front ends (to_json)
    # value types: their spellings, aliases, examples and patterns (a value note is a Text, beside its value)
    "*type": {"values", "aliases", "examples", "regex", "on", "off", "words", "value_notes"},
}
# Fields that are a name or a source location, or a Text where words surround them: as a string, only code.
CODE_OR_TEXT = {"read_at", "replaced_by"}
# Where the catalog was traced from and which wheel checks it: provenance for the docs and tests, never shown.
NOT_SHOWN = {("Framework", "source"), ("Framework", "checked")}
# Names that stay names in Chinese: a Text whose Chinese form is only these needs no Chinese characters.
NAMES = {"MegEngine", "MXNet", "PyTorch", "JAX", "TensorFlow", "CUDA", "torch.compile", "Inductor", "Dynamo"}
# Module names that stand as words beside code in a source location ("jax 0.10.2").
MODULE_WORDS = {"jax", "jaxlib", "torch", "tensorflow", "mxnet", "paddle", "megengine", "libgomp"}


def prose_words(text: str) -> list[str]:
    """The words of English prose in a string that should hold only code: lower-case or capitalised words outside
    backticks that are not module names ("module level", "constructor", "when the context creates ...")."""
    words = []
    for token in re.sub(r"`[^`]*`", " ", text).split():
        token = token.strip("()[],;.")
        if re.fullmatch(r"[a-z]{2,}|[A-Z][a-z]+", token) and token not in MODULE_WORDS:
            words.append(token)
    return words


def has_chinese_form(text: Text) -> bool:
    """Chinese characters in its Chinese form, or a form of names and signs only ("MegEngine", "torch.compile",
    ",≥ {low}")."""
    chinese = re.sub(r"\{\w*\}", "", text.zh)
    words = [word for word in re.split(r"[\s,()、()≥≤]+", chinese) if word]
    return bool(text.zh.strip()) and (bool(HAN.search(chinese)) or all(word in NAMES for word in words))


def walk(obj: object, where: str) -> Iterator[tuple[str, str, object]]:
    """(where, field, value) for every Text and every string field reachable from `obj`."""
    if isinstance(obj, Text):
        yield where, "", obj
        return
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return
    owner = type(obj).__name__
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        for item in _items(value):
            if isinstance(item, Text) or dataclasses.is_dataclass(item):
                yield from walk(item, f"{where}.{field.name}")
            elif isinstance(item, str):
                yield f"{where}.{field.name}", f"{'*type' if isinstance(obj, ValueType) else owner}:{field.name}", item


def _items(value: object) -> Iterator[object]:
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _items(item)
    elif value is not None:
        yield value


def everything() -> Iterator[tuple[str, str, object]]:
    for entry in CATALOG:
        yield from walk(entry, entry.name)
    for group in CATALOG.groups:
        yield from walk(group, group.key)
    for conflict in CATALOG.conflicts:
        yield from walk(conflict, "+".join(conflict.names))
    for framework in FRAMEWORKS:
        yield from walk(framework, framework.key)


def test_every_text_the_catalog_holds_has_a_chinese_form():
    texts = [(where, value) for where, field, value in everything() if isinstance(value, Text)]
    assert len(texts) > 3 * len(CATALOG)  # descriptions, categories, caveats...: the walk reaches them
    missing = [(where, value.en) for where, value in texts if not has_chinese_form(value)]
    assert missing == []
    half = [(where, value.zh, english_runs(value.zh)) for where, value in texts if english_runs(value.zh)]
    assert half == []


def declared_texts() -> Iterator[tuple[str, Text]]:
    """Every Text a catalog module declares at its top level, alone or in a tuple, list or dict: the words of the
    value types' messages and of the code-loading families, which no entry holds."""
    for module_info in pkgutil.iter_modules(mgenv_jupyter.catalog.__path__):
        module = importlib.import_module(f"mgenv_jupyter.catalog.{module_info.name}")
        for name, value in vars(module).items():
            if isinstance(value, dict):
                value = list(value.values())
            for item in value if isinstance(value, (tuple, list)) else [value]:
                for text in item if isinstance(item, tuple) else [item]:
                    if isinstance(text, Text):
                        yield f"{module_info.name}.{name}", text


def test_every_text_a_catalog_module_declares_has_a_chinese_form():
    texts = list(declared_texts())
    assert len(texts) > 100 and any(where.endswith("NOT_ALLOWED") for where, _ in texts)
    assert [(where, text.en) for where, text in texts if not has_chinese_form(text)] == []
    assert [(where, text.zh, english_runs(text.zh)) for where, text in texts if english_runs(text.zh)] == []


def test_every_string_field_is_a_name_a_value_or_code():
    wrong = []
    for where, field, value in everything():
        if isinstance(value, Text):
            continue
        owner, name = field.split(":")
        if name in SAME_IN_EVERY_LANGUAGE.get(owner, ()) or (owner, name) in NOT_SHOWN:
            continue
        if name in CODE_OR_TEXT and not prose_words(value):
            continue
        wrong.append((where, value, prose_words(value)))
    assert wrong == []


def test_the_prose_check_finds_words_beside_code_and_leaves_code_alone():
    assert prose_words("imperative/python/megengine/device.py : module level set_default_device(...)") == [
        "module", "level"]
    assert prose_words("CUDA driver : cuInit") == ["driver"]
    assert prose_words("src/storage/pooled_storage_manager.h : GPUPooledStorageManager() ← StorageImpl::Alloc") == []
    assert prose_words("python/paddle/base/__init__.py : __bootstrap__ (init_gflags --tryfromenv)") == []
    assert prose_words("jax/_src/config.py : x (os.getenv at `import jax`, jax 0.10.2)") == ["at"]


@pytest.fixture
def language():
    """Set the session's language for a test; the choice goes back to MGENV_LANG, the front end or the locale."""
    yield set_language
    set_language(None)


# Values a user might type that some type refuses: text where a number goes, NUL, a broken list, a bad key.
REFUSED = ("\x00", "zz zz", "-5", "1e999", "b:12x", "[", "nokey:1", "expandable_segments", "expandable_segments:maybe",
           "max_split_size_mb:5", "roundup_power2_divisions:[3:1]", "gpu9:x", "0,0", "--", ",,")
# Values that make a note: a word for a switch, 0 for a presence flag or a reserve, a size with a unit, a home path.
NOTED = ("0", "off", "", "TRUE", "1GB", "all", "~/mgenv-no-such-dir", " 0 , 1 ", "warn", "2", "4",
         "expandable_segments:true")


def messages(entry: Entry) -> tuple[list[str], list[str], str]:
    """(reasons for refusing REFUSED values, notes on NOTED values, what the type allows), in the language set."""
    refusals, notes = [], []
    for raw in REFUSED:
        try:
            entry.type.parse(raw)
        except InvalidValueError as exc:
            refusals.append(str(exc))
    for raw in NOTED:
        try:
            notes.extend(map(str, entry.type.parse(raw).notes))  # said now, in the language set
        except InvalidValueError as exc:
            refusals.append(str(exc))
    return refusals, notes, entry.type.allowed()


@pytest.mark.parametrize("entry", list(CATALOG), ids=lambda entry: entry.name)
def test_what_a_value_type_says_is_chinese_on_a_chinese_screen_and_english_on_an_english_one(entry, language):
    language("zh")
    refusals, notes, allowed = messages(entry)
    described = entry.type.describe()
    keys = [key["type"]["allowed"] for key in described.get("keys", [])]
    language("en")
    english = messages(entry)
    if entry.type.kind != "presence":  # any value turns a presence flag on: nothing to refuse
        assert refusals, entry.name
    for text in [*refusals, *notes, allowed, described["allowed"], *keys]:
        assert HAN.search(text) and not english_runs(text), (entry.name, text, english_runs(text))
    for text in [*english[0], *english[1], english[2]]:
        assert not HAN.search(text), (entry.name, text)
    assert len(english[0]) == len(refusals) and len(english[1]) == len(notes)


def test_the_traps_are_said_in_chinese(language):
    language("zh")
    reserve = CATALOG.get("MGB_CUDA_RESERVE_MEMORY")
    assert reserve is not None
    (trap,) = map(str, reserve.type.parse("0").notes)
    assert "'0'" in trap and "%envunset" in trap and HAN.search(trap)
    presence = next(entry for entry in CATALOG if entry.type.kind == "presence")
    (note,) = map(str, presence.type.parse("0").notes)
    assert "%envunset" in note and HAN.search(note)
    language("en")
    assert tuple(map(str, reserve.type.parse("0").notes)) == (
        "'0' does NOT turn this off: any value other than b:<bytes> reserves all free memory; use %envunset to turn it "
        "off",)


def test_a_refused_selection_is_said_in_chinese(language):
    language("zh")
    with pytest.raises(InvalidValueError) as framework:
        CATALOG.select(framework="caffe")
    with pytest.raises(InvalidValueError) as name:
        CATALOG.select(names=["MGE_DEFAULT_DEVIC"])
    assert "'caffe'" in str(framework.value) and "megengine" in str(framework.value)
    assert "MGE_DEFAULT_DEVICE" in str(name.value)
    for message in (str(framework.value), str(name.value)):
        assert HAN.search(message) and not english_runs(message), message
    language("en")
    with pytest.raises(InvalidValueError, match="is not a catalog variable; did you mean MGE_DEFAULT_DEVICE"):
        CATALOG.select(names=["MGE_DEFAULT_DEVIC"])
