"""Terms of use: the publishers' terms kept in sources/terms.yml, checked for every sidecar and every fetch."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from ..errors import Problem
from .files import _as_date, check_url, decode, load_yaml
from .kinds import COLLECTED_KINDS, COLLECTORS, TERMS_ANSWERS, TERMS_FILE, TERMS_KEYS, TERMS_REQUIRED


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
        data = load_yaml(text) or {}
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
