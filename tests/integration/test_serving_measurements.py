"""Published serving-engine measurements against the serving model: enough of them, none beyond its bound, and
the build refusing one that is."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def test_enough_serving_figures_on_enough_gpus_from_enough_publications(db):
    """At least 60 figures on at least 6 GPUs (H100, H200, B200 and MI300X among them) from at least three
    publishers (a publisher's several releases of one table count once)."""
    figures, gpus, publishers = db.execute("""
        select count(*), count(distinct e.gpu_id), count(distinct s.publisher)
        from serving_vs_estimate as e join sources as s using (source_id)
        where not e.speculative_decoding""").fetchone()
    assert figures >= 60 and gpus >= 6 and publishers >= 3, (figures, gpus, publishers)
    measured = {r[0] for r in db.execute("select distinct gpu_id from serving_measurements").fetchall()}
    assert {
        "nvidia-h100-sxm-80gb",
        "nvidia-h200-sxm-141gb",
        "nvidia-b200-sxm-180gb",
        "amd-mi300x-oam-192gb",
    } <= measured


def test_no_serving_figure_beats_its_bound(db):
    beyond = db.execute("""select measurement_id, quantity, measured, bound from serving_vs_estimate
                           where not speculative_decoding and within_bound is distinct from true""").fetchall()
    assert beyond == []
    # the bound is not vacuous: the best throughput figures come within a factor of three of it
    best = db.execute("""select max(measured_share_of_bound) from serving_vs_estimate
                         where quantity = 'throughput'""").fetchone()[0]
    assert 0.3 < best <= 1.02


def test_expectations_never_beat_the_bound_and_every_family_is_calibrated(db):
    assert (
        db.execute("""select count(*) from serving_vs_estimate
                         where expected_capped > bound * (1 + 1e-9) or expected_ttft < bound * (1 - 1e-9)""").fetchone()[
            0
        ]
        == 0
    )
    rows = db.execute(
        "select engine_family, model_kind, calibrated, decode_efficiency, compute_efficiency from serving_calibration"
    ).fetchall()
    assert {(f, k) for f, k, *_ in rows} == {(f, k) for f in ("vllm-sglang", "tensorrt-llm") for k in ("dense", "moe")}
    assert all(c for _, _, c, _, _ in rows)
    assert all(0 < e <= 1 and 0 < c <= 1 for *_, e, c in rows)


def test_the_calibration_stays_inside_physical_ranges_and_publishes_its_held_out_errors(db):
    """A share of peak no engine reaches (bandwidth above 92%, compute above 85%) or a negative overhead would be a fit
    trading one term against another; each family is calibrated on at least five GPUs, and its error on figures it
    did not see (without their GPU, without their publication) is published for every quantity it has."""
    rows = db.execute(
        """select engine_family, model_kind, decode_efficiency, compute_efficiency, step_overhead_us,
                  sequence_overhead_us, gpus_measured, publications, held_out_median_abs_error,
                  publication_held_out_median_abs_error, per_user_held_out_median_abs_error
           from serving_calibration"""
    ).fetchall()
    for family, kind, bw, fl, step, seq, gpus, pubs, by_gpu, by_pub, per_user in rows:
        assert 0 < bw <= 0.92 and 0 < fl <= 0.85, (family, kind, bw, fl)
        assert step >= 0 and seq >= 0, (family, kind)
        assert gpus >= 3 and pubs >= 2, (family, kind, gpus, pubs)
        assert by_gpu is not None and by_pub is not None and 0 <= by_gpu < 1 and 0 <= by_pub < 1, (family, kind)
    gpus = dict(
        db.execute("select engine_family, count(distinct gpu_id) from serving_measurements group by 1").fetchall()
    )
    assert gpus["vllm-sglang"] >= 5 and gpus["tensorrt-llm"] >= 5, gpus


def test_a_time_to_first_token_has_no_throughput_expectation(db):
    """expected_capped is throughput or per-user speed; a time to first token has expected_ttft only (least() over a
    NULL once made it the bound)."""
    rows = db.execute(
        """select count(*) filter (where expected_capped is not null), count(*) filter (where expected_ttft is null)
           from serving_vs_estimate where quantity = 'ttft'"""
    ).fetchone()
    assert rows == (0, 0)


def test_a_figure_beyond_its_bound_stops_the_build(sources_copy, isolated_paths):
    """A throughput ten times what the hardware can give, in a copy of the sources: the build fails naming it."""
    from pipeline.jobs import build
    from pipeline.sourcefiles import write_checksums

    path = sources_copy / "measurements" / "tensorrt-llm-perf-overview" / "2026-11-24" / "serving.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    cells = lines[1].split(",")
    col = header.index("value")
    cells[col] = str(float(cells[col]) * 10)
    lines[1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_checksums(sources_copy)
    from pipeline.config import paths_overridden

    with paths_overridden(isolated_paths / "data" / "atlas.duckdb", isolated_paths / "build", sources_copy):
        outcome = build()
    assert not outcome.ok
    text = "\n".join(outcome.errors)
    assert "serving_measurements_within_bounds" in text
    assert "tensorrt-llm-perf-overview" in text and ":2 " in text
