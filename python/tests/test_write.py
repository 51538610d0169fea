"""`shredlab.write_parquet`: ArrowWriter's bytes, from any Arrow stream, into a file that
appears only when complete; errors that say what is wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import shredlab
from helpers import BIN_DIR

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
        shredlab.write_parquet(failing_stream(table.schema, table.to_batches()[0]), path, overwrite=True)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.parquet"]


def test_unwritable_paths_raise_os_error(table: pa.Table, tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="missing does not exist: create it first"):
        shredlab.write_parquet(table, tmp_path / "missing" / "c.parquet")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        shredlab.write_parquet(table, tmp_path)
    # Root writes anywhere but into sysfs.
    locked = Path("/sys") if os.geteuid() == 0 else tmp_path / "locked"
    locked.mkdir(mode=0o500, exist_ok=True)
    with pytest.raises(OSError, match="cannot create a temporary file") as refused:
        shredlab.write_parquet(table, locked / "c.parquet")
    # A container may mount sysfs read-only (EROFS, a plain OSError) instead.
    assert isinstance(refused.value, PermissionError) or "Read-only file system" in str(refused.value)


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
        ({"properties": {"columns": {"name": {"dictionary": "yes"}}}}, ValueError, "(?i)true or false"),
        ({"properties": {"columns": {"name": {"encoding": "delta_binary_packed"}}}}, ValueError,
         "column 'name' \\(BYTE_ARRAY\\) has no DELTA_BINARY_PACKED encoding: it takes plain, delta_length_byte_array"),
        ({"properties": {"encoding": "rle_dictionary"}}, ValueError, "fall back to"),
        ({"properties": {"columns": {"name": {"bloom_filter_fpp": 1.5}}}}, ValueError, "below 1"),
        ({"properties": {"columns": {"name": {"bloom_filter_fpp": 1e-300}}}}, ValueError, "is below 1e-12"),
        ({"properties": {"compression": "zstd(1)"}}, ValueError, "compression argument"),
        ({"properties": {"columns": {"phones.number": {"dictionary": False}}}}, ValueError,
         r"properties\['columns'\]\['phones.number'\] is not a leaf column.*did you mean 'phones.list.item.number'"),
        ({"properties": {"columns": {"nmae": {"dictionary": False}}}}, ValueError, "did you mean 'name'"),
        ({"storage_options": {"AWS_REGION": "x"}}, ValueError, "s3:// paths only"),
        ({"compression": None}, TypeError, "compression must be a str, not NoneType"),
        ({"writer": 1}, TypeError, "writer must be a str, not int"),
        ({"overwrite": "yes"}, TypeError, "overwrite must be a bool, not str"),
    ],
)
def test_bad_options_raise_value_error_naming_them(table: pa.Table, tmp_path: Path, options, error, match):
    with pytest.raises(error, match=match):
        shredlab.write_parquet(table, tmp_path / "c.parquet", **options)
    assert list(tmp_path.iterdir()) == []


def test_bloom_filters_past_memory_are_refused_before_writing(tmp_path: Path):
    # 128 MiB each, parquet's ceiling, held together until the row group closes: 9 pass 1 GiB.
    wide = pa.table({f"c{i}": pa.array([1, 2, 3], pa.int32()) for i in range(9)})
    path = tmp_path / "wide.parquet"
    with pytest.raises(ValueError, match="bloom filters would hold 1152 MiB in memory for each row group"):
        shredlab.write_parquet(wide, path, properties={"bloom_filter_ndv": 10**9})
    assert not path.exists()


def test_bad_data_and_urls_raise(tmp_path: Path):
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        shredlab.write_parquet([1, 2, 3], tmp_path / "c.parquet")
    with pytest.raises(ValueError, match="local path or to s3://"):
        shredlab.write_parquet(pa.table({"a": [1]}), "gs://bucket/c.parquet")
    with pytest.raises(ValueError, match="no object"):
        shredlab.write_parquet(pa.table({"a": [1]}), "s3://bucket")
    with pytest.raises(TypeError, match="digest takes"):
        shredlab.digest("not data")


@pytest.mark.parametrize("writer", ["parallel", "arrow"])
def test_a_union_column_is_refused_by_its_path(tmp_path: Path, writer: str):
    union = pa.UnionArray.from_sparse(pa.array([0, 0], pa.int8()), [pa.array([1, 2])])
    table = pa.table({"a": [1, 2], "u": union})
    with pytest.raises(RuntimeError, match="column u is a union"):
        shredlab.write_parquet(table, tmp_path / "u.parquet", writer=writer)
    assert list(tmp_path.iterdir()) == []


def test_a_type_the_gate_cannot_digest_is_named():
    with pytest.raises(ValueError, match="cannot digest columns of type Duration"):
        shredlab.digest(pa.table({"d": pa.array([1], pa.duration("s"))}))


def untouched_stream(table: pa.Table, read: list) -> pa.RecordBatchReader:
    """A stream that records in `read` whether anything was read from it."""

    def batches():
        read.append(True)
        yield from table.to_batches()

    return pa.RecordBatchReader.from_batches(table.schema, batches())


def test_an_existing_file_is_replaced_only_with_overwrite(table: pa.Table, tmp_path: Path):
    path = tmp_path / "c.parquet"
    path.write_bytes(b"earlier")
    read: list = []
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        shredlab.write_parquet(untouched_stream(table, read), path)
    assert path.read_bytes() == b"earlier" and not read
    shredlab.write_parquet(table, path, overwrite=True)
    assert pq.read_table(path).num_rows == ROWS


def test_a_directory_path_is_refused_before_anything_is_read(table: pa.Table, tmp_path: Path):
    read: list = []
    with pytest.raises(IsADirectoryError, match="give a file name"):
        shredlab.write_parquet(untouched_stream(table, read), f"{tmp_path / 'new'}/")
    assert not read and list(tmp_path.iterdir()) == []


def test_a_device_or_a_pipe_at_the_path_is_refused_and_stays(table: pa.Table, tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/null")):
        read: list = []
        with pytest.raises(OSError, match="is not a regular file"):
            shredlab.write_parquet(untouched_stream(table, read), path, overwrite=True)
        assert not read and not path.is_file()
    assert fifo.is_fifo() and Path("/dev/null").is_char_device()


def test_a_replaced_file_keeps_its_mode_and_a_link_is_followed(table: pa.Table, tmp_path: Path):
    target = tmp_path / "target.parquet"
    target.write_bytes(b"earlier")
    target.chmod(0o600)
    link = tmp_path / "link.parquet"
    link.symlink_to(target)
    shredlab.write_parquet(table, link, overwrite=True)
    assert link.is_symlink() and link.resolve() == target
    assert (target.stat().st_mode & 0o777) == 0o600
    assert pq.read_table(target).num_rows == ROWS
    dangling = tmp_path / "dangling.parquet"
    dangling.symlink_to(tmp_path / "nowhere" / "x.parquet")
    with pytest.raises(FileNotFoundError, match="symbolic link"):
        shredlab.write_parquet(table, dangling)


@pytest.mark.parametrize("writer", ["parallel", "arrow"])
def test_one_big_batch_is_written_as_arrow_writer_writes_it(tmp_path: Path, writer: str):
    # write_parquet cuts a batch where a row group ends, to see Ctrl-C between row groups;
    # `peers write --writer arrow` hands parquet's ArrowWriter the whole batch at once.
    one = shredlab.contacts(50_000, seed=9).read_all().combine_chunks()
    hand_over = tmp_path / "one.arrow"
    with pa.ipc.new_file(hand_over, one.schema) as ipc:
        ipc.write_table(one, max_chunksize=one.num_rows)
    reference = tmp_path / "reference.parquet"
    subprocess.run([str(BIN_DIR / "peers"), "write", "--writer", "arrow", "--row-group-rows", "7000",
                    str(hand_over), str(reference)], check=True, capture_output=True)
    ours = tmp_path / "ours.parquet"
    shredlab.write_parquet(one, ours, row_group_rows=7000, writer=writer)
    assert ours.read_bytes() == reference.read_bytes()


def test_ctrl_c_inside_one_big_batch_keeps_the_earlier_file(tmp_path: Path):
    path = tmp_path / "c.parquet"
    path.write_bytes(b"earlier")
    # Far more than the interrupt leaves time for: the native encoder wrote 400,000 rows with
    # zstd(19) in about the 0.3 s this test used to wait, and the signal then came after the write.
    one = shredlab.contacts(2_000_000, seed=3).read_all().combine_chunks()
    timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            shredlab.write_parquet(one, path, compression="zstd(19)", row_group_rows=20_000,
                                   overwrite=True)
    finally:
        timer.cancel()
    assert path.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.parquet"]
