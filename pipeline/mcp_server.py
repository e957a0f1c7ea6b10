"""`gpu-atlas mcp`: the built database for assistants, over the Model Context Protocol (stdio).

Read-only on the DuckDB file of the current build. Six tools answer the questions the site answers (plan, fit,
compare_gpus, gpu, prices) plus `sql`: one SELECT over the public views, checked before it runs and run in a process
of its own on a copy the server owns (pipeline/mcp_sql.py). Every tool takes the inputs the command line takes, with
its defaults and limits (pipeline/plan.py, pipeline/fit.py), and refuses a bad one with the same message. Every
answer carries the sources its figures come from and their dates, so an assistant can say what each number is."""

from __future__ import annotations

import atexit
import functools
from pathlib import Path
from typing import Any

import duckdb

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from . import mcp_sql
from .contract import VIEWS
from .fit import fit as fit_model
from .fit import fit_inputs, resolve_model
from .plan import DEFAULTS, Question, _plain
from .plan import plan as plan_question

INSTRUCTIONS = (
    "GPU Atlas: GPU specifications (dense figures, per GPU module), cloud prices (the price picks every page uses, "
    "each with provider, tier, observed date and source), LLM configs, and estimates (bounds and expectations) "
    "for serving and training. Use `plan` for 'what do I rent to serve model X to N users', `fit` for memory, "
    "`gpu`/`compare_gpus`/`prices` for hardware and prices, `sql` for anything else over the public views "
    "(`select table_name from information_schema.tables where table_type = 'VIEW'` lists them)."
)


def _records(con: duckdb.DuckDBPyConnection, sql: str, args: list | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, args or [])
    cols = [d[0] for d in cur.description]
    return [{c: _plain(v) for c, v in zip(cols, row)} for row in cur.fetchall()]


def _sources(con: duckdb.DuckDBPyConnection, ids: set[str]) -> list[dict[str, Any]]:
    """The sources behind an answer: title, publisher address, when read and published."""
    ids = sorted(i for i in ids if i)
    if not ids:
        return []
    return _records(
        con,
        """select source_id, title, url, accessed_on, published_on from sources
                            where source_id in (select unnest(?)) order by source_id""",
        [ids],
    )


class Atlas:
    """The tools' logic over one database file (also usable without MCP, e.g. in tests)."""

    def __init__(self, database: Path):
        self.database = Path(database)
        if not self.database.exists():
            raise FileNotFoundError(f"no database at {self.database}: run `make build` first")
        # what `sql` reads: the public views, copied into a file of the server's own (made on the first query)
        self.public = mcp_sql.PublicCopy(self.database, list(VIEWS))

    def connect(self) -> duckdb.DuckDBPyConnection:
        return duckdb.connect(str(self.database), read_only=True)

    def plan(self, question: Question, limit: int = 10) -> dict[str, Any]:
        model_id = resolve_model(self.database, question.model)
        question = Question(**{**question.__dict__, "model": model_id})
        answer = plan_question(self.database, question, limit=limit)
        with self.connect() as con:
            model_docs = con.execute(
                "select source_id, params_source_id from models where model_id = ?", [model_id]
            ).fetchone()
            price_sources = {
                s
                for (s,) in con.execute(
                    "select distinct source_id from rentable_machines where machine_id in (select unnest(?))",
                    [[o["machine_id"] for o in answer["options"]]],
                ).fetchall()
            }
            # a replica across machines of a cluster rests on the provider's document of its fabric too
            cluster_sources = {
                s
                for (s,) in con.execute(
                    """select distinct c.source_id from clusters as c join rentable_machines as m using (provider, offering)
                       where m.machine_id in (select unnest(?))""",
                    [[o["machine_id"] for o in answer["options"] if (o.get("pipeline_parallel") or 1) > 1]],
                ).fetchall()
            }
            answer["sources"] = _sources(con, price_sources | cluster_sources | set(model_docs or ()))
        answer["what_the_numbers_are"] = (
            "expected_* figures are expectations of the serving model calibrated on published measurements; "
            "bound_* figures are upper bounds no deployment exceeds; prices are per machine as listed (usd_per_hour), "
            "list prices or marketplace medians (statistic), observed on observed_on (observed_date_known false: "
            "an undated copy, read that day); $/M tokens = price / throughput"
        )
        return answer

    def fit(
        self,
        model: str,
        precision: str | None = None,
        context: int = 4096,
        batch: int = 1,
        kv_precision: str = "bf16",
        workload: str = "inference",
        method: str | None = None,
        recompute: str | None = None,
    ) -> dict[str, Any]:
        """Which GPUs hold one model, how many each needs, and the memory breakdown in GB. workload: inference or
        training (or serve, full, lora, qlora, pretrain); precision (inference): bf16 (default), fp8, int8, int4, ...;
        context and batch: at least 1; method (training): full, lora (default) or qlora; recompute (training): none,
        selective or full."""
        workload, precision, method, recompute = fit_inputs(
            workload, precision, context, batch, kv_precision, method, recompute
        )
        model_id = resolve_model(self.database, model)
        result = fit_model(
            self.database, model_id, workload, precision, context, batch, kv_precision, method, recompute
        )
        with self.connect() as con:
            result["sources"] = _sources(
                con,
                set(
                    con.execute(
                        "select source_id, params_source_id from models where model_id = ?", [model_id]
                    ).fetchone()
                ),
            )
        result["what_the_numbers_are"] = (
            "GB = 10^9 bytes; required_gb = weights + KV cache + overhead; a GPU offers "
            "usable_gb_per_gpu (95% of its memory); cheapest_* is the on-demand price "
            "pick with its provider and observation date"
        )
        return result

    def gpu(self, gpu_id: str) -> dict[str, Any]:
        with self.connect() as con:
            gpu = _records(con, "select * from gpus where gpu_id = ?", [gpu_id])
            if not gpu:
                known = [r[0] for r in con.execute("select gpu_id from gpus order by 1").fetchall()]
                raise ValueError(f"unknown gpu_id {gpu_id!r}; known: {', '.join(known)}")
            figures = _records(
                con,
                """select metric, precision, unit_kind, sparsity, value, unit, quote, source_id
                                       from spec_claims where gpu_id = ? and is_canonical
                                       order by metric, precision""",
                [gpu_id],
            )
            picks = _records(
                con,
                """select pick, term, usd_per_gpu_hour, provider, offering, statistic, observed_on,
                                            observed_date_known, age_days, source_id, why
                                     from price_picks where gpu_id = ? and usd_per_gpu_hour is not null
                                     order by pick""",
                [gpu_id],
            )
            sources = {f["source_id"] for f in figures} | {p["source_id"] for p in picks}
            return {
                "gpu": gpu[0],
                "canonical_figures": figures,
                "price_picks": picks,
                "sources": _sources(con, sources),
                "what_the_numbers_are": "TFLOPS are dense (no sparsity) per GPU module; prices are the picks "
                "every page uses, per GPU-hour, with observation dates",
            }

    def compare_gpus(self, gpu_ids: list[str]) -> dict[str, Any]:
        if not 2 <= len(gpu_ids) <= 6:
            raise ValueError("compare_gpus takes 2 to 6 gpu_ids")
        answers = [self.gpu(g) for g in gpu_ids]
        with self.connect() as con:
            speed = {
                r["gpu_id"]: r
                for r in _records(con, "select * from reference_serving where gpu_id in (select unnest(?))", [gpu_ids])
            }
        rows = []
        for a in answers:
            g, s = a["gpu"], speed.get(a["gpu"]["gpu_id"], {})
            on_demand = next((p for p in a["price_picks"] if p["pick"] == "on-demand"), None)
            rows.append(
                {
                    "gpu_id": g["gpu_id"],
                    "name": g["name"],
                    "memory_gb": g["memory_gb"],
                    "memory_bandwidth_gbs": g["memory_bandwidth_gbs"],
                    "bf16_tflops": g["bf16_tflops"],
                    "fp8_tflops": g["fp8_tflops"],
                    "fp4_tflops": g["fp4_tflops"],
                    "on_demand_usd_per_gpu_hour": on_demand and on_demand["usd_per_gpu_hour"],
                    "on_demand_provider": on_demand and on_demand["provider"],
                    "on_demand_observed_on": on_demand and on_demand["observed_on"],
                    "reference_model_gpus": s.get("gpus_used"),
                    "reference_model_expected_tokens_per_s": s.get("expected_tokens_per_s"),
                    "reference_model_bound_tokens_per_s": s.get("bound_tokens_per_s"),
                }
            )
        sources = {s["source_id"]: s for a in answers for s in a["sources"]}
        return {
            "gpus": rows,
            "sources": list(sources.values()),
            "what_the_numbers_are": "reference model: Llama 3.3 70B, FP8, serving batch of 16 on reference_model_gpus "
            "GPUs; expected is the calibrated expectation, bound the upper bound",
        }

    def prices(self, gpu_id: str | None = None, provider: str | None = None, limit: int = 50) -> dict[str, Any]:
        where, args = ["true"], []
        if gpu_id:
            where.append("gpu_id = ?")
            args.append(gpu_id)
        if provider:
            where.append("provider = ?")
            args.append(provider)
        with self.connect() as con:
            offers = _records(
                con,
                f"""
                select gpu_id, provider, offering, pricing_tier, statistic, region, gpu_count, usd_per_gpu_hour,
                       currency, amount_per_hour, observed_on, observed_date_known, stale, source_id
                from price_offers where {" and ".join(where)}
                order by stale, usd_per_gpu_hour nulls last limit ?""",
                [*args, max(1, min(limit, 500))],
            )
            return {
                "offers": offers,
                "sources": _sources(con, {o["source_id"] for o in offers}),
                "what_the_numbers_are": "offers as each provider lists them, converted to USD per GPU-hour; "
                "stale offers are shown, never used for picks",
            }

    def sql(self, query: str) -> dict[str, Any]:
        """One SELECT over the public views, checked and run on the server's copy in a process of its own."""
        return mcp_sql.run(self.public.path(), query)


def build_server(database: Path) -> MCPServer:
    atlas = Atlas(database)
    atexit.register(atlas.public.remove)
    server = MCPServer("gpu-atlas", instructions=INSTRUCTIONS)

    def tool(fn):
        """A tool whose refusals (a value out of range, an unknown id, a query that writes) reach the assistant
        with their message; anything else stays a crash on the server."""

        @functools.wraps(fn)
        def answer(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (ValueError, duckdb.Error) as exc:
                raise ToolError(str(exc)) from exc

        return server.tool()(answer)

    @tool
    def plan(
        model: str,
        workload: str = DEFAULTS["workload"],
        users: int = DEFAULTS["users"],
        input_tokens: int = DEFAULTS["input_tokens"],
        output_tokens: int = DEFAULTS["output_tokens"],
        precision: str = DEFAULTS["precision"],
        kv_precision: str = DEFAULTS["kv_precision"],
        context: int | None = None,
        min_tokens_per_user: float | None = DEFAULTS["min_tokens_per_user"],
        max_ttft_s: float | None = DEFAULTS["max_ttft_s"],
        tier: str = DEFAULTS["tier"],
        engine: str = DEFAULTS["engine"],
        tokens: float | None = DEFAULTS["tokens"],
        limit: int = 10,
    ) -> dict[str, Any]:
        """Ranked deployments one can rent to serve or train a model: GPU, machine, provider, tier, $/hour, expected
        tokens/s per user, time to first token and $ per million input and output tokens with their bounds and the
        median error such expectations had on publications the calibration did not see (expected_*_error) (serve),
        or hours and $ per job (training). workload: serve, full, lora, qlora or pretrain; precision: native (as the checkpoint
        ships), bf16, fp8, fp8-block, int8, int4, nvfp4, mxfp4, mxfp4-moe, int4-moe (the last two for a model with experts); kv_precision: bf16 or fp8; tier: on-demand, spot, reserved or
        any; engine: vllm-sglang or tensorrt-llm; tokens: a training job's tokens; limit: 1 to 1,000 options."""
        asked = locals()  # the tool's inputs are Question's fields, and limit
        return atlas.plan(Question(**{field: asked[field] for field in Question.__dataclass_fields__}), limit)

    tool(atlas.fit)  # its signature and docstring are the tool's

    @tool
    def gpu(gpu_id: str) -> dict[str, Any]:
        """One GPU variant: its figures (dense TFLOPS, memory, bandwidth, power) with their sources, and the price
        picks every page uses (on-demand, spot, reserved, mainland China) with provider and date."""
        return atlas.gpu(gpu_id)

    @tool
    def compare_gpus(gpu_ids: list[str]) -> dict[str, Any]:
        """Two to six GPUs side by side: figures, on-demand price pick and the reference model's expected speed."""
        return atlas.compare_gpus(gpu_ids)

    @tool
    def prices(gpu_id: str | None = None, provider: str | None = None, limit: int = 50) -> dict[str, Any]:
        """Current price offers, cheapest first, filtered by gpu_id and/or provider, each with its date and source."""
        return atlas.prices(gpu_id, provider, limit)

    @tool
    def sql(query: str) -> dict[str, Any]:
        """One SELECT (DuckDB SQL) over the public views (gpus, models, price_picks, price_offers,
        inference_estimates, vram_fit, serving_models, serving_gpus, rentable_machines, sources, parameters, ...;
        information_schema lists them). Anything else (writes, COPY, ATTACH, CALL, PRAGMA, SET, files, internal
        tables, several statements) is refused with the reason; at most 200 rows and 1 MB, stopped after 10 s."""
        return atlas.sql(query)

    return server


def serve(database: Path) -> None:
    build_server(database).run("stdio")
