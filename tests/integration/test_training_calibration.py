"""Training speeds calibrated on published runs (llm-foundry, NeMo AutoModel, AMD Primus) and checked against
runs the calibration does not use (torchtune, NeMo AutoModel LoRA, PEFT on an L40S)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

A100_80, A100_40 = "nvidia-a100-sxm-80gb", "nvidia-a100-sxm-40gb"
H100, L40S, RTX4090 = "nvidia-h100-sxm-80gb", "nvidia-l40s-pcie-48gb", "nvidia-rtx-4090-pcie-24gb"


def test_the_calibration_rests_on_published_runs_on_several_gpus(db):
    runs, gpus, publications = db.execute("""
        select count(*), count(distinct gpu_id), count(distinct source_id)
        from training_vs_estimate where in_calibration""").fetchone()
    assert runs >= 20 and gpus >= 4 and publications >= 3
    # every GPU is calibrated: measured, or on the line fitted on the measured ones; never the bare assumption
    scopes = dict(db.execute("select calibration_scope, count(*) from training_calibration group by all").fetchall())
    assert scopes.get("assumed", 0) == 0 and scopes["gpu"] == gpus and scopes["line"] > 40


def test_our_utilisation_stays_below_the_mfu_each_benchmark_prints(db):
    # llm-foundry prints MFU counting attention FLOPs too; the 6N count leaves attention out, so ours must be
    # lower, and for models of 6 B parameters and more at up to 4,096 tokens (attention a small share) close to it
    rows = db.execute("""select measured_utilisation, printed_mfu, seq_len, params_b from training_measurements
                         where printed_mfu is not null""").fetchall()
    assert len(rows) > 100
    for ours, printed, seq, params in rows:
        assert ours <= printed * 1.001, (ours, printed, seq, params)
        if params >= 6 and seq <= 4096:
            assert ours >= printed * 0.8, (ours, printed, seq, params)


def test_held_out_errors_are_small_and_shown(db):
    errors = [
        abs(e)
        for (e,) in db.execute(
            "select held_out_error from training_calibration where calibration_scope = 'gpu'"
        ).fetchall()
    ]
    assert errors and all(e is not None for e in errors)
    errors.sort()
    assert errors[len(errors) // 2] < 0.15  # median held-out error under 15 %
    assert max(errors) < 0.25


def test_memory_bandwidth_separates_gpus_of_one_peak_as_the_runs_do(db):
    # A100 40 GB and 80 GB share the 312 TFLOPS peak; in llm-foundry's runs the 80 GB (faster memory) is ahead
    u = dict(
        db.execute(
            "select gpu_id, measured_utilisation from training_calibration where gpu_id in (?, ?)", [A100_80, A100_40]
        ).fetchall()
    )
    assert u[A100_80] > u[A100_40]
    slope = db.execute("""select regr_slope(1 / measured_utilisation, flops_per_byte) from training_calibration
                          where calibration_scope = 'gpu'""").fetchone()[0]
    assert slope > 0


def test_the_a100_trains_faster_than_the_l40s_despite_its_lower_spec_tflops(db):
    speed = dict(
        db.execute(
            """select gpu_id, tokens_per_s_per_gpu from training_estimates
                               where model_id = 'llama-3.1-8b' and method = 'full' and gpu_id in (?, ?)""",
            [A100_80, L40S],
        ).fetchall()
    )
    tflops = dict(
        db.execute(
            "select gpu_id, dense_tflops from training_calibration where gpu_id in (?, ?)", [A100_80, L40S]
        ).fetchall()
    )
    assert tflops[L40S] > tflops[A100_80]
    assert speed[A100_80] > speed[L40S]
    # the one published L40S run (PEFT, unpacked short samples) is slower still than our L40S estimate
    (measured, expected) = db.execute(
        """select measured_tokens_per_s_per_gpu, expected_tokens_per_s_per_gpu
                                         from training_vs_estimate where gpu_id = ? and method = 'full'""",
        [L40S],
    ).fetchone()
    assert measured < expected


@pytest.mark.parametrize(
    "gpu_id,method,tolerance",
    [
        (RTX4090, "full", 0.15),  # torchtune README: 1,650 tok/s, Llama 3.1 8B on one RTX 4090
        (RTX4090, "qlora", 0.15),  # torchtune README: 2,413 tok/s
        (H100, "lora", 0.25),  # NeMo AutoModel: Llama3 8B, Qwen2.5 7B / 32B, Llama3 70B LoRA on DGX-H100
    ],
)
def test_runs_outside_the_calibration_land_near_their_estimates(db, gpu_id, method, tolerance):
    rows = db.execute(
        """select expected_tokens_per_s_per_gpu / measured_tokens_per_s_per_gpu - 1
                         from training_vs_estimate where gpu_id = ? and method = ? and not in_calibration""",
        [gpu_id, method],
    ).fetchall()
    assert rows
    for (error,) in rows:
        assert abs(error) < tolerance, error


def test_lora_costs_less_compute_than_a_full_fine_tune_where_activations_fit(db):
    full, lora = (
        db.execute(
            """select tokens_per_s_per_gpu from training_estimates
                                where model_id = 'llama-3.1-8b' and gpu_id = ? and method = ?""",
            [H100, m],
        ).fetchone()[0]
        for m in ("full", "lora")
    )
    assert lora == pytest.approx(full * 6 / 4, rel=1e-9)
