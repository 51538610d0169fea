"""`shredlab.generate` and `shredlab.contacts`: the CLI's rows, whatever the batching and
threads, in every form a spec can take, consumed by pyarrow, polars and DuckDB."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pytest

import shredlab

from helpers import PRESETS, pipeline_digest

ROWS = 30_000


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.stem)
def test_every_preset_has_the_cli_digest(preset: Path, tmp_path: Path):
    expected = pipeline_digest(tmp_path, "--spec", str(preset), "--rows", str(ROWS), "--seed", "7")
    assert shredlab.digest(shredlab.generate(preset, ROWS, seed=7)) == expected


def test_contacts_have_the_cli_digest(tmp_path: Path):
    expected = pipeline_digest(tmp_path, "--rows", str(ROWS), "--seed", "9", "--zipf-exponent", "1.3")
    reader = shredlab.contacts(ROWS, seed=9, zipf_exponent=1.3)
    assert shredlab.digest(reader) == expected


def test_rows_and_their_order_do_not_depend_on_batches_or_threads():
    reference = shredlab.contacts(ROWS, seed=3, batch_size=4096, threads=1).read_all()
    for batch_size, threads in [(1000, 3), (16_384, 2), (7, 1)]:
        table = shredlab.contacts(ROWS, seed=3, batch_size=batch_size, threads=threads).read_all()
        assert table.equals(reference), (batch_size, threads)
    assert reference.num_rows == ROWS


def test_batches_come_in_row_order_with_the_asked_size():
    spec = {"fields": [{"name": "id", "nullable": False, "type": {"name": "int", "isSigned": True, "bitWidth": 64},
                        "metadata": {"distribution": "sequential"}}]}
    reader = shredlab.generate(spec, 10_001, batch_size=1000, threads=3)
    sizes, ids = [], []
    for batch in reader:
        sizes.append(batch.num_rows)
        ids.extend(batch.column(0).to_pylist())
    assert sizes == [1000] * 10 + [1]
    assert ids == sorted(ids) and len(set(ids)) == 10_001


def test_a_spec_given_as_path_text_dict_or_schema_is_the_same_spec(tmp_path: Path):
    text = (Path(__file__).resolve().parents[2] / "specs" / "otel-logs.json").read_text()
    expected = shredlab.digest(shredlab.generate(text, 5_000))
    (tmp_path / "spec.json").write_text(text)
    assert shredlab.digest(shredlab.generate(tmp_path / "spec.json", 5_000)) == expected
    assert shredlab.digest(shredlab.generate(str(tmp_path / "spec.json"), 5_000)) == expected
    assert shredlab.digest(shredlab.generate(json.loads(text), 5_000)) == expected


def test_a_pyarrow_schema_with_metadata_generates_what_the_cli_does(tmp_path: Path):
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False, metadata={"distribution": "sequential", "min": "1"}),
        pa.field("city", pa.dictionary(pa.int16(), pa.string()),
                 metadata={"distribution": "zipf", "zipf_s": "1.0", "cardinality": "200"}),
        pa.field("tags", pa.list_(pa.field("item", pa.string())), metadata={"max_length": "3"}),
    ])
    (tmp_path / "spec.json").write_text(shredlab.to_spec(schema))
    expected = pipeline_digest(tmp_path, "--spec", str(tmp_path / "spec.json"), "--rows", "4000")
    reader = shredlab.generate(schema, 4000)
    assert reader.schema.names == schema.names
    assert shredlab.digest(reader) == expected


def test_pyarrow_polars_and_duckdb_read_the_stream():
    expected = shredlab.digest(shredlab.contacts(ROWS))
    contacts_table = shredlab.contacts(ROWS).read_all()
    assert shredlab.digest(contacts_table) == expected
    frame = pl.from_arrow(shredlab.contacts(ROWS))
    assert frame.height == ROWS
    assert shredlab.digest(frame) == expected
    reader = shredlab.contacts(ROWS)
    relation = duckdb.sql("SELECT * FROM reader")
    assert shredlab.digest(relation) == expected
    assert duckdb.sql("SELECT count(*) FROM contacts_table").fetchall()[0][0] == ROWS


@pytest.mark.parametrize(
    "spec, match",
    [
        ('{"fields": [{"name": "x", "type": {"name": "int", "isSigned": true, "bitWidth": 64}, "metadata": {"min": "9", "max": "1"}}]}',
         r"fields\[0\]"),
        ('{"fields": [{"name": "x", "type": {"name": "utf8"}, "metadata": {"min_lenght": "1"}}]}',
         r"fields\[0\].*min_lenght"),
        ('{"fields": [', "invalid spec"),
        ('{"fields": []}', "invalid spec"),
        ("[1, 2]", "invalid spec"),
        ("  [", "invalid spec"),
    ],
)
def test_a_bad_spec_raises_value_error_naming_the_field(spec: str, match: str):
    with pytest.raises(ValueError, match=match):
        shredlab.generate(spec, 10)


def test_bad_arguments_raise_clear_errors(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="not found"):
        shredlab.generate(tmp_path / "missing.json", 10)
    with pytest.raises(TypeError, match="spec must be"):
        shredlab.generate(42, 10)
    with pytest.raises(ValueError, match="batch_size"):
        shredlab.contacts(10, batch_size=0)
    with pytest.raises(ValueError, match="threads"):
        shredlab.contacts(10, threads=0)
    with pytest.raises(ValueError, match="zipf_exponent"):
        shredlab.contacts(10, zipf_exponent=-1.0)
    with pytest.raises(ValueError, match="rows"):
        shredlab.contacts(-1)
    with pytest.raises(ValueError, match="seed"):
        shredlab.contacts(10, seed=-1)
    nan = {"fields": [{"name": "x", "type": {"name": "int", "bitWidth": 32}, "metadata": {"min": float("nan")}}]}
    with pytest.raises(ValueError, match="NaN or infinite"):
        shredlab.generate(nan, 10)
    with pytest.raises(TypeError, match="to_spec takes a pyarrow.Schema, not NoneType"):
        shredlab.to_spec(None)
    with pytest.raises(ValueError, match="no fields"):
        shredlab.to_spec(pa.schema([]))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: shredlab.contacts(10, threads=-1), "threads"),
        (lambda: shredlab.contacts(10, batch_size=-5), "batch_size"),
        (lambda: shredlab.contacts(10, threads=True), "threads"),
        (lambda: shredlab.contacts(10, threads=10_000), "threads"),
        (lambda: shredlab.contacts(10, batch_size=2**40), "batch_size"),
        (lambda: shredlab.contacts(2**64), "rows"),
        (lambda: shredlab.contacts(3_000_000_000), "rows"),
        (lambda: shredlab.generate({"fields": []}, 10, threads=-1), "threads"),
        (lambda: shredlab.write_parquet(pa.table({"a": [1]}), "x.parquet", threads=-1), "threads"),
    ],
)
def test_out_of_range_arguments_are_value_errors_naming_them(call, name: str):
    with pytest.raises(ValueError, match=name):
        call()


def test_numpy_integers_are_whole_numbers():
    table = shredlab.contacts(np.int64(10), batch_size=np.int64(5), threads=np.int32(2)).read_all()
    assert table.num_rows == 10


def test_a_stream_is_handed_to_one_consumer():
    stream = shredlab._shredlab.contacts_stream(10)
    assert pa.RecordBatchReader.from_stream(stream).read_all().num_rows == 10
    with pytest.raises(RuntimeError, match="already handed to a reader"):
        pa.RecordBatchReader.from_stream(stream)


def test_a_closed_reader_refuses_to_read_on():
    """The issue's case: the rest of the rows used to come back after close()."""
    reader = shredlab.contacts(200_000)
    reader.read_next_batch()
    reader.close()
    with pytest.raises(pa.ArrowInvalid, match="closed"):
        reader.read_all()


def test_zero_rows_is_an_empty_table():
    table = shredlab.contacts(0).read_all()
    assert table.num_rows == 0
    assert table.schema.names == ["name", "phones"]
