"""A provider is one folder: sources/prices/<provider>/ holds its dated snapshots and its provider.yml (name, market,
currency, terms, chart colour, fetcher). The tree as committed keeps that promise, and a missing or broken
provider.yml is refused naming the file, the field and the rule."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
import yaml

from pipeline import fetch
from pipeline.providers import skypilot
from pipeline.sourcefiles import KINDS, PROVIDER_FILE, TERMS_FILE, check_all, discover, read_providers

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "sources"
FIXTURES = ROOT / "tests" / "fixtures"
FOLDERS = sorted(p.name for p in (SOURCES / "prices").iterdir() if p.is_dir())
PROVIDERS, PROBLEMS = read_providers(SOURCES)


def test_every_provider_folder_has_a_valid_provider_yml():
    assert PROBLEMS == [], "\n".join(str(p) for p in PROBLEMS)
    assert FOLDERS and sorted(PROVIDERS) == FOLDERS
    for folder in FOLDERS:
        assert (SOURCES / "prices" / folder / PROVIDER_FILE).is_file(), folder


def test_every_fetcher_a_provider_yml_names_is_a_module_that_serves_it():
    named = {p: r["fetcher"] for p, r in PROVIDERS.items() if r["fetcher"]}
    for provider, module in named.items():
        assert importlib.util.find_spec(f"pipeline.providers.{module}") is not None, (provider, module)
    # the fetchers `gpu-atlas fetch-prices` offers are exactly those the provider.yml files name
    assert sorted(fetch.FETCHERS) == sorted(named) and set(fetch.API_ROOTS) == set(named)
    # the catalogue serves the providers whose provider.yml names it, with the catalogue entry given there
    assert set(skypilot.CLOUDS) == {p for p, m in named.items() if m == "skypilot"}
    assert all(PROVIDERS[p]["catalogue"] for p in skypilot.CLOUDS)


def test_no_provider_appears_in_the_prices_without_its_folder():
    """Every provider a price file, an alias table, a fetcher module or the catalogue names has its folder."""
    priced = {path.relative_to(SOURCES).parts[1] for path in discover(SOURCES, KINDS["prices"])}
    aliased = {path.parent.name for path in discover(SOURCES, KINDS["aliases"])}
    modules = {
        module.PROVIDER
        for info in (ROOT / "pipeline" / "providers").glob("*.py")
        if (module := importlib.import_module(f"pipeline.providers.{info.stem}")) and hasattr(module, "PROVIDER")
    }
    for provider in priced | aliased | modules | set(skypilot.CLOUDS):
        assert provider in PROVIDERS, f"{provider}: no folder sources/prices/{provider}/ with a {PROVIDER_FILE}"
    for module in modules:  # a provider's own API module is the fetcher its provider.yml names
        assert PROVIDERS[module]["fetcher"] == module


def test_recorded_answers_are_in_a_folder_named_after_the_provider_or_its_fetcher():
    """tests/fixtures/<provider>/ holds a provider's recorded API answers; a catalogue of many providers keeps its
    own under its fetcher's name (tests/fixtures/skypilot/: each excerpt under its path in the catalogue)."""
    fetchers = {r["fetcher"] for r in PROVIDERS.values() if r["fetcher"]}
    for folder in sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()):
        assert folder in PROVIDERS or folder in fetchers, folder
        assert (FIXTURES / folder / "README.md").is_file(), f"tests/fixtures/{folder} says where its answers came from"
    for provider, record in PROVIDERS.items():
        if record["fetcher"] == provider:
            assert (FIXTURES / provider).is_dir(), f"{provider}: its fetcher's recorded answers"


def test_a_price_snapshot_is_published_under_its_providers_terms_and_market():
    for provider, record in PROVIDERS.items():
        for side in (SOURCES / "prices" / provider).glob("*/prices.source.yml"):
            meta = yaml.safe_load(side.read_text(encoding="utf-8"))
            assert meta.get("terms") == record["terms"], side
            assert "market" not in meta, side  # who can buy is the provider's, said once


def test_every_provider_has_its_own_colour():
    colours = [r["colour"] for r in PROVIDERS.values()]
    assert len(set(colours)) == len(colours)


def test_the_charts_name_no_provider():
    """The colours come from the data (provider.yml through the `providers` view), not from a list in the code."""
    for name in ("charts.py", "price_charts.py"):
        code = (ROOT / "pipeline" / "render" / name).read_text(encoding="utf-8")
        named = [p for p in PROVIDERS if f'"{p}"' in code or f"'{p}'" in code]
        assert named == [], (name, named)


def test_nothing_imports_the_old_name_of_the_source_files_package():
    """`pipeline.sources` was the old name of `pipeline.sourcefiles` ("sources" names the data folder, a view and a
    page family): nothing imports it, and it does not exist."""
    import re

    old = re.compile(r"from \.+sources\b|pipeline\.sources\b(?!files)|from \. import sources\b")
    users = sorted(
        str(path.relative_to(ROOT))
        for folder in ("pipeline", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if path != Path(__file__) and old.search(path.read_text(encoding="utf-8"))
    )
    assert users == [], f"import from pipeline.sourcefiles instead: {users}"
    assert not (ROOT / "pipeline" / "sources.py").exists() and not (ROOT / "pipeline" / "sources").exists()


# ------------------------------------------------------------------ a broken provider.yml is refused
def tree(tmp_path: Path, provider: str = "lambda") -> Path:
    """The terms and one provider's folder (its snapshots and provider.yml) under tmp_path/sources."""
    root = tmp_path / "sources"
    shutil.copytree(SOURCES / "prices" / provider, root / "prices" / provider)
    shutil.copyfile(SOURCES / TERMS_FILE, root / TERMS_FILE)
    return root


def described(root: Path, provider: str = "lambda") -> Path:
    return root / "prices" / provider / PROVIDER_FILE


@pytest.mark.parametrize(
    "change,field,rule",
    [
        ({"market": "china"}, "market", "must be one of 'global' or 'cn-mainland'"),
        ({"currency": "usd"}, "currency", "must be one of"),
        ({"colour": "red"}, "colour", "must be a colour #rrggbb"),
        ({"terms": "lambda-typo"}, "terms", "names no terms of sources/terms.yml"),
        ({"fetcher": "nosuchmodule"}, "fetcher", "names no module of pipeline/providers/"),
        ({"name": ""}, "name", "must not be empty"),
        ({"colour_hex": "#000000"}, "colour_hex", "unknown field"),
        ({"catalogue": {"cloud": "lambda", "shelf": 2}}, "catalogue.shelf", "unknown field"),
        ({"market": None}, "market", "must be one of"),
    ],
)
def test_a_wrong_field_is_named_with_its_file_and_rule(tmp_path, change, field, rule):
    root = tree(tmp_path)
    data = yaml.safe_load(described(root).read_text(encoding="utf-8")) | change
    described(root).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    found, problems = read_providers(root)
    assert "lambda" not in found
    (problem,) = problems
    assert problem.file == "sources/prices/lambda/provider.yml" and problem.column == field
    assert rule in problem.rule, problem.rule


def test_a_missing_field_a_missing_file_and_a_shared_colour_are_named(tmp_path):
    root = tree(tmp_path)
    data = yaml.safe_load(described(root).read_text(encoding="utf-8"))
    described(root).write_text(yaml.safe_dump({k: v for k, v in data.items() if k != "currency"}), encoding="utf-8")
    (problem,) = read_providers(root)[1]
    assert (problem.column, problem.rule) == ("currency", "required field is missing")

    described(root).unlink()
    (problem,) = read_providers(root)[1]
    assert problem.file == "sources/prices/lambda/provider.yml" and problem.rule.startswith("missing")
    # the build stops on it (check-sources and the ingest report the same problem)
    assert [str(p) for p in check_all(root) if p.file.endswith(PROVIDER_FILE)] == [str(problem)]

    described(root).write_text(yaml.safe_dump(data), encoding="utf-8")
    shutil.copytree(SOURCES / "prices" / "nebius", root / "prices" / "nebius")
    other = yaml.safe_load(described(root, "nebius").read_text(encoding="utf-8"))
    described(root, "nebius").write_text(yaml.safe_dump(other | {"colour": data["colour"]}), encoding="utf-8")
    (problem,) = read_providers(root)[1]
    assert problem.file == "sources/prices/nebius/provider.yml" and problem.column == "colour"
    assert "already lambda's colour" in problem.rule


def test_a_snapshot_under_other_terms_than_its_providers_is_refused(tmp_path):
    root = tree(tmp_path)
    side = sorted((root / "prices" / "lambda").glob("*/prices.source.yml"))[-1]
    side.write_text(side.read_text(encoding="utf-8").replace("terms: lambda", "terms: nebius"), encoding="utf-8")
    problems = [p for p in check_all(root) if p.column == "terms"]
    assert [(p.file.split("/")[-1], p.value) for p in problems] == [("prices.source.yml", "nebius")]
    assert "its provider's terms: 'lambda'" in problems[0].rule


def test_an_alias_table_lives_in_its_providers_folder_and_needs_its_provider_yml(tmp_path):
    """A provider's alias table is sources/prices/<provider>/aliases.csv; a folder holding only one is refused."""
    root = tree(tmp_path)
    (root / "prices" / "nebius").mkdir()
    shutil.copyfile(SOURCES / "prices" / "nebius" / "aliases.csv", root / "prices" / "nebius" / "aliases.csv")
    (problem,) = read_providers(root)[1]
    assert problem.file == "sources/prices/nebius/provider.yml"
    assert all(path.name == "aliases.csv" for path in discover(SOURCES, KINDS["aliases"]))


def test_fetchers_are_found_from_the_provider_yml(tmp_path):
    """A provider's fetcher is the module its provider.yml names: none, and it has none."""
    root = tree(tmp_path)
    assert set(fetch.providers(root)) == {"lambda"}
    data = yaml.safe_load(described(root).read_text(encoding="utf-8"))
    described(root).write_text(yaml.safe_dump(data | {"fetcher": None, "catalogue": None}), encoding="utf-8")
    assert fetch.providers(root) == {}
