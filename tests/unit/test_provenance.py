"""A source is cited at its publisher's own address: proxies, mirrors, preview deployments and raw IP addresses are
refused with the file and key, and no sidecar under sources/ uses one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipeline.sourcefiles import check_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "url",
    [
        "https://siteproxy.ruqli.workers.dev/https/docs.digitalocean.com/products/droplets/details/pricing",
        "http://www.learndenglisch.com/proxies?url=https%3A%2F%2Fcloud.tencent.com%2Fdocument%2Fproduct%2F560%2F8025",
        "http://120.77.8.217/papers?topic=Inference+Optimization",
        "https://prompt-engineering-guide-ar7flcqp6-dair-ai.vercel.app/models/mixtral-8x22b",
        "https://techwormam.pages.dev/posts/nvidia-unveils-its-powerful-pcie-hbm2",
        "https://awww.anandtech.com/Show/Index/10516",
        "http://2fit.anandtech.com/show/17326/amd-releases-instinct-mi210",
    ],
)
def test_a_copy_on_another_host_is_refused_with_the_file_and_key(url):
    (problem,) = check_url(url, "sources/x/2026-01-01/prices.source.yml", "documents[0].url")
    assert problem.file == "sources/x/2026-01-01/prices.source.yml" and problem.column == "documents[0].url"
    assert "not the publisher's address" in problem.rule


@pytest.mark.parametrize(
    "url",
    [
        "https://www.anandtech.com/show/10516/nvidia-announces-quadro-pascal-family-quadro-p6000-p5000",
        "https://docs.digitalocean.com/products/droplets/details/pricing/",
        "https://github.com/ggml-org/llama.cpp/pull/16834",
        "https://arxiv.org/abs/2401.04088",
        "seed:shared/seeds/004_d7ff0e457db855fe.txt",
    ],
)
def test_the_publishers_own_address_passes(url):
    assert check_url(url, "f", "url") == []


def test_no_sidecar_cites_a_proxy_mirror_preview_or_raw_ip():
    bad = []
    for side in sorted((ROOT / "sources").rglob("*.source.yml")):
        meta = yaml.safe_load(side.read_text(encoding="utf-8")) or {}
        urls = [("url", meta.get("url"))] + [
            (f"documents[{i}].url", d.get("url")) for i, d in enumerate(meta.get("documents") or [])
        ]
        bad += [(side.name, key, url) for key, url in urls if url and check_url(url, side.name, key)]
    assert bad == []
