"""GPU Atlas: GPU specs, cloud prices and LLM configs joined into DuckDB and a static site."""
