"""The Own-or-rent page from its context: figures formatted, dates as HTML, nothing escaped twice."""

from __future__ import annotations

import duckdb

from pipeline.render import own_or_rent


def test_the_page_renders_dates_as_markup_and_years_as_numbers(monkeypatch):
    context = {
        "server": {
            "purchase_usd": 300000.0,
            "busy_kw": 10.0,
            "amortisation_usd_per_hour": 11.42,
            "power_usd_per_hour": 1.0,
            "hosting_usd_per_hour": 1.03,
            "total_usd_per_hour": 13.44,
            "usd_per_gpu_hour": 1.68,
            "breakeven_utilisation": 0.43,
            "payback_months_full_use": 15.2,
        },
        "years": 3.0,
        "rental": None,
        "owned": [],
        "batch": 16,
        "parameters": [],
        "gpus": [],
        "calculator_json": "{}",
        "llama": [
            {
                "what": "RTX 4090 rented <b>",
                "usd_per_hour": 0.34,
                "tokens_per_s": 784.0,
                "per_million": 0.12,
                "price": own_or_rent.Markup('<time datetime="2026-09-25">2026-09-25</time>'),
            }
        ],
    }
    monkeypatch.setattr(own_or_rent, "context", lambda con: context)
    monkeypatch.setattr(own_or_rent, "owned_runs", lambda con: {})
    page = own_or_rent.render(duckdb.connect())["own-or-rent.md"]
    assert "over 3 years" in page and "$13.44" in page and "43%" in page and "15 months" in page
    assert '<time datetime="2026-09-25">' in page and "&lt;time" not in page
    assert "RTX 4090 rented &lt;b&gt;" in page  # text from the data is escaped
