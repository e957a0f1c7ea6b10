"""Rankings on the real sources: both workloads, every component visible, value among cards that hold the reference."""

from __future__ import annotations


import pytest


pytestmark = pytest.mark.integration


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
