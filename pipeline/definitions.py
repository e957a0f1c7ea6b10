"""Dagster entry point: everything under pipeline/defs/ is loaded automatically."""

from pathlib import Path

import dagster as dg

defs = dg.load_from_defs_folder(project_root=Path(__file__).resolve().parent.parent)
