//! Boolean leaves: true with a chance, or drawn from a vocabulary of `true` and `false`.

use arrow_schema::DataType;

use super::draw::{Draw, Slot, Stream};
use super::error::error;
use super::vocabulary::Picker;
use super::{Distribution, Params, SpecError, SpecPaths};

/// The values of a boolean column: from a vocabulary of `true`/`false`, or true with a chance.
#[derive(Debug, Clone)]
pub(super) enum Booleans {
    /// One of these entries.
    Vocabulary(Picker, Vec<bool>),
    /// True with this probability.
    Chance(f64),
}

impl Booleans {
    /// For `data_type` under `params`, or `None` when it is not the boolean type.
    pub fn new(
        data_type: &DataType,
        params: &Params,
        path: &str,
    ) -> Option<Result<Self, SpecError>> {
        (data_type == &DataType::Boolean).then(|| Self::from_params(params, path))
    }

    fn from_params(params: &Params, path: &str) -> Result<Self, SpecError> {
        if matches!(
            params.distribution,
            Distribution::Normal { .. } | Distribution::Sequential { .. }
        ) || params.unique
            || params.min.is_some()
            || params.max.is_some()
            || !params.word_lists.is_empty()
        {
            return Err(error(
                path,
                "booleans take true_probability, or values/cardinality with uniform, zipf or categorical",
            ));
        }
        if !params.draws_from_vocabulary() {
            return Ok(Self::Chance(params.true_probability));
        }
        let entries: Vec<bool> = if params.values.is_empty() {
            match params.cardinality {
                Some(n @ 1..=2) => [true, false][..n as usize].to_vec(),
                _ => return Err(error(path, "a boolean's cardinality is 1 or 2")),
            }
        } else {
            params
                .values
                .iter()
                .map(|v| match v.as_str() {
                    "true" => Ok(true),
                    "false" => Ok(false),
                    other => Err(error(
                        path,
                        format!("value \"{other}\" is not true or false"),
                    )),
                })
                .collect::<Result<_, _>>()?
        };
        Ok(Self::Vocabulary(
            Picker::new(params, entries.len()),
            entries,
        ))
    }

    /// The value of `slot`.
    #[inline]
    pub fn value(&self, stream: Stream, slot: Slot) -> bool {
        match self {
            Self::Vocabulary(picker, entries) => entries[picker.pick(stream, slot, Draw::Value)],
            Self::Chance(p) => stream.fraction(slot, Draw::Value) < *p,
        }
    }

    /// Draws vocabulary entries by the faster paths `paths` turns on: the same values.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        if let Self::Vocabulary(picker, _) = self {
            picker.set_paths(paths);
        }
    }

    /// The vocabulary's entries, when values are drawn from one.
    pub fn entries(&self) -> Option<&[bool]> {
        match self {
            Self::Vocabulary(_, entries) => Some(entries),
            Self::Chance(_) => None,
        }
    }

    /// What picks a value's entry by its value draw, when values are drawn from a vocabulary.
    pub fn picker(&self) -> Option<&Picker> {
        match self {
            Self::Vocabulary(picker, _) => Some(picker),
            Self::Chance(_) => None,
        }
    }
}
