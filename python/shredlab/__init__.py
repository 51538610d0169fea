"""shredlab: reproducible, Zipfian, nested data as Arrow streams, and a parallel Parquet writer.

- :func:`generate` and :func:`contacts` stream a workload's rows as a
  ``pyarrow.RecordBatchReader``, built on Rust threads without the GIL, in row order: the same
  rows, in the same order, as ``pipeline --spec FILE --seed S`` (or ``pipeline --seed S``) for
  any batch size or thread count.
- :func:`write_parquet` writes anything that exports an Arrow C stream (pyarrow, polars, DuckDB,
  the readers above) with shredlab's ``ParallelArrowWriter``: columns encoded on every core,
  the bytes parquet's ``ArrowWriter`` writes, the file named only once complete.
- :func:`digest` is the data gate's content digest of any Arrow stream.

Arrow data crosses the boundary through the Arrow PyCapsule interface, without copies.
"""

from __future__ import annotations

import json
import operator
import os
from typing import Any, Mapping, Union

import pyarrow as pa

from . import _shredlab
from .spec import to_spec

__all__ = ["generate", "contacts", "write_parquet", "digest", "to_spec"]

SpecLike = Union[str, "os.PathLike[str]", Mapping[str, Any], pa.Schema]


def _spec_text(spec: SpecLike) -> str:
    """The spec file text of `spec`: a path, a JSON string, a dict, or a pyarrow schema."""
    if isinstance(spec, pa.Schema):
        return to_spec(spec)
    if isinstance(spec, Mapping):
        try:
            return json.dumps(spec, allow_nan=False)
        except ValueError:
            raise ValueError(
                "spec: a number in it is NaN or infinite, which JSON has no form for: give finite numbers"
            ) from None
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str):
        raise TypeError(
            f"spec must be a path, a JSON string, a dict or a pyarrow.Schema, not {type(spec).__name__}"
        )
    if spec.lstrip().startswith(("{", "[")):
        # JSON text (a spec is an object; the parser says what is wrong with anything else).
        return spec
    try:
        with open(spec, encoding="utf-8") as file:
            return file.read()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"spec file {spec!r} not found (pass a path to a spec file, or the spec's JSON text)"
        ) from None


def _whole(name: str, value: Any, *, smallest: int = 0, largest: int = 2**64 - 1) -> int:
    """`value` as a whole number from `smallest` to `largest`: Python and NumPy integers are
    taken; a bool, a negative or an out-of-range number is a ValueError naming `name` and the
    range, anything else a TypeError."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number from {smallest} to {largest}, not {value}")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}") from None
    if not smallest <= number <= largest:
        raise ValueError(f"{name} must be a whole number from {smallest} to {largest}, not {number}")
    return number


def _of_type(name: str, value: Any, kind: type) -> Any:
    """`value`, unless it is not a `kind`: then a TypeError naming the argument."""
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be a {kind.__name__}, not {type(value).__name__}")
    return value


def _optional_whole(name: str, value: Any, *, largest: int = 2**32 - 1) -> int | None:
    """`value` as [`_whole`] checks it, or None."""
    return None if value is None else _whole(name, value, smallest=1, largest=largest)


def _reader(stream: Any) -> pa.RecordBatchReader:
    """A pyarrow reader over a native stream, imported through the Arrow C stream interface.
    ``close()``, leaving a ``with`` block or releasing the reader stops the stream's threads,
    and pyarrow refuses any read after ``close()``."""
    return pa.RecordBatchReader.from_stream(stream)


def generate(
    spec: SpecLike,
    rows: int,
    *,
    seed: int = _shredlab.DEFAULT_SEED,
    batch_size: int | None = None,
    threads: int | None = None,
) -> pa.RecordBatchReader:
    """The rows of a spec's workload (see SPEC.md), as ``pipeline --spec FILE --seed SEED``
    generates them.

    ``spec`` is a path to a spec file, the spec's JSON text, a dict of it, or a
    ``pyarrow.Schema`` whose field metadata carry the generator's keys. ``batch_size`` is rows
    per batch (default 16,384), ``threads`` the Rust threads building batches (default: the
    machine's cores); neither changes the rows. A bad spec raises ``ValueError`` naming the
    field's path."""
    stream = _shredlab.spec_stream(
        _spec_text(spec),
        _whole("rows", rows),
        seed=_whole("seed", seed),
        batch_size=_optional_whole("batch_size", batch_size, largest=_shredlab.MAX_BATCH_ROWS),
        threads=_optional_whole("threads", threads, largest=_shredlab.MAX_THREADS),
    )
    return _reader(stream)


def contacts(
    rows: int,
    *,
    seed: int = _shredlab.DEFAULT_SEED,
    zipf_exponent: float = 1.0,
    batch_size: int | None = None,
    threads: int | None = None,
) -> pa.RecordBatchReader:
    """The contacts table (a nullable Zipfian name and a list of phone structs), as
    ``pipeline --seed SEED --zipf-exponent S`` generates it."""
    stream = _shredlab.contacts_stream(
        _whole("rows", rows),
        seed=_whole("seed", seed),
        zipf_exponent=zipf_exponent,
        batch_size=_optional_whole("batch_size", batch_size, largest=_shredlab.MAX_BATCH_ROWS),
        threads=_optional_whole("threads", threads, largest=_shredlab.MAX_THREADS),
    )
    return _reader(stream)


def _stream_capsule(data: Any, function: str) -> Any:
    export = getattr(data, "__arrow_c_stream__", None)
    if export is None:
        raise TypeError(
            f"{function} takes Arrow data that exports a C stream (__arrow_c_stream__): a "
            "pyarrow Table or RecordBatchReader, a polars DataFrame, a DuckDB result, or "
            f"shredlab.generate(); got {type(data).__name__}"
        )
    return export()


def write_parquet(
    data: Any,
    path: Union[str, "os.PathLike[str]"],
    *,
    compression: str = "none",
    row_group_rows: int | None = None,
    threads: int | None = None,
    properties: Mapping[str, Any] | None = None,
    writer: str = "parallel",
    storage_options: Mapping[str, str] | None = None,
    overwrite: bool = False,
) -> dict:
    """Writes ``data`` as one Parquet file at ``path`` and returns what was written: ``path``,
    ``rows``, ``bytes``, ``row_groups``, ``writer``, ``encoder_threads`` and ``seconds``.

    ``data`` is anything that exports an Arrow C stream. The file is written under a temporary
    name and renamed when complete, so a failed or interrupted write leaves nothing that looks
    complete and never damages a file already at ``path``. ``path`` may be
    ``s3://bucket/key`` (an S3-compatible store, configured by the ``AWS_*`` variables, then
    ``storage_options`` with the same names), where the object appears only once complete.

    As the CLI does, it refuses to replace a file (or object) already at ``path`` unless
    ``overwrite=True`` (``FileExistsError``), and checks ``path`` before reading ``data``: a
    directory, a path ending in ``/`` or a missing directory is refused at once. A replaced
    file keeps its mode; a symbolic link is followed: the file it points to is replaced and the
    link stays. Ctrl-C is seen between row groups, even when ``data`` is one batch, and
    raises ``KeyboardInterrupt`` with nothing committed: the earlier file stays whole.

    ``compression`` is ``none``, ``snappy``, ``lz4`` or ``zstd(LEVEL)``; ``row_group_rows``
    defaults to parquet's 1,048,576; ``threads`` are the encoder threads (default: the cores).
    ``properties`` sets parquet's writer properties: ``dictionary``, ``dictionary_page_size``,
    ``data_page_size``, ``data_page_row_count_limit``, ``statistics`` (``none``, ``chunk``,
    ``page``), ``encoding`` (``plain``, ``delta_binary_packed``, ``delta_length_byte_array``,
    ``delta_byte_array``, ``byte_stream_split``, ``rle``), ``bloom_filter``,
    ``bloom_filter_fpp``, ``bloom_filter_ndv``, ``write_batch_size``, ``writer_version``
    (``1.0``, ``2.0``),
    ``created_by``, and ``columns``, a dict of dotted leaf paths to per-column settings
    (those above, and ``compression``). ``writer="arrow"`` writes with parquet's own
    ``ArrowWriter`` instead, on one thread: the same bytes, for comparison."""
    capsule = _stream_capsule(data, "write_parquet")
    return _shredlab.write_parquet(
        capsule,
        os.fspath(path),
        compression=_of_type("compression", compression, str),
        row_group_rows=_optional_whole("row_group_rows", row_group_rows),
        threads=_optional_whole("threads", threads, largest=_shredlab.MAX_THREADS),
        properties=dict(properties) if properties is not None else None,
        writer=_of_type("writer", writer, str),
        storage_options=dict(storage_options) if storage_options is not None else None,
        overwrite=_of_type("overwrite", overwrite, bool),
    )


def digest(data: Any) -> str:
    """The data gate's digest of every row of ``data`` (anything that exports an Arrow C
    stream), ``ROWS:SUM``: the same as ``pipeline --verify`` reports and ``python -m
    shredlab_peers digest`` computes, whatever the row order, batching or encoding."""
    return _shredlab.digest(_stream_capsule(data, "digest"))
