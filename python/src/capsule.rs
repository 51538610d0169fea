//! The Arrow PyCapsule interface: batches and schemas handed to Python as `arrow_array` and
//! `arrow_schema` capsules, and streams taken from any object's `arrow_array_stream` capsule.
//! Capsules carry the C data interface's structs: Arrow buffers are shared, never copied.

use std::ffi::CStr;

use arrow_array::ffi::{to_ffi, FFI_ArrowSchema};
use arrow_array::ffi_stream::RecordBatchStreamReader;
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::Schema;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::errors;

const SCHEMA: &CStr = c"arrow_schema";
const ARRAY: &CStr = c"arrow_array";
const STREAM: &CStr = c"arrow_array_stream";

/// One record batch, for `pyarrow.record_batch()` (or any consumer of `__arrow_c_array__`).
#[pyclass(module = "shredlab._shredlab", frozen)]
pub struct ArrowBatch {
    batch: RecordBatch,
}

impl ArrowBatch {
    /// Wraps `batch` for Python.
    pub fn new(batch: RecordBatch) -> Self {
        Self { batch }
    }
}

#[pymethods]
impl ArrowBatch {
    /// The batch as a struct array: an `(arrow_schema, arrow_array)` pair of capsules. The
    /// requested schema, which the interface lets a producer ignore, is ignored: the batch is
    /// exported as it is.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let array = StructArray::from(self.batch.clone()).into_data();
        let (array, schema) =
            to_ffi(&array).map_err(|e| errors::arrow("cannot export a batch", e))?;
        let schema = PyCapsule::new_with_value(py, schema, SCHEMA)?;
        let array = PyCapsule::new_with_value(py, array, ARRAY)?;
        PyTuple::new(py, [schema, array])
    }

    /// Rows in the batch.
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}

/// `schema` as an `arrow_schema` capsule (a struct of its fields).
pub fn schema_capsule<'py>(py: Python<'py>, schema: &Schema) -> PyResult<Bound<'py, PyCapsule>> {
    let schema = FFI_ArrowSchema::try_from(schema)
        .map_err(|e| errors::arrow("cannot export the schema", e))?;
    PyCapsule::new_with_value(py, schema, SCHEMA)
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
