"""No output shows a secret (issue 19): for a set of secret shapes, every output a user or a front end gets — the
magics' text and HTML, their notes and errors, %envdiff, %envlist and %envget, every export format and launcher, the
sidebar's JSON replies and notices, a cluster verify() report's text, HTML and notice — is printed and searched."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from IPython.core.error import UsageError

from mgenv_jupyter.catalog._secrets import is_secret
from mgenv_jupyter.comms._requests import RequestHandler
from mgenv_jupyter.protocol import PROTOCOL_VERSION
from mgenv_jupyter.runtime import _launchers as launchers

GITHUB = "ghp_" + "A1b2C3d4E5" * 4  # 44 characters: 4 + 40
# Secret shapes: (a name that says nothing, or one that does) → (value, the part that must never be shown)
SHAPES = {
    "github token": ("INNOCENT_A", GITHUB, GITHUB[4:]),
    "url password with a slash": ("INNOCENT_B", "postgres://app:pa55/w0rd-xyz@db.example:5432/app", "pa55/w0rd-xyz"),
    "url password over 256 characters": ("INNOCENT_C", "https://u:" + "p" * 300 + "@host/x", "p" * 300),
    "azure connection string": ("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=https;AccountName=acct;"
                                "AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net",
                                "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="),
    "azure key without a telling name": ("INNOCENT_D", "AccountKey=c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0;x=1",
                                         "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"),
    "slack webhook": ("INNOCENT_E", "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx",
                      "abcdefghijklmnopqrstuvwx"),
    "mysql password": ("MYSQL_PWD", "plain-words-here-1", "plain-words-here-1"),
    "database password": ("DB_PWD", "another-plain-one-2", "another-plain-one-2"),
    "jwt": ("INNOCENT_F", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0TH",
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0TH"),
}


def request(kind: str, **fields) -> dict:
    return {"v": PROTOCOL_VERSION, "id": uuid.uuid4().hex, "type": kind, **fields}


def _outputs_of(value: object) -> list[str]:
    """Everything a display of `value` prints: str, repr, HTML, and JSON where it is a message."""
    texts = [str(value), repr(value)]
    html = getattr(value, "_repr_html_", None)
    if callable(html):
        texts.append(html() or "")
    if isinstance(value, (dict, list)):
        texts.append(json.dumps(value, ensure_ascii=False))
    to_string = getattr(value, "to_string", None)
    if callable(to_string):
        texts.append(to_string())
    return texts


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_no_output_shows_a_secret(ip, fresh_session, shape, tmp_path):
    name, value, hidden = SHAPES[shape]
    assert is_secret(name, value), shape
    outputs: list[str] = []
    report = ip.run_line_magic("envset", f"--force {name}='{value}'")
    outputs += _outputs_of(report) + [said for change in report for note in change.notes  # in either language
                                      for said in (note.get("en"), note.get("zh"))]
    outputs += _outputs_of(ip.run_line_magic("envget", name))
    outputs += _outputs_of(ip.run_line_magic("envdiff", ""))
    outputs += _outputs_of(ip.run_line_magic("envlist", ""))
    for fmt in ("dotenv", "shell", "json"):
        outputs.append(ip.run_line_magic("envexport", f"--format {fmt}"))
    for fmt in launchers.FORMATS:
        exported = launchers.export(fresh_session, fmt, everything=True)
        outputs += [exported.text, *exported.notes()]
    handler = RequestHandler(fresh_session)
    for message in (request("hello", language="en"), request("get", names=[name]),
                    request("set", assignments={name: value}, source="sidebar", force=True)):
        outputs += [json.dumps(reply, ensure_ascii=False) for reply in handler.handle(message)]
    if is_secret("MGE_DEFAULT_DEVICE", value):  # a secret by its shape: errors quoting it under any name mask it
        [reply] = handler.handle(request("set", assignments={"MGE_DEFAULT_DEVICE": value}, source="sidebar"))
        outputs.append(json.dumps(reply, ensure_ascii=False))
        with pytest.raises(UsageError) as refused:
            ip.run_line_magic("envset", f"MGE_DEFAULT_DEVICE='{value}'")
        outputs.append(str(refused.value))
    for output in outputs:
        assert hidden not in output, (shape, output[:300])


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_path_holding_a_token_is_masked_in_its_notes_too(ip, shape):
    """`%envset MGB_JIT_WORKDIR=/tmp/<token>/jit` masked the value, but the note beside it ("does not exist yet")
    printed the path with the token; CUDA_BIN_PATH=~/<token> likewise in its "expanded to" note."""
    _, value, hidden = SHAPES[shape]
    if "/" in hidden or " " in value or "'" in value or ";" in value or not is_secret("A_PATH", value):
        pytest.skip("a secret by its name only, or a shape that cannot be one path component")
    for assignment in (f"MGB_JIT_WORKDIR=/tmp/{value}/jit", f"CUDA_BIN_PATH=~/{value}"):
        report = ip.run_line_magic("envset", assignment)
        outputs = _outputs_of(report) + [said for change in report for note in change.notes  # in either language
                                         for said in (note.get("en"), note.get("zh"))]
        for output in outputs:
            assert hidden not in output, (assignment, output[:300])
    os.environ.pop("MGB_JIT_WORKDIR", None)
    os.environ.pop("CUDA_BIN_PATH", None)


def test_a_nodes_error_in_a_verify_report_is_redacted_everywhere():
    """cluster.verify(): a node whose task failed is reported with its error's first line, in the text, the repr,
    the HTML and the sidebar's notice; a credential in that line is masked in all of them."""
    from mgenv_jupyter.cluster._verify import why_unanswered
    from mgenv_jupyter.cluster._verify_report import ClusterReport
    from mgenv_jupyter.presentation._wire import verify_notice

    for _, value, hidden in SHAPES.values():
        if not is_secret("A_VALUE", value):
            continue  # a secret by its name only: an error's text carries no name
        error = RuntimeError(f"worker could not connect to {value}: refused\nTraceback ...")
        report = ClusterReport([], [], {"node-1 (10.0.0.1)": why_unanswered(error)})
        outputs = _outputs_of(report) + [json.dumps(verify_notice(report, 0.0), ensure_ascii=False)]
        for output in outputs:
            assert hidden not in output and "node-1" in output, output[:300]
