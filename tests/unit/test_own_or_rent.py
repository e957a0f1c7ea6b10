"""The Own-or-rent page from its context: figures formatted, dates as HTML, nothing escaped twice."""

from __future__ import annotations

import duckdb

from pipeline.render import i18n, own_or_rent


def server(breakeven_utilisation: float) -> dict:
    """The owned 8-GPU server's figures as the context gives them (a $300,000 purchase over 3 years)."""
    return {
        "purchase_usd": 300000.0,
        "busy_kw": 10.0,
        "amortisation_usd_per_hour": 11.42,
        "power_usd_per_hour": 1.0,
        "hosting_usd_per_hour": 1.03,
        "total_usd_per_hour": 13.44,
        "usd_per_gpu_hour": 1.68,
        "breakeven_utilisation": breakeven_utilisation,
        "payback_months_full_use": 15.2,
    }


def test_the_page_renders_dates_as_markup_and_years_as_numbers(monkeypatch):
    context = {
        "server": server(breakeven_utilisation=0.43),
        "years": 3.0,
        "rental": None,
        "owned": [],
        "batch": 16,
        "parameters": [],
        "gpus": [],
        "calculator_json": "{}",
        "import_map": "{}",
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
    monkeypatch.setattr(own_or_rent, "context", lambda con, engine: context)
    monkeypatch.setattr(own_or_rent, "owned_runs", lambda con: {})
    monkeypatch.setattr(own_or_rent, "engine_files", lambda *args: ({}, None))
    page = own_or_rent.render(duckdb.connect())["own-or-rent.md"]
    assert "over 3 years" in page and "$13.44" in page and "43%" in page and "15 months" in page
    assert '<time datetime="2026-09-25">' in page and "&lt;time" not in page
    assert "RTX 4090 rented &lt;b&gt;" in page  # text from the data is escaped


def test_the_page_in_chinese(monkeypatch):
    context = {
        "server": server(breakeven_utilisation=1.25),
        "years": 3.0,
        "rental": {
            "provider": "verda",
            "offering": "8H100.80S.176V",
            "statistic": "list",
            "observed_on": "2026-10-04",
            "observed_date_known": True,
            "usd_per_hour": 29.9,
            "usd_per_gpu_hour": 3.74,
        },
        "owned": [
            {
                "item": "GeForce RTX 4090 24 GB",
                "hosting": "home",
                "purchase_usd": 2158.65,
                "usd_per_gpu_hour": 0.127,
                "rental_usd_per_gpu_hour": 0.34,
                "breakeven_utilisation": 1.4,
                "payback_months_full_use": 10.0,
            }
        ],
        "batch": 16,
        "parameters": [],
        "gpus": [],
        "calculator_json": "{}",
        "import_map": "{}",
        "llama": [],
    }
    monkeypatch.setattr(own_or_rent, "context", lambda con, engine: context)
    monkeypatch.setattr(own_or_rent, "owned_runs", lambda con: {})
    monkeypatch.setattr(own_or_rent, "engine_files", lambda *args: ({}, None))
    with i18n.use("zh"):
        page = own_or_rent.render(duckdb.connect())["own-or-rent.md"]
    assert page.startswith("# 自购还是租用\n")
    assert "| 购置费 $300,000，分 3 年摊销 | $11.42 |" in page
    assert "| **自有，每小时都满载** | **$13.44**（每 GPU 小时 $1.68） |" in page
    assert "按需租用 8 × H100 SXM：verda，8H100.80S.176V（列表价，" in page
    assert "超过 **125%** 时，自购才更便宜——也就是永远不会" in page and "15 个月即可收回" in page
    assert "| GeForce RTX 4090 24 GB | 家中 | $2,159 | $0.127 | $0.34 | 永远不会（140%） | 10 个月 |" in page
    assert 'aria-label="你要购买的硬件"' in page and "<label>忙碌时间占比，% <input" in page
    # the Chinese page sits one folder deeper: its data file is the site root's
    assert 'data-src="../../charts/owned-runs.json"' in page
