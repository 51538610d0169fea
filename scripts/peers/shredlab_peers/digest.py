"""The data gate's content digest, the same as `experiments/src/gate.rs` computes in Rust.

Each row is serialised into canonical bytes, column after column:

=========  ===  =====================================================================
value      tag  bytes after the tag
=========  ===  =====================================================================
NULL       0    none (a null of any type, at any depth)
string     1    length as u64 little-endian, then the UTF-8 bytes (plain, large,
                view and dictionary-encoded strings alike)
list       2    item count as u64 little-endian, then every item (list or large list)
struct     3    every field in schema order (field names are not part of the bytes)
integer    4    the value as a little-endian two's-complement i128 (int32, int64, uint64)
boolean    5    one byte, 0 or 1
float64    6    the IEEE-754 bits as u64 little-endian
=========  ===  =====================================================================

Each row's bytes are hashed with 128-bit XXH3; the digest is the row count and the wrapping
(mod 2^128) sum of the row hashes, printed `ROWS:SUM` with SUM as 32 hex digits. It ignores row
order, batch and file boundaries, encodings and every name, so files from any writer compare
equal when their rows are. The canonical bytes are built column-wise with Arrow compute kernels;
only the hash runs once per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import xxhash

NULL, STRING, LIST, STRUCT, INT, BOOL, FLOAT = (bytes([tag]) for tag in range(7))
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
    values = array.fill_null(0).to_numpy(zero_copy_only=False)
    wide = np.empty((len(values), 2), dtype="<u8")
    wide[:, 0] = values.astype("<i8").view("<u8") if values.dtype.kind == "i" else values
    # The high half of a two's-complement i128: all ones for negative values.
    wide[:, 1] = np.where(values < 0, np.uint64(2**64 - 1), np.uint64(0))
    return _tagged(array, INT, _fixed_width(wide, 16))


def encode(array: pa.Array) -> pa.Array:
    """The canonical bytes of every value of `array`, as a large-binary array of equal length."""
    kind = array.type
    if pa.types.is_dictionary(kind):
        out = encode(array.dictionary).take(array.indices)
        return out.fill_null(pa.scalar(NULL, BYTES)) if array.null_count else out
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        text = array.cast(BYTES)
        lengths = pc.binary_length(text).fill_null(0).to_numpy(zero_copy_only=False)
        return _tagged(array, STRING, _u64_le(lengths), text)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        # Only the items this (possibly sliced) array points at: `values` is the whole child.
        offsets = array.offsets
        start, end = offsets[0].as_py(), offsets[-1].as_py()
        items = encode(array.values.slice(start, end - start))
        lists = type(array).from_arrays(pc.subtract(offsets, start), items)
        counts = np.diff(offsets.to_numpy())
        return _tagged(array, LIST, _u64_le(counts), pc.binary_join(lists, EMPTY))
    if pa.types.is_struct(kind):
        fields = [encode(array.field(i)) for i in range(kind.num_fields)]
        return _tagged(array, STRUCT, *fields)
    if kind in (pa.int32(), pa.int64(), pa.uint64()):
        return _integers(array)
    if pa.types.is_boolean(kind):
        bits = array.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint8)
        return _tagged(array, BOOL, _fixed_width(bits, 1))
    if kind == pa.float64():
        bits = array.fill_null(0.0).to_numpy(zero_copy_only=False).astype("<f8").view("<u8")
        return _tagged(array, FLOAT, _fixed_width(bits, 8))
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
