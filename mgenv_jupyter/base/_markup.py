"""Catalog and session texts as HTML. The texts mark code with backticks ("read at `import megengine`"), as the
magics' Markdown does; every HTML view (widgets, the magics' tables and reports) shows such a span as code rather than
the backticks themselves."""

from __future__ import annotations

# The magics' tables and %envset's report, laid out for a notebook column: left-aligned (JupyterLab right-aligns
# table cells, with a selector the second one here outranks), compact, in the theme's colours.
TABLE_STYLE = """<style>
.mgenv-table-wrap { max-width: 100%; overflow-x: auto; }
/* JupyterLab lays its rendered tables out with equal columns (table-layout: fixed): ours size each column to its
   content, within the output's width. */
.mgenv-table, .jp-RenderedHTMLCommon table.mgenv-table { border-collapse: collapse;
  font-size: var(--jp-ui-font-size1, 12px); table-layout: auto; width: 100%; }
table.mgenv-table th, table.mgenv-table td,
.jp-RenderedHTMLCommon table.mgenv-table th, .jp-RenderedHTMLCommon table.mgenv-table td {
  padding: 2px 8px; text-align: left; vertical-align: top;
  border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); line-height: 1.35; max-width: 28em;
  white-space: normal; overflow-wrap: break-word; }
.mgenv-table th { font-weight: 600; white-space: nowrap; }
/* Long texts wrap to the width the output has, at spaces (a description) or after an underscore (a name), and keep
   some width; a status or a value's source keeps enough for two words a line; a time stays whole. */
table.mgenv-table td.mgenv-long, .jp-RenderedHTMLCommon table.mgenv-table td.mgenv-long { min-width: 9em; }
table.mgenv-table td.mgenv-short, .jp-RenderedHTMLCommon table.mgenv-table td.mgenv-short { min-width: 5.5em; }
table.mgenv-table td.mgenv-time, .jp-RenderedHTMLCommon table.mgenv-table td.mgenv-time { white-space: nowrap; }
table.mgenv-table td.mgenv-value, .jp-RenderedHTMLCommon table.mgenv-table td.mgenv-value { overflow-wrap: anywhere; }
.mgenv-table td.mgenv-name { font-family: var(--jp-code-font-family, monospace); }
.mgenv-table .mgenv-missing { color: var(--jp-ui-font-color3, #999); font-style: italic; white-space: nowrap; }
.mgenv-report { font-size: var(--jp-ui-font-size1, 12px); line-height: 1.4; }
.mgenv-change { padding: 3px 0; border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); overflow-wrap: anywhere; }
.mgenv-change-why { color: var(--jp-ui-font-color1, #333); padding-left: 1em; }
.mgenv-change-note { color: var(--jp-ui-font-color2, #666); font-size: var(--jp-ui-font-size0, 11px);
  padding-left: 1em; }
.mgenv-table-note { font-size: var(--jp-ui-font-size0, 11px); color: var(--jp-ui-font-color2, #666); margin: 2px 0; }
</style>"""


def text_html(text: str) -> str:
    """`text` escaped for HTML, each backtick-marked span as <code>; a text with an unpaired backtick stays as is."""
    import html  # on first use: the module holds every named entity, about 5 ms of every %load_ext otherwise

    parts = text.split("`")
    if len(parts) % 2 == 0:
        return html.escape(text)
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part) for i, part in enumerate(parts))
