"""The front end's folders import one way (issue 36): the picture of labextension/src's layers in docs/architecture.md
(the ```text block after the Python package's) holds for every relative import of every TypeScript module, `import
type` and `export … from` included: a folder imports from itself and the layers below it, never from a layer above,
and never from another folder of its own layer. Every folder and top-level file of labextension/src is placed.

The imports are read with one pattern per form (`from '…'`, `import '…'`, `import('…')`), all linear in time, from
our own source files.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "labextension" / "src"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

_LAYER_LINE = re.compile(r"^(?P<layer>[^│`]+?)\s*│\s*(?P<places>.+)$")
_SPECIFIERS = (re.compile(r"\bfrom\s+'([^'\n]+)'"), re.compile(r"\bimport\s+'([^'\n]+)'"),
               re.compile(r"\bimport\(\s*'([^'\n]+)'\s*\)"))


def front_end_layers(text: str) -> list[tuple[str, list[str]]]:
    """The front end's layers, lowest first: [(layer, [places])], a place a folder ("oom/") or a file ("index.ts")."""
    blocks = text.split("```text")
    assert len(blocks) >= 3, "docs/architecture.md has no picture of the front end's folders (a second ```text block)"
    picture = blocks[2].split("```", 1)[0]
    found = []
    for line in picture.splitlines():
        match = _LAYER_LINE.match(line.strip())
        if match:
            found.append((match["layer"].strip(), [p.strip() for p in match["places"].split(",") if p.strip()]))
    return found[::-1]


def place_of(path: Path, sources: Path) -> str:
    """A module's place: its top folder under src ("sidebar/" for sidebar/gpus/view.ts), or its own file name."""
    parts = path.relative_to(sources).parts
    return f"{parts[0]}/" if len(parts) > 1 else parts[0]


def imports_of(path: Path, sources: Path) -> set[Path]:
    """The modules of `sources` that `path` imports (relative specifiers only; packages are not ours)."""
    text = path.read_text(encoding="utf-8")
    found = set()
    for pattern in _SPECIFIERS:
        for specifier in pattern.findall(text):
            if not specifier.startswith("."):
                continue
            target = (path.parent / specifier).resolve()
            if target.suffix != ".json":
                target = target.with_name(target.name + ".ts")
            if target.is_relative_to(sources.resolve()):
                found.add(target.relative_to(sources.resolve()))
    return found


def violations(sources: Path, layers: list[tuple[str, list[str]]]) -> list[str]:
    """Every import that goes up a layer or across to another folder of the same layer, and every place not placed."""
    layer = {place: number for number, (_, places) in enumerate(layers) for place in places}
    found = [f"labextension/src/{p} is in no layer of docs/architecture.md's front-end picture"
             for p in sorted({place_of(path, sources) for path in sources.rglob("*") if path.is_file()})
             if p not in layer]
    for path in sorted(sources.rglob("*.ts")):
        mine = place_of(path, sources)
        for target in sorted(imports_of(path, sources)):
            theirs = place_of(sources / target, sources)
            if theirs == mine or mine not in layer or theirs not in layer:
                continue
            if layer[theirs] >= layer[mine]:
                found.append(f"{path.relative_to(sources)} ({layers[layer[mine]][0]}) imports {target} "
                             f"({layers[layer[theirs]][0]})")
    return found


def test_the_front_ends_folders_import_one_way_as_the_architecture_document_draws_them():
    layers = front_end_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    found = violations(SOURCES, layers)
    assert not found, "imports against the front end's layers:\n" + "\n".join(found)


def test_the_picture_names_only_places_that_exist_each_once():
    layers = front_end_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    places = [place for _, names in layers for place in names]
    assert len(places) == len(set(places)), places
    for place in places:
        assert (SOURCES / place).exists(), f"docs/architecture.md names labextension/src/{place}, which is not there"
    assert layers[0][1] == ["schema.ts", "locale/"] and layers[-1][1] == ["index.ts"], layers


def test_an_import_up_or_across_is_found(tmp_path):
    """The check itself: a shared helper importing the sidebar, and one output importing another, are both caught."""
    for name, text in {
        "shared/dom.ts": "import type { EnvModel } from '../sidebar/model';\n",
        "oom/report.ts": "import {\n  Figure\n} from '../sweep/widget';\nimport '../shared/dom';\n",
        "sweep/widget.ts": "export const Figure = 1;\n",
        "sidebar/model.ts": "const x = import('../oom/report');\n",
    }.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    layers = [("shared", ["shared/"]), ("outputs", ["oom/", "sweep/"]), ("sidebar", ["sidebar/"])]
    assert violations(tmp_path, layers) == [
        "oom/report.ts (outputs) imports sweep/widget.ts (outputs)",
        "shared/dom.ts (shared) imports sidebar/model.ts (sidebar)",
    ]
