"""Find source snapshots, check their provenance sidecars, and read them as they are.

Reading attaches where every row came from (file, line, source id) and nothing else: no cleaning,
no type conversion. Typing and rules belong to the schemas (`schemas.py`) and the SQL stage.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from .errors import Problem, SourceError

SIDECAR_KINDS = {
    "vendor_datasheet",
    "vendor_datasheet_copy",
    "curated_dataset",
    "article",
    "cloud_price_list",
    "model_card",
    "price_api",
    "curated_mapping",
    # what a price snapshot is
    "provider_page",
    "provider_api",
    "catalogue_copy",
    "price_tracker",
    "exchange_rates",
}
# a price snapshot's kind says what the document is: the provider's own page or API, a third party's copy
# of the provider's list (a catalogue), a tracker that samples prices over time, or an article quoting them
PRICE_KINDS = ("provider_page", "provider_api", "catalogue_copy", "price_tracker", "article")
PRICE_BASES = ("whole_instance", "gpu_only", "gpu_and_host")
SCOPE_KEYS = ("gpus", "regions", "tiers")
SIDECAR_REQUIRED = ("title", "publisher", "kind", "url", "accessed_on", "checksum")


@dataclass(frozen=True)
class SourceKind:
    """One kind of source file: where it lives and which columns it must have."""

    name: str  # raw table suffix, e.g. "prices" -> raw_prices
    pattern: str  # glob under sources/
    dated: bool  # lives in a <YYYY-MM-DD> folder
    columns: tuple[str, ...]
    cites_documents: bool  # rows carry document_id
    optional: tuple[str, ...] = ()  # columns a file may leave out (read as empty)
    sidecar_columns: tuple[str, ...] = ()  # per-file facts from the sidecar, repeated on every row


KINDS: dict[str, SourceKind] = {
    k.name: k
    for k in [
        SourceKind(
            "gpus",
            "specs/*/*/gpus.csv",
            True,
            ("gpu_id", "vendor", "family", "name", "form_factor", "segment", "architecture",
             "release_year", "memory_gb", "memory_type", "gpus_per_product", "tensor_cores",
             "document_id"),
            True,
        ),
        SourceKind(
            "spec_figures",
            "specs/*/*/figures.csv",
            True,
            ("gpu_id", "metric", "precision", "unit_kind", "accumulate", "sparsity", "value",
             "unit", "per_gpus", "document_id", "note"),
            True,
        ),
        SourceKind(
            "claims",
            "claims/*/*/claims.csv",
            True,
            ("table_ref", "row_label", "gpu_id", "metric", "precision", "sparsity_stated",
             "value", "value_text", "unit", "quote"),
            False,
        ),
        SourceKind(
            "model_claims",
            "claims/*/*/model_claims.csv",
            True,
            ("table_ref", "row_label", "model_id", "params_b", "vram_gb_claimed",
             "recommended_gpu", "quote"),
            False,
        ),
        SourceKind(
            "prices",
            "prices/*/*/prices.csv",
            True,
            ("offering", "gpu_name", "gpu_memory_gb", "gpu_count", "usd_per_hour",
             "pricing_tier", "statistic", "region", "note"),
            False,
            optional=("currency", "amount_per_hour", "host_usd_per_hour", "sample_size"),
            sidecar_columns=("snapshot_kind", "scope", "scope_gpus", "scope_regions", "scope_tiers",
                             "price_basis", "billing", "min_commitment", "observed_date_known"),
        ),
        SourceKind(
            "fx_rates",
            "fx/*/*/rates.csv",
            True,
            ("currency", "units_per_usd", "rate_date", "document_id"),
            True,
        ),
        SourceKind(
            "aliases",
            "aliases/*.csv",
            False,
            ("gpu_name", "gpu_memory_gb", "gpu_id", "evidence"),
            False,
        ),
        SourceKind(
            "models",
            "models/*/*/llms.csv",
            True,
            ("model_id", "name", "family", "developer", "params_b", "active_params_b", "layers",
             "hidden_size", "intermediate_size", "attention_heads", "kv_heads", "head_dim",
             "vocab_size", "max_context", "attention_kind", "sliding_window",
             "full_attention_layers", "kv_lora_rank", "qk_rope_head_dim", "num_experts",
             "experts_per_token", "document_id"),
            True,
        ),
    ]
}

# columns every raw table carries besides the file's own
PROVENANCE_COLUMNS = ("source_id", "snapshot_id", "collection", "snapshot_date", "source_file",
                      "source_row")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def latest_price_snapshot(root: Path, provider: str) -> Path | None:
    """The provider's newest dated price folder holding a prices.csv (its current price list), if any."""
    dated = sorted(p.parent for p in (root / "prices" / provider).glob("*/prices.csv"))
    return dated[-1] if dated else None


def sidecar_path(data_file: Path) -> Path:
    return data_file.with_suffix(".source.yml")


def _as_date(value) -> dt.date | None:
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


# libyaml's safe loader when PyYAML was built with it (several times faster), else the pure-Python one
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_sidecar(data_file: Path, root: Path) -> tuple[dict, list[Problem]]:
    """Load and check the provenance sidecar of one data file."""
    rel = str(data_file.relative_to(root.parent)) if root.parent in data_file.parents else str(data_file)
    side = sidecar_path(data_file)
    side_rel = rel[: -len(".csv")] + ".source.yml"
    if not side.exists():
        return {}, [Problem(rel, None, None, f"missing provenance sidecar {side.name}")]
    try:
        meta = yaml.load(side.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        return {}, [Problem(side_rel, None, None, f"sidecar is not valid YAML: {exc}")]
    if not isinstance(meta, dict):
        return {}, [Problem(side_rel, None, None, "sidecar must be a YAML mapping")]
    problems: list[Problem] = []
    for key in SIDECAR_REQUIRED:
        if meta.get(key) in (None, ""):
            problems.append(Problem(side_rel, None, key, "required sidecar field is missing"))
    if meta.get("kind") and meta["kind"] not in SIDECAR_KINDS:
        problems.append(Problem(side_rel, None, "kind", f"must be one of {sorted(SIDECAR_KINDS)}",
                                str(meta["kind"])))
    for key in ("accessed_on", "published_on"):
        if meta.get(key) not in (None, "") and _as_date(meta[key]) is None:
            problems.append(Problem(side_rel, None, key, "must be a date YYYY-MM-DD", str(meta[key])))
    checksum = str(meta.get("checksum") or "")
    if checksum:
        actual = "sha256:" + sha256(data_file)
        if checksum != actual:
            problems.append(Problem(side_rel, None, "checksum",
                                    f"does not match the data file ({actual})", checksum))
    docs = meta.get("documents") or []
    if not isinstance(docs, list):
        problems.append(Problem(side_rel, None, "documents", "must be a list"))
        docs = []
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict) or not doc.get("id") or not doc.get("url"):
            problems.append(Problem(side_rel, None, f"documents[{i}]", "needs an id and a url"))
        elif doc.get("kind") and doc["kind"] not in SIDECAR_KINDS:
            problems.append(Problem(side_rel, None, f"documents[{i}].kind",
                                    f"must be one of {sorted(SIDECAR_KINDS)}", str(doc["kind"])))
    meta["documents"] = [d for d in docs if isinstance(d, dict)]
    return meta, problems


def price_sidecar_facts(meta: dict, side_rel: str) -> tuple[dict, list[Problem]]:
    """What a price sidecar says about its snapshot, checked: its kind, its scope (the whole list, or
    the GPUs, regions and tiers it covers), what its prices cover (price basis), billing and commitment."""
    problems: list[Problem] = []
    kind = meta.get("kind")
    if kind and kind not in PRICE_KINDS:
        problems.append(Problem(side_rel, None, "kind", f"a price snapshot's kind must be one of {list(PRICE_KINDS)}",
                                str(kind)))
    scope = meta.get("scope")
    covers = meta.get("covers") or {}
    if scope not in ("full", "partial"):
        problems.append(Problem(side_rel, None, "scope",
                                "must be 'full' (the provider's whole list) or 'partial' (with covers:)", str(scope)))
    if not isinstance(covers, dict) or any(k not in SCOPE_KEYS for k in covers):
        problems.append(Problem(side_rel, None, "covers", f"must map some of {list(SCOPE_KEYS)} to lists",
                                str(covers)))
        covers = {}
    for key, values in covers.items():
        if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
            problems.append(Problem(side_rel, None, f"covers.{key}", "must be a non-empty list of names", str(values)))
    if scope == "partial" and not covers:
        problems.append(Problem(side_rel, None, "covers", "a partial snapshot must say which GPUs, regions or tiers it covers"))
    if scope == "full" and covers:
        problems.append(Problem(side_rel, None, "covers", "a full snapshot covers everything: drop covers: or say scope: partial"))
    basis = meta.get("price_basis")
    if basis not in PRICE_BASES:
        problems.append(Problem(side_rel, None, "price_basis", f"must be one of {list(PRICE_BASES)}", str(basis)))
    date_known = meta.get("observed_date_known", True)
    if not isinstance(date_known, bool):
        problems.append(Problem(side_rel, None, "observed_date_known", "must be true or false", str(date_known)))

    def joined(key):
        values = covers.get(key) if isinstance(covers.get(key), list) else None
        return ",".join(str(v) for v in values) if values else None

    facts = {"snapshot_kind": kind, "scope": scope, "scope_gpus": joined("gpus"), "scope_regions": joined("regions"),
             "scope_tiers": joined("tiers"), "price_basis": basis,
             "billing": None if meta.get("billing") is None else str(meta["billing"]),
             "min_commitment": None if meta.get("min_commitment") is None else str(meta["min_commitment"]),
             "observed_date_known": "true" if date_known is not False else "false"}
    return facts, problems


def _snapshot(data_file: Path, root: Path, kind: SourceKind) -> tuple[str, str, str | None]:
    """(snapshot_id, collection, snapshot date) from the file's place in the tree."""
    rel = data_file.relative_to(root)
    snapshot_id = str(rel.with_suffix(""))
    if kind.dated:
        return snapshot_id, rel.parts[-3], rel.parts[-2]
    return snapshot_id, rel.stem, None


def discover(root: Path, kind: SourceKind) -> list[Path]:
    return sorted(root.glob(kind.pattern))


def read_kind(root: Path, kind: SourceKind) -> tuple[pd.DataFrame, list[dict], list[Problem]]:
    """Read every file of one kind. Returns the rows (all text), source records and problems."""
    frames: list[pd.DataFrame] = []
    records: list[dict] = []
    problems: list[Problem] = []
    for path in discover(root, kind):
        rel = str(path.relative_to(root.parent))
        meta, side_problems = read_sidecar(path, root)
        problems += side_problems
        snapshot_id, collection, date = _snapshot(path, root, kind)
        if kind.dated and _as_date(date) is None:
            problems.append(Problem(rel, None, None, "folder name must be a date YYYY-MM-DD", date))
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header = next(reader, [])
            rows = list(reader)
        header = [h.strip() for h in header]
        missing = [c for c in kind.columns if c not in header]
        extra = [c for c in header if c not in kind.columns and c not in kind.optional]
        for c in missing:
            problems.append(Problem(rel, 1, c, "required column is missing"))
        for c in extra:
            problems.append(Problem(rel, 1, c, "unknown column (check the spelling)"))
        if missing or extra:
            continue
        width = len(header)
        bad_width = [i for i, r in enumerate(rows, start=2) if len(r) != width and any(r)]
        for line in bad_width:
            problems.append(Problem(rel, line, None, f"row has a different number of fields than the header ({width})"))
        if bad_width:
            continue
        numbered = [(i, r) for i, r in enumerate(rows, start=2) if any(cell.strip() for cell in r)]
        frame = pd.DataFrame([r for _, r in numbered], columns=header, dtype=object)
        frame = frame.apply(lambda col: col.str.strip()).replace({"": None})
        for c in kind.optional:
            if c not in frame.columns:
                frame[c] = None
        if kind.sidecar_columns:
            side_rel = rel[: -len(".csv")] + ".source.yml"
            facts, fact_problems = price_sidecar_facts(meta, side_rel) if meta else ({}, [])
            problems += fact_problems
            for c in kind.sidecar_columns:
                frame[c] = facts.get(c)
        doc_ids = {d["id"] for d in meta.get("documents", [])}
        if kind.cites_documents:
            for (line, _), doc in zip(numbered, frame["document_id"]):
                if doc is not None and doc not in doc_ids:
                    problems.append(Problem(rel, line, "document_id",
                                            "names no document of the sidecar", doc))
            frame["source_id"] = frame["document_id"]
        else:
            frame["source_id"] = snapshot_id
        frame["snapshot_id"] = snapshot_id
        frame["collection"] = collection
        frame["snapshot_date"] = date
        frame["source_file"] = rel
        frame["source_row"] = [line for line, _ in numbered]
        frames.append(frame)
        records.append({"snapshot_id": snapshot_id, "file": rel, "meta": meta, "rows": len(frame)})
    columns = list(kind.columns) + list(kind.optional) + list(kind.sidecar_columns) + list(PROVENANCE_COLUMNS)
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    return data[columns].astype(object).where(data[columns].notna(), None), records, problems


def source_rows(records: list[dict]) -> list[dict]:
    """One row per citable source: each snapshot file, and each document a sidecar lists."""
    out: list[dict] = []
    for rec in records:
        meta = rec["meta"]
        base = {
            "kind": meta.get("kind"),
            "publisher": meta.get("publisher"),
            "accessed_on": str(_as_date(meta.get("accessed_on")) or ""),
            "licence": meta.get("licence"),
            "snapshot_id": rec["snapshot_id"],
            "file": rec["file"],
            "checksum": meta.get("checksum"),
            "rows": rec["rows"],
        }
        out.append({**base, "source_id": rec["snapshot_id"], "title": meta.get("title"),
                    "url": meta.get("url"),
                    "published_on": str(_as_date(meta.get("published_on")) or "") or None})
        for doc in meta.get("documents", []):
            out.append({**base, "source_id": doc["id"], "kind": doc.get("kind") or meta.get("kind"),
                        "title": doc.get("title") or meta.get("title"),
                        "url": doc.get("url"), "publisher": doc.get("publisher") or meta.get("publisher"),
                        "published_on": str(_as_date(doc.get("published_on")) or "") or None})
    return out


def check_all(root: Path) -> list[Problem]:
    """Every sidecar and checksum of the tree (used by tests and `gpu-atlas check-sources`)."""
    problems: list[Problem] = []
    for kind in KINDS.values():
        problems += read_kind(root, kind)[2]
    return problems


def write_checksums(root: Path) -> list[Path]:
    """Refresh the checksum of every sidecar whose data file changed. Returns the sidecars written."""
    written = []
    for kind in KINDS.values():
        for path in discover(root, kind):
            side = sidecar_path(path)
            if not side.exists():
                continue
            text = side.read_text(encoding="utf-8")
            new = "sha256:" + sha256(path)
            lines = text.splitlines()
            changed = False
            for i, line in enumerate(lines):
                if line.startswith("checksum:"):
                    if line.split(":", 1)[1].strip() != new:
                        lines[i] = f"checksum: {new}"
                        changed = True
                    break
            else:
                lines.append(f"checksum: {new}")
                changed = True
            if changed:
                side.write_text("\n".join(lines) + "\n", encoding="utf-8")
                written.append(side)
    return written


def ensure_ok(problems: list[Problem]) -> None:
    if problems:
        raise SourceError(problems)
