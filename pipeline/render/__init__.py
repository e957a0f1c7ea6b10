"""Turn the database into Markdown pages and Vega-Lite charts for MkDocs."""
