"""The Planner's answer above its table: the options' chart (cost per million tokens against the speed each user
gets, the options no other option beats on both marked) and the facts the headline sentence reads.

The page's script (site/javascripts/planner-answer.js) draws the same chart, with the same geometry, for any
other question or filter; keep the two in step (CHART below and its GEOMETRY there)."""

from __future__ import annotations

import math
import re

from ..i18n import _

# the chart's box (SVG user units) and margins: left for the y labels, bottom for the x labels
CHART = {"width": 640, "height": 260, "left": 52, "right": 14, "top": 14, "bottom": 40}
X_FIELD = "usd_per_million_tokens"  # blended: the figure options are ranked by, so #1 is the leftmost point
Y_FIELD = "expected_tokens_per_s_per_user"


def frontier(points: list[tuple[float, float]]) -> list[bool]:
    """For each (cost, speed) point: True when no other point is at most as costly and at least as fast, and
    better on one of the two (the cost/speed frontier)."""
    return [not any((c2 <= c and s2 >= s) and (c2 < c or s2 > s) for c2, s2 in points) for c, s in points]


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 up to at most `top`: steps of 1, 2 or 5 times a power of ten, about `count` of them."""
    if not top or top <= 0 or not math.isfinite(top):
        return [0.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [i * step for i in range(int(top / step + 1e-9) + 1)]


def chart(options) -> dict | None:
    """The chart of every option (rows of plan_options, cheapest first) as the template draws it: each point's
    rank, position and whether it is on the frontier; the axes' ticks; the frontier as a polyline. None when
    there is nothing to draw."""
    rows = [
        (int(o.rank), float(getattr(o, X_FIELD)), float(getattr(o, Y_FIELD)), o)
        for o in options
        if math.isfinite(getattr(o, X_FIELD) or math.nan) and math.isfinite(getattr(o, Y_FIELD) or math.nan)
    ]
    if not rows:
        return None
    c = CHART
    x_top = max(r[1] for r in rows) * 1.05
    y_top = max(r[2] for r in rows) * 1.1
    inner_w = c["width"] - c["left"] - c["right"]
    inner_h = c["height"] - c["top"] - c["bottom"]

    def x(v: float) -> float:
        return round(c["left"] + inner_w * v / x_top, 1)

    def y(v: float) -> float:
        return round(c["top"] + inner_h * (1 - v / y_top), 1)

    best = frontier([(r[1], r[2]) for r in rows])
    points = [
        {"rank": rank, "cx": x(cost), "cy": y(speed), "frontier": on, "option": o}
        for (rank, cost, speed, o), on in zip(rows, best)
    ]
    line = sorted((p for p in points if p["frontier"]), key=lambda p: (p["cx"], -p["cy"]))
    return {
        **c,
        "x0": c["left"],
        "x1": c["width"] - c["right"],
        "y0": c["height"] - c["bottom"],
        "y1": c["top"],
        # the frontier points first drawn under the others would hide them: frontier last
        "points": sorted(points, key=lambda p: p["frontier"]),
        "frontier_line": " ".join(f"{p['cx']},{p['cy']}" for p in line),
        "frontier_count": sum(best),
        "x_ticks": [(x(v), v) for v in nice_ticks(x_top)],
        "y_ticks": [(y(v), v) for v in nice_ticks(y_top)],
    }


def price_words(kind: str | None) -> str:
    """What a price is (rentable_machines.price_kind) in the page's language: 'list price', 'marketplace median
    over 12 listings' (a value not known prints as it is)."""
    if kind == "list price":
        return _("list price")
    found = re.fullmatch(r"marketplace median over (\d+) listings", kind or "")
    if found:
        return _("marketplace median over %(n)s listings") % {"n": found.group(1)}
    return kind or ""


def price_date(o) -> str:
    """When an option's price was seen, for the headline: its date, 'no later than' a date for a copy read at a
    dated commit, or the day an undated copy was read."""
    day = str(o.observed_on)[:10]
    if str(o.observed_date_known) != "False":
        return day
    later = getattr(o, "observed_no_later_than", None)
    if isinstance(later, str) or (later is not None and hasattr(later, "isoformat") and later == later):
        return _("no later than %(date)s") % {"date": str(later)[:10]}
    return _("undated copy, read %(date)s") % {"date": day}
