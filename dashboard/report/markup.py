"""HTML building blocks of the report: escaping, tables, numbers and plotly figures as inline scripts.

Every piece of user text goes through :func:`e` (``html.escape``, quotes included) before it reaches the
page; data embedded in a ``<script>`` goes through :func:`script_json`, which escapes ``<``, ``>`` and ``&``
so that no text, not even ``</script>``, can end the script early.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from dashboard.figures import text_alternative

__all__ = ["CSP", "PLOTLY_CONFIG", "STYLE", "e", "figure_html", "num", "pvalue", "script_json", "table"]

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:; connect-src 'none'; media-src 'none'; object-src 'none'; "
       "frame-src 'none'; worker-src blob:; base-uri 'none'; form-action 'none'")
"""The page's Content-Security-Policy: inline scripts and styles only, nothing fetched from anywhere."""
PLOTLY_CONFIG = {"typesetMath": False, "displaylogo": False, "responsive": True, "showSendToCloud": False,
                 "toImageButtonOptions": {"format": "svg"}}
"""The plotly.js config of every chart: no MathJax, no plotly logo, SVG from the camera button."""
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def e(text: Any) -> str:
    """User text made inert in HTML (text and attribute values alike)."""
    return html.escape(str(text), quote=True)


def script_json(value: Any) -> str:
    r"""JSON that is safe inside an HTML ``<script>`` element.

    Examples
    --------
    >>> print(script_json({"name": "</script><b>"}))
    {"name":"\u003c/script\u003e\u003cb\u003e"}
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] | None = None,
          attrs: str = "") -> str:
    """An HTML table; ``head`` is escaped here, ``rows`` hold cells already rendered as HTML.

    A cell that starts with ``<td`` is used as it is; any other is wrapped in ``<td>``.
    """
    numeric = list(numeric or [False] * len(head))
    th = "".join(f'<th{" class=num" if n else ""} scope="col">{e(h)}</th>' for h, n in zip(head, numeric))
    body = "".join("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<div class=\"scroll\" tabindex=\"0\"><table{attrs}><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>"


def num(value: Any, digits: int = 4) -> str:
    """A number as shown in the report (``–`` when undefined; integers without decimals when digits is 0)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return e(value)
    if not np.isfinite(value):
        return "–"
    if value.is_integer() and digits == 0:
        return f"{int(value)}"
    return f"{value:.{digits}f}"


def pvalue(value: Any) -> str:
    """A p-value as shown: four decimals, or scientific notation below 0.0001."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return e(value)
    if not np.isfinite(value):
        return "–"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def figure_html(fig, div_id: str, css: str = "figure", style: str = "") -> str:
    """A plotly figure as a ``<div>`` and the inline script that draws it (plotly.js must be on the page).

    The figure's JSON is escaped with :func:`script_json`; the figure is drawn once the page is laid out (a
    grid's cell has its width only then), at its container's size, with its text alternative
    (:func:`dashboard.figures.text_alternative`) as the drawing's label.
    """

    spec = json.loads(fig.to_json())
    layout = {**spec.get("layout", {}), "autosize": True}
    layout.pop("height", None)
    layout.pop("width", None)
    attrs = f' style="{e(style)}"' if style else ""
    return (f'<div class="{e(css)}"{attrs}><div id="{e(div_id)}" class="plotly-graph-div" role="figure" '
            f'aria-label="{e(text_alternative(fig))}" style="height:100%; width:100%;"></div>'
            '<script type="text/javascript">document.addEventListener("DOMContentLoaded", function () { '
            f'Plotly.newPlot({script_json(div_id)}, {script_json(spec.get("data", []))}, '
            f"{script_json(layout)}, {script_json(PLOTLY_CONFIG)}); }});</script></div>")


STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 0;
       color: #1b1b1b; background: #fff; line-height: 1.45; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 80px; }
h1 { font-size: 1.9rem; margin: 0 0 4px; } h2 { margin-top: 2.4em; border-bottom: 1px solid #ddd;
padding-bottom: 4px; } h3 { margin-top: 1.6em; }
.sub { color: #555; margin: 0 0 18px; }
nav ol { columns: 2; padding-left: 1.4em; }
table { border-collapse: collapse; margin: 10px 0 16px; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f5f7fa; font-weight: 600; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ci { color: #666; font-size: 0.8rem; }
.mk-better { color: #007a3d; } .mk-worse { color: #b33000; } .mk { display: inline-block; width: 1em; }
.mk-better, .mk-worse { display: inline-block; width: 1em; text-align: center; }
sup.mk-letters { color: #007a3d; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 0 24px; }
.best { font-weight: 700; }
.hash { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.78rem;
        word-break: break-all; }
pre { background: #f5f7fa; padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; word-break: break-all;
      font-size: 0.82rem; border-radius: 4px; }
.warning { color: #8a4b00; font-weight: 600; } .info { color: #335; }
.figure { width: 100%; height: 520px; margin: 8px 0 24px; } .figure.small { height: 420px; }
.note { color: #444; font-size: 0.9rem; max-width: 62em; }
.tag { display: inline-block; background: #e8eef7; border-radius: 3px; padding: 0 6px; margin: 0 4px 2px 0;
       font-size: 0.8rem; }
.scroll { overflow-x: auto; }
@media print { .figure { break-inside: avoid; } nav { display: none; } }
"""
