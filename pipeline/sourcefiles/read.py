"""Find source files of a kind and read them as they are, with the file, line and source each row came from."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..errors import Problem, SourceError
from .files import _as_date, build_date, decode, inside, parse_csv, sha256
from .kinds import KINDS, PROVENANCE_COLUMNS, SourceKind, TERMS_KEYS, WITHDRAWN_KEY
from .providers import PROVIDER_FILE, read_providers
from .sidecars import price_sidecar_facts, read_sidecar, sidecar_path, sidecar_rel
from .terms import load_terms

# a collection's id (a provider, a publisher, a vendor): its folder's name under its kind's folder
COLLECTION_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


def latest_price_snapshot(root: Path, provider: str) -> Path | None:
    """The provider's newest dated price folder holding a prices.csv (its current price list), if any."""
    dated = sorted(p.parent for p in (root / "prices" / provider).glob("*/prices.csv"))
    return dated[-1] if dated else None


def _snapshot(data_file: Path, root: Path, kind: SourceKind) -> tuple[str, str, str | None]:
    """(snapshot_id, collection, snapshot date) from the file's place in the tree."""
    rel = data_file.relative_to(root)
    snapshot_id = str(rel.with_suffix(""))
    if kind.dated:
        return snapshot_id, rel.parts[-3], rel.parts[-2]
    return snapshot_id, rel.parts[-2], None  # an undated file of a collection's folder (a provider's aliases.csv)


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
    columns = list(kind.columns) + list(kind.optional) + list(kind.sidecar_columns) + list(PROVENANCE_COLUMNS)
    # the rows are gathered a column at a time, in plain lists, and become one frame at the end (a frame per file
    # cost more than the reading: 9 ms a file)
    data: dict[str, list] = {c: [] for c in columns}
    records: list[dict] = []
    problems: list[Problem] = []
    problems += outside(root, kind)
    # a price snapshot is its provider's: published under the terms its provider.yml names (its problems are the
    # ingest's to report, see steps.load_providers)
    providers = read_providers(root)[0] if kind.name == "prices" else {}
    for path in discover(root, kind):
        rel = str(path.relative_to(root.parent))
        meta, side_problems = read_sidecar(path, root)
        problems += side_problems
        snapshot_id, collection, date = _snapshot(path, root, kind)
        if not COLLECTION_ID.fullmatch(collection):
            # the folder (or file) name is an id of the pages, the API and the downloads (a provider, a publisher)
            problems.append(
                Problem(rel, None, None, "folder name must be lower-case letters, digits and hyphens", collection)
            )
            continue
        terms_key = (providers.get(collection) or {}).get("terms")
        if terms_key and meta.get("terms_key", terms_key) != terms_key:
            problems.append(
                Problem(
                    sidecar_rel(rel),
                    None,
                    "terms",
                    f"a price snapshot is published under its provider's terms: '{terms_key}' (its {PROVIDER_FILE})",
                    str(meta.get("terms_key")),
                )
            )
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
        n = len(numbered)
        cells = dict(zip(header, zip(*([cell.strip() or None for cell in r] for _, r in numbered))))
        for c in (*kind.columns, *kind.optional):
            data[c].extend(cells.get(c, (None,) * n))
        if kind.sidecar_columns:
            side_rel = rel[: -len(".csv")] + ".source.yml"
            facts, fact_problems = price_sidecar_facts(meta, side_rel) if meta else ({}, [])
            problems += fact_problems
            for c in kind.sidecar_columns:
                data[c].extend([facts.get(c)] * n)
        doc_ids = {d["id"] for d in meta.get("documents", [])}
        if kind.cites_documents:
            for col in [c for c in header if c.endswith("document_id")]:
                for (line, _), doc in zip(numbered, cells[col]):
                    if doc is not None and doc not in doc_ids:
                        problems.append(Problem(rel, line, col, "names no document of the sidecar", doc))
            data["source_id"].extend(cells["document_id"])
        else:
            data["source_id"].extend([snapshot_id] * n)
        for c, value in (("snapshot_id", snapshot_id), ("collection", collection), ("snapshot_date", date)):
            data[c].extend([value] * n)
        data["source_file"].extend([rel] * n)
        data["source_row"].extend(line for line, _ in numbered)
        records.append({"snapshot_id": snapshot_id, "file": rel, "meta": meta, "rows": n})
    frame = pd.DataFrame(data, columns=columns, dtype=object)
    return frame.where(frame.notna(), None), records, problems


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
    """Every sidecar, checksum and provider.yml of the tree (used by tests and `gpu-atlas check-sources`)."""
    problems: list[Problem] = list(load_terms(root)[1]) + read_providers(root)[1]
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
