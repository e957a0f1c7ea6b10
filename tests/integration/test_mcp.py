"""`gpu-atlas mcp` through the official MCP SDK's client: the tools an assistant sees, the Planner's first option
for Llama 3.1 70B, answers that carry their sources and dates, and a sql tool that only reads."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from pipeline.contract import VIEWS
from pipeline.mcp_server import build_server
from pipeline.plan import DEFAULTS, Question, plan

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
    # a replica across machines of a cluster cites the provider's document of the fabric
    big = payload(call(server, "plan", {"model": "deepseek-r1", "precision": "fp8", "users": 64, "limit": 40}))
    across = [o for o in big["options"] if (o.get("pipeline_parallel") or 1) > 1]
    assert across and all(o["cluster_network"] for o in across)
    cited = {s["source_id"] for s in big["sources"]}
    assert any("-cluster-" in s for s in cited), cited


def test_sql_reads_and_nothing_else(built_site):
    server = build_server(built_site["db"])
    rows = payload(call(server, "sql", {"query": "select count(*) as n from models"}))
    assert rows["rows"][0][0] >= 57
    many = payload(call(server, "sql", {"query": "select * from range(1000)"}))
    assert len(many["rows"]) == 200 and many["truncated"] and many["truncated_by"] == "rows"
    views = payload(call(server, "sql", {"query": "select table_name from information_schema.tables"}))
    assert {r[0] for r in views["rows"]} == set(VIEWS)  # the public views, nothing internal


def _file_state(db: Path) -> dict[str, bytes]:
    """Every file of the published database's folder (the database, a .wal, a .tmp/ folder), with its bytes."""
    return {str(p.relative_to(db.parent)): p.read_bytes() for p in sorted(db.parent.rglob("*")) if p.is_file()}


# (class of attack, query or tool call, a word the refusal must contain)
ATTACKS = [
    ("write the database", "copy (select 1) to '{db}' (format csv, use_tmp_file false)", "SELECT"),
    ("write its .wal", "copy (select 1) to '{db}.wal' (format csv)", "SELECT"),
    ("write a temporary file", "copy (select 1) to '{tmp}' (format csv)", "SELECT"),
    ("find the path", "select path from duckdb_databases()", "duckdb_databases"),
    ("crash with CALL", "call enable_logging(storage='file', storage_path='/tmp/l'); select 1", "one statement"),
    ("CALL alone", "call enable_logging(storage='file', storage_path='/tmp/l')", "CALL"),
    ("PRAGMA", "pragma database_list", "SELECT"),
    ("SET", "set enable_external_access = true", "SET"),
    ("ATTACH", "attach '{db}' as w", "ATTACH"),
    ("INSTALL", "install httpfs", "SELECT"),
    ("EXPORT", "export database '/tmp/gpu-atlas-export'", "EXPORT"),
    ("DDL", "create table t as select 1", "CREATE"),
    ("DML", "insert into gpus select * from gpus", "INSERT"),
    ("two statements", "select 1; drop view gpus", "one statement"),
    ("internal table", "select * from core_gpus", "public view"),
    ("internal table in a subquery", "select * from gpus where gpu_id in (select gpu_id from out_rankings)", "public"),
    ("a raw table by catalog", "select * from gpu_atlas.main.raw_prices", "public views"),
    ("a file", "select * from '/etc/passwd'", "public view"),
    ("a file function", "select * from read_csv('/etc/passwd')", "read_csv"),
    ("dynamic SQL", "select * from query('select * from core_gpus')", "query"),
    ("empty", "  ; ", "empty"),
    ("not SQL", "selec 1", "parse"),
    ("too long", "select 1" + " " * 200_000, "characters"),
    ("memory bomb", "select list(x) from range(300000000) t(x)", "memory"),
]


def test_the_attack_set_holds(built_site):
    """Every class of attack on the sql tool, through the official SDK's stdio client against `gpu-atlas mcp`:
    each refused with its reason, the server answering after each, the published database byte-identical; then
    a CPU bomb and a size bomb stopped by their limits while parallel calls go on."""
    db = built_site["db"]
    before = _file_state(db)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pipeline.cli", "mcp"], env={**os.environ, "GPU_ATLAS_DB": str(db)}
    )

    async def go():
        out = {}
        async with Client(params) as client:
            for name, query, _ in ATTACKS:
                query = query.format(db=db, tmp=db.parent / ".tmp" / "x")
                out[name] = await client.call_tool("sql", {"query": query})
                out[name + " then"] = await client.call_tool("sql", {"query": "select count(*) from gpus"})
            out["parallel"] = await asyncio.gather(
                client.call_tool("sql", {"query": "select count(*) from range(1000000000000)"}),
                client.call_tool("sql", {"query": "select repeat('x', 1000000) from range(200)"}),
                *(client.call_tool("sql", {"query": f"select {i} as n"}) for i in range(3)),
            )
            out["after"] = await client.call_tool("sql", {"query": "select count(*) from models"})
        return out

    out = asyncio.run(go())
    for name, _, word in ATTACKS:
        result = out[name]
        assert result.is_error, name
        assert word.lower() in result.content[0].text.lower(), (name, result.content[0].text)
        assert payload(out[name + " then"])["rows"][0][0] > 0, name
    cpu, size, *small = out["parallel"]
    assert cpu.is_error and "stopped" in cpu.content[0].text
    big = payload(size)
    assert big["truncated_by"] == "bytes" and len(json.dumps(big)) < 1_100_000
    assert [payload(r)["rows"] for r in small] == [[[0]], [[1]], [[2]]]
    assert payload(out["after"])["rows"][0][0] >= 57
    assert _file_state(db) == before


def test_tools_validate_their_inputs_as_the_command_line_does(built_site):
    server = build_server(built_site["db"])
    refusals = [
        ("plan", {"model": "llama-3.1-70b", "users": 0}, "--users"),
        ("plan", {"model": "llama-3.1-70b", "limit": 0}, "--limit"),
        ("plan", {"model": "llama-3.1-70b", "input_tokens": -5}, "--input-tokens"),
        ("plan", {"model": "llama-3.1-8b", "precision": "mxfp4-moe"}, "dense model"),
        ("plan", {"model": "llama-3.1-8b", "workload": "dance"}, "--workload"),
        ("fit", {"model": "llama-3.1-8b", "batch": 0}, "--batch"),
        ("fit", {"model": "llama-3.1-8b", "context": -1}, "--context"),
        ("fit", {"model": "llama-3.1-8b", "precision": "fp7"}, "--precision"),
        ("fit", {"model": "llama-3.1-8b", "workload": "training", "method": "qlora", "precision": "bf16"}, "nf4"),
    ]
    for tool, args, word in refusals:
        result = call(server, tool, args)
        assert result.is_error and word in result.content[0].text, (tool, args, result.content[0].text)
    # plan takes every input the command line takes: a LoRA fine-tune's job, and the token counts of serving
    lora = payload(call(server, "plan", {"model": "llama-3.1-8b", "workload": "lora", "tokens": 2e8, "limit": 2}))
    assert lora["workload"] == "lora" and lora["tokens"] == 2e8 and len(lora["options"]) == 2
    served = payload(call(server, "plan", {"model": "llama-3.1-8b", "input_tokens": 100, "output_tokens": 50}))
    assert (served["input_tokens"], served["output_tokens"], served["users"]) == (100, 50, DEFAULTS["users"])
    trained = payload(call(server, "fit", {"model": "llama-3.1-8b", "workload": "training", "method": "qlora"}))
    assert trained["precision"] == "nf4" and trained["method"] == "qlora"
