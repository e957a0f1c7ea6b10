"""The browser's SQL engine, shipped with the site: DuckDB-WASM and the three packages its browser module imports.

The Planner's page runs `pipeline/sql/plan/plan_options.sql` itself, with DuckDB compiled to WebAssembly, over the
rows of the same public views (one formula, one text: no second copy in JavaScript). The packages are npm
tarballs, pinned here by version and by the registry's sha512 integrity (as a package-lock.json would): `make
setup` fetches them once (`python -m pipeline.vendor`) into `.cache/vendor/`; a build copies the files the page
needs from there and never uses the network. An import map on the page resolves the bare names the modules import
(`apache-arrow`, `flatbuffers`, `tslib`): no bundler."""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import io
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "vendor"
REGISTRY = "https://registry.npmjs.org"
# package -> (version, sha512 integrity of the tarball, the files the page needs: fnmatch patterns under package/)
PACKAGES = {
    "@duckdb/duckdb-wasm": (
        "1.32.0",
        "sha512-IewXTNYEjsZCPE9weUWgtjGxUlMRo7qhX0GF6tq/KjK8bnY+RAl4cyUdYUfcdzbyb4b9ZxPC+FOsCcxgaKFWMg==",
        ["dist/duckdb-browser.mjs", "dist/duckdb-browser-eh.worker.js", "dist/duckdb-eh.wasm", "LICENSE"],
    ),
    "apache-arrow": (
        "17.0.0",
        "sha512-X0p7auzdnGuhYMVKYINdQssS4EcKec9TCXyez/qtJt32DrIMGbzqiaMiQ0X6fQlQpw8Fl0Qygcv4dfRAr5Gu9Q==",
        ["*.mjs", "LICENSE.txt", "NOTICE.txt"],
    ),
    "flatbuffers": (
        "24.3.25",
        "sha512-3HDgPbgiwWMI9zVB7VYBHaMrbOO7Gm0v+yD2FV/sCKj+9NDeVL7BOBYUuhWAQGKWOzBo8S9WdMvV0eixO233XQ==",
        ["mjs/*.js", "LICENSE"],
    ),
    "tslib": (
        "2.8.1",
        "sha512-oJFu94HQb+KVduSUQL7wnpmqnfmLsOA/nAh6b6EH0wCEoK0/mPeXU6c3wKDV83MkOuHPRHtSXKKU99IBazS/2w==",
        ["tslib.es6.mjs", "LICENSE.txt"],
    ),
}
# the bare names the engine's modules import, and the file of each package that answers it (the page's import map)
IMPORTS = {"apache-arrow": "Arrow.dom.mjs", "flatbuffers": "mjs/flatbuffers.js", "tslib": "tslib.es6.mjs"}
# node-only parts of Arrow the browser never imports
SKIP = ("apache-arrow/bin/", "apache-arrow/io/node/", "apache-arrow/Arrow.node.mjs")


def folder(cache: Path = CACHE) -> Path:
    """The unpacked packages of the pinned versions (one folder per set of versions)."""
    key = hashlib.sha256(repr(sorted((k, v[0], v[1]) for k, v in PACKAGES.items())).encode()).hexdigest()[:12]
    return cache / key


def _tarball(name: str, version: str) -> str:
    return f"{REGISTRY}/{name}/-/{name.split('/')[-1]}-{version}.tgz"


def fetch(cache: Path = CACHE) -> Path:
    """Download, check and unpack every package (network; `make setup` runs it once). Returns the folder."""
    target = folder(cache)
    if (target / ".complete").is_file():
        return target
    staging = target.with_suffix(".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    for name, (version, integrity, patterns) in PACKAGES.items():
        url = _tarball(name, version)
        with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310 (a fixed https address)
            data = response.read()
        digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        if digest != integrity:
            raise SystemExit(f"{url}: sha512 {digest} is not the pinned {integrity}; nothing was installed")
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                rel = member.name.removeprefix("package/")
                if not member.isfile() or not any(fnmatch.fnmatchcase(rel, p) for p in patterns):
                    continue
                if f"{name}/{rel}".startswith(SKIP) or ".." in Path(rel).parts or rel.startswith("/"):
                    continue
                out = staging / name / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(tar.extractfile(member).read())
    (staging / ".complete").write_text("\n".join(f"{k} {v[0]}" for k, v in PACKAGES.items()) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)
    return target


def installed(cache: Path = CACHE) -> Path:
    """The unpacked packages, or SystemExit saying how to get them (a build never downloads)."""
    target = folder(cache)
    if not (target / ".complete").is_file():
        raise FileNotFoundError(
            f"the browser's SQL engine (DuckDB-WASM) is not installed in {target}: run `make setup` "
            "(or `uv run python -m pipeline.vendor`) once, with network"
        )
    return target


if __name__ == "__main__":
    where = fetch()
    size = sum(p.stat().st_size for p in where.rglob("*") if p.is_file())
    print(f"DuckDB-WASM and its imports in {where} ({size / 1e6:.1f} MB)", file=sys.stderr)
