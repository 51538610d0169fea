"""The Python side of `make peers`: peer writers, independent readers and the data gate's digest.

Modules: `digest` (the gate's content digest, in Python), `schema` (reader-independent schema
text), `writers` (pyarrow, DuckDB, polars, DataFusion and the Rust writers, each timed in a
process of its own), `readers` (read-back and scans by DuckDB, pyarrow and polars) and `run`
(the interleaved benchmark that ties them together). `python -m shredlab_peers --help` lists the
commands.
"""
