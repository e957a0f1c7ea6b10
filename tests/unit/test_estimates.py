"""The SQL estimates against published worked numbers. Each test cites where its number comes from."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from pipeline import steps
from pipeline.db import create_table_from_frame, create_table_from_sql
from pipeline.sourcefiles import KINDS
from pipeline.tables import tables

RAW_MODEL_COLUMNS = KINDS["models"].columns + KINDS["models"].optional


def model(
    model_id,
    layers,
    hidden,
    heads,
    kv_heads,
    head_dim=None,
    *,
    inter=None,
    vocab=32000,
    tied="false",
    max_context=131072,
    mlp="gated",
    window=None,
    full_layers=None,
    kv_lora_rank=None,
    rope=None,
    published=None,
    **extra,
):
    """A raw_models row (text, as read from llms.csv); core_models.sql computes the counts from it."""
    row = dict.fromkeys(RAW_MODEL_COLUMNS)
    row.update(
        model_id=model_id,
        name=model_id,
        family=model_id,
        developer="test",
        layers=layers,
        hidden_size=hidden,
        intermediate_size=inter or 4 * hidden,
        attention_heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab_size=vocab,
        tied_embeddings=tied,
        max_context=max_context,
        attention_kind="mla" if kv_lora_rank else ("mha" if kv_heads == heads else "gqa"),
        sliding_window=window,
        full_attention_layers=full_layers,
        kv_lora_rank=kv_lora_rank,
        qk_rope_head_dim=rope,
        mlp_kind=mlp,
        qkv_bias="false",
        linear_bias="false",
        norm_kind="rmsnorm",
        norms_per_layer=2,
        published_params_b=published or 1.0,
        document_id="d",
        params_document_id="d",
    )
    row.update(extra)
    return {k: None if v is None else str(v) for k, v in row.items()}


# Official configs (config.json on the developers' Hugging Face repositories)
LLAMA31_8B = model("llama-3.1-8b", 32, 4096, 32, 8, 128, inter=14336, vocab=128256, published=8.03)
LLAMA2_7B = model("llama-2-7b", 32, 4096, 32, 32, 128, inter=11008, vocab=32000, max_context=4096, published=6.74)
DEEPSEEK_V3 = model(
    "deepseek-v3",
    61,
    7168,
    128,
    128,
    None,
    inter=18432,
    vocab=129280,
    max_context=163840,
    kv_lora_rank=512,
    rope=64,
    q_lora_rank=1536,
    qk_nope_head_dim=128,
    v_head_dim=128,
    moe_intermediate_size=2048,
    num_experts=256,
    experts_per_token=8,
    shared_experts=1,
    first_dense_layers=3,
    published=671,
    published_active_params_b=37,
)


@pytest.fixture
def con():
    c = duckdb.connect(":memory:")
    steps.load_parameters(c)
    yield c
    c.close()


def set_params(con, **params):
    for name, value in params.items():
        if isinstance(value, list):
            con.execute("update core_parameters set value_list = ? where name = ?", [value, name])
        else:
            con.execute("update core_parameters set value = ? where name = ?", [value, name])


def load_models(con, models):
    frame = pd.DataFrame(models, columns=RAW_MODEL_COLUMNS).astype(object)
    frame["source_id"] = "d"
    create_table_from_frame(con, "raw_models", frame)
    for table in ("core_models", "core_weight_formats", "out_model_weights"):
        create_table_from_sql(con, table)


def requirements(con, models, **params):
    set_params(con, **params)
    load_models(con, models)
    create_table_from_sql(con, "out_memory_requirements")
    return con.execute("select * from out_memory_requirements").df()


def counts(con, models):
    load_models(con, models)
    return con.execute("select * from core_models").df().set_index("model_id")


def weights(con, models):
    load_models(con, models)
    return con.execute("select * from out_model_weights").df().set_index(["model_id", "format"])


def test_kv_cache_llama2_7b_nvidia_example(con):
    # NVIDIA, "Mastering LLM Techniques: Inference Optimization" (2023): Llama 2 7B, batch 1, 4096 tokens,
    # FP16: 2 x 4096 x 1 x 32 layers x 4096 hidden x 2 bytes = ~2 GB (2,147,483,648 bytes).
    df = requirements(con, [LLAMA2_7B], inference_contexts=[4096], inference_batches=[1])
    row = df.query("workload == 'inference' and precision == 'bf16' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb == pytest.approx(2.147483648)


def test_kv_cache_opt_13b_vllm_paper(con):
    # Kwon et al. 2023 (vLLM / PagedAttention, arXiv 2309.06180), section 3: for OPT-13B one token's KV cache
    # is 2 x 5120 x 40 x 2 bytes = 800 KB, and a 2048-token request needs up to 1.6 GB.
    df = requirements(
        con,
        [model("opt-13b", 40, 5120, 40, 40, 128, max_context=2048, mlp="plain")],
        inference_contexts=[2048],
        inference_batches=[1],
    )
    row = df.query("workload == 'inference' and precision == 'bf16' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb * 1e9 / 2048 == pytest.approx(819_200)  # 800 KiB per token
    assert row.kv_cache_gb == pytest.approx(1.68, abs=0.01)  # "1.6 GB"


def test_kv_cache_mla_deepseek_v3(con):
    # DeepSeek-V2 paper (arXiv 2405.04434), table 1: MLA caches (d_c + d_h^R) x l elements per token;
    # DeepSeek-V3 config: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers -> 576 x 61 x 2 bytes in BF16.
    df = requirements(con, [DEEPSEEK_V3], inference_contexts=[4096], inference_batches=[1])
    row = df.query("workload == 'inference' and precision == 'fp8' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb * 1e9 / 4096 == pytest.approx(576 * 61 * 2)
    # every expert resident: ~671 B linear weights at 1 byte, embeddings and head at 2 bytes
    assert 671 < row.weights_gb < 690


def test_deepseek_v3_counts_match_the_model_card(con):
    # DeepSeek-V3 model card: "671B total parameters with 37B activated for each token" (the 14B MTP module
    # is published apart and not in the 61 main layers). "37B" is rounded: 36.6 B without the input embedding
    # table, 37.6 B with it.
    m = counts(con, [DEEPSEEK_V3]).loc["deepseek-v3"]
    assert m.params_b == pytest.approx(671, rel=0.005)
    assert 36.5 < m.active_params_b - m.embedding_params_b < 37.5 < m.active_params_b < 37.6


def test_llama_3_1_8b_counts_and_checkpoint_sizes(con):
    # Meta's model card: 8.03 B parameters (embeddings 128,256 x 4,096, untied head). llama-bench prints the
    # GGUF sizes of Llama 3 8B (same architecture) as 14.96 GiB (F16) and 4.58 GiB (Q4_K_M)
    # (XiongjieDai/GPU-Benchmarks-on-LLM-Inference notebooks); AWQ/GPTQ g128 checkpoints are about 5.7 GB.
    w = weights(con, [LLAMA31_8B])
    m = con.execute("select * from core_models").df().iloc[0]
    assert m.params_b == pytest.approx(8.030, rel=0.001)
    assert w.loc[("llama-3.1-8b", "bf16")].weights_gb == pytest.approx(16.06, abs=0.01)
    assert w.loc[("llama-3.1-8b", "bf16")].weights_gb * 1e9 / 2**30 == pytest.approx(14.96, rel=0.01)
    assert w.loc[("llama-3.1-8b", "q4_k_m")].weights_gb * 1e9 / 2**30 == pytest.approx(4.58, rel=0.01)
    awq = w.loc[("llama-3.1-8b", "int4")].weights_gb
    assert 5.6 < awq < 5.8  # 16-bit embeddings and head, 4 + 20/128 bits elsewhere
    assert 4.9 <= w.loc[("llama-3.1-8b", "q4_k_m")].weights_gb <= 5.8


def test_llama_2_7b_gguf_sizes_llama_cpp(con):
    # llama.cpp: llama-bench prints Llama 2 7B Q4_0 as 3.56 GiB (the CUDA scoreboard, discussion 15013); the
    # quantize tool's README prints 4.84 bits per weight for Llama 2 7B Q4_K_M.
    w = weights(con, [LLAMA2_7B])
    assert w.loc[("llama-2-7b", "q4_0")].weights_gb * 1e9 / 2**30 == pytest.approx(3.56, rel=0.01)
    assert w.loc[("llama-2-7b", "q4_k_m")].bits_per_weight == pytest.approx(4.84, rel=0.01)


def test_nf4_double_quantisation_bits(con):
    # Dettmers et al. 2023 (QLoRA), section 3: double quantisation costs 8/64 + 32/(64*256) = 0.127 bits per
    # parameter on top of the 4-bit weights; embeddings and head stay 16-bit.
    w = weights(con, [LLAMA31_8B]).loc[("llama-3.1-8b", "nf4")]
    m = con.execute("select * from core_models").df().iloc[0]
    linear_bits = (w.linear_gb * 8) / m.linear_params_b
    assert linear_bits == pytest.approx(4.127, abs=0.001)
    assert w.embedding_gb == pytest.approx(m.embedding_params_b * 2)


def test_sliding_window_caps_the_cache(con):
    # Mistral 7B v0.1 (config: sliding_window 4096 on all 32 layers, 8 KV heads of 128).
    df = requirements(
        con,
        [model("mistral", 32, 4096, 32, 8, 128, inter=14336, max_context=32768, window=4096, full_layers=0)],
        inference_contexts=[32768],
        inference_batches=[1],
    )
    row = df.query("workload == 'inference' and precision == 'bf16' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb == pytest.approx(2 * 32 * 8 * 128 * 4096 * 2 / 1e9)


def test_activations_seed_003_example(con):
    # Seed article 003 after Korthikanti et al. 2022 (arXiv 2205.05198): 512 tokens x batch 8 x hidden 2048 x
    # 12 layers x (10 + 24/1) bytes: Korthikanti's 34 bytes per s*b*h for an MHA model with a 4h GeLU MLP and
    # dropout. (The article prints 1 GB; the product is 3.4 GB.) The logits come on top.
    toy = model("toy", 12, 2048, 16, 16, 128, max_context=2048, mlp="plain", vocab=1000)
    df = requirements(con, [toy], training_context=512, training_micro_batch=8, dropout_masks=1, flash_attention=0)
    logits = 512 * 8 * 1000 * 6
    row = df.query("method == 'full' and recompute == 'selective'").iloc[0]
    assert row.activations_gb * 1e9 - logits == pytest.approx(3_422_552_064)
    full = df.query("method == 'full' and recompute == 'none'").iloc[0]
    # without recomputation the attention term 5*a*s/h is added: 34 + 5*16*512/2048 = 54 bytes per s*b*h
    assert full.activations_gb * 1e9 - logits == pytest.approx(512 * 8 * 2048 * 12 * 54)
    recompute = df.query("method == 'full' and recompute == 'full'").iloc[0]
    assert recompute.activations_gb * 1e9 - logits == pytest.approx(512 * 8 * 2048 * 12 * 2)


def test_korthikanti_gpt3_per_layer(con):
    # Korthikanti et al. 2022, eq. (2) for GPT-3 175B (s=2048, h=12288, a=96, b=1): per layer
    # s*b*h*(34 + 5*a*s/h) = 2048*12288*(34 + 80) bytes = 2.87 GB; 96 layers.
    gpt3 = model("gpt3", 96, 12288, 96, 96, 128, max_context=2048, mlp="plain", vocab=50257)
    df = requirements(con, [gpt3], training_context=2048, training_micro_batch=1, dropout_masks=1, flash_attention=0)
    row = df.query("method == 'full' and recompute == 'none'").iloc[0]
    assert (row.activations_gb * 1e9 - 2048 * 50257 * 6) / 96 == pytest.approx(2048 * 12288 * 114)


def test_flash_attention_drops_the_quadratic_term(con):
    # FlashAttention (Dao et al. 2022, arXiv 2205.14135) keeps no s x s score matrix: Llama 3.1 8B, full
    # fine-tune at 4k without recomputation holds about 18 GB of layer activations (GQA K and V are a quarter
    # of Q; the SwiGLU MLP keeps three 14,336-wide tensors) plus 3.2 GB of logits at its 128,256-token
    # vocabulary. Eager attention without dropout would also keep the 2*a*s^2-byte softmax per layer (~56 GB).
    df = requirements(con, [LLAMA31_8B], training_context=4096, training_micro_batch=1)
    row = df.query("method == 'full' and recompute == 'none'").iloc[0]
    logits = 4096 * 128256 * 6 / 1e9
    assert logits == pytest.approx(3.15, abs=0.01)
    assert 18 < row.activations_gb < 26
    set_params(con, flash_attention=0)
    create_table_from_sql(con, "out_memory_requirements")
    eager = con.execute(
        "select activations_gb from out_memory_requirements where method = 'full' and recompute = 'none'"
    ).fetchone()[0]
    assert eager - row.activations_gb == pytest.approx(32 * 2 * 32 * 4096 * 4096 / 1e9)


def test_full_finetune_16_bytes_per_param_transformer_math(con):
    # EleutherAI, "Transformer Math 101" (2023): mixed-precision AdamW keeps 2 (fp16 weights) + 2 (grads)
    # + 12 (fp32 copy, momentum, variance) = 16 bytes per parameter.
    df = requirements(con, [LLAMA31_8B])
    row = df.query("method == 'full' and recompute == 'full'").iloc[0]
    params = con.execute("select params_b from core_models").fetchone()[0]
    assert row.weights_gb + row.gradients_gb + row.optimizer_gb == pytest.approx(16 * params)


def test_inference_weights_transformer_math(con):
    # Transformer Math 101: inference memory ~ bytes per parameter x parameters (fp16: 2 bytes); INT8
    # weight-only keeps embeddings and head at 16 bits, so it sits between 1 and 2 bytes per parameter.
    df = requirements(con, [LLAMA2_7B])
    inf = df.query("workload == 'inference'")
    params = con.execute("select params_b from core_models").fetchone()[0]
    assert inf.query("precision == 'bf16'").weights_gb.iloc[0] == pytest.approx(2 * params)
    assert params < inf.query("precision == 'int8'").weights_gb.iloc[0] < 1.05 * params


def test_breakdown_sums_to_required(con):
    df = requirements(con, [LLAMA31_8B])
    parts = df[["weights_gb", "kv_cache_gb", "gradients_gb", "optimizer_gb", "activations_gb", "overhead_gb"]].sum(
        axis=1
    )
    assert (parts - df.required_gb).abs().max() < 1e-9


def test_ownership_seed_003_example(con):
    # Seed article 003: $300k 8 x H100 server over 3 years = $11.4/h, 10 kW at $0.1/kWh = $1/h,
    # rack $1500/month shared by two servers ~ $1/h: about $13.4 an hour.
    # A home RTX 4090 at its $1,599 launch price pays no rack rent: it beats a $0.34/h rental above
    # (amortisation + hosting) / (rental - power) of its hours.
    create_table_from_frame(
        con,
        "core_gpus",
        pd.DataFrame(
            {
                "gpu_id": ["g", "rtx"],
                "name": ["G", "RTX 4090"],
                "segment": ["datacenter", "consumer"],
                "launch_price_usd": [None, 1599.0],
                "tdp_w": [700.0, 450.0],
            }
        ),
    )
    create_table_from_frame(
        con, "core_cheapest_offers", pd.DataFrame({"gpu_id": ["g", "rtx"], "usd_per_gpu_hour": [2.0, 0.34]})
    )
    create_table_from_frame(
        con,
        "out_rentable_machines",
        pd.DataFrame(
            {
                "gpu_id": ["nvidia-h100-sxm-80gb"],
                "instance_gpus": [8],
                "pricing_tier": ["on-demand"],
                "usd_per_gpu_hour": [2.5],
            }
        ),
    )
    create_table_from_sql(con, "out_ownership_cost")
    server = con.execute("select * from out_ownership_cost where ownership_scope = 'server'").df().iloc[0]
    assert server.amortisation_usd_per_hour == pytest.approx(11.42, abs=0.01)
    assert server.total_usd_per_hour == pytest.approx(13.4, abs=0.1)
    assert server.rental_usd_per_gpu_hour == 2.5
    assert server.breakeven_utilisation == pytest.approx((11.416 + 1.027) / (20 - 1), abs=0.001)
    home = con.execute("select * from out_ownership_cost where item = 'RTX 4090' and hosting = 'home'").df().iloc[0]
    assert home.hosting_usd_per_hour == 0 and home.power_usd_per_hour == pytest.approx(0.045)
    amortisation = 1599 * 1.35 / (3 * 8760)
    assert home.breakeven_utilisation == pytest.approx(amortisation / (0.34 - 0.045))
    colo = con.execute("select * from out_ownership_cost where item = 'RTX 4090' and hosting = 'colocation'").df()
    assert colo.breakeven_utilisation.iloc[0] > home.breakeven_utilisation
    assert (
        con.execute("select count(*) from out_ownership_cost where item = 'G' and hosting = 'home'").fetchone()[0] == 0
    )


def test_weights_in_gb_not_gib_accelerate_example(con):
    # Hugging Face accelerate docs, `accelerate estimate-memory bert-base-cased`: float32 model 413.18 MB and
    # "Training using Adam" 1.61 GB -- accelerate reports MiB/GiB. bert-base-cased has 108,310,272 parameters
    # (BERT-base: 12 layers, hidden 768, 3,072 GeLU MLP, 28,996-token cased vocabulary, 512 positions, 2 token
    # types, LayerNorm and biases everywhere, pooler 768 x 768: the positions, token types and pooler come on
    # top of the transformer counted here, whose one extra norm stands for BERT's embedding LayerNorm).
    bert = model(
        "bert",
        12,
        768,
        12,
        12,
        64,
        inter=3072,
        vocab=28996,
        tied="true",
        max_context=512,
        mlp="plain",
        linear_bias="true",
        norm_kind="layernorm",
        published=0.108310272,
    )
    df = requirements(con, [bert])
    params = con.execute("select params_b from core_models").fetchone()[0]
    extra = (512 + 2) * 768 + 768 * 768 + 768  # positions, token types, pooler
    assert (params * 1e9 + extra) == pytest.approx(108_310_272, rel=1e-6)
    fp32 = df.query("workload == 'inference' and precision == 'fp32'").weights_gb.iloc[0] + extra * 4 / 1e9
    assert fp32 * 1e9 / 2**20 == pytest.approx(413.18, abs=0.01)


def test_parameters_are_typed(tmp_path):
    # YAML reads 1.0e9 as the text "1.0e9": the schema refuses it, naming the file and the key
    from pipeline import assumptions, config
    from pipeline.errors import SourceError

    text = config.PARAMETERS_FILE.read_text(encoding="utf-8").replace(
        "finetune_tokens: {value: 1.0e+9,", "finetune_tokens: {value: 1.0e9,"
    )
    bad = tmp_path / "parameters.yml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError) as err:
        assumptions.load(bad, steps.RANKING_FILE)
    assert "parameters.yml, column 'finetune_tokens.value': must be a number" in str(err.value)
    bad.write_text(
        text.replace("1.0e9", "1.0e+9").replace(
            "usable_memory_fraction: {value: 0.95", "usable_memory_fraction: {value: 1.5"
        ),
        encoding="utf-8",
    )
    with pytest.raises(SourceError, match="usable_memory_fraction.value': must be between 0.5 and 1"):
        assumptions.load(bad, steps.RANKING_FILE)


def test_a_measurement_above_its_bound_is_caught(con):
    # an RTX 4090 (1,008 GB/s) cannot decode Llama 2 7B Q4_0 (about 3.7 GB read per token) faster than ~270 tok/s
    load_models(con, [LLAMA2_7B])
    create_table_from_frame(
        con,
        "core_gpus",
        pd.DataFrame(
            {"gpu_id": ["g"], "name": ["RTX 4090"], "architecture": ["Ada Lovelace"], "memory_bandwidth_gbs": [1008.0]}
        ),
    )
    rows = []
    for value in (150.0, 400.0):
        rows.append(
            {
                "measurement_id": f"m{value}",
                "model_id": "llama-2-7b",
                "gpu_id": "g",
                "gpu_count": 1,
                "engine": "llama.cpp",
                "split_mode": "none",
                "format": "q4_0",
                "batch_size": 1,
                "prompt_tokens": 0,
                "generated_tokens": 128,
                "metric": "decode_tokens_per_s",
                "value": value,
                "quote": "q",
                "source_id": "s",
                "source_file": "f.csv",
                "source_row": 2 if value < 200 else 3,
            }
        )
    create_table_from_frame(con, "core_measurements", pd.DataFrame(rows))
    create_table_from_sql(con, "out_measurement_bounds")
    bounds = con.execute(
        "select measured_tokens_per_s, bound_tokens_per_s, within_bound from out_measurement_bounds order by 1"
    ).fetchall()
    assert 260 < bounds[0][1] < 280
    assert [b[2] for b in bounds] == [True, False]
    problems = tables()["out_measurement_bounds"].checks["measurements_within_bounds"].problems(con)
    assert [p.split(" ")[0] for p in problems] == ["f.csv:3"]
