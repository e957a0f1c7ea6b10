"""Price APIs, one module each: `PROVIDER` (its id in sources/), `API_ROOT`, `fetch(...)` returning a
`pipeline.fetch.Snapshot`. `gpu-atlas fetch-prices` finds them here (pipeline.fetch.providers).
"""
