"""Small Markdown builders. Every value that came from a source is escaped before it is written.

One escaping path per output context, all here: `html_text` for HTML text and attribute values (page
titles included, see `site.page_title`), `esc` for Markdown cells and paragraphs (Markdown syntax, then
`html_text`), `script_json` for data embedded in a `<script>` element. Nothing else writes source text.
"""

from __future__ import annotations

import html
import json
import math
from typing import Iterable, Sequence

import pandas as pd

from .i18n import _, ngettext


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def html_text(value) -> str:
    """Untrusted text as HTML text or a quoted attribute value: & < > " ' become entities."""
    return "" if _missing(value) else html.escape(str(value), quote=True)


def script_json(value) -> str:
    """JSON to embed in a <script> element: <, > and & as \\u escapes, so no text can close the element
    or open a comment inside it; JSON parsers read the same values."""
    text = json.dumps(_finite(value), separators=(",", ":"), default=str, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def esc(value) -> str:
    """Escape untrusted text for a Markdown table cell or paragraph (HTML and Markdown syntax)."""
    if _missing(value):
        return ""
    text = str(value)
    for ch in ("\\", "*", "_", "`", "[", "]", "#"):
        text = text.replace(ch, "\\" + ch)
    # HTML last (its entities contain '#'), then the table-cell separator as an entity
    return html_text(text).replace("|", "&#124;").replace("\n", " ")


def num(value, digits: int = 3) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, (int,)) or (isinstance(value, float) and value.is_integer() and abs(value) >= 100):
        return f"{value:,.0f}"
    return f"{value:,.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"


def fixed(value, digits: int = 0) -> str:
    """A number with a fixed count of decimals and thousands separators ("–" when missing)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def money(value, digits: int = 2) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"${value:,.{digits}f}"


def age(observed_on) -> str:
    """An observation date with its age, counted in the reader's browser (ages.js: "2026-09-20 · 63 days
    ago"), so a page stays correct on every later day without a rebuild; without JavaScript, the date."""
    day = html_text(str(observed_on)[:10])
    return f'<time class="atlas-age" datetime="{day}">{day}</time>'


def seen(observed_on, date_known=True) -> str:
    """When a price was observed: its date and age, or, for a copy that prints no date, the day it was read
    (its age is unknown, so none is shown)."""
    if str(date_known) == "False":  # a Python or NumPy boolean; a missing value is not False
        return _("undated copy, read %(date)s") % {"date": html_text(str(observed_on)[:10])}
    return age(observed_on)


def percent(value, digits: int = 0) -> str:
    """A share as a percentage: 0.412 -> '41%' (digits after the point); '–' when missing."""
    return "–" if _missing(value) else f"{value:.{digits}%}"


def signed_percent(value) -> str:
    """An error as a signed percentage ('+12%', '-8%'), a very large one as a factor ('+15×'); '–' when missing."""
    if _missing(value):
        return "–"
    return f"{value:+.0%}" if abs(value) < 10 else f"{value:+,.0f}×"


def known(value) -> bool:
    """A value to show: neither missing (None, NaN, NA) nor empty text."""
    return not _missing(value) and value != ""


def plural(n: int, one: str, many: str) -> str:
    """'1 GPU', '2 GPUs', '1,024 users'. The words are looked up in the catalogues by the singular (a caller marks
    them where it writes them: `plural(n, N_("user"), N_("users"))`); a word without a translation stays English."""
    return f"{n:,} {ngettext(one, many, n)}"


def link(text, href: str) -> str:
    return f"[{esc(text)}]({href})"


def shorten(text: str, limit: int) -> str:
    """The text cut at a word boundary before `limit` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:(-–")
    return cut + "…"


def url_link(text, url, limit: int | None = None) -> str:
    """A link to an external source URL; non-http(s) URLs are shown as text, not linked.
    With `limit`, a long text is shortened and shown whole as the link's tooltip."""
    full = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
    shown = shorten(full, limit) if limit else full
    # attribute values are HTML-escaped, and a '|' would end the Markdown table cell
    tip = f' title="{html_text(full).replace("|", "&#124;")}"' if shown != full else ""
    if isinstance(url, str) and (url.startswith("https://") or url.startswith("http://")):
        return f'<a href="{html_text(url).replace("|", "%7C")}" rel="nofollow noopener"{tip}>{esc(shown)}</a>'
    return f"<span{tip}>{esc(shown)}</span>" if tip else esc(shown)


def table(
    headers: Sequence[str], rows: Iterable[Sequence[str]], sortable: bool = False, low: Sequence[int] = ()
) -> str:
    """A Markdown table; cells must already be escaped or formatted. A sortable table can be sorted by a click on
    a header and filtered when long; columns listed in `low` (0-based) are hidden on a phone."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    body = "\n".join(lines)
    if sortable or low:
        cls = "atlas-sortable" if sortable else "atlas-plain"
        attr = f' data-low="{",".join(str(i) for i in low)}"' if low else ""
        return f'<div class="{cls}"{attr} markdown="1">\n\n{body}\n\n</div>'
    return body


def _finite(value):
    """JSON has no NaN: missing numbers become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def chart_data(spec: dict, url: str) -> tuple[dict, str]:
    """The spec with its inline data moved to a JSON file at `url` (relative to the page), and that file's text:
    a chart with thousands of points keeps the page small, and its data loads after the page."""
    data = json.dumps(_finite(spec["data"]["values"]), separators=(",", ":"), default=str, allow_nan=False)
    return {**spec, "data": {"url": url, "format": {"type": "json"}}}, data


def chart(name: str, spec: dict, caption: str = "") -> str:
    """Embed a Vega-Lite spec inline; charts.js renders it with the vendored vega-embed."""
    data = script_json(spec)
    cap = f'\n<p class="atlas-caption">{esc(caption)}</p>' if caption else ""
    return (
        f'<div class="atlas-chart" data-chart="{html_text(name)}"></div>\n'
        f'<script type="application/json" class="atlas-spec" data-chart="{html_text(name)}">{data}</script>{cap}\n'
    )
