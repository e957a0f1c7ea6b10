"""api/v1/openapi.json describes every JSON file the build writes under api/v1/, and every file validates against
it (JSON Schema 2020-12, as OpenAPI 3.1 uses); llms.txt points a language model at the API, the database and the
main pages."""

from __future__ import annotations

import json
import re

import pytest
from jsonschema import Draft202012Validator, FormatChecker

pytestmark = pytest.mark.integration


def _validator(doc: dict, path: str) -> Draft202012Validator:
    ref = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    return Draft202012Validator({**ref, "components": doc["components"]}, format_checker=FormatChecker())


def test_every_api_file_validates_against_openapi(built_site):
    api = built_site["site"] / "api" / "v1"
    doc = json.loads((api / "openapi.json").read_text())
    assert doc["openapi"].startswith("3.1")
    Draft202012Validator.check_schema({"components": doc["components"]})
    checked = 0
    for f in sorted(api.rglob("*.json")):
        rel = f.relative_to(api).as_posix()
        if rel in ("openapi.json", "schema.json"):
            continue
        path = "/api/v1/" + (re.sub(r"^plan/training/[^/]+\.json$", "plan/training/{model_id}.json", rel))
        assert path in doc["paths"], f"{rel} has no path in openapi.json"
        errors = sorted(_validator(doc, path).iter_errors(json.loads(f.read_text())), key=lambda e: e.path)
        assert not errors, f"{rel}: {errors[0].message} at {list(errors[0].path)[:4]}"
        checked += 1
    assert checked >= 8


def test_fields_carry_their_contracts_meaning_and_unit(built_site):
    """A field's description and unit are its view's contract: memory in GB, a price in USD per GPU-hour."""
    doc = json.loads((built_site["site"] / "api" / "v1" / "openapi.json").read_text())
    units = {
        name: field.get("x-unit")
        for schema in doc["components"]["schemas"].values()
        for name, field in (schema.get("properties") or {}).items()
    }
    assert units["memory_gb"] == "GB" and units["usd_per_gpu_hour"] == "USD per GPU-hour"
    assert units["gpu_id"] is None  # a key has no unit
    assert sum(unit is not None for unit in units.values()) >= 20


def test_the_schema_catches_a_wrong_file(built_site):
    """A number written as text, or a field the schema does not know, fails."""
    api = built_site["site"] / "api" / "v1"
    doc = json.loads((api / "openapi.json").read_text())
    gpus = json.loads((api / "gpus.json").read_text())
    gpus["gpus"][0]["memory_gb"] = "80"
    assert list(_validator(doc, "/api/v1/gpus.json").iter_errors(gpus))
    gpus = json.loads((api / "gpus.json").read_text())
    gpus["gpus"][0]["surprise"] = 1
    assert list(_validator(doc, "/api/v1/gpus.json").iter_errors(gpus))


def test_llms_txt_links_the_api_the_database_and_the_main_pages(built_site):
    site = built_site["site"]
    text = (site / "llms.txt").read_text()
    assert text.startswith("# GPU Atlas")
    links = re.findall(r"\]\(([^)]+)\)", text)
    for needed in ("api/v1/openapi.json", "planner/", "gpus/", "models/", "downloads/gpu_atlas.duckdb", "zh/"):
        assert any(link.startswith(needed) or link.endswith(needed) for link in links), needed
    for link in links:
        target = site / link.split("#")[0]
        assert target.exists() or (target / "index.html").exists(), link
