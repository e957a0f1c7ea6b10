"""The machine-readable files' family: gpus.json and friends, llms.txt and the Atom feed, from hand-made query
results (no database); text from data is XML-escaped in the feed and Markdown-escaped in llms.txt."""

import json
from types import SimpleNamespace

import pandas as pd

from pipeline.render.api import API, FAMILY, SCHEMA_VERSION, context, json_files

HOSTILE = "<script>x</script> *a* |b"
COUNTS = SimpleNamespace(gpus=69, models=57, providers=27)


def changes(rows: list[dict]) -> pd.DataFrame:
    columns = [
        "provider",
        "previous_observed_on",
        "current_observed_on",
        "change",
        "name",
        "provider_gpu_name",
        "offering",
        "pricing_tier",
        "region",
        "previous_usd_per_gpu_hour",
        "current_usd_per_gpu_hour",
        "change_pct",
    ]
    return pd.DataFrame(rows, columns=columns)


def test_llms_txt_counts_and_date():
    text = FAMILY.render("llms.txt.j2", **context(COUNTS, changes([]), "2026-11-25"))
    assert text.startswith("# GPU Atlas\n\n> Which GPU, how many, where and at what cost")
    assert "69 GPU variants" in text and "57 LLMs" in text and "27 providers" in text
    assert "Built 2026-11-25." in text
    assert text.endswith("(tools plan, fit, gpu, compare_gpus, prices, sql)\n")


def test_feed_groups_a_providers_snapshot_and_escapes_for_xml():
    rows = [
        {
            "provider": "lambda",
            "previous_observed_on": "2026-09-01",
            "current_observed_on": "2026-09-20",
            "change": "repriced",
            "name": HOSTILE,
            "provider_gpu_name": "h100",
            "offering": "1x H100 & more",
            "pricing_tier": "on-demand",
            "region": "us",
            "previous_usd_per_gpu_hour": 2.0,
            "current_usd_per_gpu_hour": 2.5,
            "change_pct": 25.0,
        },
        {
            "provider": "lambda",
            "previous_observed_on": "2026-09-01",
            "current_observed_on": "2026-09-20",
            "change": "added",
            "name": None,
            "provider_gpu_name": "b200",
            "offering": "8x B200",
            "pricing_tier": "on-demand",
            "region": "us",
            "previous_usd_per_gpu_hour": None,
            "current_usd_per_gpu_hour": 5.0,
            "change_pct": None,
        },
    ]
    ctx = context(COUNTS, changes(rows), "2026-11-25")
    assert ctx["updated"] == "2026-09-20" and len(ctx["entries"]) == 1
    feed = FAMILY.render("prices.atom.j2", **ctx)
    assert feed.startswith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n')
    assert "<updated>2026-09-20T00:00:00Z</updated>" in feed
    assert "<title>lambda: 1 added, 1 repriced (2026-09-20)</title>" in feed
    assert "<id>tag:gpu-atlas,2026-09-20:prices/lambda/2026-09-20</id>" in feed
    # XML escaping only: no Markdown backslashes, no HTML entities for quotes or '|'
    assert (
        "&lt;script&gt;x&lt;/script&gt; *a* |b · 1x H100 &amp; more · on-demand · us: "
        "$2.000 → $2.500 per GPU-hour (+25.0%)\nadded: b200 · 8x B200 · on-demand · us ($5.000 per GPU-hour)"
    ) in feed
    assert "<script>" not in feed
    assert feed.endswith("  </entry>\n</feed>\n")


def test_feed_without_changes_is_dated_by_the_build():
    feed = FAMILY.render("prices.atom.j2", **context(COUNTS, changes([]), "2026-11-25"))
    assert "<updated>2026-11-25T00:00:00Z</updated>" in feed and "<entry>" not in feed


def test_json_files_join_prices_and_speeds_to_each_gpu():
    gpus = pd.DataFrame({"gpu_id": ["a", "b"], "name": [HOSTILE, "B"], "memory_gb": [80.0, float("nan")]})
    cheapest = pd.DataFrame(
        {"gpu_id": ["a"], "pricing_tier": ["on-demand"], "usd_per_gpu_hour": [2.123456], "observed_on": ["2026-09-20"]}
    )
    serving = pd.DataFrame(
        {"gpu_id": ["a"], "expected_tokens_per_s": [1234.56789], "bound_tokens_per_s": [2000.0], "gpus_used": [2]}
    )
    training = pd.DataFrame({"gpu_id": ["a", "a"], "method": ["full", "lora"], "tokens_per_s_per_gpu": [1.23456, 2.0]})
    fits = pd.DataFrame({"gpu_id": ["a"], "precision": ["fp8"], "model_id": ["m"], "name": ["M"], "params_b": [70.6]})
    empty = pd.DataFrame({"x": []})
    files = json_files(gpus, cheapest, empty, empty, empty, serving, training, fits, "2026-11-25")
    assert set(files) == {f"{API}/{n}.json" for n in ("gpus", "offers", "estimates", "fits")}
    doc = json.loads(files[f"{API}/gpus.json"])
    assert doc["schema_version"] == SCHEMA_VERSION and doc["built_on"] == "2026-11-25"
    a, b = doc["gpus"]
    assert a["name"] == HOSTILE  # JSON holds the text as it is; pages escape it
    assert a["cheapest"] == [{"pricing_tier": "on-demand", "usd_per_gpu_hour": 2.123, "observed_on": "2026-09-20"}]
    assert a["serving_tokens_per_s"] == 1234.56789  # full precision
    assert a["training_tokens_per_s_per_gpu"] == 1.235 and a["lora_tokens_per_s_per_gpu"] == 2.0
    assert b["memory_gb"] is None and b["cheapest"] == [] and b["serving_gpus"] is None
    assert json.loads(files[f"{API}/fits.json"])["largest_model_on_one_gpu"] == {
        "a": {"fp8": {"model_id": "m", "name": "M", "params_b": 70.6}}
    }
    assert files[f"{API}/offers.json"] == '{"schema_version":1,"built_on":"2026-11-25","offers":[]}'


def test_reads_public_views_only():
    assert FAMILY.not_views() == set()


def test_a_column_at_a_time_gives_what_clean_gives_value_by_value():
    """records() and columns_rows() clean a whole column at once (speed); every kind of value a query returns must
    come out as `clean` writes it, rounded to 4 significant digits or kept whole."""
    import datetime
    import math

    import numpy as np

    from pipeline.render.api.records import clean, column, columns_rows, records

    rng = np.random.default_rng(7)
    floats = np.concatenate([rng.lognormal(0, 6, 500), [0.0, -1.23456e-7, 123456789.0, np.nan, np.inf, -np.inf]])
    frame = pd.DataFrame(
        {
            "x": floats,
            "f32": floats.astype("float32"),
            "n": np.arange(len(floats), dtype="int64"),
            "flag": np.arange(len(floats)) % 2 == 0,
            "name": pd.array([None if i % 7 == 0 else f"gpu-{i}" for i in range(len(floats))], dtype="string"),
            "day": [datetime.date(2026, 1, 1) + datetime.timedelta(days=i % 30) for i in range(len(floats))],
            "mixed": [None if i % 5 == 0 else float(i) / 3 for i in range(len(floats))],
        }
    )
    for digits in (4, None):
        for name in frame.columns:
            expected = [clean(v, digits) for v in frame[name].to_list()]
            got = column(frame[name], digits)
            assert got == expected, name
            assert all(v is None or not isinstance(v, float) or math.isfinite(v) for v in got)
    assert records(frame)[3] == {name: clean(frame[name].iloc[3]) for name in frame.columns}
    assert columns_rows(frame)["rows"][3] == [clean(frame[name].iloc[3], None) for name in frame.columns]
    assert records(frame)[0]["x"] == float(f"{floats[0]:.4g}")
