"""Dagster entry point: everything under pipeline/defs/ is loaded automatically."""

from pathlib import Path

import dagster as dg

defs = dg.load_from_defs_folder(path_within_project=Path(__file__).resolve().parent)
