"""Find source snapshots, check their provenance sidecars, and read them as they are.

Reading attaches where every row came from (file, line, source id) and nothing else: no cleaning, no type
conversion. Typing and rules belong to the schemas (`pipeline/schemas/`) and the SQL stage. The parts, each importing
only those before it: `kinds` (what a source is), `files` (bytes, dates, URLs), `terms` (terms of use),
`sidecars` (provenance), `providers` (each price provider's provider.yml), `read` (finding and reading the files of a
kind).
"""

from .files import build_date, check_url, decode, load_yaml, sha256
from .kinds import KINDS, PROVENANCE_COLUMNS, TERMS_FILE, SourceKind
from .providers import PROVIDER_FILE, read_providers
from .read import (
    check_all,
    discover,
    ensure_ok,
    latest_price_snapshot,
    read_kind,
    source_rows,
    write_checksums,
)
from .sidecars import price_sidecar_facts, read_sidecar, sidecar_path
from .terms import check_terms, collection_refusal, load_terms

__all__ = [
    "KINDS",
    "PROVENANCE_COLUMNS",
    "PROVIDER_FILE",
    "load_yaml",
    "TERMS_FILE",
    "SourceKind",
    "build_date",
    "check_all",
    "check_terms",
    "check_url",
    "collection_refusal",
    "decode",
    "discover",
    "ensure_ok",
    "latest_price_snapshot",
    "load_terms",
    "price_sidecar_facts",
    "read_kind",
    "read_providers",
    "read_sidecar",
    "sha256",
    "sidecar_path",
    "source_rows",
    "write_checksums",
]
