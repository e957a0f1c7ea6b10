"""`gpu-atlas mcp`: the built database for assistants, over the Model Context Protocol (stdio).

Read-only on the DuckDB file of the current build. Six tools answer the questions the site answers (plan, fit,
compare_gpus, gpu, prices) plus `sql` on the public views, with a row limit and a time limit. Every answer carries
the sources its figures come from and their dates, so an assistant can say what each number is."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

import duckdb

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from .fit import fit as fit_model
from .fit import resolve_model
from .plan import Question, _plain
from .plan import plan as plan_question

SQL_ROW_LIMIT = 200
SQL_SECONDS = 10.0
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

    def connect(self) -> duckdb.DuckDBPyConnection:
        return duckdb.connect(str(self.database), read_only=True)

    def plan(
        self,
        model: str,
        users: int = 1,
        input_tokens: int = 2000,
        output_tokens: int = 500,
        precision: str = "native",
        kv_precision: str = "bf16",
        context: int | None = None,
        min_tokens_per_user: float | None = None,
        max_ttft_s: float | None = None,
        tier: str = "on-demand",
        engine: str = "vllm-sglang",
        limit: int = 10,
    ) -> dict[str, Any]:
        model_id = resolve_model(self.database, model)
        question = Question(
            model=model_id,
            precision=precision,
            kv_precision=kv_precision,
            context=context,
            users=users,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            tier=tier,
            engine=engine,
            min_tokens_per_user=min_tokens_per_user,
            max_ttft_s=max_ttft_s,
        )
        answer = plan_question(self.database, question, limit=max(1, min(limit, 50)))
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
            answer["sources"] = _sources(con, price_sources | set(model_docs or ()))
        answer["what_the_numbers_are"] = (
            "expected_* figures are expectations of the serving model calibrated on published measurements; "
            "bound_* figures are upper bounds no deployment exceeds; prices are per machine as listed (usd_per_hour), "
            "list prices or marketplace medians (statistic), observed on observed_on (observed_date_known false: "
            "an undated copy, read that day); $/M tokens = price / throughput"
        )
        return answer

    def fit(
        self, model: str, precision: str = "bf16", context: int = 4096, batch: int = 1, kv_precision: str = "bf16"
    ) -> dict[str, Any]:
        model_id = resolve_model(self.database, model)
        result = fit_model(self.database, model_id, "inference", precision, context, batch, kv_precision)
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
        """A read-only query, at most SQL_ROW_LIMIT rows, interrupted after SQL_SECONDS."""
        con = self.connect()
        # no files read or written beyond the database, and no setting changed back
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
        timer = threading.Timer(SQL_SECONDS, con.interrupt)
        timer.start()
        try:
            cur = con.execute(query)
            if cur.description is None:
                return {"columns": [], "rows": [], "truncated": False}
            cols = [d[0] for d in cur.description]
            rows = cur.fetchmany(SQL_ROW_LIMIT + 1)
        except duckdb.InterruptException as exc:
            raise ValueError(f"the query ran longer than {SQL_SECONDS:g} s and was stopped") from exc
        finally:
            timer.cancel()
            con.close()
        return {
            "columns": cols,
            "rows": [[_plain(v) for v in r] for r in rows[:SQL_ROW_LIMIT]],
            "truncated": len(rows) > SQL_ROW_LIMIT,
            "row_limit": SQL_ROW_LIMIT,
        }


def build_server(database: Path) -> MCPServer:
    atlas = Atlas(database)
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
        users: int = 1,
        input_tokens: int = 2000,
        output_tokens: int = 500,
        precision: str = "native",
        kv_precision: str = "bf16",
        context: int | None = None,
        min_tokens_per_user: float | None = None,
        max_ttft_s: float | None = None,
        tier: str = "on-demand",
        engine: str = "vllm-sglang",
        limit: int = 10,
    ) -> dict[str, Any]:
        """Ranked deployments one can rent to serve a model: GPU, machine, provider, tier, $/hour, expected
        tokens/s per user, time to first token and $ per million input and output tokens. precision: native (as
        the checkpoint ships), bf16, fp8, int8, int4, nvfp4, mxfp4; kv_precision: bf16 or fp8; tier: on-demand,
        spot, reserved or any; engine: vllm-sglang or tensorrt-llm."""
        return atlas.plan(
            model,
            users,
            input_tokens,
            output_tokens,
            precision,
            kv_precision,
            context,
            min_tokens_per_user,
            max_ttft_s,
            tier,
            engine,
            limit,
        )

    @tool
    def fit(
        model: str, precision: str = "bf16", context: int = 4096, batch: int = 1, kv_precision: str = "bf16"
    ) -> dict[str, Any]:
        """Which GPUs hold one model for inference, how many each needs, and the memory breakdown in GB."""
        return atlas.fit(model, precision, context, batch, kv_precision)

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
        """A read-only SQL query (DuckDB) on the public views (gpus, models, price_picks, price_offers,
        inference_estimates, vram_fit, serving_models, serving_gpus, rentable_machines, sources, parameters, ...;
        information_schema lists them); at most 200 rows, stopped after 10 seconds."""
        return atlas.sql(query)

    return server


def serve(database: Path) -> None:
    build_server(database).run("stdio")
