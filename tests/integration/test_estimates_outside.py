"""The estimates of the real catalogue held against references nobody here wrote: the models' official
counts, checkpoint sizes, published measurements. Each test names its reference."""

from __future__ import annotations

import pytest

from pipeline.render.measured import FAMILY, accuracy
from pipeline.tables import tables

pytestmark = pytest.mark.integration


def test_every_model_count_matches_its_card_or_says_why(db):
    # the model cards' published totals (and active counts for MoE): within 0.5%, or a stored explanation
    assert tables()["core_models"].checks["model_params_match_card"].problems(db) == []
    unexplained = db.execute("""select model_id from models where params_note is null
                                and abs(params_deviation) > 0.005""").fetchall()
    assert unexplained == []


def test_no_model_has_a_null_formula_input_or_a_null_row(db):
    inputs = [
        "params_b",
        "active_params_b",
        "layers",
        "hidden_size",
        "intermediate_size",
        "attention_heads",
        "kv_heads",
        "head_dim",
        "vocab_size",
        "max_context",
        "tied_embeddings",
        "mlp_kind",
    ]
    nulls = db.execute(f"select model_id from models where {' or '.join(f'{c} is null' for c in inputs)}").fetchall()
    assert nulls == []
    # Qwen3-30B-A3B (its config: hidden 2048, head_dim 128, 128 experts of 768, 8 per token) has full rows
    row = db.execute("""select count(*), count(decode_tokens_per_s), count(usd_per_million_tokens)
                        from inference_estimates where model_id = 'qwen3-30b-a3b'""").fetchone()
    assert row[0] > 40 and row[0] == row[1]
    assert row[2] > 0
    assert (
        db.execute("select count(*) from vram_fit where model_id = 'qwen3-30b-a3b' and required_gb is null").fetchone()[
            0
        ]
        == 0
    )


def test_llama_3_1_8b_checkpoints(db):
    # 16.06 GB in BF16 (8.03 B x 2 bytes); AWQ/GPTQ g128 about 5.7 GB; GGUF Q4_K_M 4.92 GB (4.58 GiB, llama-bench)
    w = dict(db.execute("select format, weights_gb from model_weights where model_id = 'llama-3.1-8b'").fetchall())
    assert w["bf16"] == pytest.approx(16.06, abs=0.01)
    for fmt in ("int4", "q4_k_m"):
        assert 4.9 <= w[fmt] <= 5.8, fmt


def test_measured_figures_never_beat_their_bound(db):
    n, gpus, pubs, above = db.execute("""select count(*), count(distinct gpu_id), count(distinct source_id),
                                                count(*) filter (where not within_bound) from measured_vs_estimate""").fetchone()
    assert n >= 40 and gpus >= 8 and pubs >= 2
    assert above == 0
    assert tables()["out_measurement_bounds"].checks["measurements_within_bounds"].problems(db) == []


def test_expected_speed_ranks_gpus_like_the_measurements(db):
    # llama.cpp llama-bench, Llama 3 8B Q4_K_M on 11 GPUs (XiongjieDai/GPU-Benchmarks-on-LLM-Inference):
    # leave-one-GPU-out expectations keep the measured order and land within 15% (median)
    rows = FAMILY.frame(db, "accuracy")  # the Measured page's query and its accuracy figures
    a = accuracy(rows[(rows["model_id"] == "llama-3-8b") & (rows["format"] == "q4_k_m")])
    assert a["gpus"] >= 8
    assert a["spearman"] >= 0.9
    assert a["median_abs_error"] < 0.15


def test_one_rtx_4090_serves_llama_3_1_8b_bf16(db):
    # one 4090 measures 54.8 tokens/s (Llama 3 8B F16, llama.cpp) and two measure 53.6: a batch of one runs on
    # one GPU, whose bound (1,008 GB/s over ~15.5 GB read per token) must stay above the measurement
    row = db.execute("""select batch1_gpus, decode_tokens_per_s, decode_expected_tokens_per_s
                        from inference_estimates where model_id = 'llama-3.1-8b'
                          and gpu_id = 'nvidia-rtx-4090-pcie-24gb' and precision = 'bf16'""").fetchone()
    assert row[0] == 1
    assert 55 <= row[1] <= 68
    assert row[2] < row[1]


def test_only_real_deployments(db):
    degrees = {
        r[0]
        for r in db.execute(
            "select distinct batch1_gpus from inference_estimates union "
            "select distinct gpus_used from inference_estimates"
        ).fetchall()
    }
    # (a model no machine of the catalogue holds has no deployment: NULL)
    assert all(d is None or d in (1, 2, 4, 8) or d % 8 == 0 for d in degrees), degrees
    fp8_without_units = db.execute("""select count(*) from inference_estimates as e join gpus as g using (gpu_id)
                                      where e.compute_mode = 'fp8 (W8A8)' and g.fp8_tflops is null""").fetchone()[0]
    assert fp8_without_units == 0
    assert db.execute("select count(*) from inference_estimates where compute_mode = 'fp8 (W8A8)'").fetchone()[0] > 0
    # Llama 3.1 70B has 64 heads: every serving deployment of it divides them
    assert (
        db.execute("""select count(*) from vram_fit where model_id = 'llama-3.1-70b' and workload = 'inference'
                         and fits and 64 % gpu_count <> 0""").fetchone()[0]
        == 0
    )
    assert tables()["out_inference_estimates"].checks["inference_estimates_sound"].problems(db) == []


def test_speed_rises_as_weights_shrink(db):
    # fewer bytes per weight never make one sequence's bound slower on the same deployment
    bad = db.execute("""select a.model_id, a.gpu_id from inference_estimates as a
                        join inference_estimates as b using (model_id, gpu_id)
                        where a.precision = 'bf16' and b.precision = 'fp8' and a.batch1_gpus = b.batch1_gpus
                          and b.decode_tokens_per_s < a.decode_tokens_per_s""").fetchall()
    assert bad == []


def test_finetune_time_and_cost_wherever_a_price_exists(db):
    missing = db.execute("""select count(*) from training_estimates
                            where cheapest_usd_per_gpu_hour is not null and gpus_needed is not null
                              and finetune_usd is null""").fetchone()[0]
    assert missing == 0
    # a fine-tune no deployment can hold has neither time nor cost
    assert (
        db.execute(
            "select count(*) from training_estimates where gpus_needed is null and "
            "(finetune_usd is not null or finetune_hours is not null)"
        ).fetchone()[0]
        == 0
    )
    assert db.execute("select count(*) from training_estimates where finetune_usd > 0").fetchone()[0] > 50
    # LoRA and QLoRA skip the weight gradients (4N FLOPs per token) and recompute the forward pass (+2N) only where
    # the activations would not fit: on an 80 GB card Llama 3.1 8B's LoRA needs no recomputation, on 24 GB it does
    flops = dict(
        db.execute("""select gpu_id, flops_per_param_token from training_estimates
                               where model_id = 'llama-3.1-8b' and method = 'lora'""").fetchall()
    )
    assert flops["nvidia-h100-sxm-80gb"] == 4 and flops["nvidia-rtx-4090-pcie-24gb"] == 6
    full = dict(
        db.execute("""select method, tokens_per_s_per_gpu from training_estimates
                              where model_id = 'llama-3.1-8b' and gpu_id = 'nvidia-h100-sxm-80gb'""").fetchall()
    )
    assert full["lora"] == pytest.approx(full["full"] * 6 / 4)
    assert (
        db.execute("""select count(*) from training_estimates where method = 'full'
                         and flops_per_param_token <> 6""").fetchone()[0]
        == 0
    )


def test_moe_batch_reads_the_experts_it_touches(db):
    # B tokens routed to k of E experts touch E * (1 - (1 - k/E)^B) distinct experts per layer: DeepSeek-V3
    # (256 routed experts, 8 per token, config.json) at the serving batch of 16 reads about 102 of 256, so its
    # batch step reads far less than every expert
    row = db.execute("""select experts_touched_per_layer, batch_size from inference_estimates
                        where model_id = 'deepseek-v3' limit 1""").fetchone()
    assert row[1] == 16 and row[0] == pytest.approx(101.9, abs=0.1)
