"""What a source is: the kinds of document and of source file, and the words a sidecar may use."""

from __future__ import annotations

import functools
from dataclasses import dataclass


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


# who can buy at a provider's prices: anyone (global), or accounts of a mainland-China market (CNY, a Chinese
# phone number or business licence); a provider's provider.yml says which; picks are made per market, never across them
MARKETS = ("global", "cn-mainland")


# the currencies a price may be printed in (a price file's `currency`, a provider's in its provider.yml)
CURRENCIES = ("USD", "CNY", "EUR", "GBP")


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


@dataclass(frozen=True)
class SourceKind:
    """One kind of source file: where it lives, and its columns, read from its pandera schema
    (`pipeline/schemas/`, the one place a file's columns are declared)."""

    name: str  # raw table suffix, e.g. "prices" -> raw_prices
    pattern: str  # glob under sources/
    dated: bool  # lives in a <YYYY-MM-DD> folder
    cites_documents: bool  # rows carry document_id
    sidecar_columns: tuple[str, ...] = ()  # per-file facts from the sidecar, repeated on every row

    @functools.cached_property
    def _file_columns(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        from ..schemas import RAW_SCHEMAS, file_columns

        return file_columns(RAW_SCHEMAS[self.name]())

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns every file of the kind must have, in order."""
        return self._file_columns[0]

    @property
    def optional(self) -> tuple[str, ...]:
        """Columns a file may leave out (read as empty)."""
        return self._file_columns[1]


KINDS: dict[str, SourceKind] = {
    k.name: k
    for k in [
        SourceKind("gpus", "specs/*/*/gpus.csv", True, True),
        SourceKind("spec_figures", "specs/*/*/figures.csv", True, True),
        SourceKind("claims", "claims/*/*/claims.csv", True, False),
        SourceKind("model_claims", "claims/*/*/model_claims.csv", True, False),
        SourceKind(
            "prices",
            "prices/*/*/prices.csv",
            True,
            False,
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
            ),
        ),
        SourceKind("fx_rates", "fx/*/*/rates.csv", True, True),
        SourceKind("aliases", "prices/*/aliases.csv", False, False),
        SourceKind("clusters", "prices/*/clusters.csv", False, True),
        SourceKind("models", "models/*/*/llms.csv", True, True),
        SourceKind("measurements", "measurements/*/*/measurements.csv", True, True),
        SourceKind("serving_measurements", "measurements/*/*/serving.csv", True, True),
        SourceKind("training_measurements", "measurements/*/*/training.csv", True, True),
    ]
}


# columns every raw table carries besides the file's own
PROVENANCE_COLUMNS = ("source_id", "snapshot_id", "collection", "snapshot_date", "source_file", "source_row")
