"""The Planner's query (pipeline/sql/plan/plan_options.sql) on the built database: any question in range
answered with machines one can rent, speeds that never beat their bound, input and output tokens priced apart,
a speed target that filters, and questions out of range refused with the valid range."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from pipeline.plan import PlanInputError, Question, plan, plan_options, validate, max_contexts

pytestmark = pytest.mark.integration

ISSUE_QUESTION = [
    "--model",
    "llama-3.1-70b",
    "--precision",
    "fp8",
    "--context",
    "8192",
    "--users",
    "50",
    "--input-tokens",
    "2000",
    "--output-tokens",
    "500",
]
REQUIRED = [
    "gpu_count",
    "instance_gpus",
    "throughput_tokens_per_s_per_gpu",
    "expected_tokens_per_s_per_user",
    "ttft_s",
    "usd_per_million_input_tokens",
    "usd_per_million_output_tokens",
]


def cli(db, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GPU_ATLAS_DB": str(db)}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "plan", *args], env=env, capture_output=True, text=True
    )


def options(con, **kw) -> pd.DataFrame:
    q = validate(Question(**kw), max_contexts(con))
    return plan_options(con, pd.DataFrame([q.scenario()]))


def test_the_issue_question_gets_ranked_rentable_options(built_site):
    out = cli(built_site["db"], *ISSUE_QUESTION, "--json", "--limit", "50")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    opts = result["options"]
    assert len(opts) >= 10
    for o in opts:
        for column in REQUIRED:
            assert o[column] is not None and o[column] > 0, (column, o)
        assert o["gpu_count"] == o["machines"] * o["instance_gpus"]
        assert o["tensor_parallel"] * o["replicas"] == o["gpu_count"]
        assert o["users_per_replica"] * o["replicas"] == pytest.approx(50)
        assert o["expected_tokens_per_s"] <= o["bound_tokens_per_s"] * (1 + 1e-9)
        assert o["expected_tokens_per_s_per_user"] <= o["bound_tokens_per_s_per_user"] * (1 + 1e-9)
        assert o["ttft_s"] >= o["bound_ttft_s"]
        # the blended price is the input and output prices weighted by the request's tokens
        blended = (o["usd_per_million_input_tokens"] * 2000 + o["usd_per_million_output_tokens"] * 500) / 2500
        assert o["usd_per_million_tokens"] == pytest.approx(blended, rel=1e-9)
    costs = [o["usd_per_million_tokens"] for o in opts]
    assert costs == sorted(costs)
    # prefill is compute-bound and cheap per token, decode dear: input tokens cost less than output tokens
    assert all(o["usd_per_million_input_tokens"] < o["usd_per_million_output_tokens"] for o in opts)


def test_a_speed_target_removes_the_slower_options(built_site):
    every = json.loads(cli(built_site["db"], *ISSUE_QUESTION, "--json", "--limit", "1000").stdout)["options"]
    fast = json.loads(
        cli(built_site["db"], *ISSUE_QUESTION, "--min-tokens-per-user", "30", "--json", "--limit", "1000").stdout
    )["options"]
    assert fast and len(fast) < len(every)
    assert min(o["expected_tokens_per_s_per_user"] for o in fast) >= 30
    assert any(o["expected_tokens_per_s_per_user"] < 30 for o in every)
    quick = json.loads(cli(built_site["db"], *ISSUE_QUESTION, "--max-ttft", "0.2", "--json", "--limit", "1000").stdout)[
        "options"
    ]
    assert quick and all(o["ttft_s"] <= 0.2 for o in quick)


def test_a_speed_target_is_met_by_renting_more_identical_machines(built_site):
    """200 users of gpt-oss-120b at 30 tokens/s each: more than one machine's worth. k identical machines of one
    offer behind a load balancer (no interconnect) are an option; each states its machines, replicas and users per
    replica, and the first meets the target."""
    out = cli(
        built_site["db"],
        *("--model", "gpt-oss-120b", "--users", "200", "--input-tokens", "2000", "--output-tokens", "500"),
        *("--min-tokens-per-user", "30", "--json", "--limit", "20"),
    )
    assert out.returncode == 0, out.stderr
    opts = json.loads(out.stdout)["options"]
    assert opts and opts[0]["expected_tokens_per_s_per_user"] >= 30
    assert any(o["machines"] > 1 for o in opts)
    for o in opts:
        assert o["replicas"] == o["machines"] * o["instance_gpus"] // o["tensor_parallel"]
        assert o["users_per_replica"] == pytest.approx(200 / o["replicas"])
        # the price is the fleet's: k machines at the offer's hourly price
        assert o["usd_per_hour"] == pytest.approx(o["machines"] * o["usd_per_gpu_hour"] * o["instance_gpus"], rel=1e-6)


def test_no_option_combines_listings_of_smaller_machines(db):
    """Every option rents one machine exactly as an offer lists it: its provider, offering and GPU count."""
    opts = pd.concat(
        [
            options(db, model=m, precision=p, users=u, input_tokens=2000, output_tokens=500, tier="any")
            for m, p, u in [
                ("llama-3.1-70b", "fp8", 50),
                ("llama-3.1-405b", "fp8", 8),
                ("llama-3.1-8b", "bf16", 1),
                ("mixtral-8x22b", "bf16", 16),
            ]
        ]
    )
    assert len(opts) > 50
    offers = db.execute("select provider, offering, gpu_id, gpu_count from price_offers").df()
    listed = set(offers.itertuples(index=False, name=None))
    rented = set(opts[["provider", "offering", "gpu_id", "instance_gpus"]].itertuples(index=False, name=None))
    assert rented <= listed
    # a marketplace's median is of single machines: never more GPUs than its listings have
    marketplace = opts[opts.statistic != "list"].merge(offers, on=["provider", "offering", "gpu_id"])
    assert (marketplace.instance_gpus == marketplace.gpu_count_y).all()
    # 405B at FP8 needs more than one 80 GB GPU: it only runs on machines that hold it whole
    big = opts[opts.model_id == "llama-3.1-405b"]
    assert (big.required_gb > 405).all() and (big.instance_gpus > 1).all()


def test_tensor_parallel_beyond_a_bridge_talks_over_pcie(built_site):
    """An NVLink bridge joins two cards (NVIDIA's A100 PCIe datasheet: "NVIDIA NVLink Bridge for 2 GPUs: 600 GB/s";
    RTX A6000: a bridge "connecting two" cards): on a machine of 4 or 8 such cards, a replica split 4 or 8 ways
    all-reduces over PCIe, and is slower than if the bridge joined them all; split 2 ways it keeps the bridge."""
    import duckdb

    bridged = ["nvidia-a100-pcie-80gb", "nvidia-a100-pcie-40gb", "nvidia-rtx-a6000-pcie-48gb"]
    con = duckdb.connect(str(built_site["db"]), read_only=True)
    try:
        gpus = con.execute(
            "select gpu_id, link_gpus, link_gbs, pcie_link_gbs from serving_gpus where gpu_id in ?", [bridged]
        ).df()
        assert (gpus.link_gpus == 2).all() and (gpus.link_gbs > gpus.pcie_link_gbs).all(), gpus
        # a replica's link as the Planner and the calibration take it
        assert con.execute(
            """select list(distinct serve_link_gbs(d, link_gbs, link_gpus, pcie_link_gbs) = pcie_link_gbs order by 1)
               from serving_gpus, unnest([2, 4, 8]) as t(d) where gpu_id in ? group by d > 2 order by d > 2""",
            [bridged],
        ).fetchall() == [([False],), ([True],)]
        machines = con.execute(
            "select machine_id from rentable_machines where gpu_id in ? and instance_gpus >= 4", [bridged]
        ).fetchall()
        q = validate(
            Question(model="qwen3-32b", precision="bf16", users=32, tier="any", min_tokens_per_user=None),
            max_contexts(con),
        )
        asked = pd.DataFrame(
            [q.scenario() | {"machine_id": m, "tensor_parallel": d, "machines": 1} for (m,) in machines for d in (2, 4)]
        )
        real = plan_options(con, asked)
        # the same questions if the bridge joined every card of a machine
        con.execute(
            """create temp view serving_gpus as
               select * replace (null::integer as link_gpus) from gpu_atlas.main.serving_gpus"""
        )
        joined = plan_options(con, asked)
    finally:
        con.close()
    key = ["machine_id", "tensor_parallel", "machines"]
    both = real.merge(joined, on=key, suffixes=("", "_joined"))
    assert len(both) == len(real) == len(joined)
    wide = both[both.tensor_parallel > 2]
    assert wide.machine_id.nunique() >= 3, both[key]
    assert (wide.expected_tokens_per_s_per_user < wide.expected_tokens_per_s_per_user_joined).all()
    assert (wide.ttft_s > wide.ttft_s_joined).all()
    pair = both[both.tensor_parallel <= 2]
    assert (pair.expected_tokens_per_s_per_user == pair.expected_tokens_per_s_per_user_joined).all()
    # the pair's expectation rests on a bridge no listing states: its basis says so; over PCIe, nothing to say
    bridge = "tensor parallel over the cards' NVLink bridge, which the listing does not state"
    assert pair.expectation_basis.str.contains(bridge, regex=False).all()
    assert not wide.expectation_basis.str.contains(bridge, regex=False).any()
    assert not pair.expectation_basis_joined.str.contains(bridge, regex=False).any()  # link_gpus null: NVSwitch-like


def test_a_replica_spans_machines_only_where_the_provider_sells_them_as_a_cluster(db):
    """DeepSeek R1 at FP8 (about 700 GB) fits no single machine of eight 80 GB GPUs. Where a provider sells such
    machines joined by a scale-out fabric (AWS documents 3,200 Gbps of EFA per p5.48xlarge; Azure 3.2 Tb/s of
    InfiniBand per ND H100 v5 VM), one replica takes two of them: tensor parallel over each machine's eight GPUs,
    two pipeline stages across them, the fabric named. No other offering's machines are ever joined."""
    opts = options(db, model="deepseek-r1", precision="fp8", users=64, tier="any", min_tokens_per_user=None)
    clusters = set(db.execute("select provider, offering from clusters").fetchall())
    across = opts[opts.pipeline_parallel > 1]
    assert len(across) >= 3
    assert set(zip(across.provider, across.offering)) <= clusters
    assert across.cluster_network.notna().all() and (across.tensor_parallel == across.instance_gpus).all()
    assert (across.machines % across.pipeline_parallel == 0).all()
    gpus = across.tensor_parallel * across.pipeline_parallel
    assert (across.replicas == across.machines * across.instance_gpus // gpus).all()
    assert ((across.users_per_replica - 64 / across.replicas).abs() < 1e-9).all()
    # the model needs more than one machine of 80 GB GPUs: on them it only runs across machines of a cluster
    small = opts[opts.gpu_id.isin(["nvidia-h100-sxm-80gb", "nvidia-a100-sxm-80gb"])]
    assert len(small) and (small.pipeline_parallel > 1).all()
    assert {"aws", "azure"} <= set(small.provider)
    alone = opts[opts.pipeline_parallel == 1]
    assert alone.cluster_network.isna().all()
    # each says its expectation was never checked across machines
    assert across.expectation_basis.str.contains("no published figure across machines").all()
    assert not alone.expectation_basis.str.contains("across machines").any()
    # two stages hold the weights a machine could not: each GPU of a replica holds its share
    assert (across.required_gb <= across.capacity_gb).all()
    assert (across.expected_tokens_per_s_per_user <= across.bound_tokens_per_s_per_user).all()


def test_any_context_and_load_in_range_is_answered(db):
    """The grid is gone: 8k context and one user, or 50 users, both have options (one H200 or 2 x H100 hold
    70B at FP8)."""
    for users in (1, 50):
        opts = options(
            db, model="llama-3.1-70b", precision="fp8", users=users, context=8192, input_tokens=2000, output_tokens=500
        )
        assert len(opts), users
        gpus = set(opts.gpu_id)
        assert "nvidia-h200-sxm-141gb" in gpus or "nvidia-h100-sxm-80gb" in gpus


def test_more_users_share_a_machine_more_slowly(db):
    few = options(db, model="llama-3.1-8b", precision="bf16", users=4, tier="any")
    many = options(db, model="llama-3.1-8b", precision="bf16", users=256, tier="any")
    key = ["machine_id", "gpu_id", "tensor_parallel"]
    both = few.merge(many, on=key, suffixes=("_few", "_many"))
    # more users on each replica: more tokens per GPU, fewer per user, more memory
    shared = both.users_per_replica_many > both.users_per_replica_few
    assert shared.sum() > 5
    more = both[shared]
    assert (more.throughput_tokens_per_s_per_gpu_many > more.throughput_tokens_per_s_per_gpu_few).all()
    assert (more.expected_tokens_per_s_per_user_many < more.expected_tokens_per_s_per_user_few).all()
    assert (more.required_gb_many > more.required_gb_few).all()
    # a machine too slow for the speed target with more users is rented that many more times, each replica serving
    # as many users as before, as fast (on 2026-11-29's data: none; Akamai's 2 x Quadro RTX 6000 once took 64 machines)
    same = both[~shared]
    assert (same.users_per_replica_many == same.users_per_replica_few).all()
    assert (same.machines_many > same.machines_few).all()
    assert ((same.throughput_tokens_per_s_per_gpu_many - same.throughput_tokens_per_s_per_gpu_few).abs() < 1e-6).all()


def test_fp8_kv_cache_needs_half_the_cache_memory(db):
    bf16 = options(
        db,
        model="llama-3.1-70b",
        precision="fp8",
        users=64,
        kv_precision="bf16",
        context=32768,
        input_tokens=16000,
        output_tokens=1000,
        tier="any",
    )
    fp8 = options(
        db,
        model="llama-3.1-70b",
        precision="fp8",
        users=64,
        kv_precision="fp8",
        context=32768,
        input_tokens=16000,
        output_tokens=1000,
        tier="any",
    )
    both = bf16.merge(fp8, on=["machine_id", "gpu_id", "tensor_parallel"], suffixes=("_bf16", "_fp8"))
    assert len(both) and (both.required_gb_fp8 < both.required_gb_bf16).all()
    assert len(fp8) >= len(bf16)


def test_every_option_is_in_a_format_an_engine_runs_on_that_gpu(db):
    """vLLM's documentation: no FP8 below Turing (weight-only W8A16 from Turing, W8A8 from Ada), no AWQ/GPTQ on AMD
    GPUs, no BF16 units before Ampere (16-bit checkpoints compute as FP16). The Planner and the estimates that rank
    GPUs offer nothing else."""
    arch = dict(db.execute("select gpu_id, architecture from gpus").fetchall())
    fp8 = options(db, model="llama-3.1-8b", precision="fp8", users=4, tier="any")
    assert len(fp8) and not ({arch[g] for g in fp8.gpu_id} & {"Volta", "Pascal", "Maxwell", "CDNA 2"})
    assert {"Ampere", "Hopper"} <= {arch[g] for g in fp8.gpu_id}  # weight-only on Ampere, W8A8 on Hopper
    int4 = options(db, model="llama-3.1-8b", precision="int4", users=4, tier="any")
    assert len(int4) and not any(arch[g].startswith("CDNA") for g in int4.gpu_id)
    bf16 = options(db, model="llama-3.1-8b", precision="bf16", users=4, tier="any")
    on_turing = bf16[bf16.gpu_id.map(arch).isin(["Turing", "Volta"])]
    assert len(on_turing) and (on_turing.compute_mode == "16-bit as FP16 (no BF16 units)").all()
    unsupported = db.execute("""select count(*) from inference_estimates as e join gpus as g using (gpu_id)
                                where not exists (select 1 from engine_formats as f
                                                  where f.architecture = g.architecture and f.format = e.precision)
                             """).fetchone()[0]
    assert unsupported == 0
    assert (
        db.execute("""select count(*) from inference_estimates as e join gpus as g using (gpu_id)
                         where g.architecture = 'Volta' and e.precision = 'fp8'""").fetchone()[0]
        == 0
    )


def test_fp4_computes_as_fp4_only_where_the_gpu_has_fp4_units(db):
    """NVFP4/MXFP4 weights: W4A4 on Blackwell and MI350-class GPUs, dequantised to 16-bit compute on Hopper;
    fewer bytes to read than FP8, so never slower to decode on the same deployment."""
    # no speed target: the same deployments (machine, machines, split) compared
    fp4 = options(db, model="llama-3.3-70b", precision="nvfp4", users=16, tier="any", min_tokens_per_user=0)
    fp8 = options(db, model="llama-3.3-70b", precision="fp8", users=16, tier="any", min_tokens_per_user=0)
    modes = fp4.groupby("gpu_id").compute_mode.first()
    assert modes["nvidia-b200-sxm-180gb"] == "fp4 (W4A4)"
    assert modes["nvidia-h100-sxm-80gb"] == "weight-only, 16-bit compute"
    both = fp4.merge(fp8, on=["machine_id", "gpu_id", "machines", "tensor_parallel"], suffixes=("_fp4", "_fp8"))
    assert len(both) > 5 and (both.required_gb_fp4 < both.required_gb_fp8).all()
    same = both[both.gpu_id.str.contains("b200")]
    assert len(same) and (same.expected_tokens_per_s_per_user_fp4 >= same.expected_tokens_per_s_per_user_fp8).all()


def test_engine_formats_are_the_serving_formats_of_the_database(db):
    from pipeline.schemas import ENGINE_FORMATS

    formats = {r[0] for r in db.execute("select format from core_weight_formats where used_for = 'serving'").fetchall()}
    assert formats == set(ENGINE_FORMATS)
    # and `native`, each model's checkpoint format
    assert {r[0] for r in db.execute("select distinct format from serving_models").fetchall()} == {
        *ENGINE_FORMATS,
        "native",
    }


def test_training_cost_is_linear_in_the_tokens(db):
    a = options(db, model="llama-3.1-8b", workload="lora", tokens=1e9).iloc[0]
    b = options(db, model="llama-3.1-8b", workload="lora", tokens=3e9).iloc[0]
    assert (a.gpu_id, a.provider, a.instance_gpus) == (b.gpu_id, b.provider, b.instance_gpus)
    assert b.usd_per_job == pytest.approx(3 * a.usd_per_job)


@pytest.mark.parametrize(
    "args, option",
    [
        (["--users", "0"], "--users"),
        (["--users", "5000"], "--users"),
        (["--input-tokens", "9000", "--context", "8192"], "--input-tokens"),
        (["--context", "200000"], "--context"),
        (["--min-tokens-per-user", "-3"], "--min-tokens-per-user"),
        (["--precision", "fp3"], "--precision"),
        (["--kv-precision", "int2"], "--kv-precision"),
        (["--tier", "cheap"], "--tier"),
        (["--engine", "ollama"], "--engine"),
        (["--limit", "0"], "--limit"),
        (["--limit", "-1"], "--limit"),
    ],
)
def test_out_of_range_is_refused_with_the_valid_range(built_site, args, option):
    base = ["--model", "llama-3.1-70b"]
    out = cli(built_site["db"], *base, *args)
    assert out.returncode == 2, out.stdout
    assert option in out.stderr
    assert "must be" in out.stderr or "must fit" in out.stderr


def test_a_format_that_does_not_apply_to_the_model_is_refused(built_site):
    out = cli(built_site["db"], "--model", "llama-3.1-8b", "--precision", "mxfp4-moe")
    assert out.returncode == 2, out.stdout
    assert "--precision" in out.stderr and "dense model" in out.stderr and "no rentable machine" not in out.stderr


def test_unknown_model_is_refused(built_site):
    out = cli(built_site["db"], "--model", "gpt-7")
    assert out.returncode == 2 and "--model" in out.stderr and "llama-3.1-70b" in out.stderr


def test_validate_fills_the_context(db):
    q = validate(Question(model="llama-3.1-8b", input_tokens=9000, output_tokens=1000), max_contexts(db))
    assert q.context == 10000
    with pytest.raises(PlanInputError) as err:
        validate(Question(model="llama-2-7b", input_tokens=9000, output_tokens=1000), max_contexts(db))
    assert err.value.option == "--input-tokens" and "4,096" in str(err.value)


def test_plan_json_matches_the_site_default(built_site):
    """The Planner page's static table is the SQL's answer to its default question."""
    from pipeline.plan import DEFAULTS

    result = plan(
        built_site["db"], Question(**{k: v for k, v in DEFAULTS.items() if k in Question.__dataclass_fields__}), limit=1
    )
    page = (built_site["site"] / "planner" / "index.html").read_text()
    best = result["options"][0]
    assert best["gpu_name"] in page and f"${best['usd_per_million_tokens']:,.3f}" in page


def test_machine_readable_files_are_versioned(built_site):
    api = built_site["site"] / "api" / "v1"
    for name in (
        "gpus.json",
        "offers.json",
        "estimates.json",
        "fits.json",
        "plan/index.json",
    ):
        doc = json.loads((api / name).read_text())
        assert doc["schema_version"] == 1, name
    gpus = json.loads((api / "gpus.json").read_text())["gpus"]
    h100 = next(g for g in gpus if g["gpu_id"] == "nvidia-h100-sxm-80gb")
    assert h100["memory_gb"] == 80 and h100["cheapest"]
    feed = (built_site["site"] / "feeds" / "prices.atom").read_text()
    import xml.etree.ElementTree as ET

    root = ET.fromstring(feed.encode("utf-8"))
    assert root.tag == "{http://www.w3.org/2005/Atom}feed"
    assert root.findall("{http://www.w3.org/2005/Atom}entry")
    data_page = (built_site["site"] / "data" / "index.html").read_text()
    assert "api/v1/gpus.json" in data_page and "feeds/prices.atom" in data_page


def test_fit_takes_every_workload_plan_takes(built_site):
    """`fit --workload lora` is `fit --workload training --method lora` (and serve is inference); a method that
    contradicts the workload is refused naming the option."""
    env = {**os.environ, "GPU_ATLAS_DB": str(built_site["db"])}

    def fit(*args):
        return subprocess.run(
            [sys.executable, "-m", "pipeline.cli", "fit", "--model", "llama-3.1-8b", *args],
            env=env,
            capture_output=True,
            text=True,
        )

    for workload, same in (
        ("lora", ["--workload", "training"]),
        ("qlora", ["--workload", "training", "--method", "qlora"]),
        ("serve", []),
    ):
        a, b = fit("--workload", workload, "--json"), fit(*same, "--json")
        assert a.returncode == 0 and b.returncode == 0, (workload, a.stderr, b.stderr)
        assert json.loads(a.stdout)["required_gb"] == json.loads(b.stdout)["required_gb"], workload
    wrong = fit("--workload", "lora", "--method", "qlora")
    assert wrong.returncode == 2 and "--method" in wrong.stderr


def test_one_lora_speed_on_the_planner_the_training_estimates_and_fit(db, built_site):
    """Llama 3.1 8B LoRA on one H100 SXM: the Planner, the training estimates (Compare and the GPU page) and
    `gpu-atlas fit` give the same tokens/s per GPU (macros/training.sql), and LoRA runs faster than a full update
    (no weight gradients)."""
    from pipeline.fit import fit

    lora = options(db, model="llama-3.1-8b", workload="lora")
    planner = lora[(lora.gpu_id == "nvidia-h100-sxm-80gb") & (lora.instance_gpus == 1)]
    estimate = db.execute(
        """select tokens_per_s_per_gpu from training_estimates
           where model_id = 'llama-3.1-8b' and gpu_id = 'nvidia-h100-sxm-80gb' and method = 'lora'"""
    ).fetchone()[0]
    cli = next(
        g for g in fit(built_site["db"], "llama-3.1-8b", "training")["gpus"] if g["gpu_id"] == "nvidia-h100-sxm-80gb"
    )
    assert len(planner) and planner.throughput_tokens_per_s_per_gpu.iloc[0] == pytest.approx(estimate, rel=1e-9)
    assert cli["train_tokens_per_s_per_gpu"] == pytest.approx(estimate, rel=1e-9)
    full = options(db, model="llama-3.1-8b", workload="full")
    assert full[full.gpu_id == "nvidia-h100-sxm-80gb"].throughput_tokens_per_s_per_gpu.max() < estimate


def test_a_measured_models_speed_is_its_level_times_the_familys(db):
    """Where a model's own published figures with an engine family and weights give it a level
    (serving_model_levels: SGLang and vLLM run DeepSeek R1 at FP8 faster than the family's typical model, TensorRT-LLM
    gpt-oss-120b slower), the Planner divides its step time by that level: every option's per-user speed is the
    level times the one the family's expectation alone gives (where neither reaches the bound), the option says so
    in its expectation_basis and model_level, and a model without such figures has neither."""
    levels = dict(
        ((f, m, w), lvl)
        for f, m, w, lvl in db.execute(
            "select engine_family, model_id, weights, level from serving_model_levels"
        ).fetchall()
    )
    cases = [("deepseek-r1", "fp8", "vllm-sglang", 64), ("gpt-oss-120b", None, "tensorrt-llm", 200)]
    for model, precision, engine, users in cases:
        kw = {"precision": precision} if precision else {}
        real = options(db, model=model, users=users, engine=engine, tier="any", min_tokens_per_user=None, **kw)
        weights = "fp8" if precision else "mxfp4-moe"
        level = levels[(engine, model, weights)]
        assert abs(level - 1) > 0.1, level  # a level that changes the answer
        db.execute("""create or replace temp view serving_model_levels as
                      select * from gpu_atlas.main.serving_model_levels where false""")
        try:
            family = options(db, model=model, users=users, engine=engine, tier="any", min_tokens_per_user=None, **kw)
        finally:
            db.execute("drop view serving_model_levels")
        key = ["machine_id", "tensor_parallel", "pipeline_parallel", "machines"]
        both = real.merge(family, on=key, suffixes=("", "_family"))
        unbound = both[
            (both.expected_tokens_per_s_per_user < both.bound_tokens_per_s_per_user * 0.999)
            & (both.expected_tokens_per_s_per_user_family < both.bound_tokens_per_s_per_user * 0.999)
        ]
        assert len(unbound) >= 10, (model, len(both))
        ratio = unbound.expected_tokens_per_s_per_user / unbound.expected_tokens_per_s_per_user_family
        assert ratio.sub(level).abs().max() < 1e-9, (model, ratio.describe())
        assert (both.model_level == level).all()
        assert both.expectation_basis.str.contains(f"{level:.2f} times the family's expectation", regex=False).all()
        assert both.model_level_family.isna().all()
        assert not both.expectation_basis_family.str.contains("times the family's expectation").any()
