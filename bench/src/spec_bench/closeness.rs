//! How close two contact tables are, distribution by distribution: the hand-written generator's
//! and the contacts preset's (`specs/contacts.json`), which draw from different random streams.

use std::collections::{HashMap, HashSet};

use anyhow::{Context, Result};
use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use serde::{Deserialize, Serialize};

/// The marginal distributions of one contacts table.
#[derive(Debug, Default)]
pub struct ContactStats {
    rows: u64,
    null_names: u64,
    first_names: HashMap<String, u64>,
    last_names: HashMap<String, u64>,
    null_lists: u64,
    /// Non-NULL lists by length.
    lengths: HashMap<usize, u64>,
    phones: u64,
    null_numbers: u64,
    null_types: u64,
    both_null: u64,
    types: HashMap<String, u64>,
    numbers: HashSet<String>,
    repeated_numbers: u64,
}

impl ContactStats {
    /// Counts the rows of `batch` (the contacts schema, `phone_type` plain or dictionary).
    pub fn add(&mut self, batch: &RecordBatch) -> Result<()> {
        let names = batch
            .column_by_name("name")
            .context("no name column")?
            .as_string::<i32>();
        self.rows += batch.num_rows() as u64;
        for name in names.iter() {
            let Some(name) = name else {
                self.null_names += 1;
                continue;
            };
            let (first, last) = name.split_once(' ').unwrap_or((name, ""));
            *self.first_names.entry(first.to_string()).or_default() += 1;
            *self.last_names.entry(last.to_string()).or_default() += 1;
        }
        let lists = batch
            .column_by_name("phones")
            .context("no phones column")?
            .as_list::<i32>();
        for i in 0..lists.len() {
            if lists.is_null(i) {
                self.null_lists += 1;
            } else {
                *self
                    .lengths
                    .entry(lists.value_length(i) as usize)
                    .or_default() += 1;
            }
        }
        let phones = lists.values().as_struct();
        let numbers = phones.column(0).as_string::<i32>();
        let types = strings(phones.column(1).as_ref())?;
        for (number, kind) in numbers.iter().zip(types.iter()) {
            self.phones += 1;
            self.null_numbers += u64::from(number.is_none());
            self.null_types += u64::from(kind.is_none());
            self.both_null += u64::from(number.is_none() && kind.is_none());
            if let Some(kind) = kind {
                *self.types.entry(kind.to_string()).or_default() += 1;
            }
            if let Some(number) = number {
                if !self.numbers.insert(number.to_string()) {
                    self.repeated_numbers += 1;
                }
            }
        }
        Ok(())
    }
}

/// A `phone_type` column as plain strings.
fn strings(column: &dyn Array) -> Result<StringArray> {
    Ok(match column.data_type() {
        DataType::Dictionary(..) => {
            let dictionary = column.as_any_dictionary();
            let values = dictionary.values().as_string::<i32>();
            let keys = dictionary.normalized_keys();
            (0..column.len())
                .map(|i| column.is_valid(i).then(|| values.value(keys[i])))
                .collect()
        }
        _ => column.as_string::<i32>().clone(),
    })
}

/// One compared figure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison {
    /// What is compared.
    pub metric: String,
    /// The hand-written generator's value.
    pub generator: f64,
    /// The contacts preset's value.
    pub spec: f64,
    /// The hand-written generator's value for another seed: how far two samples of the same
    /// distributions fall apart.
    pub other_seed: f64,
}

fn share(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// Total variation distance between two count distributions: half the sum of the absolute
/// differences of their shares, 0 when identical, 1 when disjoint.
fn total_variation<K: std::hash::Hash + Eq>(a: &HashMap<K, u64>, b: &HashMap<K, u64>) -> f64 {
    let (total_a, total_b) = (
        a.values().sum::<u64>().max(1) as f64,
        b.values().sum::<u64>().max(1) as f64,
    );
    let keys: HashSet<&K> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .map(|k| {
            let pa = *a.get(k).unwrap_or(&0) as f64 / total_a;
            let pb = *b.get(k).unwrap_or(&0) as f64 / total_b;
            (pa - pb).abs()
        })
        .sum::<f64>()
        / 2.0
}

/// The share (%) of the `top` most frequent values.
fn top_share(counts: &HashMap<String, u64>, top: usize) -> f64 {
    let mut values: Vec<u64> = counts.values().copied().collect();
    values.sort_unstable_by(|a, b| b.cmp(a));
    share(values.iter().take(top).sum(), values.iter().sum())
}

/// A distance between two tables' distributions of one figure.
type Distance = fn(&ContactStats, &ContactStats) -> f64;

/// Every figure of `generator` beside the same of `spec` and of `other_seed` (the generator
/// again, another seed); distances are from `generator`'s distribution (0 in its own column).
pub fn compare(
    generator: &ContactStats,
    spec: &ContactStats,
    other_seed: &ContactStats,
) -> Vec<Comparison> {
    let mut rows = Vec::new();
    let mut pair = |metric: &str, of: &dyn Fn(&ContactStats) -> f64| {
        rows.push(Comparison {
            metric: metric.to_string(),
            generator: of(generator),
            spec: of(spec),
            other_seed: of(other_seed),
        });
    };
    pair("rows", &|s| s.rows as f64);
    pair("NULL names %", &|s| share(s.null_names, s.rows));
    pair("distinct first names", &|s| s.first_names.len() as f64);
    pair("top-1 first name %", &|s| top_share(&s.first_names, 1));
    pair("top-10 first names %", &|s| top_share(&s.first_names, 10));
    pair("top-100 last names %", &|s| top_share(&s.last_names, 100));
    pair("NULL phone lists %", &|s| share(s.null_lists, s.rows));
    for length in 1..=5 {
        pair(&format!("lists of {length} phone(s) %"), &|s| {
            share(*s.lengths.get(&length).unwrap_or(&0), s.rows)
        });
    }
    pair("phones per row", &|s| {
        s.phones as f64 / s.rows.max(1) as f64
    });
    pair("NULL numbers %", &|s| share(s.null_numbers, s.phones));
    pair("NULL phone types %", &|s| share(s.null_types, s.phones));
    pair("both NULL %", &|s| share(s.both_null, s.phones));
    for kind in ["Mobile", "Work", "Home"] {
        pair(&format!("{kind} % of typed phones"), &|s| {
            share(
                *s.types.get(kind).unwrap_or(&0),
                s.types.values().sum::<u64>(),
            )
        });
    }
    pair("repeated numbers", &|s| s.repeated_numbers as f64);
    let distances: [(&str, Distance); 4] = [
        ("TVD first names", |a, b| {
            total_variation(&a.first_names, &b.first_names)
        }),
        ("TVD last names", |a, b| {
            total_variation(&a.last_names, &b.last_names)
        }),
        ("TVD list lengths", |a, b| {
            total_variation(&a.lengths, &b.lengths)
        }),
        ("TVD phone types", |a, b| {
            total_variation(&a.types, &b.types)
        }),
    ];
    for (metric, distance) in distances {
        rows.push(Comparison {
            metric: metric.to_string(),
            generator: 0.0,
            spec: distance(generator, spec),
            other_seed: distance(generator, other_seed),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_variation_is_zero_for_equal_shares_and_one_for_disjoint() {
        let a = HashMap::from([("x", 2u64), ("y", 2)]);
        let b = HashMap::from([("x", 5u64), ("y", 5)]);
        let c = HashMap::from([("z", 1u64)]);
        assert_eq!(total_variation(&a, &b), 0.0);
        assert_eq!(total_variation(&a, &c), 1.0);
        let d = HashMap::from([("x", 3u64), ("y", 1)]);
        assert!((total_variation(&a, &d) - 0.25).abs() < 1e-12);
    }
}
