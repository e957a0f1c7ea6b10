"""The Cloud prices and What changed pages (pipeline/render/prices/), rendered from hand-made query results (no
database, no build)."""

from __future__ import annotations

import pandas as pd

from pipeline.render import i18n
from pipeline.render.prices import FAMILY, changes_context, context

HOSTILE = "<script>x</script> *a* |b"
ESCAPED = "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b"


def assert_escaped(page: str) -> None:
    assert "<script>x" not in page
    assert ESCAPED in page


def offers_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": ["nvidia-h100-sxm-80gb", None, "nvidia-h100-sxm-80gb"],
            "name": ["H100 SXM 80 GB", None, "H100 SXM 80 GB"],
            "provider_gpu_name": ["H100", HOSTILE, "H100 80GB"],
            "provider": ["jarvislabs", "autodl", "verda"],
            "offering": [HOSTILE, "RTX 5090", "1H100.80S.30V"],
            "pricing_tier": ["on-demand", "on-demand", "spot"],
            "statistic": ["list", "list", "minimum"],
            "region": ["in", "cn", "fi"],
            "observed_on": ["2026-09-20", "2026-10-04", "2026-10-04"],
            "observed_no_later_than": [None, None, "2026-10-01"],
            "observed_date_known": [True, True, False],
            "gpu_count": [1, 1, 8],
            "usd_per_gpu_hour": [2.69, 0.291, 1.8],
            "comparable_usd_per_gpu_hour": [2.69, None, 1.87],
            "usd_per_hour": [2.69, 0.291, 14.96],
            "currency": ["USD", "CNY", "USD"],
            "amount_per_hour": [2.69, 1.98, 14.96],
            "fx_units_per_usd": [None, 6.8, None],
            "stale": [False, True, False],
            "comparable": [True, False, True],
            "price_basis": ["instance", "gpu_only", "gpu_and_host"],
        }
    )


def history_frame(dates=("2026-09-20", "2026-10-04")) -> pd.DataFrame:
    n = len(dates)
    return pd.DataFrame(
        {
            "name": ["H100 SXM 80 GB"] * n,
            "provider": ["jarvislabs"] * n,
            "provider_colour": ["#f6a600"] * n,
            "offering": ["H100"] * n,
            "pricing_tier": ["on-demand"] * n,
            "statistic": ["list"] * n,
            "region": ["in"] * n,
            "observed_on": list(dates),
            "usd_per_gpu_hour": [2.99, 2.69][:n],
        }
    )


def picks_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": ["nvidia-h100-sxm-80gb", "nvidia-h100-sxm-80gb", "nvidia-rtx-5090-pcie-32gb"],
            "name": ["H100 SXM 80 GB", "H100 SXM 80 GB", "RTX 5090 32 GB"],
            "pick": ["on-demand", "reserved", "on-demand (China mainland)"],
            "term": [None, "1 year", None],
            "usd_per_gpu_hour": [2.69, None, 0.291],
            "currency": ["USD", None, "CNY"],
            "amount_per_hour": [2.69, None, 1.98],
            "gpu_count": [1, None, 1],
            "provider": ["jarvislabs", None, "autodl"],
            "offering": ["H100", None, "RTX 5090"],
            "observed_on": ["2026-09-20", None, "2026-10-04"],
            "observed_date_known": [True, None, False],
            "why": ["cheapest fresh comparable list price", "no current offer qualifies", HOSTILE],
        }
    )


def providers_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "provider": ["autodl", HOSTILE],
            "markets": ["cn-mainland", "global"],
            "offers": [1, 2],
            "mapped": [0, 2],
            "tiers": ["on-demand", "on-demand, spot"],
            "regions": ["cn", "fi, in"],
            "kinds": ["cloud_price_list", "price_api"],
            "currencies": ["CNY", "USD"],
            "observed_on": ["2026-10-04", "2026-10-04"],
            "undated_only": [True, False],
            "stale": [1, 0],
            "newest_bound": ["2026-10-04", "2026-11-20"],
            "all_stale": [True, False],
            "snapshots": [1, 3],
        }
    )


PARAMETERS = pd.DataFrame({"name": ["price_max_age_days", "marketplace_min_sample"], "value": ["45.0", "5.0"]})


def test_queries_read_public_views_only():
    assert FAMILY.not_views() == set()
    assert {
        "price_offers",
        "price_history",
        "price_picks",
        "price_changes",
        "parameters",
        "gpus",
        "providers",
    } <= FAMILY.views


def test_prices_page():
    ctx = context(offers_frame(), history_frame(), picks_frame(), providers_frame(), PARAMETERS)
    assert ctx["max_age"] == 45 and ctx["min_sample"] == 5
    page = FAMILY.render("prices.md.j2", **ctx)
    assert page.startswith("---\nhide:\n  - navigation\n  - toc\n---\n# Cloud prices\n")
    assert "3 current offers from 2 providers (each provider's latest snapshot)." in page
    assert "promotional); a marketplace *median* or a *minimum* (the lowest listing" in page
    assert "**fresh** (observed within 45 days)" in page
    assert "taken over at least 5 listings" in page
    # providers
    assert (
        '| autodl | cn-mainland | 1 | 0 | on-demand | cn | cloud\\_price\\_list | CNY | <time class="atlas-age" '
        'datetime="2026-10-04">2026-10-04</time> (date read: undated copy) | 1 | 1 |'
    ) in page
    assert f"| {ESCAPED} | global | 2 | 2 |" in page
    # a provider whose every current price is stale is listed with its newest date; the others are not
    assert "**Stale providers** (1): every current price of these providers is older than 45 days" in page
    assert "arrives:\nautodl (newest price 2026-10-04).\n" in page
    # the prices used: converted, missing and undated picks
    assert "| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | on-demand | $2.690 | jarvislabs | H100 |" in page
    assert "| reserved (1 year) | – |  |  | – | no current offer qualifies |" in page
    assert (
        "| on-demand (China mainland) | $0.291 (1.98 CNY) | autodl | RTX 5090 | undated copy, read 2026-10-04 |" in page
    )
    # the history chart, in each provider's colour as the data gives it (its provider.yml), and every current offer
    assert 'data-chart="history-all"' in page
    colour = ctx["history_chart"]["layer"][0]["encoding"]["color"]["scale"]
    assert colour == {"domain": ["jarvislabs"], "range": ["#f6a600"]}
    assert '<div class="atlas-sortable" data-low="4,6,7,8" markdown="1">' in page
    assert f"| *unmapped:* {ESCAPED} | $0.291 | autodl | on-demand | cn |" in page
    assert "$0.291 (1.98 CNY/h at 6.8 CNY/USD) | **stale** · **GPU only** (host not published) |" in page
    assert "| $1.870 | verda | spot · *minimum* | fi |" in page
    assert "| 8 | $14.960 | undated copy of a list from no later than 2026-10-01 · GPU + host |" in page
    assert_escaped(page)


def test_prices_page_without_history():
    ctx = context(offers_frame(), history_frame()[:0], picks_frame(), providers_frame(), PARAMETERS)
    page = FAMILY.render("prices.md.j2", **ctx)
    assert "history-all" not in page
    assert "</div>\n\n## Every current offer" in page


def changes_frames():
    changes = pd.DataFrame(
        {
            "provider": ["aws", "aws"],
            "offering": ["p5.48xlarge", HOSTILE],
            "name": ["H100 SXM 80 GB", None],
            "provider_gpu_name": ["H100", "Mystery GPU"],
            "pricing_tier": ["on-demand", "spot"],
            "region": ["us-east-1", "us-east-1"],
            "change": ["repriced", "removed"],
            "previous_usd_per_gpu_hour": [4.0, 1.0],
            "current_usd_per_gpu_hour": [4.5, None],
            "change_pct": [12.5, None],
            "reason": [None, HOSTILE],
        }
    )
    counts = pd.DataFrame(
        {
            "provider": ["aws"],
            "previous_on": ["2025-11-30"],
            "current_on": ["2026-02-09"],
            "added": [3],
            "removed": [1],
            "replaced": [0],
            "repriced": [2],
            "renamed": [0],
            "unchanged": [40],
            "not_compared": [37],
        }
    )
    uncompared = pd.DataFrame(
        {
            "provider": ["aws", "azure"],
            "pricing_tier": ["on-demand", "spot"],
            "statistic": ["list", "list"],
            "reason": ["the newer snapshot does not cover this offer", HOSTILE],
            "regions": ["us-east-1", "eastus, westus2"],
            "listed_on": ["2025-11-30", "2026-02-09"],
            "n": [37, 4],
        }
    )
    return changes, counts, uncompared


def test_changes_page():
    changes, counts, uncompared = changes_frames()
    page = FAMILY.render("changes.md.j2", **changes_context(changes, counts, uncompared))
    assert page.startswith("---\nhide:\n  - navigation\n  - toc\n---\n# What changed\n")
    assert "| aws | 2025-11-30 | 2026-02-09 | 3 | 1 | 0 | 2 | 0 | 40 | 37 |" in page
    assert (
        "is not a removal: aws on-demand (list, us-east-1: 37 offers, the newer snapshot does not cover this "
        f"offer); azure spot (list, eastus, westus2: 4 offers, {ESCAPED}).\n"
    ) in page
    assert '<div class="atlas-sortable" data-low="1,4" markdown="1">' in page
    assert (
        "| aws | p5.48xlarge | H100 SXM 80 GB | on-demand | us-east-1 | **repriced** | $4.000 | $4.500 | +12.5% |  |"
        in page
    )
    assert f"| aws | {ESCAPED} | Mystery GPU | spot | us-east-1 | **removed** | $1.000 | – | – | {ESCAPED} |" in page
    assert_escaped(page)

    quiet = FAMILY.render("changes.md.j2", **changes_context(changes, counts, uncompared[:0]))
    assert "*Not compared*" not in quiet
    assert "| 37 |\n\nA removal is reported only when" in quiet


def test_prices_and_changes_pages_in_chinese():
    ctx = context(offers_frame(), history_frame(), picks_frame(), providers_frame(), PARAMETERS)
    english = FAMILY.render("prices.md.j2", **ctx)
    with i18n.use("zh"):
        ctx = context(offers_frame(), history_frame(), picks_frame(), providers_frame(), PARAMETERS)
        page = FAMILY.render("prices.md.j2", **ctx)
        changes, counts, uncompared = changes_frames()
        changed = FAMILY.render("changes.md.j2", **changes_context(changes, counts, uncompared))
    assert page.startswith("---\nhide:\n  - navigation\n  - toc\n---\n# 云端价格\n")
    assert "共 3 条当前报价，来自 2 家云厂商" in page
    assert "**新鲜**（45 天内观测到）" in page and "至少 5 条挂单" in page
    # other pages link to prices.md#prices-used: the Chinese heading keeps the id, the English one is unchanged
    assert "\n## 所用价格 {#prices-used}\n" in page and "\n## Prices used\n" in english
    assert "| GPU | 档位 | $/GPU 小时 | 云厂商 | 产品 | 观测日期 | 原因 |" in page
    # values as in English: names, prices, dates; a source's text marked as English
    assert "| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | 按需 | $2.690 | jarvislabs | H100 |" in page
    assert "2026-10-04</time>（读取日期：未注明日期的副本） | 1 | 1 |" in page
    assert f"| *未对应型号：* {ESCAPED} | $0.291 | autodl |" in page
    assert '<span lang="en">cheapest fresh comparable list price</span>' in page
    assert '"title":"\\u4ef7\\u683c\\u5386\\u53f2' in page  # the chart's title: 价格历史
    assert "Price history" not in page
    assert_escaped(page)

    assert "\n# 价格变化\n" in changed
    assert "| aws | 2025-11-30 | 2026-02-09 | 3 | 1 | 0 | 2 | 0 | 40 | 37 |" in changed
    assert "aws on-demand（list，us-east-1：37 条报价，" in changed and "）；azure spot" in changed
    assert (
        "| aws | p5.48xlarge | H100 SXM 80 GB | on-demand | us-east-1 | **调价** | $4.000 | $4.500 | +12.5% |"
        in changed
    )
    assert_escaped(changed)
