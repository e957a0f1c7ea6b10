"""`gpu-atlas mcp` through the official MCP SDK's client: the tools an assistant sees, the Planner's first option
for Llama 3.1 70B, answers that carry their sources and dates, and a sql tool that only reads."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest
from mcp import Client, StdioServerParameters

from pipeline.mcp_server import build_server
from pipeline.plan import Question, plan

pytestmark = pytest.mark.integration

TOOLS = {"plan", "fit", "gpu", "compare_gpus", "prices", "sql"}


def call(server, tool: str, args: dict):
    async def go():
        async with Client(server) as client:
            return await client.call_tool(tool, args)

    return asyncio.run(go())


def payload(result) -> dict:
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def test_the_tools_over_stdio_and_the_planners_first_option(built_site):
    """The server as an assistant launches it (`gpu-atlas mcp`, stdio), against the same build's database."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pipeline.cli", "mcp"],
        env={**os.environ, "GPU_ATLAS_DB": str(built_site["db"])},
    )

    async def go():
        async with Client(params) as client:
            tools = await client.list_tools()
            answer = await client.call_tool("plan", {"model": "llama-3.1-70b", "users": 50, "precision": "fp8"})
            return {t.name for t in tools.tools}, answer

    names, answer = asyncio.run(go())
    assert TOOLS <= names
    got = payload(answer)
    expected = plan(built_site["db"], Question(model="llama-3.1-70b", users=50, precision="fp8"), limit=1)
    first, want = got["options"][0], expected["options"][0]
    assert (first["machine_id"], first["tensor_parallel"]) == (want["machine_id"], want["tensor_parallel"])
    assert first["usd_per_million_output_tokens"] == pytest.approx(want["usd_per_million_output_tokens"])
    assert first["observed_on"] and got["sources"] and all(s["url"] for s in got["sources"])
    assert "bound" in got["what_the_numbers_are"] and "expected" in got["what_the_numbers_are"]


def test_answers_carry_sources_and_dates(built_site):
    server = build_server(built_site["db"])
    gpu = payload(call(server, "gpu", {"gpu_id": "nvidia-h100-sxm-80gb"}))
    assert gpu["gpu"]["memory_gb"] == 80 and gpu["canonical_figures"]
    assert {f["source_id"] for f in gpu["canonical_figures"]} <= {s["source_id"] for s in gpu["sources"]}
    assert all(p["observed_on"] for p in gpu["price_picks"])
    pair = payload(call(server, "compare_gpus", {"gpu_ids": ["nvidia-h100-sxm-80gb", "amd-mi300x-oam-192gb"]}))
    for row in pair["gpus"]:
        assert row["reference_model_expected_tokens_per_s"] < row["reference_model_bound_tokens_per_s"]
    fit = payload(call(server, "fit", {"model": "gpt-oss-120b", "precision": "fp8"}))
    assert fit["required_gb"] > 60 and fit["sources"]


def test_sql_reads_and_nothing_else(built_site):
    server = build_server(built_site["db"])
    rows = payload(call(server, "sql", {"query": "select count(*) as n from models"}))
    assert rows["rows"][0][0] >= 57
    many = payload(call(server, "sql", {"query": "select * from range(1000)"}))
    assert len(many["rows"]) == 200 and many["truncated"]
    for query in ("create table t as select 1", "copy (select 1) to 'x.csv'", "select * from read_csv('/etc/passwd')"):
        result = call(server, "sql", {"query": query})
        assert result.is_error, query
    bad = call(server, "plan", {"model": "llama-3.1-70b", "users": 0})
    assert bad.is_error and "users" in bad.content[0].text
