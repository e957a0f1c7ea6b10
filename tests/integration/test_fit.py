"""VRAM fit on the real sources: the vram_fit view, the `gpu-atlas fit` command, the models' memory claims and the
pages that name a GPU's largest model."""

from __future__ import annotations

import json

import duckdb
import pytest


pytestmark = pytest.mark.integration


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


def test_one_largest_model_compare_and_the_gpu_pages_agree(built_site, db):
    """Compare's "largest model on one GPU" (fits.json) is the first of the current models a GPU's page lists as
    fitting on one GPU: one definition (current models only; a superseded model is never the answer)."""
    fits = json.loads((built_site["site"] / "api" / "v1" / "fits.json").read_text())["largest_model_on_one_gpu"]
    current = {r[0] for r in db.execute("select model_id from models where is_current").fetchall()}
    assert fits and all(f["model_id"] in current for by in fits.values() for f in by.values())
    h100 = fits["nvidia-h100-sxm-80gb"]["fp8"]
    page = (built_site["site"] / "gpus" / "nvidia-h100-sxm-80gb" / "index.html").read_text()
    assert h100["name"] in page
