"""Price providers: one folder each under sources/prices/, described by its `provider.yml`.

A provider's folder holds what GPU Atlas knows of it: its dated price snapshots, and `provider.yml` saying its
name, its market, the currency it prices in, the terms of use it is published under (a key of sources/terms.yml),
its colour on every chart and the module of `pipeline/providers/` that fetches its prices (or none). The file is
checked field by field (a pydantic model); every problem names the file, the field and the rule.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import Problem
from .files import decode, inside, load_yaml
from .kinds import CURRENCIES, MARKETS, TERMS_FILE
from .terms import load_terms

PROVIDER_FILE = "provider.yml"
FETCHER_PACKAGE = "pipeline.providers"


class Catalogue(BaseModel):
    """Where a catalogue that copies many providers' prices keeps this one's (fetcher `skypilot`)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    cloud: str = Field(min_length=1, description="the provider's folder in the catalogue, e.g. do")
    older_file: str | None = Field(None, description="the file read when the current catalogue holds none")
    marketplace: bool = Field(False, description="each row is one host's listing on a marketplace")


class ProviderFile(BaseModel):
    """sources/prices/<provider>/provider.yml."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, description="the provider's name as the pages write it")
    market: Literal[MARKETS] = Field(description="who can buy: global (anyone) or cn-mainland")  # type: ignore[valid-type]
    currency: Literal[CURRENCIES] = Field(description="the currency its price list prints")  # type: ignore[valid-type]
    terms: str = Field(min_length=1, description="its terms of use: a key of sources/terms.yml")
    colour: str = Field(pattern=r"^#[0-9a-f]{6}$", description="its colour on every chart, #rrggbb")
    fetcher: str | None = Field(description="the module of pipeline/providers/ that fetches its prices, or null")
    catalogue: Catalogue | None = None


def _rule(error: dict) -> str:
    """A pydantic error in the words of the file's rules."""
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return f"unknown field (the fields are {', '.join(ProviderFile.model_fields)})"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind == "string_pattern_mismatch":
        return "must be a colour #rrggbb (six lower-case hex digits)"
    if kind == "string_too_short":
        return "must not be empty"
    return error["msg"]


def provider_folders(root: Path) -> list[Path]:
    """Every provider folder: the folders under sources/prices/ (a hidden one is a fetch being written)."""
    base = root / "prices"
    return sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")) if base.is_dir() else []


def read_provider(folder: Path, root: Path, terms: dict) -> tuple[dict | None, list[Problem]]:
    """One provider.yml, checked: its fields, its terms key and its fetcher module."""
    path = folder / PROVIDER_FILE
    rel = str(path.relative_to(root.parent))
    if not path.is_file():
        return None, [
            Problem(
                rel,
                None,
                None,
                f"missing: every provider folder has a {PROVIDER_FILE} (name, market, currency, terms, colour, "
                "fetcher; see sources/README.md)",
            )
        ]
    if not inside(path, root):
        return None, [Problem(rel, None, None, "a symlink that leaves sources/: copy the file into sources/ instead")]
    text, bad = decode(path.read_bytes(), rel)
    if bad:
        return None, bad
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        return None, [Problem(rel, None, None, f"not valid YAML: {exc}")]
    if not isinstance(data, dict):
        return None, [Problem(rel, None, None, "must be a YAML mapping of fields")]
    try:
        provider = ProviderFile.model_validate(data)
    except ValidationError as exc:
        return None, [
            Problem(
                rel,
                None,
                ".".join(str(part) for part in e["loc"]),
                _rule(e),
                None if e["type"] == "missing" else str(e.get("input")),
            )
            for e in exc.errors()
        ]
    problems = []
    if provider.terms not in terms:
        problems.append(
            Problem(rel, None, "terms", f"names no terms of sources/{TERMS_FILE} (record them there)", provider.terms)
        )
    if provider.fetcher is not None and importlib.util.find_spec(f"{FETCHER_PACKAGE}.{provider.fetcher}") is None:
        problems.append(Problem(rel, None, "fetcher", "names no module of pipeline/providers/", provider.fetcher))
    if provider.catalogue is not None and provider.fetcher is None:
        problems.append(Problem(rel, None, "catalogue", "is for a catalogue fetcher: name the fetcher"))
    record = {"provider": folder.name, **provider.model_dump(), "file": rel}
    return (None if problems else record), problems


def read_providers(root: Path) -> tuple[dict[str, dict], list[Problem]]:
    """Every provider's provider.yml by provider id (those that pass their checks), and the problems: a provider
    folder without one, a broken one, two providers with one colour."""
    files = [folder / PROVIDER_FILE for folder in provider_folders(root)] + [root / TERMS_FILE]
    stamp = tuple((str(f), f.stat().st_mtime_ns if f.exists() else 0) for f in files)
    found, problems = _read_providers(root, stamp)
    return dict(found), list(problems)


@functools.lru_cache(maxsize=8)
def _read_providers(root: Path, _stamp: tuple) -> tuple[dict, tuple]:
    """read_providers, once per version of the files (the ingest, the checks and the fetchers all ask)."""
    terms, _ = load_terms(root)
    found: dict[str, dict] = {}
    problems: list[Problem] = []
    for folder in provider_folders(root):
        record, bad = read_provider(folder, root, terms)
        problems += bad
        if record is not None:
            found[folder.name] = record
    by_colour: dict[str, list[str]] = {}
    for provider, record in found.items():
        by_colour.setdefault(record["colour"], []).append(provider)
    for colour, providers in by_colour.items():
        for provider in providers[1:]:
            problems.append(
                Problem(
                    found[provider]["file"],
                    None,
                    "colour",
                    f"already {providers[0]}'s colour: every provider has its own on the charts",
                    colour,
                )
            )
    return found, tuple(problems)
