"""The GPU catalogue on the real sources: identity, dense figures, the documents' kinds and disagreements, the
seed articles' claims explained, and what coverage lists."""

from __future__ import annotations

import re

import pytest

from pipeline.config import ROOT
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
    "google-tpu-v5e-tpu-16gb",
    "google-tpu-v5p-tpu-95gb",
    "google-tpu7x-tpu-192gb",
    "huawei-ascend-910c-npu-128gb",
    "nvidia-rtx-pro-5000-pcie-48gb",
    "intel-gaudi3-pcie-128gb",
]


def test_the_catalogue_holds_the_gpus_people_rent(db):
    assert db.execute("select count(*) from gpus").fetchone()[0] >= 85
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
