"""The front end's words reach translators the JupyterLab way: jupyterlab-translate's extractor — the gettext-extract
that JupyterLab's language packs run, with jupyterlab-translate's own parser configuration (`trans.__`, `trans._p`,
`this._trans.__`, ...) — finds every msgid of labextension/src at its call site, and the Chinese catalog has exactly
those msgids: each translated, none stale, with the same %1, %2 placeholders. The catalog is labextension/src/locale/
zh_CN.json (context → msgid → translation); the build ships it as the Jed catalog jupyterlab_server serves."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyterlab_translate.utils import extract_tsx_strings

pytestmark = pytest.mark.slow  # the extractor parses every TypeScript file with Node.js (seconds)

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "labextension" / "src"
CATALOG = ROOT / "labextension" / "src" / "locale" / "zh_CN.json"
SHIPPED = ROOT / "mgenv_jupyter" / "locale" / "zh_CN" / "LC_MESSAGES" / "mgenv_jupyter.json"

Msgid = tuple[str, str]  # (context, msgid); "" when a text has no context

# A translation call in TypeScript, from its receiver on: gettext's functions as JupyterLab's TranslationBundle names
# them (the extractor counts a call at the line its receiver starts).
CALL = re.compile(r"(?:[\w$]+(?:\s*\.\s*[\w$]+)*)?\s*\.(?:__|_n|_p|_np|gettext|ngettext|pgettext|npgettext)\(")
# Its first argument a string literal (after the context, for _p and _np): what an extractor can read.
LITERAL_CALL = re.compile(r".*?\.(?:__|_n|gettext|ngettext)\(\s*['\"`]"
                          r"|.*?\.(?:_p|_np|pgettext|npgettext)\(\s*'[^']*'\s*,\s*['\"`]", re.S)
# Texts whose Chinese is the English: figures and a process id, nothing to translate.
SAME_IN_BOTH = {"pid %1 · %2 · %3"}
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> list[dict]:
    """What the real extractor finds in the front end's source. It runs the `gettext-extract` command that
    jupyterlab-translate installs beside this Python, with Node.js."""
    bin_dir = str(Path(sys.executable).parent)
    old_path = os.environ.get("PATH", "")
    os.environ["PATH"] = bin_dir + os.pathsep + old_path
    try:
        return extract_tsx_strings(SOURCE)
    finally:
        os.environ["PATH"] = old_path


def found(entries: list[dict]) -> set[Msgid]:
    return {(entry.get("msgctxt") or "", entry["msgid"]) for entry in entries}


def catalog() -> dict[str, dict[str, str]]:
    return json.loads(CATALOG.read_text(encoding="utf-8"))


def catalog_msgids() -> set[Msgid]:
    return {(context, msgid) for context, texts in catalog().items() for msgid in texts}


def call_sites() -> Iterator[tuple[str, int, str]]:
    """Every translation call in the source, comments left out: (file, line, the call's start)."""
    for path in sorted(SOURCE.rglob("*.ts")):
        text = COMMENT.sub(lambda m: "\n" * m.group().count("\n"), path.read_text(encoding="utf-8"))
        for call in CALL.finditer(text):
            line = text.count("\n", 0, call.start()) + 1
            yield str(path.relative_to(SOURCE)), line, text[call.start():call.end() + 60]


def test_the_extractor_finds_every_translation_call(extracted):
    """A msgid behind a key, a variable or a receiver the extractor does not know (`options.trans.__`) is invisible
    to translators: every call is a literal on a receiver jupyterlab-translate's parsers name."""
    seen = {(file, int(line)) for entry in extracted for file, line in entry["occurrences"]}
    sites = list(call_sites())
    assert len(sites) > 150  # the sidebar's and the chart's words, not an empty scan
    not_literal = [site for site in sites if not LITERAL_CALL.match(site[2])]
    assert not_literal == [], "a translation call whose msgid is not a string literal"
    unseen = [site for site in sites if (site[0], site[1]) not in seen]
    assert unseen == [], "translation calls the extractor does not see (name the bundle `trans` or `this._trans`)"


def test_the_chinese_catalog_has_exactly_the_extracted_msgids(extracted):
    msgids = found(extracted)
    assert ("", "Restart and apply") in msgids and ("memory chart", "now") in msgids
    assert sorted(msgids - catalog_msgids()) == [], "msgids in the source without a Chinese translation"
    assert sorted(catalog_msgids() - msgids) == [], "stale catalog entries: no call site uses them any more"


def test_each_translation_is_chinese_with_the_msgids_placeholders():
    placeholders = re.compile(r"%\d")
    for context, texts in catalog().items():
        for msgid, chinese in texts.items():
            assert chinese.strip(), (context, msgid)
            assert sorted(placeholders.findall(chinese)) == sorted(placeholders.findall(msgid)), (context, msgid)
            # Chinese, but for a line of figures that reads the same in both ("pid %1 · %2 · %3").
            assert re.search(r"[\u4e00-\u9fff]", chinese) or chinese == msgid in SAME_IN_BOTH, (msgid, chinese)


def test_the_shipped_catalog_is_the_chinese_catalog(extracted):
    """What jupyterlab_server serves (the build's output): the same msgids, gettext's context\\x04msgid keys."""
    assert SHIPPED.is_file(), f"{SHIPPED} is missing: build the extension (cd labextension && npm run build)"
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    shipped.pop("")
    expected = {(f"{context}\x04{msgid}" if context else msgid): [chinese]
                for context, texts in catalog().items() for msgid, chinese in texts.items()}
    assert shipped == expected, "the shipped catalog is out of date: build the extension"
    assert {tuple(key.split("\x04")) if "\x04" in key else ("", key) for key in shipped} == found(extracted)
