"""The asset graph as a snapshot: a lost or new dependency shows up as a diff.
After an intended change, regenerate with: uv run python tests/unit/test_asset_graph.py"""

from __future__ import annotations

import json
from pathlib import Path

SNAPSHOT = Path(__file__).with_name("asset_graph.json")


def current_graph() -> dict[str, list[str]]:
    from pipeline.definitions import defs

    graph = defs.resolve_asset_graph()
    return {
        key.to_user_string(): sorted(k.to_user_string() for k in graph.get(key).parent_keys)
        for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string())
    }


def test_asset_graph_matches_snapshot():
    assert current_graph() == json.loads(SNAPSHOT.read_text())


def test_every_asset_has_group_description_and_kind():
    from pipeline.definitions import defs

    graph = defs.resolve_asset_graph()
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        assert node.group_name and node.group_name != "default", key
        assert node.description, key
        assert node.kinds, key


def test_price_refresh_skips_spec_and_model_stages():
    from pipeline.definitions import defs
    from pipeline.run import price_selection

    selected = {k.to_user_string() for k in price_selection().resolve(defs.resolve_asset_graph())}
    assert {"raw_prices", "core_price_history", "out_rankings", "pages_prices", "site"} <= selected
    assert (
        not {
            "raw_gpus",
            "core_gpus",
            "core_spec_claims",
            "raw_models",
            "out_memory_requirements",
            "out_vram_fit",
            "pages_specs",
            "pages_estimates",
        }
        & selected
    )


def imports() -> dict[str, set[str]]:
    """Each module of the package -> the modules of the package it imports (at the top or inside a function)."""
    import ast

    package = Path(__file__).resolve().parents[2] / "pipeline"
    found: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        parts = ["pipeline", *path.relative_to(package).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_package else parts)
        here = parts[:-1]  # the package a relative import starts from
        names = found.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names if a.name.startswith("pipeline"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*here[: len(here) - node.level + 1], *([base] if base else [])])
                if base.startswith("pipeline"):
                    names.add(base)
                    names.update(f"{base}.{a.name}" for a in node.names)
    return found


def test_imports_go_one_way():
    """gpu-atlas -> pipeline.jobs -> pipeline.definitions -> pipeline.defs -> pipeline.run: the publisher imports
    neither the definitions nor their modules, and the definitions' modules never import the command or its jobs.
    The one import back up: RunGenerations._partial reads the asset graph from the definitions when a run starts."""
    found = imports()
    upper = ("pipeline.definitions", "pipeline.defs", "pipeline.jobs", "pipeline.cli")
    assert {name for name in found["pipeline.run"] if name.startswith(upper)} == set()
    for module, names in found.items():
        if module.startswith("pipeline.defs"):
            assert not {n for n in names if n.startswith(("pipeline.jobs", "pipeline.cli"))}, module
    importers = {module for module, names in found.items() if "pipeline.definitions" in names}
    assert importers == {"pipeline.jobs", "pipeline.defs.resources"}


def test_the_publisher_loads_without_the_definitions():
    import subprocess
    import sys

    code = (
        "import sys, pipeline.run; "
        "print(sorted(m for m in sys.modules if m.startswith(('pipeline.defs', 'pipeline.definitions', 'pipeline.jobs'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(current_graph(), indent=1) + "\n")
    print(f"wrote {SNAPSHOT}")


def test_every_module_under_defs_is_in_the_definitions():
    """pipeline/definitions.py lists the modules of pipeline/defs/: a new module left out of the list fails here."""
    import importlib
    import pkgutil

    import dagster as dg

    import pipeline.defs
    from pipeline.definitions import defs

    graph = defs.resolve_asset_graph()
    known = {k.to_user_string() for k in graph.get_all_asset_keys()}
    checks = {k for c in defs.asset_checks for k in c.check_keys}
    found = 0
    for info in pkgutil.iter_modules(pipeline.defs.__path__):
        module = importlib.import_module(f"pipeline.defs.{info.name}")
        for value in vars(module).values():
            if isinstance(value, dg.AssetChecksDefinition):
                assert set(value.check_keys) <= checks, f"pipeline.defs.{info.name}: {value.check_keys}"
                found += 1
            elif isinstance(value, dg.AssetsDefinition):
                keys = {k.to_user_string() for k in value.keys}
                assert keys <= known, f"pipeline.defs.{info.name}: {keys - known} not in pipeline/definitions.py"
                found += 1
            elif type(value).__name__ in ("JobDefinition", "UnresolvedAssetJobDefinition"):
                assert value.name in {j.name for j in defs.jobs}, f"pipeline.defs.{info.name}: job {value.name}"
                found += 1
            elif isinstance(value, (dg.ScheduleDefinition, dg.SensorDefinition)):
                assert value.name in {s.name for s in [*defs.schedules, *defs.sensors]}, value.name
                found += 1
    assert found >= 10
