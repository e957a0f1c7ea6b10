"""Provenance sidecars (`X.source.yml`): read one, check its URL, dates and price facts."""

from __future__ import annotations

from pathlib import Path

import yaml

from ..errors import Problem
from .files import _as_date, build_date, check_url, decode, inside, load_yaml, sha256
from .kinds import ACCESS_TOLERANCE_DAYS, PRICE_BASES, PRICE_KINDS, SCOPE_KEYS, SIDECAR_KINDS, SIDECAR_REQUIRED
from .terms import check_terms, resolve_terms


def sidecar_path(data_file: Path) -> Path:
    return data_file.with_suffix(".source.yml")


def sidecar_rel(rel: str) -> str:
    return rel[: -len(".csv")] + ".source.yml"


def read_sidecar(data_file: Path, root: Path) -> tuple[dict, list[Problem]]:
    """Load and check the provenance sidecar of one data file."""
    rel = str(data_file.relative_to(root.parent)) if root.parent in data_file.parents else str(data_file)
    side = sidecar_path(data_file)
    side_rel = sidecar_rel(rel)
    if not side.exists():
        return {}, [Problem(rel, None, None, f"missing provenance sidecar {side.name}")]
    if not inside(side, root):
        return {}, [
            Problem(
                side_rel,
                None,
                None,
                f"a symlink that leaves sources/ (to {side.resolve()}): copy the file into sources/ instead",
            )
        ]
    text, bad = decode(side.read_bytes(), side_rel)
    if bad:
        return {}, bad
    try:
        meta = load_yaml(text)
    except yaml.YAMLError as exc:
        return {}, [Problem(side_rel, None, None, f"sidecar is not valid YAML: {exc}")]
    if not isinstance(meta, dict):
        return {}, [Problem(side_rel, None, None, "sidecar must be a YAML mapping")]
    problems: list[Problem] = []
    for key in SIDECAR_REQUIRED:
        if meta.get(key) in (None, ""):
            problems.append(Problem(side_rel, None, key, "required sidecar field is missing"))
    if meta.get("kind") and meta["kind"] not in SIDECAR_KINDS:
        problems.append(Problem(side_rel, None, "kind", f"must be one of {sorted(SIDECAR_KINDS)}", str(meta["kind"])))
    for key in ("accessed_on", "published_on"):
        if meta.get(key) not in (None, "") and _as_date(meta[key]) is None:
            problems.append(Problem(side_rel, None, key, "must be a date YYYY-MM-DD", str(meta[key])))
    if meta.get("url") not in (None, ""):
        problems += check_url(meta["url"], side_rel, "url")
    problems += _check_dates(meta, data_file, side_rel)
    unresolved = resolve_terms(meta, root, side_rel)
    problems += unresolved or check_terms(meta, side_rel)
    checksum = str(meta.get("checksum") or "")
    if checksum:
        actual = "sha256:" + sha256(data_file)
        if checksum != actual:
            problems.append(Problem(side_rel, None, "checksum", f"does not match the data file ({actual})", checksum))
    docs = meta.get("documents") or []
    if not isinstance(docs, list):
        problems.append(Problem(side_rel, None, "documents", "must be a list"))
        docs = []
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict) or not doc.get("id") or not doc.get("url"):
            problems.append(Problem(side_rel, None, f"documents[{i}]", "needs an id and a url"))
            continue
        problems += check_url(doc["url"], side_rel, f"documents[{i}].url")
        if doc.get("kind") and doc["kind"] not in SIDECAR_KINDS:
            problems.append(
                Problem(
                    side_rel, None, f"documents[{i}].kind", f"must be one of {sorted(SIDECAR_KINDS)}", str(doc["kind"])
                )
            )
    meta["documents"] = [d for d in docs if isinstance(d, dict)]
    return meta, problems


def _check_dates(meta: dict, data_file: Path, side_rel: str) -> list[Problem]:
    """accessed_on is not in the future and agrees with the snapshot folder's date (ACCESS_TOLERANCE_DAYS)."""
    accessed = _as_date(meta.get("accessed_on"))
    if accessed is None:
        return []
    today = build_date()
    if accessed > today:
        return [Problem(side_rel, None, "accessed_on", f"is after the build date {today}", str(accessed))]
    folder = _as_date(data_file.parent.name)
    if folder is None:
        return []
    gap = (accessed - folder).days
    if gap < -ACCESS_TOLERANCE_DAYS:
        return [
            Problem(
                side_rel,
                None,
                "accessed_on",
                f"is {-gap} days before the snapshot folder's date {folder}: a source cannot be read before "
                f"the day its snapshot stands for (tolerance {ACCESS_TOLERANCE_DAYS} days)",
                str(accessed),
            )
        ]
    if gap > ACCESS_TOLERANCE_DAYS and _as_date(meta.get("published_on")) != folder:
        return [
            Problem(
                side_rel,
                None,
                "accessed_on",
                f"is {gap} days after the snapshot folder's date {folder} (tolerance {ACCESS_TOLERANCE_DAYS} "
                f"days); a copy read later from an archive states published_on: {folder}",
                str(accessed),
            )
        ]
    return []


def price_sidecar_facts(meta: dict, side_rel: str) -> tuple[dict, list[Problem]]:
    """What a price sidecar says about its snapshot, checked: its kind, its scope (the whole list, or
    the GPUs, regions and tiers it covers), what its prices cover (price basis), billing and commitment."""
    problems: list[Problem] = []
    kind = meta.get("kind")
    if kind and kind not in PRICE_KINDS:
        problems.append(
            Problem(side_rel, None, "kind", f"a price snapshot's kind must be one of {list(PRICE_KINDS)}", str(kind))
        )
    scope = meta.get("scope")
    covers = meta.get("covers") or {}
    if scope not in ("full", "partial"):
        problems.append(
            Problem(
                side_rel,
                None,
                "scope",
                "must be 'full' (the provider's whole list) or 'partial' (with covers:)",
                str(scope),
            )
        )
    if not isinstance(covers, dict) or any(k not in SCOPE_KEYS for k in covers):
        problems.append(Problem(side_rel, None, "covers", f"must map some of {list(SCOPE_KEYS)} to lists", str(covers)))
        covers = {}
    for key, values in covers.items():
        names = isinstance(values, list) and values and all(isinstance(v, str) and v for v in values)
        counts = (
            key == "gpu_counts"
            and isinstance(values, list)
            and values
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values)
        )
        if not (names or counts):
            problems.append(Problem(side_rel, None, f"covers.{key}", "must be a non-empty list of names", str(values)))
    if scope == "partial" and not covers:
        problems.append(
            Problem(side_rel, None, "covers", "a partial snapshot must say which GPUs, regions or tiers it covers")
        )
    if scope == "full" and covers:
        problems.append(
            Problem(side_rel, None, "covers", "a full snapshot covers everything: drop covers: or say scope: partial")
        )
    basis = meta.get("price_basis")
    if basis not in PRICE_BASES:
        problems.append(Problem(side_rel, None, "price_basis", f"must be one of {list(PRICE_BASES)}", str(basis)))
    date_known = meta.get("observed_date_known", True)
    if not isinstance(date_known, bool):
        problems.append(Problem(side_rel, None, "observed_date_known", "must be true or false", str(date_known)))

    if "market" in meta:  # who can buy is the provider's, not a snapshot's
        problems.append(
            Problem(
                side_rel,
                None,
                "market",
                "a provider's market is said once, in its provider.yml (sources/prices/<provider>/provider.yml)",
                str(meta["market"]),
            )
        )
    bound = meta.get("observed_no_later_than")
    if bound is not None:
        if date_known is not False:
            problems.append(
                Problem(
                    side_rel,
                    None,
                    "observed_no_later_than",
                    "is only for an undated copy (observed_date_known: false)",
                    str(bound),
                )
            )
        elif _as_date(bound) is None:
            problems.append(
                Problem(side_rel, None, "observed_no_later_than", "must be a date (YYYY-MM-DD)", str(bound))
            )

    def joined(key):
        values = covers.get(key) if isinstance(covers.get(key), list) else None
        return ",".join(str(v) for v in values) if values else None

    facts = {
        "snapshot_kind": kind,
        "scope": scope,
        "scope_gpus": joined("gpus"),
        "scope_regions": joined("regions"),
        "scope_tiers": joined("tiers"),
        "scope_gpu_counts": joined("gpu_counts"),
        "price_basis": basis,
        "billing": None if meta.get("billing") is None else str(meta["billing"]),
        "min_commitment": None if meta.get("min_commitment") is None else str(meta["min_commitment"]),
        "observed_date_known": "true" if date_known is not False else "false",
        "observed_no_later_than": None if _as_date(bound) is None else _as_date(bound).isoformat(),
    }
    return facts, problems
