"""Find source snapshots, check their provenance sidecars, and read them as they are.

Reading attaches where every row came from (file, line, source id) and nothing else: no cleaning,
no type conversion. Typing and rules belong to the schemas (`schemas.py`) and the SQL stage.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import hashlib
import io
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from .errors import Problem, SourceError

# What a document is. Spec kinds, best first (the order ranks figures, see SPEC_KIND_RANK):
# the vendor's own page or PDF; a faithful reprint of a vendor document or table hosted by someone
# else; a curated dataset or GPU database; a reseller's page; a blog or wiki; a press article.
SPEC_KIND_RANK = {
    "vendor_document": 1,
    "vendor_reprint": 2,
    "curated_dataset": 3,
    "reseller": 4,
    "blog_or_wiki": 5,
    "article": 6,
}
SIDECAR_KINDS = {
    *SPEC_KIND_RANK,
    "cloud_price_list",
    "model_card",
    "price_api",
    "curated_mapping",
    "measurement",
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
# who can buy at a snapshot's prices: anyone (global), or accounts of a mainland-China market (CNY, a Chinese
# phone number or business licence); picks are made per market, never across them
MARKETS = ("global", "cn-mainland")
SCOPE_KEYS = ("gpus", "regions", "tiers", "gpu_counts")
SIDECAR_REQUIRED = ("title", "publisher", "kind", "url", "accessed_on", "checksum")
# a source URL is a web page, or `seed:<path>` for a document kept offline (an article's text as received)
URL_SCHEMES = ("https://", "http://", "seed:")
# `accessed_on` may precede a snapshot folder's date by this many days (time zones, a page read the evening
# before); later than the folder's date by more than this only when `published_on` states the folder's date
# (a copy read later from an archive or a repository commit of that day)
ACCESS_TOLERANCE_DAYS = 3
# the sidecar key of a price snapshot that lists no offer: the provider withdrew every GPU offer that day
WITHDRAWN_KEY = "withdrawn_all"
# every sidecar names the terms of the source it copies: the page read (url, read_on: null when no copy of
# the terms could be read), whether they let a program collect the pages or API, and whether they let an index
# republish the figures; a source whose terms forbid republication, or a snapshot a program collected although
# its terms forbid it, is refused (and so is a fetcher for it). A publisher's terms are read once and kept in
# sources/terms.yml under a key (a price provider's key is its provider id); a sidecar says `terms: <key>`
# (or carries a whole block of its own)
TERMS_FILE = "terms.yml"
TERMS_KEYS = ("url", "read_on", "automated_collection", "republication", "summary")
TERMS_ANSWERS = ("allowed", "forbidden", "not-stated")
# sidecar kinds a program collects (fetch-prices writes provider_api snapshots); a copy made by someone else's
# program (a tracker polling an API) says `collected_by: program` in its sidecar, one a person typed `person`
COLLECTED_KINDS = ("provider_api",)
COLLECTORS = ("program", "person")
TERMS_REQUIRED = True


MODEL_COLUMNS = (
    "model_id",
    "name",
    "family",
    "developer",
    "layers",
    "hidden_size",
    "intermediate_size",
    "moe_intermediate_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "vocab_size",
    "tied_embeddings",
    "max_context",
    "attention_kind",
    "sliding_window",
    "full_attention_layers",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "num_experts",
    "experts_per_token",
    "shared_experts",
    "first_dense_layers",
    "mlp_kind",
    "qkv_bias",
    "linear_bias",
    "norm_kind",
    "norms_per_layer",
    "published_params_b",
    "published_active_params_b",
    "params_note",
    "document_id",
    "params_document_id",
)
# layer kinds beyond full and sliding attention, and how the official checkpoint ships (a file may leave them out):
# chunked windows (Llama 4), attention sinks (gpt-oss), linear-attention layers with a fixed state per sequence
# (Qwen3-Next's Gated DeltaNet), a sparse-attention indexer cache (DeepSeek V3.2), multi-token-prediction layers
# shipped in the checkpoint, and the checkpoint's weight format
MODEL_OPTIONAL = (
    "window_kind",
    "attention_sinks",
    "linear_attention_layers",
    "linear_key_heads",
    "linear_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel",
    "index_n_heads",
    "index_head_dim",
    "index_topk",
    "mtp_layers",
    "native_format",
    "status",
    "superseded_by",
)


SERVING_MEASUREMENT_COLUMNS = (
    "model_id",
    "model_as_printed",
    "gpu_id",
    "gpu_as_printed",
    "gpu_count",
    "tensor_parallel",
    "pipeline_parallel",
    "engine",
    "engine_version",
    "format",
    "kv_format",
    "speculative_decoding",
    "scenario",
    "concurrency",
    "input_tokens",
    "output_tokens",
    "lengths",
    "metric",
    "value",
    "unit",
    "quote",
    "document_id",
)


TRAINING_MEASUREMENT_COLUMNS = (
    "model_id",
    "model_as_printed",
    "params_b",
    "active_params_b",
    "gpu_id",
    "gpu_as_printed",
    "gpu_count",
    "framework",
    "method",
    "precision",
    "seq_len",
    "activation_checkpointing",
    "value",
    "unit",
    "printed_mfu",
    "quote",
    "document_id",
)


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
            (
                "gpu_id",
                "vendor",
                "family",
                "name",
                "form_factor",
                "segment",
                "architecture",
                "release_year",
                "memory_gb",
                "memory_type",
                "gpus_per_product",
                "tensor_cores",
                "document_id",
            ),
            True,
        ),
        SourceKind(
            "spec_figures",
            "specs/*/*/figures.csv",
            True,
            (
                "gpu_id",
                "metric",
                "precision",
                "unit_kind",
                "accumulate",
                "sparsity",
                "value",
                "unit",
                "per_gpus",
                "document_id",
                "note",
            ),
            True,
        ),
        SourceKind(
            "claims",
            "claims/*/*/claims.csv",
            True,
            (
                "table_ref",
                "row_label",
                "gpu_id",
                "metric",
                "precision",
                "sparsity_stated",
                "value",
                "value_text",
                "unit",
                "quote",
            ),
            False,
        ),
        SourceKind(
            "model_claims",
            "claims/*/*/model_claims.csv",
            True,
            ("table_ref", "row_label", "model_id", "params_b", "vram_gb_claimed", "recommended_gpu", "quote"),
            False,
        ),
        SourceKind(
            "prices",
            "prices/*/*/prices.csv",
            True,
            (
                "offering",
                "gpu_name",
                "gpu_memory_gb",
                "gpu_count",
                "usd_per_hour",
                "pricing_tier",
                "statistic",
                "region",
                "note",
            ),
            False,
            optional=("currency", "amount_per_hour", "host_usd_per_hour", "sample_size"),
            sidecar_columns=(
                "snapshot_kind",
                "scope",
                "scope_gpus",
                "scope_regions",
                "scope_tiers",
                "scope_gpu_counts",
                "price_basis",
                "billing",
                "min_commitment",
                "observed_date_known",
                "observed_no_later_than",
                "market",
            ),
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
            MODEL_COLUMNS,
            True,
            MODEL_OPTIONAL,
        ),
        SourceKind(
            "measurements",
            "measurements/*/*/measurements.csv",
            True,
            (
                "model_id",
                "model_as_printed",
                "gpu_id",
                "gpu_as_printed",
                "gpu_count",
                "engine",
                "engine_build",
                "split_mode",
                "format",
                "batch_size",
                "prompt_tokens",
                "generated_tokens",
                "flash_attention",
                "metric",
                "value",
                "unit",
                "quote",
                "document_id",
            ),
            True,
        ),
        SourceKind(
            "serving_measurements",
            "measurements/*/*/serving.csv",
            True,
            SERVING_MEASUREMENT_COLUMNS,
            True,
        ),
        SourceKind(
            "training_measurements",
            "measurements/*/*/training.csv",
            True,
            TRAINING_MEASUREMENT_COLUMNS,
            True,
        ),
    ]
}

# columns every raw table carries besides the file's own
PROVENANCE_COLUMNS = ("source_id", "snapshot_id", "collection", "snapshot_date", "source_file", "source_row")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def latest_price_snapshot(root: Path, provider: str) -> Path | None:
    """The provider's newest dated price folder holding a prices.csv (its current price list), if any."""
    dated = sorted(p.parent for p in (root / "prices" / provider).glob("*/prices.csv"))
    return dated[-1] if dated else None


def build_date() -> dt.date:
    """The latest day a snapshot can stand for: today, in UTC or locally, whichever is later."""
    return max(dt.date.today(), dt.datetime.now(dt.timezone.utc).date())


def decode(data: bytes, rel: str) -> tuple[str | None, list[Problem]]:
    """A file's bytes as text: UTF-8 (a leading byte-order mark is dropped), no NUL. Else a problem naming
    the line and the byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [
            Problem(
                rel,
                line,
                None,
                f"not valid UTF-8: byte 0x{data[exc.start]:02x} at character "
                f"{column} of the line (save the file as UTF-8)",
            )
        ]
    if "\x00" in text:
        at = text.index("\x00")
        return None, [
            Problem(
                rel, text.count("\n", 0, at) + 1, None, "NUL byte in the file (binary data, or a file saved as UTF-16?)"
            )
        ]
    return text.removeprefix("\ufeff"), []


def parse_csv(text: str, rel: str) -> tuple[list[str], list[tuple[int, list[str]]], list[Problem]]:
    """Header and (line, cells) rows of a CSV, read strictly: a quote left open or text after a closing quote
    is an error naming the line, and so is an empty or repeated column name."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for cells in reader:
            rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        detail = (
            "a quoted field is never closed (the file ends inside it)"
            if "end of data" in str(exc)
            else f"malformed CSV: {exc}"
        )
        return [], [], [Problem(rel, start, None, detail)]
    if not rows:
        return [], [], [Problem(rel, None, None, "file is empty (no header)")]
    header = [h.strip() for h in rows[0][1]]
    problems = [
        Problem(rel, 1, None, f"column {i} of the header has no name") for i, h in enumerate(header, 1) if not h
    ]
    seen: set[str] = set()
    for h in header:
        if h and h in seen:
            problems.append(Problem(rel, 1, h, "column name appears more than once in the header"))
        seen.add(h)
    return header, rows[1:], problems


# A source is cited at its publisher's own address. Proxies, mirrors and preview deployments serve copies of
# someone else's page under another host: a copy read there is cited at the original address, with the copy named
# in the title. Raw IP addresses name no publisher.
NOT_A_PUBLISHER = (
    (re.compile(r"^\d{1,3}(\.\d{1,3}){3}$|^\[[0-9a-f:]+\]$"), "a raw IP address names no publisher"),
    (
        re.compile(
            r"(^|\.)(workers\.dev|vercel\.app|netlify\.app|pages\.dev|herokuapp\.com|ngrok\.io|ngrok-free\.app)$"
        ),
        "a preview or mirror deployment, not the publisher's own host",
    ),
    (re.compile(r"proxy|proxies"), "a proxy host serving someone else's page"),
    (
        re.compile(r"(^|\.)(?!www\.)[^.]+\.anandtech\.com$"),
        "a mirror of anandtech.com (the publisher's host is www.anandtech.com)",
    ),
)


def url_host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc.lower().rsplit("@", 1)[-1].split(":")[0] if "://" in url else ""


def check_url(value, where: str, key: str) -> list[Problem]:
    if not (isinstance(value, str) and value.strip().lower().startswith(URL_SCHEMES) and value.strip() == value):
        return [Problem(where, None, key, f"a source URL must start with {' or '.join(URL_SCHEMES)}", str(value))]
    host, path = url_host(value), urllib.parse.urlsplit(value).path.lower() if "://" in value else ""
    for pattern, why in NOT_A_PUBLISHER:
        if pattern.search(host) or (why.startswith("a proxy") and pattern.search(path)):
            return [
                Problem(
                    where,
                    None,
                    key,
                    f"not the publisher's address: {why}; cite the original address and "
                    "name the copy read in the title",
                    value,
                )
            ]
    return []


def inside(path: Path, root: Path) -> bool:
    """The file, followed through every symlink, lies under the sources folder."""
    real_root = root.resolve()
    return path.resolve() == real_root or real_root in path.resolve().parents


def sidecar_path(data_file: Path) -> Path:
    return data_file.with_suffix(".source.yml")


def sidecar_rel(rel: str) -> str:
    return rel[: -len(".csv")] + ".source.yml"


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
        meta = yaml.load(text, Loader=SAFE_LOADER)
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


def load_terms(root: Path) -> tuple[dict, list[Problem]]:
    """The publishers' terms kept in sources/terms.yml (key -> terms block), each block checked."""
    path = root / TERMS_FILE
    if not path.is_file():
        return {}, []
    stat = path.stat()
    return _load_terms(path, str(path.relative_to(root.parent)), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _load_terms(path: Path, rel: str, _mtime: int, _size: int) -> tuple[dict, list[Problem]]:
    """load_terms, read once per version of the file (every sidecar of a build names one of its keys)."""
    text, bad = decode(path.read_bytes(), rel)
    if bad:
        return {}, bad
    try:
        data = yaml.load(text, Loader=SAFE_LOADER) or {}
    except yaml.YAMLError as exc:
        return {}, [Problem(rel, None, None, f"not valid YAML: {exc}")]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        return {}, [Problem(rel, None, None, f"must map each key to a terms block ({', '.join(TERMS_KEYS)})")]
    problems = []
    for key, block in data.items():
        problems += [
            Problem(rel, None, f"{key}.{p.column.split('.', 1)[1]}", p.rule, p.value)
            for p in _check_block(block, rel)
            if p.column
        ]
    return data, problems


def resolve_terms(meta: dict, root: Path, side_rel: str) -> list[Problem]:
    """A sidecar's `terms: <key>` replaced by the block of sources/terms.yml it names (kept as `terms_key`)."""
    key = meta.get("terms")
    if not isinstance(key, str):
        return []
    registry, _ = load_terms(root)  # the file's own problems are reported once, by check_all
    if key not in registry:
        return [
            Problem(
                side_rel,
                None,
                "terms",
                f"names no terms of sources/{TERMS_FILE} (known: {', '.join(sorted(registry)) or 'none'})",
                key,
            )
        ]
    meta["terms_key"] = key
    meta["terms"] = dict(registry[key])
    return []


def _check_block(terms: dict, side_rel: str) -> list[Problem]:
    """A terms block is complete and its answers are answers."""
    problems = []
    for key in TERMS_KEYS:
        if key not in terms or (key != "read_on" and terms[key] in (None, "")):
            problems.append(Problem(side_rel, None, f"terms.{key}", "required terms field is missing"))
    if terms.get("url"):
        problems += check_url(terms["url"], side_rel, "terms.url")
    if terms.get("read_on") not in (None, "") and _as_date(terms["read_on"]) is None:
        problems.append(
            Problem(side_rel, None, "terms.read_on", "must be a date YYYY-MM-DD or null", str(terms["read_on"]))
        )
    for key in ("automated_collection", "republication"):
        if terms.get(key) not in (None, "") and terms[key] not in TERMS_ANSWERS:
            problems.append(
                Problem(side_rel, None, f"terms.{key}", f"must be one of {', '.join(TERMS_ANSWERS)}", str(terms[key]))
            )
    return problems


def collected_by_program(meta: dict) -> bool:
    """Whether a program collected the snapshot: GPU Atlas's fetchers, or a tracker's that says so."""
    return meta.get("kind") in COLLECTED_KINDS or meta.get("collected_by") == "program"


def check_terms(meta: dict, side_rel: str) -> list[Problem]:
    """The sidecar's `terms:` block is complete, and the terms allow what GPU Atlas does with the source."""
    terms = meta.get("terms")
    if terms is None and not TERMS_REQUIRED:
        return []
    if not isinstance(terms, dict):
        return [
            Problem(
                side_rel,
                None,
                "terms",
                "required sidecar field is missing: the terms of use of the source "
                f"({', '.join(TERMS_KEYS)}; answers {'/'.join(TERMS_ANSWERS)})",
            )
        ]
    problems = _check_block(terms, side_rel)
    if meta.get("collected_by") not in (None, "") and meta["collected_by"] not in COLLECTORS:
        problems.append(
            Problem(
                side_rel, None, "collected_by", f"must be one of {', '.join(COLLECTORS)}", str(meta["collected_by"])
            )
        )
    if terms.get("republication") == "forbidden":
        problems.append(
            Problem(
                side_rel,
                None,
                "terms.republication",
                f"refused: the terms read at {terms.get('url')} forbid republishing this source "
                f"({terms.get('summary')}); remove the snapshot",
                "forbidden",
            )
        )
    if terms.get("automated_collection") == "forbidden" and collected_by_program(meta):
        problems.append(
            Problem(
                side_rel,
                None,
                "terms.automated_collection",
                f"refused: a program collected this snapshot, and the terms read at {terms.get('url')} "
                f"forbid automated collection ({terms.get('summary')}); remove the snapshot",
                "forbidden",
            )
        )
    return problems


def collection_refusal(provider: str, terms: dict, sidecar: str) -> str:
    """Why a fetcher may not collect `provider`'s prices ('' when it may): the terms recorded in `sidecar`
    (sources/terms.yml under the provider's id, else its newest snapshot's sidecar) forbid automated collection."""
    if terms.get("automated_collection") == "forbidden":
        return (
            f"{provider}: refused, the terms recorded in {sidecar} (read {terms.get('read_on')} at "
            f"{terms.get('url')}) forbid automated collection: {terms.get('summary')}"
        )
    return ""


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

    market = meta.get("market", "global")
    if market not in MARKETS:
        problems.append(Problem(side_rel, None, "market", f"must be one of {list(MARKETS)}", str(market)))
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
        "market": str(market),
    }
    return facts, problems


def _snapshot(data_file: Path, root: Path, kind: SourceKind) -> tuple[str, str, str | None]:
    """(snapshot_id, collection, snapshot date) from the file's place in the tree."""
    rel = data_file.relative_to(root)
    snapshot_id = str(rel.with_suffix(""))
    if kind.dated:
        return snapshot_id, rel.parts[-3], rel.parts[-2]
    return snapshot_id, rel.stem, None


def discover(root: Path, kind: SourceKind) -> list[Path]:
    """The files of one kind that lie inside the sources folder (see `outside`)."""
    return [p for p in sorted(root.glob(kind.pattern)) if inside(p, root)]


def outside(root: Path, kind: SourceKind) -> list[Problem]:
    """Files of one kind reached through a symlink that leaves the sources folder: never read."""
    return [
        Problem(
            str(p.relative_to(root.parent)),
            None,
            None,
            f"a symlink that leaves sources/ (to {p.resolve()}): copy the files into sources/ instead",
        )
        for p in sorted(root.glob(kind.pattern))
        if not inside(p, root)
    ]


def read_kind(root: Path, kind: SourceKind) -> tuple[pd.DataFrame, list[dict], list[Problem]]:
    """Read every file of one kind. Returns the rows (all text), source records and problems."""
    frames: list[pd.DataFrame] = []
    records: list[dict] = []
    problems: list[Problem] = []
    problems += outside(root, kind)
    for path in discover(root, kind):
        rel = str(path.relative_to(root.parent))
        meta, side_problems = read_sidecar(path, root)
        problems += side_problems
        snapshot_id, collection, date = _snapshot(path, root, kind)
        if kind.dated and _as_date(date) is None:
            problems.append(Problem(rel, None, None, "folder name must be a date YYYY-MM-DD", date))
        elif kind.dated and _as_date(date) > build_date():
            problems.append(
                Problem(rel, None, None, f"snapshot folder dated after the build date {build_date()}", date)
            )
        text, bad = decode(path.read_bytes(), rel)
        header, rows, bad = parse_csv(text, rel) if text is not None else ([], [], bad)
        if bad:
            problems += bad
            continue
        missing = [c for c in kind.columns if c not in header]
        extra = [c for c in header if c and c not in kind.columns and c not in kind.optional]
        for c in missing:
            problems.append(Problem(rel, 1, c, "required column is missing"))
        for c in extra:
            problems.append(Problem(rel, 1, c, "unknown column (check the spelling)"))
        if missing or extra:
            continue
        width = len(header)
        bad_width = [(line, len(r)) for line, r in rows if len(r) != width and any(r)]
        for line, n in bad_width:
            problems.append(Problem(rel, line, None, f"row has {n} fields, the header {width}"))
        if bad_width:
            continue
        numbered = [(line, r) for line, r in rows if any(cell.strip() for cell in r)]
        withdrawn = meta.get(WITHDRAWN_KEY) is True
        if kind.name == "prices" and withdrawn and numbered:
            problems.append(
                Problem(
                    sidecar_rel(rel),
                    None,
                    WITHDRAWN_KEY,
                    f"declares that the provider withdrew every offer, but the file lists {len(numbered)}",
                )
            )
            continue
        if kind.name == "prices" and not numbered and not withdrawn:
            # read as the provider's whole current list, an empty snapshot would silently empty the provider
            problems.append(
                Problem(
                    rel,
                    None,
                    None,
                    "a price snapshot with a header but no offer (a provider that "
                    f"withdrew every offer: say `{WITHDRAWN_KEY}: true` in the sidecar)",
                )
            )
            continue
        if not numbered:  # a declared withdrawal: the snapshot stands, with no offer
            records.append({"snapshot_id": snapshot_id, "file": rel, "meta": meta, "rows": 0})
            continue
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
            for col in [c for c in header if c.endswith("document_id")]:
                for (line, _), doc in zip(numbered, frame[col]):
                    if doc is not None and doc not in doc_ids:
                        problems.append(Problem(rel, line, col, "names no document of the sidecar", doc))
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
            **{f"terms_{key}": str((meta.get("terms") or {}).get(key) or "") or None for key in TERMS_KEYS},
            "snapshot_id": rec["snapshot_id"],
            "file": rec["file"],
            "checksum": meta.get("checksum"),
            "rows": rec["rows"],
        }
        out.append(
            {
                **base,
                "source_id": rec["snapshot_id"],
                "title": meta.get("title"),
                "url": meta.get("url"),
                "published_on": str(_as_date(meta.get("published_on")) or "") or None,
            }
        )
        for doc in meta.get("documents", []):
            out.append(
                {
                    **base,
                    "source_id": doc["id"],
                    "kind": doc.get("kind") or meta.get("kind"),
                    "title": doc.get("title") or meta.get("title"),
                    "url": doc.get("url"),
                    "publisher": doc.get("publisher") or meta.get("publisher"),
                    "published_on": str(_as_date(doc.get("published_on")) or "") or None,
                }
            )
    return out


def check_all(root: Path) -> list[Problem]:
    """Every sidecar and checksum of the tree (used by tests and `gpu-atlas check-sources`)."""
    problems: list[Problem] = list(load_terms(root)[1])
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
            text, bad = decode(side.read_bytes(), str(side))
            if bad:  # the build names the byte; nothing to update until the sidecar is fixed
                continue
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
