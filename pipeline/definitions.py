"""Dagster entry point: the definitions of every module under pipeline/defs/ (ingest, transform, render,
automation, resources), merged. Listed here rather than found by `dg.load_from_defs_folder`, which also scans
every installed package's entry points for components: a tenth of a second of every command's start. A module
left out of the list fails tests/unit/test_asset_graph.py."""

import dagster as dg

from pipeline.defs import automation, ingest, render, resources, transform

defs = dg.Definitions.merge(ingest.defs(), transform.defs(), render.defs(), automation.defs(), resources.resources())
