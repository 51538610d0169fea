"""`shredlab.write_parquet`: ArrowWriter's bytes, from any Arrow stream, into a file that
appears only when complete; errors that say what is wrong."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import shredlab

ROWS = 60_000


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return shredlab.contacts(ROWS, seed=5, batch_size=8192).read_all()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"compression": "zstd(1)"},
        {"compression": "snappy", "row_group_rows": 20_000},
        {"properties": {"statistics": "chunk", "data_page_size": 64 * 1024}},
        {"properties": {"dictionary": False, "columns": {"phones.list.item.number": {"compression": "lz4"}}}},
    ],
    ids=["default", "zstd", "row-groups", "statistics", "per-column"],
)
def test_the_file_is_arrow_writers_byte_for_byte(table: pa.Table, tmp_path: Path, options: dict):
    parallel = shredlab.write_parquet(table, tmp_path / "parallel.parquet", threads=2, **options)
    upstream = shredlab.write_parquet(table, tmp_path / "arrow.parquet", writer="arrow", **options)
    assert (tmp_path / "parallel.parquet").read_bytes() == (tmp_path / "arrow.parquet").read_bytes()
    assert parallel["rows"] == upstream["rows"] == ROWS
    assert parallel["bytes"] == os.path.getsize(tmp_path / "parallel.parquet")
    assert parallel["row_groups"] == pq.ParquetFile(tmp_path / "parallel.parquet").num_row_groups


def test_the_file_reads_back_with_the_same_digest(table: pa.Table, tmp_path: Path):
    shredlab.write_parquet(shredlab.contacts(ROWS, seed=5), tmp_path / "c.parquet", compression="zstd(1)")
    back = pq.read_table(tmp_path / "c.parquet")
    assert shredlab.digest(back) == shredlab.digest(table)
    assert back.equals(table)


def test_polars_and_duckdb_data_are_written(table: pa.Table, tmp_path: Path):
    expected = shredlab.digest(table)
    frame = pl.from_arrow(table)
    assert shredlab.write_parquet(frame, tmp_path / "polars.parquet")["rows"] == ROWS
    assert shredlab.digest(pq.read_table(tmp_path / "polars.parquet")) == expected
    contacts_table = table
    relation = duckdb.sql("SELECT * FROM contacts_table")
    shredlab.write_parquet(relation, tmp_path / "duckdb.parquet")
    assert shredlab.digest(pq.read_table(tmp_path / "duckdb.parquet")) == expected


def failing_stream(schema: pa.Schema, good: pa.RecordBatch) -> pa.RecordBatchReader:
    def batches():
        yield good
        yield good
        raise ValueError("the producer broke")

    return pa.RecordBatchReader.from_batches(schema, batches())


def test_a_failing_stream_leaves_the_earlier_file_whole_and_no_temporary(table: pa.Table, tmp_path: Path):
    path = tmp_path / "c.parquet"
    shredlab.write_parquet(table, path)
    before = path.read_bytes()
    with pytest.raises(Exception, match="the producer broke"):
        shredlab.write_parquet(failing_stream(table.schema, table.to_batches()[0]), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.parquet"]


def test_unwritable_paths_raise_os_error(table: pa.Table, tmp_path: Path):
    with pytest.raises(OSError, match="check that the directory exists"):
        shredlab.write_parquet(table, tmp_path / "missing" / "c.parquet")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        shredlab.write_parquet(table, tmp_path)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(PermissionError):
            shredlab.write_parquet(table, locked / "c.parquet")


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"compression": "gzip(99)"}, ValueError, "compression"),
        ({"row_group_rows": 0}, ValueError, "row_group_rows"),
        ({"threads": 0}, ValueError, "threads"),
        ({"writer": "fast"}, ValueError, "writer is 'fast'"),
        ({"writer": "arrow", "threads": 4}, ValueError, "ArrowWriter encodes on the calling thread"),
        ({"properties": {"dictionnary": True}}, ValueError, r"unknown setting properties\['dictionnary'\]"),
        ({"properties": {"statistics": "all"}}, ValueError, "'none', 'chunk' or 'page'"),
        ({"properties": {"data_page_size": -1}}, ValueError, "data_page_size"),
        ({"properties": {"columns": {"name": {"dictionary": "yes"}}}}, ValueError, "True or False"),
        ({"properties": {"compression": "zstd(1)"}}, ValueError, "compression argument"),
        ({"storage_options": {"AWS_REGION": "x"}}, ValueError, "s3:// paths only"),
    ],
)
def test_bad_options_raise_value_error_naming_them(table: pa.Table, tmp_path: Path, options, error, match):
    with pytest.raises(error, match=match):
        shredlab.write_parquet(table, tmp_path / "c.parquet", **options)
    assert list(tmp_path.iterdir()) == []


def test_bad_data_and_urls_raise(tmp_path: Path):
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        shredlab.write_parquet([1, 2, 3], tmp_path / "c.parquet")
    with pytest.raises(ValueError, match="local path or to s3://"):
        shredlab.write_parquet(pa.table({"a": [1]}), "gs://bucket/c.parquet")
    with pytest.raises(ValueError, match="no object"):
        shredlab.write_parquet(pa.table({"a": [1]}), "s3://bucket")
    with pytest.raises(TypeError, match="digest takes"):
        shredlab.digest("not data")


def test_a_type_the_gate_cannot_digest_is_named():
    with pytest.raises(ValueError, match="cannot digest columns of type Duration"):
        shredlab.digest(pa.table({"d": pa.array([1], pa.duration("s"))}))
