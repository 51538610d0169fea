"""The data gate's content digest, the same as `experiments/src/gate.rs` computes in Rust.

Each row is serialised into canonical bytes, column after column, by logical value, so every
physical variant a writer or reader may pick for the same data gives the same bytes:

=========  ===  =========================================================================
value      tag  bytes after the tag
=========  ===  =========================================================================
NULL       0    none (a null of any type, at any depth; every value of the Null type)
string     1    length as u64 LE, then the UTF-8 bytes (plain, large, view and
                dictionary-encoded strings alike)
list       2    item count as u64 LE, then every item (list, large list, fixed-size list;
                a map is its list of (key, value) structs, as polars returns it)
struct     3    every field in schema order (field names are not part of the bytes)
integer    4    the value as a little-endian two's-complement i128 (any width, signed or not)
boolean    5    one byte, 0 or 1
float      6    the value widened exactly to float64, its IEEE-754 bits as u64 LE
binary     7    length as u64 LE, then the bytes (binary, large, view, fixed-size)
decimal    8    the scale as i8, then the unscaled value as an i256 LE (any width)
date       9    milliseconds since the epoch as i64 LE (date32 and date64)
time       10   nanoseconds since midnight as i64 LE (time32 and time64, any unit)
timestamp  11   1 if it has a time zone (an instant) else 0, whole seconds since the epoch
                as i64 LE, then nanoseconds as u32 LE (any unit)
=========  ===  =========================================================================

Each row's bytes are hashed with 128-bit XXH3; the digest is the row count and the wrapping
(mod 2^128) sum of the row hashes, printed `ROWS:SUM` with SUM as 32 hex digits. It ignores row
order, batch and file boundaries, encodings and every name, so files from any writer compare
equal when their rows are. The canonical bytes are built column-wise with Arrow compute kernels
and numpy; only the hash runs once per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import xxhash

NULL, STRING, LIST, STRUCT, INT, BOOL, FLOAT, BINARY, DECIMAL, DATE, TIME, TIMESTAMP = (
    bytes([tag]) for tag in range(12)
)
NANOS_PER = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
MILLIS_PER_DAY = 86_400_000
BYTES = pa.large_binary()
EMPTY = pa.scalar(b"", BYTES)
MASK = (1 << 128) - 1


@dataclass(frozen=True)
class Digest:
    """An order-independent digest of a multiset of rows."""

    rows: int = 0
    sum: int = 0

    def __add__(self, other: "Digest") -> "Digest":
        return Digest(self.rows + other.rows, (self.sum + other.sum) & MASK)

    def __str__(self) -> str:
        return f"{self.rows}:{self.sum:032x}"


def _fixed_width(values: np.ndarray, width: int) -> pa.Array:
    """Each `width`-byte slice of `values`' memory as one binary value."""
    data = np.ascontiguousarray(values).reshape(-1).view(np.uint8)
    count = len(data) // width
    fixed = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), count, [None, pa.py_buffer(data)]
    )
    return fixed.cast(BYTES)


def _u64_le(values) -> pa.Array:
    return _fixed_width(np.asarray(values, dtype="<u8"), 8)


def _concat(*parts: pa.Array | pa.Scalar) -> pa.Array:
    return pc.binary_join_element_wise(*parts, EMPTY)


def _tagged(array: pa.Array, tag: bytes, *parts: pa.Array) -> pa.Array:
    """`tag` then `parts`, row by row; NULL where `array` is null."""
    out = _concat(pa.scalar(tag, BYTES), *parts)
    if array.null_count:
        out = pc.if_else(array.is_valid(), out, pa.scalar(NULL, BYTES))
    return out


def _integers(array: pa.Array) -> pa.Array:
    signed = pa.types.is_signed_integer(array.type)
    values = _numbers(array, "<i8" if signed else "<u8")
    wide = np.empty((len(values), 2), dtype="<u8")
    wide[:, 0] = values.view("<u8")
    # The high half of a two's-complement i128: all ones for negative values.
    wide[:, 1] = np.where(values < 0, np.uint64(2**64 - 1), np.uint64(0))
    return _tagged(array, INT, _fixed_width(wide, 16))


def _numbers(array: pa.Array, dtype: str) -> np.ndarray:
    """The values of a fixed-width column as numpy `dtype`, nulls as zero."""
    return array.fill_null(0).to_numpy(zero_copy_only=False).astype(dtype)


def _decimals(array: pa.Array) -> pa.Array:
    """Scale, then the unscaled value as 32 little-endian bytes, from the array's own buffer."""
    kind = array.type
    wide = array.cast(pa.decimal256(max(kind.precision, 1), kind.scale)) if kind.byte_width != 32 else array
    data = np.frombuffer(wide.buffers()[1], dtype=np.uint8)
    values = data[wide.offset * 32 : (wide.offset + len(wide)) * 32]
    scale = np.full(len(wide), kind.scale, dtype=np.int8)
    return _tagged(array, DECIMAL, _fixed_width(scale, 1), _fixed_width(values, 32))


def _timestamps(array: pa.Array) -> pa.Array:
    kind = array.type
    per_second = 1_000_000_000 // NANOS_PER[kind.unit]
    values = array.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    seconds, rest = np.divmod(values, per_second)
    nanos = (rest * NANOS_PER[kind.unit]).astype("<u4")
    zoned = np.full(len(values), 1 if kind.tz else 0, dtype=np.uint8)
    return _tagged(array, TIMESTAMP, _fixed_width(zoned, 1), _fixed_width(seconds.astype("<i8"), 8), _fixed_width(nanos, 4))


def _lists(array: pa.Array, offsets: np.ndarray, items: pa.Array) -> pa.Array:
    """LIST, count, items: `offsets` start at 0 and index into `items` (already this array's)."""
    encoded = pa.LargeListArray.from_arrays(pa.array(offsets, pa.int64()), encode(items))
    return _tagged(array, LIST, _u64_le(np.diff(offsets)), pc.binary_join(encoded, EMPTY))


def encode(array: pa.Array) -> pa.Array:
    """The canonical bytes of every value of `array`, as a large-binary array of equal length."""
    kind = array.type
    if pa.types.is_null(kind):
        return pa.array([NULL] * len(array), BYTES)
    if pa.types.is_dictionary(kind):
        out = encode(array.dictionary).take(array.indices)
        return out.fill_null(pa.scalar(NULL, BYTES)) if array.null_count else out
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        text = array.cast(BYTES)
        lengths = pc.binary_length(text).fill_null(0).to_numpy(zero_copy_only=False)
        return _tagged(array, STRING, _u64_le(lengths), text)
    if (
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_binary_view(kind)
        or pa.types.is_fixed_size_binary(kind)
    ):
        data = array.cast(BYTES)
        lengths = pc.binary_length(data).fill_null(0).to_numpy(zero_copy_only=False)
        return _tagged(array, BINARY, _u64_le(lengths), data)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        # Only the items this (possibly sliced) array points at: `values` is the whole child.
        offsets = array.offsets.to_numpy().astype(np.int64)
        items = array.values.slice(offsets[0], offsets[-1] - offsets[0])
        return _lists(array, offsets - offsets[0], items)
    if pa.types.is_fixed_size_list(kind):
        size = kind.list_size
        items = array.values.slice(array.offset * size, len(array) * size)
        return _lists(array, np.arange(len(array) + 1, dtype=np.int64) * size, items)
    if pa.types.is_struct(kind):
        fields = [encode(array.field(i)) for i in range(kind.num_fields)]
        return _tagged(array, STRUCT, *fields)
    if pa.types.is_integer(kind):
        return _integers(array)
    if pa.types.is_boolean(kind):
        bits = array.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint8)
        return _tagged(array, BOOL, _fixed_width(bits, 1))
    if pa.types.is_floating(kind):
        bits = _numbers(array, "<f8").view("<u8")
        return _tagged(array, FLOAT, _fixed_width(bits, 8))
    if pa.types.is_decimal(kind):
        return _decimals(array)
    if pa.types.is_date(kind):
        days_or_ms = array.cast(pa.int32() if pa.types.is_date32(kind) else pa.int64())
        millis = _numbers(days_or_ms, "<i8") * (MILLIS_PER_DAY if pa.types.is_date32(kind) else 1)
        return _tagged(array, DATE, _fixed_width(millis.astype("<i8"), 8))
    if pa.types.is_time(kind):
        raw = array.cast(pa.int32() if pa.types.is_time32(kind) else pa.int64())
        nanos = _numbers(raw, "<i8") * NANOS_PER[kind.unit]
        return _tagged(array, TIME, _fixed_width(nanos.astype("<i8"), 8))
    if pa.types.is_timestamp(kind):
        return _timestamps(array)
    raise TypeError(f"the data gate cannot digest columns of type {kind}")


def of_batch(batch: pa.RecordBatch) -> Digest:
    """The digest of every row of `batch`."""
    if batch.num_rows == 0:
        return Digest()
    columns = [encode(column) for column in batch.columns]
    rows = columns[0] if len(columns) == 1 else _concat(*columns)
    total = sum(map(xxhash.xxh3_128_intdigest, rows.to_pylist()))
    return Digest(batch.num_rows, total & MASK)


def of_batches(batches: Iterable[pa.RecordBatch]) -> Digest:
    """The digest of every row of `batches`."""
    digest = Digest()
    for batch in batches:
        digest = digest + of_batch(batch)
    return digest
