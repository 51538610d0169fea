//! Row-addressable generation from a [`Spec`]: the value of every cell depends only on
//! (seed, column, row, position in its lists), so any batch size, thread count or part split
//! gives the same rows.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::builder::*;
use arrow_array::{ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Schema, SchemaRef, TimeUnit};

use super::{Distribution, FieldSpec, Params, Spec, SpecError};

/// SplitMix64's finaliser: a well-mixed 64-bit value from any input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Which cell: a column's key, and a row's (or list item's) key.
#[derive(Debug, Clone, Copy)]
struct Cell {
    column: u64,
    key: u64,
}

impl Cell {
    /// A uniform u64 for draw number `salt` of this cell.
    fn bits(self, salt: u64) -> u64 {
        mix(self.column ^ mix(self.key ^ mix(salt)))
    }

    /// A uniform f64 in [0, 1).
    fn unit(self, salt: u64) -> f64 {
        (self.bits(salt) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// The key of item `index` of a list in this cell.
    fn item(self, index: u64) -> u64 {
        mix(self.key.wrapping_mul(0x100_0000_01B3) ^ mix(index))
    }
}

const NULL_DRAW: u64 = 1;
const VALUE_DRAW: u64 = 2;
const SECOND_DRAW: u64 = 3;
const LENGTH_DRAW: u64 = 4;

/// One column's generator, its children built too.
#[derive(Debug)]
struct Column {
    spec: FieldSpec,
    id: u64,
    /// Cumulative weights of ranks (Zipf) or of values (categorical).
    cumulative: Vec<f64>,
    children: Vec<Column>,
}

impl Column {
    fn new(spec: &FieldSpec, seed: u64, path: u64) -> Self {
        let id = mix(seed ^ mix(path));
        let params = &spec.params;
        let cumulative = match params.distribution {
            Distribution::Zipf { s } => {
                let n = params
                    .cardinality
                    .unwrap_or(params.values.len() as u64)
                    .max(1);
                running((1..=n).map(|k| (k as f64).powf(-s)))
            }
            Distribution::Categorical if params.weights.is_empty() => {
                running(params.values.iter().map(|_| 1.0))
            }
            Distribution::Categorical => running(params.weights.iter().copied()),
            _ => Vec::new(),
        };
        let children = spec
            .children
            .iter()
            .enumerate()
            .map(|(i, child)| Column::new(child, seed, mix(path ^ (i as u64 + 1))))
            .collect();
        Self {
            spec: spec.clone(),
            id,
            cumulative,
            children,
        }
    }

    fn params(&self) -> &Params {
        &self.spec.params
    }

    fn is_null(&self, cell: Cell) -> bool {
        let p = self.params().null_probability;
        p > 0.0 && cell.unit(NULL_DRAW) < p
    }

    /// The index drawn from the cumulative weights.
    fn pick(&self, cell: Cell) -> usize {
        let total = *self.cumulative.last().unwrap_or(&1.0);
        let target = cell.unit(VALUE_DRAW) * total;
        self.cumulative
            .partition_point(|&c| c <= target)
            .min(self.cumulative.len() - 1)
    }

    /// A number for a numeric or temporal column, by the distribution.
    fn number(&self, cell: Cell, row: u64, default: (f64, f64)) -> f64 {
        let params = self.params();
        let (min, max) = (
            params.min.unwrap_or(default.0),
            params.max.unwrap_or(default.1),
        );
        match params.distribution {
            Distribution::Uniform => min + cell.unit(VALUE_DRAW) * (max - min),
            Distribution::Zipf { .. } => match params.values.get(self.pick(cell)) {
                Some(v) => v.parse().unwrap_or(min),
                None => min + self.pick(cell) as f64,
            },
            Distribution::Categorical => params.values[self.pick(cell)].parse().unwrap_or(min),
            Distribution::Normal { mean, stddev } => {
                // Box-Muller from two draws of this cell.
                let (u1, u2) = (
                    cell.unit(VALUE_DRAW).max(f64::MIN_POSITIVE),
                    cell.unit(SECOND_DRAW),
                );
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (mean + stddev * z).clamp(
                    params.min.unwrap_or(f64::MIN),
                    params.max.unwrap_or(f64::MAX),
                )
            }
            Distribution::Sequential { step } => min + row as f64 * step,
        }
    }

    /// A string for a text column.
    fn text(&self, cell: Cell, row: u64) -> String {
        let params = self.params();
        match params.distribution {
            Distribution::Zipf { .. } | Distribution::Categorical => {
                match params.values.get(self.pick(cell)) {
                    Some(value) => value.clone(),
                    None => format!("w{}", self.pick(cell) + 1),
                }
            }
            Distribution::Sequential { .. } => {
                format!("{:016}", self.number(cell, row, (0.0, 0.0)) as i64)
            }
            _ => {
                let (lo, hi) = (
                    params.min_length.unwrap_or(8),
                    params.max_length.unwrap_or(16),
                );
                let length = lo + cell.bits(LENGTH_DRAW) % (hi - lo + 1);
                (0..length)
                    .map(|i| char::from(b'a' + (mix(cell.bits(VALUE_DRAW) ^ i) % 26) as u8))
                    .collect()
            }
        }
    }

    fn length(&self, cell: Cell) -> u64 {
        let params = self.params();
        let (lo, hi) = (
            params.min_length.unwrap_or(0),
            params.max_length.unwrap_or(4),
        );
        lo + cell.bits(LENGTH_DRAW) % (hi - lo + 1)
    }

    /// The column's values for `keys` (rows, or list items), `rows` giving each its row.
    fn array(&self, keys: &[(u64, u64)]) -> Result<ArrayRef, SpecError> {
        let cells = keys.iter().map(|&(key, row)| {
            (
                Cell {
                    column: self.id,
                    key,
                },
                row,
            )
        });
        macro_rules! numbers {
            ($builder:ty, $default:expr, $cast:ty) => {{
                let mut b = <$builder>::with_capacity(keys.len());
                for (cell, row) in cells {
                    if self.is_null(cell) {
                        b.append_null();
                    } else {
                        b.append_value(self.number(cell, row, $default) as $cast);
                    }
                }
                b.finish()
            }};
        }
        Ok(match self.spec.field.data_type() {
            DataType::Boolean => {
                let mut b = BooleanBuilder::with_capacity(keys.len());
                for (cell, _) in cells {
                    b.append_option((!self.is_null(cell)).then(|| cell.unit(VALUE_DRAW) < 0.5));
                }
                Arc::new(b.finish())
            }
            DataType::Int8 => Arc::new(numbers!(Int8Builder, (-100.0, 100.0), i8)),
            DataType::Int16 => Arc::new(numbers!(Int16Builder, (-1000.0, 1000.0), i16)),
            DataType::Int32 => Arc::new(numbers!(Int32Builder, (-1e6, 1e6), i32)),
            DataType::Int64 => Arc::new(numbers!(Int64Builder, (-1e9, 1e9), i64)),
            DataType::UInt8 => Arc::new(numbers!(UInt8Builder, (0.0, 200.0), u8)),
            DataType::UInt16 => Arc::new(numbers!(UInt16Builder, (0.0, 2000.0), u16)),
            DataType::UInt32 => Arc::new(numbers!(UInt32Builder, (0.0, 2e6), u32)),
            DataType::UInt64 => Arc::new(numbers!(UInt64Builder, (0.0, 2e9), u64)),
            DataType::Float32 => Arc::new(numbers!(Float32Builder, (0.0, 1.0), f32)),
            DataType::Float64 => Arc::new(numbers!(Float64Builder, (0.0, 1.0), f64)),
            DataType::Date32 => Arc::new(numbers!(Date32Builder, (0.0, 20_000.0), i32)),
            DataType::Timestamp(unit, zone) => {
                // Default range: 2020-2025 in the column's unit.
                let per_second = match unit {
                    TimeUnit::Second => 1.0,
                    TimeUnit::Millisecond => 1e3,
                    TimeUnit::Microsecond => 1e6,
                    TimeUnit::Nanosecond => 1e9,
                };
                let default = (1.577_836_8e9 * per_second, 1.735_689_6e9 * per_second);
                let zone = zone.clone();
                match unit {
                    TimeUnit::Second => Arc::new(
                        numbers!(TimestampSecondBuilder, default, i64).with_timezone_opt(zone),
                    ),
                    TimeUnit::Millisecond => Arc::new(
                        numbers!(TimestampMillisecondBuilder, default, i64).with_timezone_opt(zone),
                    ),
                    TimeUnit::Microsecond => Arc::new(
                        numbers!(TimestampMicrosecondBuilder, default, i64).with_timezone_opt(zone),
                    ),
                    TimeUnit::Nanosecond => Arc::new(
                        numbers!(TimestampNanosecondBuilder, default, i64).with_timezone_opt(zone),
                    ),
                }
            }
            DataType::Utf8 => {
                let mut b = StringBuilder::new();
                for (cell, row) in cells {
                    b.append_option((!self.is_null(cell)).then(|| self.text(cell, row)));
                }
                Arc::new(b.finish())
            }
            DataType::LargeUtf8 => {
                let mut b = LargeStringBuilder::new();
                for (cell, row) in cells {
                    b.append_option((!self.is_null(cell)).then(|| self.text(cell, row)));
                }
                Arc::new(b.finish())
            }
            DataType::List(item) => {
                let (mut offsets, mut valid, mut items) = (vec![0usize], Vec::new(), Vec::new());
                for (cell, row) in cells {
                    let null = self.is_null(cell);
                    valid.push(!null);
                    if !null {
                        items.extend((0..self.length(cell)).map(|i| (cell.item(i), row)));
                    }
                    offsets.push(items.len());
                }
                let values = self.children[0].array(&items)?;
                let lengths = offsets.windows(2).map(|w| w[1] - w[0]);
                Arc::new(ListArray::new(
                    item.clone(),
                    OffsetBuffer::from_lengths(lengths),
                    values,
                    Some(NullBuffer::from(valid)),
                ))
            }
            DataType::Struct(fields) => {
                let valid: Vec<bool> = cells.map(|(cell, _)| !self.is_null(cell)).collect();
                let columns = self
                    .children
                    .iter()
                    .map(|c| c.array(keys))
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(StructArray::new(
                    fields.clone(),
                    columns,
                    Some(NullBuffer::from(valid)),
                ))
            }
            other => {
                return Err(SpecError {
                    path: self.spec.field.name().clone(),
                    message: format!("generating {other} is not written yet"),
                })
            }
        })
    }
}

fn running(weights: impl Iterator<Item = f64>) -> Vec<f64> {
    weights
        .scan(0.0, |total, w| {
            *total += w;
            Some(*total)
        })
        .collect()
}

/// Batches of a spec's rows for one seed.
#[derive(Debug)]
pub struct SpecGenerator {
    schema: SchemaRef,
    columns: Vec<Column>,
}

impl SpecGenerator {
    /// A generator of `spec`'s rows for `seed`.
    pub fn new(spec: &Spec, seed: u64) -> Self {
        Self {
            schema: Arc::new(Schema::new(
                spec.fields
                    .iter()
                    .map(|f| f.field.clone())
                    .collect::<Vec<_>>(),
            )),
            columns: spec
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| Column::new(f, seed, i as u64))
                .collect(),
        }
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The batch of rows `rows`.
    pub fn batch(&self, rows: Range<u64>) -> Result<RecordBatch, SpecError> {
        let keys: Vec<(u64, u64)> = rows.map(|r| (r, r)).collect();
        let columns = self
            .columns
            .iter()
            .map(|c| c.array(&keys))
            .collect::<Result<Vec<_>, _>>()?;
        RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| SpecError {
            path: "spec".into(),
            message: format!("the generated columns do not fit the schema: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, TimestampMicrosecondType};
    use arrow_array::Array;

    const LOGS: &str = r#"{"fields": [
        {"name": "ts", "nullable": false, "type": {"name": "timestamp", "unit": "MICROSECOND", "timezone": "UTC"},
         "metadata": {"distribution": "sequential", "min": 1700000000000000, "step": 1000}},
        {"name": "severity", "type": {"name": "utf8"},
         "metadata": {"distribution": "categorical", "values": "[\"INFO\", \"WARN\", \"ERROR\"]", "weights": "[8, 1.5, 0.5]"}},
        {"name": "latency", "type": {"name": "floatingpoint", "precision": "DOUBLE"},
         "metadata": {"distribution": "normal", "mean": 50, "stddev": 10, "min": 0, "null_probability": 0.2}},
        {"name": "attrs", "type": {"name": "list"}, "metadata": {"max_length": 3}, "children": [
            {"name": "item", "type": {"name": "struct"}, "children": [
                {"name": "key", "type": {"name": "utf8"}, "metadata": {"distribution": "zipf", "zipf_s": 1.2, "cardinality": 50}},
                {"name": "n", "type": {"name": "int", "bitWidth": 32}, "metadata": {"min": 0, "max": 9}}]}]}
    ]}"#;

    #[test]
    fn rows_do_not_depend_on_batch_boundaries() {
        let generator = SpecGenerator::new(&parse(LOGS).unwrap(), 7);
        let whole = generator.batch(0..1_000).unwrap();
        let first = generator.batch(0..400).unwrap();
        let rest = generator.batch(400..1_000).unwrap();
        assert_eq!(whole.slice(0, 400), first);
        assert_eq!(whole.slice(400, 600), rest);
        let other_seed = SpecGenerator::new(&parse(LOGS).unwrap(), 8)
            .batch(0..1_000)
            .unwrap();
        assert_ne!(whole, other_seed);
    }

    #[test]
    fn parameters_are_honoured() {
        let batch = SpecGenerator::new(&parse(LOGS).unwrap(), 1)
            .batch(0..20_000)
            .unwrap();
        let ts = batch.column(0).as_primitive::<TimestampMicrosecondType>();
        assert_eq!(ts.value(0), 1_700_000_000_000_000);
        assert_eq!(ts.value(3) - ts.value(2), 1_000);
        let severity = batch.column(1).as_string::<i32>();
        let info = (0..severity.len())
            .filter(|&i| severity.value(i) == "INFO")
            .count() as f64;
        assert!((info / 20_000.0 - 0.8).abs() < 0.02, "{info}");
        let latency = batch.column(2).as_primitive::<Float64Type>();
        let nulls = latency.null_count() as f64 / 20_000.0;
        assert!((nulls - 0.2).abs() < 0.02, "{nulls}");
        let valid: Vec<f64> = latency.iter().flatten().collect();
        let mean = valid.iter().sum::<f64>() / valid.len() as f64;
        assert!((mean - 50.0).abs() < 0.5, "{mean}");
        let attrs = batch.column(3).as_list::<i32>();
        assert!((0..attrs.len()).all(|i| attrs.value_length(i) <= 3));
        let keys = attrs.values().as_struct().column(0).as_string::<i32>();
        let top = (0..keys.len()).filter(|&i| keys.value(i) == "w1").count();
        let second = (0..keys.len()).filter(|&i| keys.value(i) == "w2").count();
        // Zipf with s = 1.2: rank 1 is 2^1.2 = 2.3 times as frequent as rank 2.
        let ratio = top as f64 / second as f64;
        assert!((ratio - 2.3).abs() < 0.3, "{ratio}");
    }
}
