//! The Arrow PyCapsule interface for streams: ours handed out as `arrow_array_stream` capsules,
//! and any object's taken from its capsule. Capsules carry the C data interface's structs: Arrow buffers
//! are shared, never copied.

use std::ffi::CStr;

use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::RecordBatchReader;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::errors;

const STREAM: &CStr = c"arrow_array_stream";

/// `reader` as an `arrow_array_stream` capsule; the consumer that takes it owns the reader,
/// and releasing the stream drops it.
pub fn stream_capsule(
    py: Python<'_>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'_, PyCapsule>> {
    PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), STREAM)
}

/// Takes the stream out of an `arrow_array_stream` capsule (leaving it released, as the
/// interface asks of a consumer) and reads its schema.
pub fn stream_reader(capsule: &Bound<'_, PyCapsule>) -> PyResult<RecordBatchStreamReader> {
    let pointer = capsule.pointer_checked(Some(STREAM)).map_err(|_| {
        errors::invalid("expected an 'arrow_array_stream' capsule, as __arrow_c_stream__() returns")
    })?;
    // SAFETY: the capsule's name promises an FFI_ArrowArrayStream; `from_raw` moves it out and
    // leaves a released one behind, so the capsule's destructor releases nothing twice.
    unsafe { RecordBatchStreamReader::from_raw(pointer.as_ptr().cast()) }
        .map_err(|e| errors::arrow("cannot read the stream's schema", e))
}
