"""The SQL estimates against published worked numbers. Each test cites where its number comes from."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from pipeline import steps
from pipeline.db import create_table_from_frame, create_table_from_sql

MODEL_COLUMNS = ["model_id", "params_b", "active_params_b", "layers", "hidden_size", "attention_heads", "kv_heads",
                 "head_dim", "max_context", "attention_kind", "sliding_window", "full_attention_layers",
                 "kv_lora_rank", "qk_rope_head_dim"]


def model(model_id, params_b, layers, hidden, heads, kv_heads, head_dim, max_context=131072, kind="gqa",
          window=None, full_layers=None, kv_lora_rank=None, rope=None, active=None):
    return dict(zip(MODEL_COLUMNS, [model_id, params_b, active or params_b, layers, hidden, heads, kv_heads, head_dim,
                                    max_context, kind, window, full_layers, kv_lora_rank, rope]))


@pytest.fixture
def con():
    c = duckdb.connect(":memory:")
    steps.load_parameters(c)
    yield c
    c.close()


def requirements(con, models, **params):
    for name, value in params.items():
        if isinstance(value, list):
            con.execute("update core_parameters set value_list = ? where name = ?", [value, name])
        else:
            con.execute("update core_parameters set value = ? where name = ?", [value, name])
    frame = pd.DataFrame(models)
    for col in ("sliding_window", "full_attention_layers", "kv_lora_rank", "qk_rope_head_dim"):
        frame[col] = frame[col].astype("Int64")
    create_table_from_frame(con, "core_models", frame)
    create_table_from_sql(con, "out_memory_requirements")
    return con.execute("select * from out_memory_requirements").df()


def test_kv_cache_llama2_7b_nvidia_example(con):
    # NVIDIA, "Mastering LLM Techniques: Inference Optimization" (2023): Llama 2 7B, batch 1, 4096 tokens,
    # FP16: 2 x 4096 x 1 x 32 layers x 4096 hidden x 2 bytes = ~2 GB (2,147,483,648 bytes).
    df = requirements(con, [model("llama-2-7b", 6.74, 32, 4096, 32, 32, 128, max_context=4096, kind="mha")],
                      inference_contexts=[4096], inference_batches=[1])
    row = df.query("workload == 'inference' and precision == 'bf16' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb == pytest.approx(2 * 4096 * 1 * 32 * 4096 * 2 / 1e9)
    assert row.kv_cache_gb == pytest.approx(2.147483648)


def test_kv_cache_opt_13b_vllm_paper(con):
    # Kwon et al. 2023 (vLLM / PagedAttention, arXiv 2309.06180), section 3: for OPT-13B one token's KV cache
    # is 2 x 5120 x 40 x 2 bytes = 800 KB, and a 2048-token request needs up to 1.6 GB.
    df = requirements(con, [model("opt-13b", 13, 40, 5120, 40, 40, 128, max_context=2048, kind="mha")],
                      inference_contexts=[2048], inference_batches=[1])
    row = df.query("workload == 'inference' and precision == 'bf16' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb * 1e9 / 2048 == pytest.approx(819_200)  # 800 KiB per token
    assert row.kv_cache_gb == pytest.approx(1.68, abs=0.01)  # "1.6 GB"


def test_kv_cache_mla_deepseek_v3(con):
    # DeepSeek-V2 paper (arXiv 2405.04434), table 1: MLA caches (d_c + d_h^R) x l elements per token;
    # DeepSeek-V3 config: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers -> 576 x 61 x 2 bytes in BF16.
    df = requirements(con, [model("dsv3", 671, 61, 7168, 128, 128, 192, max_context=163840, kind="mla",
                                  kv_lora_rank=512, rope=64, active=37)],
                      inference_contexts=[4096], inference_batches=[1])
    row = df.query("workload == 'inference' and precision == 'fp8' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb * 1e9 / 4096 == pytest.approx(576 * 61 * 2)
    assert row.weights_gb == pytest.approx(671)  # every expert resident, 1 byte per FP8 weight


def test_sliding_window_caps_the_cache(con):
    # Mistral 7B v0.1 (config: sliding_window 4096 on all 32 layers, 8 KV heads of 128).
    df = requirements(con, [model("mistral", 7.24, 32, 4096, 32, 8, 128, max_context=32768, window=4096)],
                      inference_contexts=[32768], inference_batches=[1])
    row = df.query("workload == 'inference' and precision == 'bf16' and kv_precision == 'bf16'").iloc[0]
    assert row.kv_cache_gb == pytest.approx(2 * 32 * 8 * 128 * 4096 * 2 / 1e9)


def test_activations_seed_003_example(con):
    # Seed article 003 after Korthikanti et al. 2022 (arXiv 2205.05198): 512 tokens x batch 8 x hidden 2048 x
    # 12 layers x (10 + 24/1) bytes. The article prints the result as 1,073,741,824 bytes ("1 GB"), but the
    # product is 3,422,552,064 bytes (3.4 GB): an arithmetic slip in the article, not in the formula.
    df = requirements(con, [model("toy", 0.6, 12, 2048, 16, 16, 128, max_context=2048, kind="mha")],
                      training_context=512, training_micro_batch=8)
    row = df.query("method == 'full' and recompute == 'selective'").iloc[0]
    assert row.activations_gb * 1e9 == pytest.approx(512 * 8 * 2048 * 12 * 34)
    assert row.activations_gb * 1e9 == pytest.approx(3_422_552_064)
    full = df.query("method == 'full' and recompute == 'none'").iloc[0]
    # without recomputation the attention term 5*a*s/h is added: 34 + 5*16*512/2048 = 54 bytes per s*b*h
    assert full.activations_gb * 1e9 == pytest.approx(512 * 8 * 2048 * 12 * 54)
    recompute = df.query("method == 'full' and recompute == 'full'").iloc[0]
    assert recompute.activations_gb * 1e9 == pytest.approx(512 * 8 * 2048 * 12 * 2)


def test_korthikanti_gpt3_per_layer(con):
    # Korthikanti et al. 2022, eq. (2) for GPT-3 175B (s=2048, h=12288, a=96, b=1): per layer
    # s*b*h*(34 + 5*a*s/h) = 2048*12288*(34 + 80) bytes = 2.87 GB; 96 layers.
    df = requirements(con, [model("gpt3", 175, 96, 12288, 96, 96, 128, max_context=2048, kind="mha")],
                      training_context=2048, training_micro_batch=1)
    row = df.query("method == 'full' and recompute == 'none'").iloc[0]
    assert row.activations_gb / 96 == pytest.approx(2048 * 12288 * 114 / 1e9)


def test_full_finetune_16_bytes_per_param_transformer_math(con):
    # EleutherAI, "Transformer Math 101" (2023): mixed-precision AdamW keeps 2 (fp16 weights) + 2 (grads)
    # + 12 (fp32 copy, momentum, variance) = 16 bytes per parameter: 7B -> 112 GB of model states.
    df = requirements(con, [model("seven", 7, 32, 4096, 32, 32, 128)])
    row = df.query("method == 'full' and recompute == 'full'").iloc[0]
    assert row.weights_gb + row.gradients_gb + row.optimizer_gb == pytest.approx(112)


def test_inference_weights_transformer_math(con):
    # Transformer Math 101: inference memory ~ bytes per parameter x parameters (int8 7B -> 7 GB, fp16 -> 14 GB).
    df = requirements(con, [model("seven", 7, 32, 4096, 32, 32, 128)])
    inf = df.query("workload == 'inference'")
    assert inf.query("precision == 'int8'").weights_gb.iloc[0] == pytest.approx(7)
    assert inf.query("precision == 'bf16'").weights_gb.iloc[0] == pytest.approx(14)


def test_breakdown_sums_to_required(con):
    df = requirements(con, [model("seven", 7, 32, 4096, 32, 8, 128)])
    parts = df[["weights_gb", "kv_cache_gb", "gradients_gb", "optimizer_gb", "activations_gb", "overhead_gb"]].sum(axis=1)
    assert (parts - df.required_gb).abs().max() < 1e-9


def test_ownership_seed_003_example(con):
    # Seed article 003: $300k 8 x H100 server over 3 years = $11.4/h, 10 kW at $0.1/kWh = $1/h,
    # rack $1500/month shared by two servers ~ $1/h: about $13.4 an hour.
    create_table_from_frame(con, "core_gpus", pd.DataFrame({"gpu_id": ["g"], "name": ["G"],
                                                            "launch_price_usd": [None], "tdp_w": [700.0]}))
    create_table_from_frame(con, "core_cheapest_offers", pd.DataFrame({"gpu_id": ["g"], "usd_per_gpu_hour": [2.0]}))
    create_table_from_sql(con, "out_ownership_cost")
    server = con.execute("select * from out_ownership_cost where scope = 'server'").df().iloc[0]
    assert server.amortisation_usd_per_hour == pytest.approx(11.42, abs=0.01)
    assert server.total_usd_per_hour == pytest.approx(13.4, abs=0.1)


def test_weights_in_gb_not_gib_accelerate_example(con):
    # Hugging Face accelerate docs, `accelerate estimate-memory bert-base-cased`: float32 model 413.18 MB and
    # "Training using Adam" 1.61 GB -- accelerate reports MiB/GiB. bert-base-cased has 108,310,272 parameters.
    # GPU Atlas uses GB = 10^9 bytes: 0.4332 GB = 413.18 MiB; 16 bytes/param (Adam) = 1.733 GB = 1.61 GiB.
    df = requirements(con, [model("bert", 0.108310272, 12, 768, 12, 12, 64, max_context=512, kind="mha")])
    fp32 = df.query("workload == 'inference' and precision == 'fp32'").weights_gb.iloc[0]
    assert fp32 * 1e9 / 2**20 == pytest.approx(413.18, abs=0.01)
    full = df.query("method == 'full' and recompute == 'full'").iloc[0]
    states = full.weights_gb + full.gradients_gb + full.optimizer_gb
    assert states * 1e9 / 2**30 == pytest.approx(1.61, abs=0.01)
