"""The output host's type (protocol/_output.py) is on the wire as the kernel writes it: the generated schema carries
the type and its data, and every chart and widget output of ours carries exactly that data."""

from __future__ import annotations

from pathlib import Path

from mgenv_jupyter.protocol._output import OUTPUT_MIME, OUTPUT_VERSION

SCHEMA = Path(__file__).parents[2] / "labextension" / "src" / "schema.ts"


def test_the_schema_carries_the_type_its_version_and_its_data():
    schema = SCHEMA.read_text()
    assert f"export const OUTPUT_MIME = '{OUTPUT_MIME}';" in schema
    assert f"export const OUTPUT_VERSION = {OUTPUT_VERSION};" in schema
    assert "export type OutputHostData = {\n  v: number;\n};" in schema
    assert OUTPUT_MIME.startswith("application/vnd.mgenv-jupyter.") and OUTPUT_MIME.endswith("+json")
