"""What a notebook saves of our outputs: every chart and widget output carries a static view (text, HTML and, for the
memory chart, its picture) beside the live widget's view, so that a notebook reopened without a kernel, GitHub and
nbviewer show something instead of "Error displaying widget: model not found".

The bundle also carries OUTPUT_MIME, for the labextension's output host: JupyterLab and Notebook 7 prefer it to the
widget view (it is ranked before it), and the host shows the live widget when its model is there and the static view
otherwise. Other front ends do not know the type and take the widget view (live) or, where there is no widget state
(nbconvert, nbviewer, GitHub), the HTML or the picture.
"""

from __future__ import annotations

from typing import TypedDict

OUTPUT_MIME = "application/vnd.mgenv-jupyter.output+json"
OUTPUT_VERSION = 1


class OutputHostData(TypedDict):
    """OUTPUT_MIME's data: its version. The views themselves are the bundle's other types."""

    v: int
