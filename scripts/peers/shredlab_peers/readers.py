"""Independent readers of the peers' files: read-back digests and timed scans.

Read-back: DuckDB, pyarrow and polars each decode a file with their own Parquet reader; the rows
they return (as Arrow) go through the one Python digest, and their schemas through
`schema.normalized`. Scans (DuckDB and pyarrow), each a query a user of the file would run:

- `full`: every column of every row, materialised as an Arrow table.
- `name`: the rows whose `name` equals one rare name (pyarrow gets it as `read_table`'s
  filter, DuckDB as a WHERE clause; each decides itself what statistics to use).
- `phone_type`: the rows with a phone of one type, a predicate inside the list. DuckDB evaluates
  it in SQL; pyarrow cannot push it down, so it reads both columns and filters in memory, the way
  a pyarrow user would.
"""

from __future__ import annotations

import json
import time
from typing import Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc

from . import digest, schema

READERS = ("duckdb", "pyarrow", "polars")
SCAN_READERS = ("duckdb", "pyarrow")
QUERIES = ("full", "name", "phone_type")
BATCH_ROWS = 65_536


def parquet_batches(file) -> Iterator[pa.RecordBatch]:
    """The rows of a `pyarrow.parquet.ParquetFile`, row group by row group: pyarrow's
    `iter_batches` cannot return a nested column whose batch spans two row groups with different
    dictionaries ("Nested data conversions not implemented for chunked array outputs")."""
    for i in range(file.num_row_groups):
        yield from file.read_row_group(i).to_batches(BATCH_ROWS)


def record_batches(reader: str, path: str) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """The rows of `path` as decoded by `reader`, as Arrow record batches."""
    if reader == "duckdb":
        import duckdb

        query = duckdb.connect().sql("SELECT * FROM read_parquet(?)", params=[path])
        stream = query.to_arrow_reader(BATCH_ROWS)
        return stream.schema, iter(stream)
    if reader == "pyarrow":
        import pyarrow.parquet as pq

        file = pq.ParquetFile(path)
        return file.schema_arrow, parquet_batches(file)
    if reader == "polars":
        import polars as pl

        table = pl.read_parquet(path).to_arrow()
        return table.schema, iter(table.to_batches(max_chunksize=BATCH_ROWS))
    raise ValueError(f"unknown reader '{reader}': one of {', '.join(READERS)}")


def readback(reader: str, path: str) -> dict:
    """`reader`'s digest and normalised schema of `path`."""
    started = time.perf_counter()
    arrow_schema, batches = record_batches(reader, path)
    result = digest.of_batches(batches)
    return {
        "reader": reader,
        "digest": str(result),
        "schema": schema.normalized(arrow_schema),
        "seconds": time.perf_counter() - started,
    }


def _duckdb_queries(path: str, name: str, phone_type: str) -> dict[str, Callable[[], int]]:
    import duckdb

    connection = duckdb.connect()
    source = "SELECT * FROM read_parquet(?)"

    def rows(sql: str, *parameters) -> int:
        return connection.sql(sql, params=[path, *parameters]).to_arrow_table().num_rows

    return {
        "full": lambda: rows(source),
        "name": lambda: rows(f"{source} WHERE name = ?", name),
        "phone_type": lambda: rows(
            f"{source} WHERE list_contains(list_transform(phones, lambda p: p.phone_type), ?)",
            phone_type,
        ),
    }


def rows_with_phone_type(table: pa.Table, phone_type: str) -> pa.Table:
    """The rows of `table` with at least one phone of `phone_type`."""
    phones = table.column("phones").combine_chunks()
    types = phones.flatten().field("phone_type").cast(pa.string())
    hits = pc.equal(types, phone_type).fill_null(False)
    parents = pc.list_parent_indices(phones).filter(hits)
    return table.take(pc.unique(parents))


def _pyarrow_queries(path: str, name: str, phone_type: str) -> dict[str, Callable[[], int]]:
    import pyarrow.parquet as pq

    return {
        "full": lambda: pq.read_table(path).num_rows,
        "name": lambda: pq.read_table(path, filters=[("name", "==", name)]).num_rows,
        "phone_type": lambda: rows_with_phone_type(pq.read_table(path), phone_type).num_rows,
    }


def scan(reader: str, path: str, name: str, phone_type: str) -> dict:
    """Each query of `reader` on `path` once: seconds and rows returned."""
    if reader == "duckdb":
        queries = _duckdb_queries(path, name, phone_type)
    elif reader == "pyarrow":
        queries = _pyarrow_queries(path, name, phone_type)
    else:
        raise ValueError(f"unknown scan reader '{reader}': one of {', '.join(SCAN_READERS)}")
    result: dict = {"reader": reader}
    for query in QUERIES:
        started = time.perf_counter()
        result[f"{query}_rows"] = queries[query]()
        result[f"{query}_s"] = time.perf_counter() - started
    return result


def main_readback(args) -> None:
    """`readback`: one reader's digest of one file, printed as JSON."""
    print(json.dumps(readback(args.reader, args.file)))


def main_scan(args) -> None:
    """`scan`: one reader's timed queries on one file, printed as JSON."""
    print(json.dumps(scan(args.reader, args.file, args.name, args.phone_type)))
