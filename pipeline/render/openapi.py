"""An OpenAPI 3.1 description of the static JSON files under api/v1/, generated from what writes them: each
row schema from the column types of the query the file's rows come from (the public views), each field's
description and unit from the contract of the view it reads (its table's <table>.yml, pipeline/tables.py; the unit
as the specification extension `x-unit`). A test validates every file against it."""

from __future__ import annotations

import duckdb

from ..sql_reads import relations
from ..tables import column_doc, column_unit, glossary, views

JSON_TYPES = {
    "VARCHAR": "string",
    "BOOLEAN": "boolean",
    "DOUBLE": "number",
    "FLOAT": "number",
    "BIGINT": "integer",
    "INTEGER": "integer",
    "SMALLINT": "integer",
    "TINYINT": "integer",
    "HUGEINT": "integer",
    "UBIGINT": "integer",
    "UINTEGER": "integer",
}


def type_schema(duck_type: str) -> dict:
    """The JSON Schema of one DuckDB column type, null allowed (a missing figure is null, never 0)."""
    if duck_type.endswith("[]"):
        return {"type": ["array", "null"], "items": type_schema(duck_type[:-2])}
    if duck_type == "DATE":
        return {"type": ["string", "null"], "format": "date"}
    if duck_type.startswith(("DECIMAL", "NUMERIC")):
        return {"type": ["number", "null"]}
    if duck_type.startswith("TIMESTAMP"):
        return {"type": ["string", "null"], "format": "date-time"}
    return {"type": [JSON_TYPES.get(duck_type, "string"), "null"]}


def describe(sql: str, column: str) -> tuple[str | None, str | None]:
    """What a column of a query's rows means and its unit: as the view it reads says (the glossary's where it reads
    several)."""
    read = relations(sql) & views().keys()
    view = read.pop() if len(read) == 1 else None
    if view is not None and (found := column_doc(view, column)) is not None:
        return found, column_unit(view, column)
    meaning = glossary().get(column) or {}
    return meaning.get("description"), meaning.get("unit")


def row_schema(con: duckdb.DuckDBPyConnection, sql: str, extra: dict | None = None) -> dict:
    """The object one row of `sql` becomes in a file, with `extra` fields the writer adds."""
    rel = con.sql(sql)
    props = {}
    for name, kind in zip(rel.columns, rel.types):
        props[name] = type_schema(str(kind))
        meaning, unit = describe(sql, name)
        if meaning:
            props[name]["description"] = meaning
        if unit:
            props[name]["x-unit"] = unit
    props.update(extra or {})
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _number(description: str) -> dict:
    return {"type": ["number", "null"], "description": description}


def _file(key: str, items: dict) -> dict:
    return {
        "type": "object",
        "required": ["schema_version", "built_on", key],
        "additionalProperties": False,
        "properties": {
            "schema_version": {"const": 1},
            "built_on": {"type": "string", "format": "date"},
            key: {"type": "array", "items": items},
        },
    }


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def document(con: duckdb.DuckDBPyConnection, queries: dict[str, str], description: str) -> dict:
    """The OpenAPI document: one GET path per file, its response schema under components."""
    pick = row_schema(con, queries["cheapest"])  # written per GPU, without its gpu_id
    del pick["properties"]["gpu_id"]
    pick["required"].remove("gpu_id")
    gpu = row_schema(
        con,
        queries["gpus"],
        {
            "cheapest": {"type": "array", "items": pick, "description": "the price pick every page uses, per tier"},
            "serving_tokens_per_s": _number(
                "expected decode tokens/s of the reference model (FP8, serving batch) on serving_gpus GPUs"
            ),
            "serving_tokens_per_s_bound": _number("the bound of the same: no deployment exceeds it"),
            "serving_gpus": {"type": ["integer", "null"], "description": "GPUs the reference model's serving needs"},
            "training_tokens_per_s_per_gpu": _number(
                "expected full fine-tune tokens/s per GPU (reference training model)"
            ),
            "lora_tokens_per_s_per_gpu": _number("expected LoRA fine-tune tokens/s per GPU (reference training model)"),
        },
    )
    largest = {
        "type": "object",
        "required": ["model_id", "name", "params_b"],
        "additionalProperties": False,
        "properties": {"model_id": {"type": "string"}, "name": {"type": "string"}, "params_b": {"type": "number"}},
    }
    schemas = {
        "Gpu": gpu,
        "GpusFile": _file("gpus", _ref("Gpu")),
        "Offer": row_schema(con, queries["offers"]),
        "OffersFile": _file("offers", _ref("Offer")),
        "InferenceEstimate": row_schema(con, queries["inference"]),
        "TrainingEstimate": row_schema(con, queries["training"]),
        "EstimatesFile": {
            "type": "object",
            "required": ["schema_version", "built_on", "inference", "training"],
            "additionalProperties": False,
            "properties": {
                "schema_version": {"const": 1},
                "built_on": {"type": "string", "format": "date"},
                "inference": {"type": "array", "items": _ref("InferenceEstimate")},
                "training": {"type": "array", "items": _ref("TrainingEstimate")},
            },
        },
        "FitsFile": {
            "type": "object",
            "required": ["schema_version", "built_on", "largest_model_on_one_gpu"],
            "additionalProperties": False,
            "properties": {
                "schema_version": {"const": 1},
                "built_on": {"type": "string", "format": "date"},
                "largest_model_on_one_gpu": {
                    "type": "object",
                    "description": "gpu_id -> weight format -> largest model",
                    "additionalProperties": {"type": "object", "additionalProperties": largest},
                },
            },
        },
        "PlanIndexFile": {
            "type": "object",
            "required": [
                "schema_version",
                "defaults",
                "limits",
                "precisions",
                "kv_precisions",
                "workloads",
                "tiers",
                "engines",
                "models",
                "engine",
                "native_formats",
            ],
            "properties": {
                "schema_version": {"const": 1},
                "engine": {
                    "type": "object",
                    "description": "what the page's DuckDB-WASM runs: a statement per table (loads "
                    "plan/tables/<view>.json at its types), the macro files and plan_options.sql under plan/sql/, "
                    "and the statement that makes plan_scenarios from the question (scenarios.csv, scenario_columns)",
                    "required": ["tables", "macros", "plan", "scenarios", "scenario_columns"],
                    "additionalProperties": False,
                    "properties": {
                        "tables": {"type": "object", "additionalProperties": {"type": "string"}},
                        "macros": {"type": "array", "items": {"type": "string"}},
                        "plan": {"type": "string"},
                        "scenarios": {"type": "string"},
                        "scenario_columns": {"type": "array", "items": {"type": "string"}},
                    },
                },
                "pretrain_tokens_per_param": {
                    "type": "number",
                    "description": "tokens per parameter of a pretraining run whose tokens the question leaves out",
                },
                "native_formats": {
                    "type": "object",
                    "description": "model_id -> the weight format its checkpoint ships in",
                    "additionalProperties": {"type": "string"},
                },
                "limits": {"type": "object", "additionalProperties": {"type": "array", "minItems": 2, "maxItems": 2}},
                "precisions": {"type": "array", "items": {"type": "string"}},
                "models": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["model_id", "name", "params_b", "max_context", "status"],
                        "properties": {"status": {"enum": ["current", "superseded", "legacy"]}},
                    },
                },
            },
        },
        "PlanTableFile": {
            "type": "array",
            "description": "the rows of one view plan_options.sql reads, one object per row (columns and types: "
            "plan/index.json's engine.tables statement)",
            "items": {"type": "object"},
        },
        "PlanDefaultFile": {
            "type": "object",
            "description": "the Planner's default question (its plan_scenarios row) and every option it has, one array "
            "per option in the order of columns, at full precision (the page's chart, filters and rows past the table's "
            "first ones)",
            "required": ["schema_version", "question", "columns", "rows"],
            "additionalProperties": False,
            "properties": {
                "schema_version": {"const": 1},
                "question": {"type": "object"},
                "columns": {"type": "array", "items": {"type": "string"}},
                "rows": {"type": "array", "items": {"type": "array"}},
            },
        },
        "PlanTrainingFile": {
            "type": "object",
            "required": ["schema_version", "model_id", "columns", "tokens", "scenarios"],
            "additionalProperties": False,
            "properties": {
                "schema_version": {"const": 1},
                "model_id": {"type": "string"},
                "columns": {"type": "array", "items": {"type": "string"}},
                "tokens": {"type": "number"},
                "scenarios": {
                    "type": "object",
                    "description": "workload|tier -> ranked rows",
                    "additionalProperties": {"type": "array", "items": {"type": "array"}},
                },
            },
        },
    }
    files = {
        "gpus.json": "GpusFile",
        "offers.json": "OffersFile",
        "estimates.json": "EstimatesFile",
        "fits.json": "FitsFile",
        "plan/index.json": "PlanIndexFile",
        "plan/default.json": "PlanDefaultFile",
        "plan/tables/{view}.json": "PlanTableFile",
        "plan/training/{model_id}.json": "PlanTrainingFile",
    }
    paths = {}
    for name, schema in files.items():
        op = {
            "summary": name,
            "operationId": "get_" + name.replace("/", "_").replace(".json", "").replace("{", "").replace("}", ""),
            "responses": {
                "200": {"description": "the file", "content": {"application/json": {"schema": _ref(schema)}}}
            },
        }
        for parameter in ("model_id", "view"):
            if "{" + parameter + "}" in name:
                op["parameters"] = [{"name": parameter, "in": "path", "required": True, "schema": {"type": "string"}}]
        paths[f"/api/v1/{name}"] = {"get": op}
    return {
        "openapi": "3.1.0",
        "info": {"title": "GPU Atlas static JSON files", "version": "1", "description": description},
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }
