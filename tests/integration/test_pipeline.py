"""The whole graph on the real sources: the public views hold what the contract promises."""

from __future__ import annotations

import json
import re

import duckdb
import pytest

from pipeline.config import ROOT
from pipeline.contract import VIEWS, column_doc
from pipeline.sourcefiles import check_all

pytestmark = pytest.mark.integration


def test_every_sidecar_and_checksum_is_valid():
    assert check_all(ROOT / "sources") == []


def test_gpus_are_dense(db):
    h100 = db.execute(
        "select bf16_tflops, fp8_tflops, memory_gb from gpus where gpu_id = 'nvidia-h100-sxm-80gb'"
    ).fetchone()
    assert h100[0] == pytest.approx(989.5, rel=0.01)  # not the sparse 1,979
    assert h100[1] == pytest.approx(1979, rel=0.01)  # not the sparse 3,958
    assert h100[2] == 80
    assert db.execute("select count(*) from gpus").fetchone()[0] >= 40


def test_unsupported_precision_is_null_never_zero(db):
    zeros = db.execute("""select count(*) from gpus where least(fp32_tflops, tf32_tflops, bf16_tflops, fp16_tflops,
                          fp8_tflops, int8_tops, fp64_tflops) <= 0""").fetchone()[0]
    assert zeros == 0
    assert db.execute("select fp8_tflops from gpus where gpu_id = 'nvidia-a100-sxm-80gb'").fetchone()[0] is None


def test_variants_stay_apart(db):
    rows = dict(
        db.execute("""select gpu_id, memory_bandwidth_gbs from gpus
                              where family = 'h100'""").fetchall()
    )
    assert len(rows) == 3
    assert rows["nvidia-h100-sxm-80gb"] != rows["nvidia-h100-pcie-80gb"]


def test_every_seed_claim_is_classified(db):
    n, classified, canonical = db.execute("""select count(*), count(classification),
                                                    count(*) filter (where classification = 'canonical')
                                             from spec_claims where claim_id like 'claim:%'""").fetchone()
    files = list((ROOT / "sources" / "claims").rglob("claims.csv"))
    printed = sum(len([ln for ln in f.read_text(encoding="utf-8").splitlines()[1:] if ln.strip()]) for f in files)
    assert len(files) >= 4 and n == printed > 100  # every figure printed in a seed article is a claim
    assert classified == n and canonical == 0  # ...with a classification; an article is never canonical
    # seed 000's H100 FP16 "1,671 TFLOPS" is the H100 NVL's sparse figure, not the SXM's
    row = db.execute("""select classification, explanation from spec_claims
                        where claim_id like 'claim:%' and gpu_id = 'nvidia-h100-sxm-80gb'
                          and metric = 'compute' and precision = 'fp16' and value = 1671 limit 1""").fetchone()
    assert row[0] == "another variant" and "NVL" in row[1]


@pytest.mark.parametrize(
    "gpu_id, precision, value",
    [
        ("nvidia-rtx-a6000-pcie-48gb", "fp64", 1.21),  # equals B300's 1.2 by coincidence
        ("nvidia-rtx-a4000-pcie-16gb", "fp64", 0.599),  # equals the RTX A6000's 0.605 by coincidence
        ("nvidia-h100-sxm-80gb", "fp16", 248.3),  # equals the A10's 250 sparse by coincidence
    ],
)
def test_a_coincidence_with_an_unrelated_gpu_explains_nothing(db, gpu_id, precision, value):
    rows = db.execute(
        """select classification, explanation from spec_claims
                         where gpu_id = ? and metric = 'compute' and precision = ? and abs(value - ?) < 1e-9""",
        [gpu_id, precision, value],
    ).fetchall()
    assert rows
    for classification, explanation in rows:
        assert classification == "unexplained", (classification, explanation)
        assert "B300" not in explanation and "A10 " not in explanation and "A6000" not in explanation


def test_explanations_name_only_the_same_gpu_or_its_family(db):
    bad = db.execute("""select count(*) from spec_claims where classification not in
                        ('canonical', 'agrees', 'sparse figure', 'other rate', 'another precision',
                         'another variant', 'no datasheet figure', 'documents disagree', 'unexplained')""").fetchone()[
        0
    ]
    assert bad == 0


def test_sparse_claim_is_explained_not_an_error(db):
    row = db.execute("""select classification from spec_claims where claim_id like 'claim:%'
                        and gpu_id = 'nvidia-h100-sxm-80gb' and metric = 'compute' and precision = 'fp16'
                        and value = 1979""").fetchone()
    assert row[0] == "sparse figure"


def test_coverage_lists_what_could_be_published_and_is_not(db):
    rows = {g: (m or "") for g, m in db.execute("select gpu_id, missing_figures from coverage").fetchall()}
    # every empty canonical column of a GPU is either listed or excused by a stated rule
    assert "launch_price_usd" not in rows["nvidia-h100-sxm-80gb"]  # data-centre: no vendor list price
    lacking = db.execute(
        "select gpu_id from gpus where launch_price_usd is null and segment <> 'datacenter'"
    ).fetchall()
    assert lacking and all("launch_price_usd" in rows[g] for (g,) in lacking)
    assert "tf32_tflops" not in rows["nvidia-v100-sxm-16gb"]  # Volta has no TF32
    no_bandwidth = db.execute("select gpu_id from gpus where memory_bandwidth_gbs is null").fetchall()
    assert all("memory_bandwidth_gbs" in rows[g] for (g,) in no_bandwidth)


def test_every_offer_is_mapped_or_listed(db):
    total, mapped = db.execute("select count(*), count(gpu_id) from price_offers").fetchone()
    listed = db.execute("select sum(offers) from unmapped_offers").fetchone()[0]
    assert db.execute("select sum(offers) from unmapped_offers where last_seen is not null").fetchone()[0] == listed
    assert db.execute("select count(*) from price_history where gpu_id is null").fetchone()[0] == listed
    assert mapped < total  # some names cannot be pinned to a variant and stay visible
    assert db.execute("select count(distinct provider) from price_offers").fetchone()[0] >= 8


def test_every_offer_of_the_seed_price_list_maps(db):
    """Seed article 004's Paperspace list: every machine name is pinned to one variant (form factor and memory)."""
    unmapped = db.execute(
        "select distinct provider_gpu_name from price_history where provider = 'paperspace' and gpu_id is null"
    ).fetchall()
    assert unmapped == []
    assert (
        db.execute("select count(distinct gpu_id) from price_history where provider = 'paperspace'").fetchone()[0] >= 14
    )


def test_price_per_gpu_hour_divides_instance_price(db):
    bad = db.execute(
        "select count(*) from price_history where abs(usd_per_gpu_hour * gpu_count - usd_per_hour) > 1e-9"
    ).fetchone()[0]
    assert bad == 0
    tiers = {
        r[0]
        for r in db.execute("select distinct pricing_tier from price_history where provider = 'paperspace'").fetchall()
    }
    assert {"promotional", "on-demand"} <= tiers


def test_vram_fit_covers_models_and_sums(db):
    assert db.execute("select count(distinct model_id) from vram_fit").fetchone()[0] >= 30
    assert (
        db.execute(
            "select count(distinct model_id) from vram_fit v join models m using (model_id) where m.is_moe"
        ).fetchone()[0]
        >= 2
    )
    bad = db.execute("""select count(*) from vram_fit where abs(weights_gb + kv_cache_gb + gradients_gb + optimizer_gb
                        + activations_gb + overhead_gb - required_gb) > 1e-6""").fetchone()[0]
    assert bad == 0


def test_rankings_have_both_workloads(db):
    rows = dict(db.execute("select workload, count(*) from rankings group by all").fetchall())
    assert rows["training"] == rows["inference"] == db.execute("select count(*) from gpus").fetchone()[0]
    # a GPU missing a figure has its unknown components flagged, never silently scored as zero
    wrong = db.execute("""select count(*) from rankings where all_components_known <> case workload
        when 'training' then training_throughput_component is not null and training_fit_component is not null
                             and bandwidth_component is not null and interconnect_component is not null
        else decode_component is not null and fit_component is not null and low_precision_compute_component is not null
        end""").fetchone()[0]
    assert wrong == 0
    assert db.execute("select count(*) from rankings where all_components_known").fetchone()[0] > 60


def test_every_view_column_is_documented(db):
    missing = []
    for view in VIEWS:
        for col, *_rest in db.execute(f"describe {view}").fetchall():
            if not column_doc(view, col):
                missing.append(f"{view}.{col}")
    assert missing == []


def test_a_declared_key_leads_its_view_and_tells_every_row_apart(db):
    """The downloads sort a view with a declared key by it alone: that is the order of every column only when the
    key is the view's leading columns and no two rows share it."""
    from pipeline.contract import VIEW_KEYS

    assert VIEW_KEYS  # vram_fit declares one
    for view, key in VIEW_KEYS.items():
        columns = [row[0] for row in db.execute(f"describe {view}").fetchall()]
        assert columns[: len(key)] == key, view
        rows, distinct = db.execute(f"select count(*), count(distinct ({', '.join(key)})) from {view}").fetchone()
        assert rows == distinct and rows > 0, view


def test_every_published_chart_is_a_valid_vega_lite_spec(built_site):
    """Charts are not validated while the build renders them (speed): every spec embedded in a page, in both
    editions, is checked against the Vega-Lite schema of the vendored version here."""
    import json
    import re

    import jsonschema
    from altair.vegalite.v6.schema import core

    schema = core.load_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    spec_element = re.compile(r'<script type="application/json" class="atlas-spec"[^>]*>(.*?)</script>', re.S)
    checked, invalid = {"en": 0, "zh": 0}, []
    for page in sorted(built_site["site"].rglob("*.html")):
        rel = page.relative_to(built_site["site"])
        for text in spec_element.findall(page.read_text(encoding="utf-8")):
            errors = [e.message[:200] for e in validator.iter_errors(json.loads(text))]
            if errors:
                invalid.append(f"{rel}: {errors[0]}")
            checked["zh" if rel.parts[0] == "zh" else "en"] += 1
    assert invalid == []
    # GPU pages' price histories, rankings, fit heatmaps, prices: the same charts in both editions
    assert checked["en"] == checked["zh"] >= 30


def test_the_numpy_replica_of_the_inference_fit_gives_the_sql_counts(built_site):
    """`make bench` times vram_fit's SQL against a NumPy replica of the same formulas; the replica, written apart,
    must find the same rows and the same fits on the real catalogue (else the benchmark compares two answers)."""
    import duckdb

    from pipeline.bench_fit import _inference_inputs, numpy_inference_fit, scaled_catalogue
    from pipeline.steps import create_table_from_sql

    con = duckdb.connect(":memory:")
    scaled_catalogue(con, built_site["db"], 1)
    for table in ("out_memory_requirements", "out_vram_fit", "out_vram_fit_detail"):
        create_table_from_sql(con, table)
    sql = con.execute(
        "select count(*), count(*) filter (where fits) from out_vram_fit_detail where workload = 'inference'"
    ).fetchone()
    assert numpy_inference_fit(*_inference_inputs(con)) == tuple(sql)
    assert sql[0] > 1_000_000 and 0 < sql[1] < sql[0]


def test_build_summary_counts(built_site):
    outcome = built_site["outcome"]
    assert outcome.ok and outcome.checks_passed >= 8
    assert "site" in outcome.materialized and "public_views" in outcome.materialized
    assert (built_site["site"] / "index.html").exists()
    download = built_site["site"] / "downloads" / "gpu_atlas.duckdb"
    with duckdb.connect(str(download), read_only=True) as con:  # the published copy is a whole, readable database
        assert con.execute("select count(*) from gpus").fetchone()[0] >= 40
        assert con.execute("select count(*) from vram_fit").fetchone()[0] > 100_000


def test_seed_model_memory_claims_are_explained(db):
    rows = dict(db.execute("select model_id, classification from model_claims where model_id is not null").fetchall())
    # seed 002: "DeepSeek R1 ~1,342GB" is exactly the BF16 weights (671B x 2 bytes), with no KV cache or overhead
    assert rows["deepseek-r1"] == "matches weights only at bf16"
    # its distill figures are 4-bit weights alone: not enough memory to run the model
    assert rows["deepseek-r1-distill-qwen-32b"] == "matches weights only at int4 without scales"
    assert db.execute("select count(*) from model_claims where classification is null").fetchone()[0] == 0


def test_fit_command_breakdown_sums(built_site):
    import json

    from typer.testing import CliRunner

    from pipeline.cli import app

    env = {"GPU_ATLAS_DB": str(built_site["db"])}
    result = CliRunner().invoke(
        app, ["fit", "--model", "llama-3.1-70b", "--precision", "fp8", "--context", "32768", "--json"], env=env
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert sum(data["breakdown_gb"].values()) == pytest.approx(data["required_gb"])
    # FP8 linear layers (1 byte) with the embeddings and the untied head at 2 bytes, from the config's counts
    m = (
        duckdb.connect(str(built_site["db"]), read_only=True)
        .execute(
            "select linear_params_b, embedding_params_b + head_params_b, other_params_b from models "
            "where model_id = 'llama-3.1-70b'"
        )
        .fetchone()
    )
    assert data["breakdown_gb"]["weights_gb"] == pytest.approx(m[0] + 2 * m[1] + 2 * m[2])
    assert 72 < data["breakdown_gb"]["weights_gb"] < 73.5
    # GQA: 2 x 80 layers x 8 KV heads x 128 x 32768 tokens x 2 bytes
    assert data["breakdown_gb"]["kv_cache_gb"] == pytest.approx(2 * 80 * 8 * 128 * 32768 * 2 / 1e9)
    by_gpu = {g["gpu_id"]: g for g in data["gpus"]}
    assert len(by_gpu) == len(data["gpus"])  # one row a GPU, at the GPU count it needs
    assert by_gpu["nvidia-h100-sxm-80gb"]["gpus_needed"] == 2 and not by_gpu["nvidia-h100-sxm-80gb"]["fits_one_gpu"]
    assert by_gpu["nvidia-h200-sxm-141gb"]["fits_one_gpu"]
    bad = CliRunner().invoke(app, ["fit", "--model", "no-such-model"], env=env)
    assert bad.exit_code == 2 and "unknown model" in bad.output


@pytest.mark.parametrize(
    "args, says",
    [
        (["--workload", "foo"], "--workload"),
        (["--context", "-5"], "--context"),
        (["--batch", "0"], "--batch"),
        (["--precision", "fp4"], "--precision"),
        (["--workload", "training", "--method", "full", "--precision", "fp8"], "--precision"),
        (["--method", "dpo", "--workload", "training"], "--method"),
        (["--recompute", "some"], "--recompute"),
    ],
)
def test_fit_command_refuses_nonsense(built_site, args, says):
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(
        app, ["fit", "--model", "llama-3.1-8b", *args], env={"GPU_ATLAS_DB": str(built_site["db"])}
    )
    assert result.exit_code == 2, result.output
    assert says in result.output


def test_fit_command_model_ids_are_case_insensitive_with_a_suggestion(built_site):
    from typer.testing import CliRunner

    from pipeline.cli import app

    env = {"GPU_ATLAS_DB": str(built_site["db"])}
    ok = CliRunner().invoke(app, ["fit", "--model", "Llama-3.1-8B", "--json"], env=env)
    assert ok.exit_code == 0 and '"model_id": "llama-3.1-8b"' in ok.output
    typo = CliRunner().invoke(app, ["fit", "--model", "lama-3.1-8b"], env=env)
    assert typo.exit_code == 2 and "did you mean llama-3.1-8b" in typo.output


def test_every_spec_source_kind_says_what_the_document_is(db):
    kinds = {k for (k,) in db.execute("select distinct source_kind from core_canonical").fetchall()}
    assert kinds <= {"vendor_document", "vendor_reprint", "curated_dataset", "reseller", "blog_or_wiki", "article"}
    # a vendor document is read at the vendor's own address; anything hosted elsewhere is a reprint or worse
    hosts = db.execute("""select distinct s.source_id, regexp_extract(s.url, '^https?://([^/]+)', 1)
                          from core_spec_figures as f join core_sources as s using (source_id)
                          where s.kind = 'vendor_document'""").fetchall()
    assert hosts
    vendor_domains = (
        "nvidia.com",
        "amd.com",
        "intel.com",
        "habana.ai",
        "cloud.google.com",
        "awsdocs-neuron.readthedocs-hosted.com",
    )
    assert [h for h in hosts if not h[1].endswith(vendor_domains)] == []
    # no third-party host is passed off as the vendor
    wrong = db.execute("""select source_id from core_sources where kind = 'vendor_document'
                          and regexp_matches(url, 'manuals\\.plus|github\\.com|techpowerup|wiki|blog\\.|spheron|mullet|ecer\\.com')""").fetchall()
    assert wrong == []


NAMED_VARIANTS = [
    "nvidia-h20-sxm-96gb",
    "nvidia-h800-sxm-80gb",
    "nvidia-h800-pcie-80gb",
    "nvidia-a800-sxm-80gb",
    "nvidia-a800-pcie-80gb",
    "nvidia-l20-pcie-48gb",
    "nvidia-rtx-4090d-pcie-24gb",
    "nvidia-gb300-sxm-288gb",
    "amd-mi350x-oam-288gb",
    "amd-mi300a-socket-128gb",
    "nvidia-gh200-sxm-144gb",
    "nvidia-rtx-5080-pcie-16gb",
    "intel-gaudi3-oam-128gb",
    "google-tpu-v6e-tpu-32gb",
    "aws-trainium2-trainium-96gb",
]


def test_the_catalogue_holds_the_gpus_people_rent(db):
    assert db.execute("select count(*) from gpus").fetchone()[0] >= 65
    present = {g for (g,) in db.execute("select gpu_id from gpus").fetchall()}
    assert set(NAMED_VARIANTS) <= present, set(NAMED_VARIANTS) - present
    assert db.execute("select count(*) from gpus where vendor = 'intel'").fetchone()[0] >= 1


def test_h100_pcie_fp8_is_the_dense_half_of_the_datasheets_sparse_figure(db):
    fp8, memory_type = db.execute(
        "select fp8_tflops, memory_type from gpus where gpu_id = 'nvidia-h100-pcie-80gb'"
    ).fetchone()
    assert fp8 == pytest.approx(1513)  # NVIDIA prints 3,026 with sparsity
    assert memory_type == "HBM2e"


def test_every_name_states_the_memory_of_its_row(db):
    rows = db.execute("select gpu_id, name, memory_gb, gpus_per_product from gpus").fetchall()
    wrong = []
    for gpu_id, name, memory_gb, per_product in rows:
        sizes = [float(m) for m in re.findall(r"(\d+(?:\.\d+)?)\s*GB", name)]
        if sizes != [memory_gb]:
            wrong.append((gpu_id, name, memory_gb))
        if per_product > 1 and "one of" not in name:
            wrong.append((gpu_id, name, "a product of several GPUs must say the row is one of them"))
    assert wrong == []


def test_module_power_is_never_a_gpu_tdp(db):
    # GH200's power covers CPU + GPU + memory: kept as a figure, not as the GPU's TDP
    assert db.execute("select tdp_w from gpus where gpu_id = 'nvidia-gh200-sxm-96gb'").fetchone()[0] is None
    assert (
        db.execute("""select count(*) from spec_claims where gpu_id = 'nvidia-gh200-sxm-96gb'
                         and metric = 'module_power'""").fetchone()[0]
        == 1
    )
    # MI250 / MI250X: 500 W TDP per two-die module, so 250 W per die (not half the 560 W peak)
    tdps = dict(db.execute("select gpu_id, tdp_w from gpus where family = 'mi200' and gpus_per_product = 2").fetchall())
    assert tdps == {"amd-mi250-oam-128gb": 250, "amd-mi250x-oam-128gb": 250}


def test_disagreeing_documents_are_both_kept_and_the_canonical_one_says_why(db):
    rows = db.execute("""select value, is_canonical, classification, explanation from spec_claims
                         where gpu_id = 'nvidia-b300-sxm-288gb' and metric = 'memory_size'""").fetchall()
    by_value = {v: (c, k, e) for v, c, k, e in rows}
    assert set(by_value) == {288, 270}
    assert by_value[288][0] and "270" in by_value[288][2]  # the canonical row states why it wins
    assert by_value[270][1] == "documents disagree"
    assert db.execute("select memory_gb from gpus where gpu_id = 'nvidia-b300-sxm-288gb'").fetchone()[0] == 288


def test_usable_memory_is_what_fit_and_the_planner_size_against(db):
    # B300: 288 GB HBM3e physically, 270 GB per GPU in an HGX B300 (Blackwell Ultra datasheet); GB300 NVL72: 279 GB
    rows = dict(
        (g, (m, u))
        for g, m, u in db.execute("""select gpu_id, memory_gb, usable_memory_gb from gpus
                                     where gpu_id in ('nvidia-b300-sxm-288gb', 'nvidia-gb300-sxm-288gb',
                                                      'nvidia-b200-sxm-180gb', 'nvidia-h100-sxm-80gb')""").fetchall()
    )
    assert rows["nvidia-b300-sxm-288gb"] == (288, 270)
    assert rows["nvidia-gb300-sxm-288gb"] == (288, 279)
    # no usable figure printed: the physical one (B200 already carries the datasheet's 180 GB)
    assert rows["nvidia-b200-sxm-180gb"] == (180, 180)
    assert rows["nvidia-h100-sxm-80gb"] == (80, 80)
    fraction = db.execute("select value::double from parameters where name = 'usable_memory_fraction'").fetchone()[0]
    fit = db.execute(
        "select min(usable_gb_per_gpu), max(usable_gb_per_gpu) from vram_fit where gpu_id = 'nvidia-b300-sxm-288gb'"
    ).fetchone()
    assert fit == (pytest.approx(270 * fraction), pytest.approx(270 * fraction))
    planner = db.execute(
        "select usable_gb_per_gpu from serving_gpus where gpu_id = 'nvidia-b300-sxm-288gb'"
    ).fetchone()[0]
    assert planner == pytest.approx(270 * fraction)


def test_coverage_counts_fp8_and_fp4_where_the_architecture_has_them(db):
    rows = {g: (m or "") for g, m in db.execute("select gpu_id, missing_figures from coverage").fetchall()}
    archs = dict(db.execute("select gpu_id, architecture from gpus").fetchall())
    fp8 = dict(db.execute("select gpu_id, fp8_tflops from gpus").fetchall())
    for gpu_id, arch in archs.items():
        if arch in ("Ada Lovelace", "Hopper", "Blackwell", "CDNA 3", "CDNA 4") and fp8[gpu_id] is None:
            assert "fp8_tflops" in rows[gpu_id], gpu_id
        if arch in ("Ampere", "Volta", "Turing", "CDNA 2"):
            assert "fp8_tflops" not in rows[gpu_id] and "fp4_tflops" not in rows[gpu_id], gpu_id


def test_seed_claims_cite_the_article_not_a_local_path(db):
    rows = db.execute("""select distinct s.source_id, s.url, s.publisher from spec_claims as c
                         join sources as s using (source_id) where c.claim_id like 'claim:%'""").fetchall()
    assert len(rows) >= 5
    assert [r for r in rows if not r[1].startswith("https://")] == []
    assert [r for r in rows if "unknown" in r[2]] == []


def test_one_cheapest_h100_sxm_price_everywhere(built_site, db):
    """The cheapest current on-demand H100 SXM price is one number on the home page, its GPU page, the Prices
    page, inference_estimates, token_costs and `gpu-atlas fit`, all read from price_picks."""
    import json

    from typer.testing import CliRunner

    from pipeline.cli import app

    gpu = "nvidia-h100-sxm-80gb"
    price = db.execute(
        "select usd_per_gpu_hour from price_picks where gpu_id = ? and pick = 'on-demand'", [gpu]
    ).fetchone()[0]
    assert price is not None
    shown = f"${price:,.3f}"
    estimates = {
        r[0]
        for r in db.execute(
            "select distinct cheapest_usd_per_gpu_hour from inference_estimates where gpu_id = ?", [gpu]
        ).fetchall()
    }
    assert estimates == {price}
    tokens = {
        r[0]
        for r in db.execute(
            "select distinct usd_per_gpu_hour from token_costs where gpu_id = ? and pick = 'on-demand'", [gpu]
        ).fetchall()
    }
    assert tokens == {price}
    ranked = {
        r[0]
        for r in db.execute(
            "select distinct cheapest_usd_per_gpu_hour from rankings where gpu_id = ?", [gpu]
        ).fetchall()
    }
    assert ranked == {price}
    site = built_site["site"]
    for page in ("index.html", f"gpus/{gpu}/index.html", "prices/index.html"):
        assert shown in (site / page).read_text(encoding="utf-8"), page
    result = CliRunner().invoke(
        app, ["fit", "--model", "llama-3.1-8b", "--json"], env={"GPU_ATLAS_DB": str(built_site["db"])}
    )
    by_gpu = {g["gpu_id"]: g for g in json.loads(result.output)["gpus"]}
    assert by_gpu[gpu]["cheapest_usd_per_gpu_hour"] == price


def test_no_pick_rank_or_estimate_uses_a_stale_price(db):
    max_age = db.execute("select value::double from parameters where name = 'price_max_age_days'").fetchone()[0]
    assert db.execute("select count(*) from price_offers where stale").fetchone()[0] > 0  # stale prices are kept, shown
    oldest = db.execute("select max(age_days) from price_picks where usd_per_gpu_hour is not null").fetchone()[0]
    assert oldest <= max_age
    # every price an estimate or ranking uses is a pick
    assert (
        db.execute("""select count(*) from inference_estimates as e
                         where cheapest_usd_per_gpu_hour is not null and not exists (
                             select 1 from price_picks as p where p.gpu_id = e.gpu_id and p.pick = 'on-demand'
                                 and p.usd_per_gpu_hour = e.cheapest_usd_per_gpu_hour)""").fetchone()[0]
        == 0
    )
    assert db.execute("select max(current_date - observed_on) from token_costs").fetchone()[0] <= max_age
    assert db.execute("select max(current_date - observed_on) from cost_per_tflop").fetchone()[0] <= max_age


def test_a_gpu_only_price_never_enters_a_comparison(db):
    """GCP bills the accelerator and the host VM apart: an offer without its host price is flagged and left out."""
    rows = db.execute("""select comparable, host_usd_per_hour, comparable_usd_per_gpu_hour, usd_per_gpu_hour, price_basis
                         from price_offers where provider = 'gcp'""").fetchall()
    assert {r[4] for r in rows} == {"gpu_and_host", "whole_instance"}  # the SkyPilot copy and a whole-machine tracker
    for comparable, host, comparable_price, gpu_price, basis in rows:
        if basis == "whole_instance":
            assert comparable and host is None and comparable_price == gpu_price
        elif comparable:
            assert comparable_price > gpu_price
        else:
            assert comparable_price is None
    assert (
        db.execute("""select count(*) from price_picks as p join price_offers as o
                         on o.provider = p.provider and o.offering = p.offering and o.region = p.region
                         where not o.comparable""").fetchone()[0]
        == 0
    )


def test_twenty_providers_each_with_its_newest_date_on_the_prices_page(built_site, db):
    rows = db.execute("""select provider, coalesce(max(observed_on) filter (where observed_date_known), max(observed_on))
                         from price_offers group by 1""").fetchall()
    assert len(rows) >= 20
    page = (built_site["site"] / "prices" / "index.html").read_text(encoding="utf-8")
    for provider, newest in rows:
        assert f'datetime="{newest}"' in page, (provider, newest)


def test_a_price_in_another_currency_keeps_its_amount_and_is_converted_at_a_dated_rate(db):
    rows = db.execute("""select currency, amount_per_hour, fx_units_per_usd, fx_rate_date, usd_per_hour, observed_on, fx_source_id
                         from price_offers where currency <> 'USD'""").fetchall()
    assert rows
    for currency, amount, rate, rate_date, usd, observed, source in rows:
        assert currency in ("CNY", "EUR") and usd == pytest.approx(amount / rate)
        assert rate_date <= observed
        assert db.execute("select count(*) from sources where source_id = ?", [source]).fetchone()[0] == 1


def test_every_price_snapshot_says_what_it_is(db):
    kinds = {r[0] for r in db.execute("select distinct snapshot_kind from price_history").fetchall()}
    assert kinds <= {"provider_page", "provider_api", "catalogue_copy", "price_tracker", "article"}
    # the seed article's Paperspace list is history, never a current price
    assert db.execute("select count(*) from price_offers where provider = 'paperspace'").fetchone()[0] == 0
    assert (
        db.execute(
            "select count(*) from price_history where provider = 'paperspace' and snapshot_kind = 'article'"
        ).fetchone()[0]
        > 0
    )


def test_every_provider_of_the_prices_is_a_provider_with_its_market_and_colour(db, built_site):
    """The providers view is the provider.yml files: every provider a price names is a row of it, each price's
    market is its provider's, and the built charts colour each provider as it says."""
    orphans = db.execute("""select distinct provider from price_history
                            where provider not in (select provider from providers)""").fetchall()
    assert orphans == []
    assert (
        db.execute("""select count(*) from price_offers as o join providers as v using (provider)
                      where o.market is distinct from v.market""").fetchone()[0]
        == 0
    )
    colours = dict(db.execute("select provider, colour from providers").fetchall())
    page = (built_site["site"] / "prices" / "index.html").read_text(encoding="utf-8")
    spec = re.search(r'data-chart="history-all">(\{.*?\})</script>', page)
    scale = json.loads(spec.group(1))["layer"][0]["encoding"]["color"]["scale"]
    assert scale["domain"] and scale["range"] == [colours[p] for p in scale["domain"]]


def test_three_china_market_providers_priced_in_cny_are_picked_apart(db):
    """At least three providers priced in CNY, each amount kept with its dated rate; they sell to mainland-China
    accounts, so they compete in their own picks and never set a global price."""
    cny = [
        r[0]
        for r in db.execute("""select distinct provider from price_offers where currency = 'CNY'
                                       and amount_per_hour is not null and fx_rate_date is not null""").fetchall()
    ]
    assert len(cny) >= 3, cny
    assert (
        db.execute("select count(*) from price_offers where currency = 'CNY' and market <> 'cn-mainland'").fetchone()[0]
        == 0
    )
    leaks = db.execute(
        """select count(*) from price_picks where provider in (select unnest(?))
                          and pick not like '%(China mainland)'""",
        [cny],
    ).fetchone()[0]
    assert leaks == 0
    china = db.execute("""select count(*) from price_picks where pick = 'on-demand (China mainland)'
                          and usd_per_gpu_hour is not null""").fetchone()[0]
    assert china >= 5
    import pandas as pd

    from pipeline.plan import Question, max_contexts, plan_options, validate

    q = validate(Question(model="llama-3.1-8b", precision="bf16", tier="any"), max_contexts(db))
    options = plan_options(db, pd.DataFrame([q.scenario()]))
    assert len(options) and not set(options["provider"]) & set(cny)


def test_gcp_gpu_plus_its_host_equals_the_machine_price_a_tracker_read(db):
    """Outside check of the host rule: SkyPilot's copy bills the A100 and its a2-highgpu-1g host apart (GPU
    + host); a dated tracker read the whole machine's price from Google's page. The sums must agree."""
    rows = dict(
        db.execute("""select price_basis, comparable_usd_per_gpu_hour from price_history
                              where provider = 'gcp' and gpu_id = 'nvidia-a100-sxm-40gb' and gpu_count = 1
                                and region = 'us-central1' and pricing_tier = 'on-demand'""").fetchall()
    )
    assert rows["gpu_and_host"] == pytest.approx(rows["whole_instance"], rel=1e-3)


def test_a_price_tie_goes_to_the_fresher_observation(db):
    """Two offers at the same on-demand price: the pick is the one observed later (not the first by name)."""
    later = db.execute(
        """select p.gpu_id, p.provider, p.observed_on, o.provider, o.observed_on
           from price_picks as p
           join price_offers as o
             on o.gpu_id = p.gpu_id and o.pricing_tier = 'on-demand' and o.statistic = 'list' and o.comparable
                and not o.stale and o.market = 'global' and o.observed_date_known and o.seller = 'provider'
                and o.comparable_usd_per_gpu_hour = p.usd_per_gpu_hour
                and o.observed_on > p.observed_on
           where p.pick = 'on-demand' and p.statistic = 'list' and p.observed_date_known"""
    ).fetchall()
    assert later == []
    # the case that made the rule: H100 SXM at $2.69 from two providers, the fresher one picked
    pick = db.execute(
        "select observed_on from price_picks where gpu_id = 'nvidia-h100-sxm-80gb' and pick = 'on-demand'"
    ).fetchone()[0]
    same = db.execute(
        """select max(observed_on) from price_offers where gpu_id = 'nvidia-h100-sxm-80gb' and pricing_tier = 'on-demand'
           and statistic = 'list' and seller = 'provider' and comparable and not stale and market = 'global'
           and comparable_usd_per_gpu_hour =
           (select usd_per_gpu_hour from price_picks where gpu_id = 'nvidia-h100-sxm-80gb' and pick = 'on-demand')"""
    ).fetchone()[0]
    assert pick == same


def test_a_third_party_hosts_offer_is_a_marketplace_offer_never_a_list_price(db):
    """RunPod Community Cloud machines belong to third-party hosts: their offers have seller host, compete only as the
    cheapest marketplace offer (beside the list-price pick, both dated) and are never a Planner machine."""
    community = db.execute(
        "select distinct seller from price_offers where provider = 'runpod' and offering like '%Community Cloud%'"
    ).fetchall()
    assert community == [("host",)]
    on_list = db.execute(
        """select p.gpu_id, p.pick, p.offering from price_picks as p join price_offers as o
             on o.provider = p.provider and o.offering = p.offering and o.gpu_id = p.gpu_id and o.region = p.region
           where o.seller = 'host' and p.pick not like 'marketplace%'"""
    ).fetchall()
    assert on_list == []
    shown = db.execute(
        """select count(*) from price_picks where pick = 'marketplace minimum' and seller = 'host'
           and observed_on is not null and why like '%third-party host%'"""
    ).fetchone()[0]
    assert shown >= 1
    assert db.execute("select count(*) from rentable_machines where offering like '%Community Cloud%'").fetchone() == (
        0,
    )


def test_what_changed_compares_each_provider_older_to_newer(db):
    """The 'previous' snapshot of What changed is never dated after the 'current' one (an undated copy counts from
    the latest day it can date from, else the day it was read)."""
    reversed_ = db.execute(
        """select provider from price_changes group by provider
           having max(previous_observed_on) > max(current_observed_on)"""
    ).fetchall()
    assert reversed_ == []


def test_one_largest_model_compare_and_the_gpu_pages_agree(built_site, db):
    """Compare's "largest model on one GPU" (fits.json) is the first of the current models a GPU's page lists as
    fitting on one GPU: one definition (current models only; a superseded model is never the answer)."""
    fits = json.loads((built_site["site"] / "api" / "v1" / "fits.json").read_text())["largest_model_on_one_gpu"]
    current = {r[0] for r in db.execute("select model_id from models where is_current").fetchall()}
    assert fits and all(f["model_id"] in current for by in fits.values() for f in by.values())
    h100 = fits["nvidia-h100-sxm-80gb"]["fp8"]
    page = (built_site["site"] / "gpus" / "nvidia-h100-sxm-80gb" / "index.html").read_text()
    assert h100["name"] in page


def test_rankings_flag_an_unknown_link_and_rank_value_among_cards_that_hold_the_reference(db):
    """A module whose GPU-to-GPU link no source gives (H800 SXM) is scored with that component unknown and flagged,
    a PCIe card without a link scores 0 for it; value per dollar is ranked only among GPUs that hold the reference
    model on at most value_max_gpus of them (a 16 GB card is cheap, not good value)."""
    h800 = db.execute("""select all_components_known, interconnect_component from rankings
                         where gpu_id = 'nvidia-h800-sxm-80gb' and workload = 'training'""").fetchone()
    assert h800 == (False, None)
    pcie = db.execute("""select interconnect_component from rankings
                         where gpu_id = 'nvidia-l4-pcie-24gb' and workload = 'training'""").fetchone()
    assert pcie == (0,)
    a4000 = db.execute("""select value_rank, holds_reference_model from rankings
                          where gpu_id = 'nvidia-rtx-a4000-pcie-16gb' and workload = 'inference'""").fetchone()
    assert a4000 == (None, False)
    ranked = db.execute("""select count(*), bool_and(holds_reference_model) from rankings
                           where value_rank is not null""").fetchone()
    assert ranked[0] > 5 and ranked[1]


def test_every_gpu_teams_rent_has_a_price_or_the_page_says_why(built_site, db):
    """Each GPU teams rent in 2026 (the Cloud prices page's list) has a global on-demand pick, or the page lists it
    with why it has none (RTX 5090: China-mainland offers only; MI355X: no source read lists it)."""
    from pipeline.render.prices import FAMILY

    unpriced = {r.gpu_id: r.why for r in FAMILY.frame(db, "unpriced").itertuples()}
    picked = {
        r[0]
        for r in db.execute(
            "select gpu_id from price_picks where pick = 'on-demand' and usd_per_gpu_hour > 0"
        ).fetchall()
    }
    sql = FAMILY.queries["unpriced"]
    rented = set(re.findall(r"'((?:nvidia|amd)-[a-z0-9-]+)'", sql))
    assert len(rented) == 12 and rented <= picked | set(unpriced)
    assert not set(unpriced) & picked
    assert unpriced.get("amd-mi355x-oam-288gb") == "never listed"
    page = (built_site["site"] / "prices" / "index.html").read_text()
    assert all(f"gpus/{g}/" in page for g in unpriced)


def test_gaudi_figures_follow_intels_own_tables(db):
    """Intel's Hot Chips 2024 tables (a vendor reprint) outrank Epoch's curated dataset: Gaudi 2 BF16 432 TFLOPS (not
    Epoch's 450), Gaudi 3 BF16 1,835 TFLOPS and 3.67 TB/s."""
    rows = dict(
        db.execute(
            "select gpu_id, bf16_tflops from gpus where gpu_id in ('intel-gaudi2-oam-96gb', 'intel-gaudi3-oam-128gb')"
        ).fetchall()
    )
    assert rows == {"intel-gaudi2-oam-96gb": 432.0, "intel-gaudi3-oam-128gb": 1835.0}
    bw = db.execute("select memory_bandwidth_gbs from gpus where gpu_id = 'intel-gaudi3-oam-128gb'").fetchone()[0]
    assert bw == 3670
