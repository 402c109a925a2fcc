"""Cells run one after the other in a real IPython shell, as a notebook runs them (`%load_ext` included, if the cells
load it): what each showed, its streams, its displays' and its result's text and its traceback, as one text, without
IPython's colours.

    python cells_in_a_shell.py CELLS.json     (a JSON list of the cells' sources)
"""

import json
import re
import sys

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from _shell import emit

_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
_OUT = re.compile(r"^Out\[[0-9]+\]: ", re.MULTILINE)

with open(sys.argv[1], encoding="utf-8") as file:
    cells = json.load(file)
ip = InteractiveShell.instance()
ip.colors = "nocolor"
shown = []
for source in cells:
    with capture_output() as captured:
        result = ip.run_cell(source, store_history=True)
    text = captured.stdout + captured.stderr + "".join(
        str(output.data.get("text/plain", "")) + "\n" for output in captured.outputs)
    # The cell's value as a notebook shows it: without the terminal's "Out[3]: " before it.
    text = _OUT.sub("", _COLOURS.sub("", text))
    shown.append({"text": text, "error": type(result.error_in_exec).__name__
                  if result.error_in_exec is not None else None})
emit({"cells": shown})
