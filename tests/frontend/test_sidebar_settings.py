"""The sidebar's JupyterLab settings (labextension/schema/sidebar.json) offer only what the kernel accepts — the
memory interval within the wire schema's MIN_INTERVAL..MAX_INTERVAL, the history within one "history" window — and
the built extension carries the schema, where JupyterLab's settings editor finds it. Its Chinese texts ship the same
way: a gettext catalog in the package, found by jupyterlab_server through the "jupyterlab.locale" entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from mgenv_jupyter.comms._requests import MAX_HISTORY_WINDOW
from mgenv_jupyter.protocol import MAX_INTERVAL, MIN_INTERVAL
from mgenv_jupyter.protocol._memory import DEFAULT_INTERVAL

ROOT = Path(__file__).resolve().parents[2]
LABEXTENSION = ROOT / "labextension"
SCHEMA = LABEXTENSION / "schema" / "sidebar.json"
PACKAGE = json.loads((LABEXTENSION / "package.json").read_text())
BUILT = ROOT / "mgenv_jupyter" / "labextension"
LOCALE = ROOT / "mgenv_jupyter" / "locale" / "zh_CN" / "LC_MESSAGES" / "mgenv_jupyter.json"


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(SCHEMA.read_text())


def test_memory_interval_bounds_are_the_wire_schemas(schema):
    interval = schema["properties"]["memoryInterval"]
    assert (interval["minimum"], interval["maximum"]) == (MIN_INTERVAL, MAX_INTERVAL)
    assert MIN_INTERVAL <= interval["default"] <= MAX_INTERVAL
    assert interval["default"] == DEFAULT_INTERVAL  # what the kernel and the panel use without a setting


def test_history_shown_is_at_most_one_history_window(schema):
    shown = schema["properties"]["historyShown"]
    assert shown["type"] == "integer"
    assert (shown["minimum"], shown["maximum"]) == (1, MAX_HISTORY_WINDOW)
    assert 1 <= shown["default"] <= MAX_HISTORY_WINDOW


def test_defaults_are_valid_and_values_outside_the_bounds_are_not(schema):
    defaults = {name: spec["default"] for name, spec in schema["properties"].items()}
    jsonschema.validate(defaults, schema)
    for wrong in ({"memoryInterval": MIN_INTERVAL / 2}, {"memoryInterval": MAX_INTERVAL * 2},
                  {"historyShown": MAX_HISTORY_WINDOW + 1}, {"historyShown": 0}, {"refreshEvery": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**defaults, **wrong}, schema)


def test_the_plugin_id_names_this_schema():
    """JupyterLab looks a plugin's schema up as <package name>:<file name> in the package's schemaDir."""
    assert PACKAGE["jupyterlab"]["schemaDir"] == "schema"
    plugin_id = re.search(r"PLUGIN_ID = '([^']+)'", (LABEXTENSION / "src" / "index.ts").read_text())
    assert plugin_id and plugin_id.group(1) == f"{PACKAGE['name']}:{SCHEMA.stem}" == "mgenv-jupyter:sidebar"


def test_the_built_extension_carries_the_schema(schema):
    built = BUILT / "schemas" / PACKAGE["name"] / SCHEMA.name
    assert built.is_file(), f"{built} is missing: build the extension (cd labextension && npm run build)"
    assert json.loads(built.read_text()) == schema


def test_chinese_texts_ship_as_a_gettext_catalog_jupyterlab_server_finds():
    from jupyterlab_server.translation_utils import get_installed_packages_locale

    assert LOCALE.is_file(), f"{LOCALE} is missing: build the extension (cd labextension && npm run build)"
    catalog = json.loads(LOCALE.read_text(encoding="utf-8"))
    assert catalog[""] == {"domain": "mgenv_jupyter", "language": "zh-CN", "plural_forms": "nplurals=1; plural=0;",
                           "version": PACKAGE["version"]}
    assert catalog["Framework Env"] == ["框架环境变量"]
    assert all(isinstance(v, list) and len(v) == 1 and v[0] for k, v in catalog.items() if k)
    found, message = get_installed_packages_locale("zh_CN")
    assert found.get("mgenv_jupyter") == catalog, message or "the jupyterlab.locale entry point is not installed"
