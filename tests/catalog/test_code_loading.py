"""Which variables make programs load or run code (catalog/code_loading.py): the ones a hostile notebook profile
would set are all recognised, and no catalog variable is one of them."""

from __future__ import annotations

import pytest

from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.catalog.code_loading import is_code_loading

# Each of these ran code or hijacked a tool when a downloaded notebook's profile set it.
ATTACKS = {
    "LD_PRELOAD": "/tmp/evil.so",
    "PYTHONPATH": "/tmp/evil",
    "BASH_ENV": "/tmp/evil.sh",
    "SHELL": "/tmp/evil-shell",
    "GIT_EXTERNAL_DIFF": "/tmp/evil-diff",
    "PIP_INDEX_URL": "https://evil.example/simple",
}


@pytest.mark.parametrize("name", sorted(ATTACKS) + ["DYLD_INSERT_LIBRARIES", "PATH", "NODE_OPTIONS", "PERL5LIB",
                                                    "HTTPS_PROXY", "https_proxy", "ENV", "PYTHONSTARTUP",
                                                    "LD_LIBRARY_PATH", "BASH_FUNC_ls%%", "JAVA_TOOL_OPTIONS"])
def test_code_loading_variables_are_recognised(name):
    assert is_code_loading(name)


def test_no_catalog_variable_loads_code():
    assert [entry.name for entry in catalog() if is_code_loading(entry.name)] == []
