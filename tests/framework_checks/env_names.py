"""Every environment variable a framework's installed source reads by name: its Python modules and the C/C++ source
and headers its wheel ships, searched for a reading call with a literal name — `os.environ["NAME"]`,
`os.environ.get("NAME")`, `os.getenv("NAME")`, `"NAME" in os.environ`, a helper whose name says env
(`get_tristate_env("NAME")`, C++ `getenv("NAME")`, `c10::utils::get_env("NAME")`, `ReadBoolFromEnvVar("NAME", …)`) or a
config's `env_name_default="NAME"`. Prints each name with the first file and line that reads it, and the version.

Run in the framework's own venv with its top-level packages as arguments (`env_names.py torch`,
`env_names.py jax jaxlib`). Its own tests (test/ and tests/ folders, test_*.py, *_test.py) are left out.
tests/write_names_read.py writes the result into mgenv_jupyter/catalog/_names_read.py."""

import importlib.metadata
import importlib.util
import os
import re
import sys

from _shell import emit

# The framework's own test suites read names only its developers set: not what the framework reads in use.
TESTS = {"test", "tests", "testing"}
SOURCE = (".py", ".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cu", ".cuh")
NAME = r"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"
READS = [re.compile(pattern) for pattern in (
    r"""environ(?:\.get|\.pop|\.setdefault)?\s*[\[(]\s*["']""" + NAME + """["']""",
    r"""[A-Za-z_]*[Ee]nv[A-Za-z_]*\s*\(\s*["']""" + NAME + """["']""",
    r"""["']""" + NAME + r"""["']\s+(?:not\s+)?in\s+(?:os\.)?environ\b""",
    r"""env_name\w*\s*=\s*["']""" + NAME + """["']""",
)]

names: dict[str, str] = {}
versions: dict[str, str] = {}
distributions = importlib.metadata.packages_distributions()  # "paddle" comes in "paddlepaddle"
for package in sys.argv[1:]:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None, f"{package} is not installed here"
    root = os.path.dirname(spec.origin)
    versions[package] = importlib.metadata.version(distributions[package][0])
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in TESTS)
        for file in sorted(files):
            if not file.endswith(SOURCE) or file.startswith("test_") or file.endswith("_test.py"):
                continue
            path = os.path.join(folder, file)
            with open(path, encoding="utf-8", errors="replace") as source:
                text = source.read()
            for pattern in READS:
                for found in pattern.finditer(text):
                    line = text.count("\n", 0, found.start()) + 1
                    names.setdefault(found.group(1), f"{os.path.relpath(path, os.path.dirname(root))}:{line}")

emit({"versions": versions, "names": dict(sorted(names.items()))})
