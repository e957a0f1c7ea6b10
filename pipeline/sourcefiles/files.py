"""Reading a source file's bytes and checking the values every sidecar shares (dates, URLs)."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
import urllib.parse
from pathlib import Path

import yaml

from ..errors import Problem
from .kinds import URL_SCHEMES


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


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def inside(path: Path, root: Path) -> bool:
    """The file, followed through every symlink, lies under the sources folder."""
    real_root = root.resolve()
    return path.resolve() == real_root or real_root in path.resolve().parents


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
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DuplicateKeyError(yaml.YAMLError, ValueError):
    """A YAML mapping with the same key twice (a plain loader would silently keep the last)."""


class StrictLoader(_SAFE_LOADER):
    """The one YAML loader of every file the pipeline reads (sidecars, terms, parameters, the contract): safe
    (plain data only) and strict (a key given twice is refused, naming the key and its lines)."""


def _strict_mapping(loader: StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict = {}
    for key_node, _value in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # `<<: *anchor` brings keys a mapping may override (YAML's merge), not a key given twice
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise DuplicateKeyError(
                f"{key_node.start_mark.name}, line {key_node.start_mark.line + 1}: key {key!r} given twice "
                f"(first on line {seen[key] + 1})"
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _strict_mapping)


def load_yaml(text: str) -> object:
    """Plain data from YAML text, refusing a key given twice (DuplicateKeyError, a yaml.YAMLError)."""
    return yaml.load(text, Loader=StrictLoader)
