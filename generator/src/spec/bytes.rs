//! String and binary leaves: a value is written as bytes into one buffer per batch, and the
//! column type (Utf8, LargeUtf8, views, Binary variants, FixedSizeBinary) is made from it.

use std::io::Write;

use arrow_schema::DataType;

use super::digits::{push_decimal, push_hex};
use super::draw::{
    random_bytes, random_words, Hashed, Lengths, Predrawn, Slot, Stream, ValueDraws,
};
use super::error::error;
use super::exact::Rounding;
use super::paths::SpecPaths;
use super::sources::StepSize;
use super::vocabulary::{word_draw, Picker};
use super::words::WordList;
use super::{Distribution, Params, SpecError};
use crate::vocab::{first_names, last_names};

/// At most this many words of a random value are drawn beforehand (`spec-wide-hashes`): 40
/// characters or 32 bytes, as long as most random values run; the words past them are hashed
/// where they are written, so that a batch's draws stay in the caches.
const PREDRAWN_WORDS: u64 = 4;

/// How a byte column's values come about.
#[derive(Debug, Clone)]
// An explicit tag, as `Picker` has: read at every value.
#[repr(u8)]
enum Source {
    /// One entry of each word list, joined by spaces (one list: the entry alone).
    Words(Vec<(Picker, WordList)>),
    /// Random characters (text) or bytes, of a drawn length.
    Random,
    /// `prefix` and the sequence's number, zero-padded.
    Sequential(Sequence),
    /// `prefix` and a scramble of the ordinal in hexadecimal: distinct across the dataset.
    Unique,
}

/// The numbers of sequential strings: `start + ordinal * step`, rounded down.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sequence {
    start: i128,
    size: StepSize,
    /// The step is negative.
    down: bool,
}

impl Sequence {
    /// The number of `ordinal`.
    #[inline]
    fn number(self, ordinal: u64) -> i128 {
        let offset = self.size.times(ordinal);
        match self.down {
            true => self.start.saturating_sub(offset),
            false => self.start.saturating_add(offset),
        }
    }
}

/// The values of a string or binary column.
#[derive(Debug, Clone)]
pub(super) struct Bytes {
    source: Source,
    lengths: Lengths,
    /// Characters (UTF-8 types) rather than arbitrary bytes.
    text: bool,
    /// FixedSizeBinary's width: values are cut or zero-padded to it.
    width: Option<usize>,
    /// The prefix of sequential and unique values, as a list of one entry: copied as one
    /// block of known size (`spec-word-moves`), where a `memcpy` call per value cost more.
    prefix: WordList,
    digits: usize,
    /// The faster ways of writing values that are on (the same bytes).
    paths: SpecPaths,
}

impl Bytes {
    /// For `data_type` under `params`, or `None` when it is not a string or binary type.
    pub fn new(
        data_type: &DataType,
        params: &Params,
        stream: Stream,
        path: &str,
    ) -> Option<Result<Self, SpecError>> {
        let (text, width) = kind(data_type)?;
        Some(Self::of_kind(text, width, params, stream, path))
    }

    /// The lengths of random values of `data_type` under `params`, or `None` when it is not a
    /// string or binary type.
    pub fn lengths(data_type: &DataType, params: &Params) -> Option<Lengths> {
        let (_, width) = kind(data_type)?;
        Some(lengths(width, params))
    }

    fn of_kind(
        text: bool,
        width: Option<usize>,
        params: &Params,
        stream: Stream,
        path: &str,
    ) -> Result<Self, SpecError> {
        let mut bytes = Self {
            source: Source::Random,
            lengths: lengths(width, params),
            text,
            width,
            prefix: WordList::new([params.prefix.as_bytes()]),
            digits: params.digits as usize,
            paths: SpecPaths::default(),
        };
        bytes.source = match params.distribution {
            Distribution::Normal { .. } => {
                return Err(error(
                    path,
                    "normal draws numbers: strings and binaries take uniform, zipf, categorical or sequential",
                ))
            }
            _ if params.true_probability != 0.5 => {
                return Err(error(path, "true_probability is for booleans"))
            }
            Distribution::Sequential { step } => Source::Sequential(Sequence {
                start: sequential_start(params, path)?,
                size: StepSize::of(sequential_step(step, path)?),
                down: step < 0.0,
            }),
            _ if params.unique => Source::Unique,
            _ if !params.word_lists.is_empty() => word_lists(params),
            _ if !params.values.is_empty() => Source::Words(vec![(
                Picker::new(params, params.values.len()),
                WordList::new(params.values.iter().map(String::as_bytes)),
            )]),
            _ => match params.cardinality {
                Some(count) => {
                    let entries = (0..count)
                        .map(|rank| {
                            let mut entry = Vec::new();
                            let slot = Slot::rank(rank);
                            bytes.random(&mut entry, &Hashed { stream, slot });
                            entry
                        })
                        .collect::<Vec<_>>();
                    let list = WordList::new(entries);
                    Source::Words(vec![(Picker::new(params, list.len()), list)])
                }
                None => Source::Random,
            },
        };
        Ok(bytes)
    }

    /// Writes values by the faster paths `paths` turns on: the same values either way.
    pub fn set_paths(&mut self, paths: SpecPaths) {
        self.paths = paths;
        self.lengths.set_paths(paths);
        if let Source::Words(lists) = &mut self.source {
            lists
                .iter_mut()
                .for_each(|(picker, _)| picker.set_paths(paths));
        }
    }

    /// Appends random characters (text) or bytes of a drawn length to `out`; for a fixed
    /// width, no more than the width (the value is cut to it, and a byte's draw does not depend
    /// on the length: the same bytes as drawing them all). `draws` gives the value's draws.
    /// Not inlined: inlined into the value loops of every source, it slowed the others.
    #[inline(never)]
    fn random(&self, out: &mut Vec<u8>, draws: &impl ValueDraws) {
        let length = self.lengths.of_bits(draws.length());
        let length = self.width.map_or(length, |width| length.min(width as u64));
        random_bytes(out, draws, length, self.text);
    }

    /// Draws the values of `slots` read, computed in passes over the slots
    /// (`spec-wide-hashes`): each word's for vocabulary words, the length's and the first
    /// [`PREDRAWN_WORDS`] words' for random bytes; `None` without it, or for values made of
    /// none (sequential, unique).
    pub fn predrawn(&self, stream: Stream, slots: &[Slot]) -> Option<Predrawn> {
        if !self.paths.wide_hashes {
            return None;
        }
        match &self.source {
            Source::Words(lists) => Some(Predrawn::new(slots, stream, lists.len(), false, 0)),
            Source::Random => {
                let longest = self.width.map_or(self.lengths.max(), |w| w as u64);
                let words = random_words(longest, self.text).min(PREDRAWN_WORDS);
                Some(Predrawn::new(slots, stream, 0, true, words))
            }
            Source::Sequential(_) | Source::Unique => None,
        }
    }

    /// Appends the value of `slot` to `out`, made of `draws`: its draws hashed, or the same
    /// bits computed beforehand ([`Self::predrawn`]).
    /// Inlined into each of the loops that write a column's values (one per offset width).
    #[inline(always)]
    pub fn write(&self, out: &mut Vec<u8>, stream: Stream, slot: Slot, draws: &impl ValueDraws) {
        let start = out.len();
        match &self.source {
            Source::Words(lists) => {
                for (word, (picker, entries)) in lists.iter().enumerate() {
                    if word > 0 {
                        out.push(b' ');
                    }
                    let index = picker.pick_bits(draws.word(word));
                    entries.append(index, out, self.paths.word_moves);
                }
            }
            Source::Random => self.random(out, draws),
            Source::Sequential(sequence) => {
                self.prefix.append(0, out, self.paths.word_moves);
                let number = sequence.number(slot.ordinal);
                match self.paths.direct_digits {
                    true => push_decimal(out, number, self.digits),
                    // Writing into a Vec cannot fail.
                    false => {
                        let _ = write!(out, "{number:0width$}", width = self.digits);
                    }
                }
            }
            Source::Unique => {
                self.prefix.append(0, out, self.paths.word_moves);
                let scrambled = stream.scramble(slot.ordinal);
                match self.paths.direct_digits {
                    true => push_hex(out, scrambled),
                    false => {
                        let _ = write!(out, "{scrambled:016x}");
                    }
                }
            }
        }
        if let Some(width) = self.width {
            out.resize(start + width, 0);
        }
    }

    /// Appends vocabulary entry `index` as a value: what [`Self::write`] appends for a slot
    /// whose pick is `index`, when values come from one list ([`Self::picker`]).
    #[inline(always)]
    pub fn write_entry(&self, out: &mut Vec<u8>, index: usize) {
        let Some(entries) = self.vocabulary() else {
            unreachable!("only values of one vocabulary list are written by their picks")
        };
        let start = out.len();
        entries.append(index, out, self.paths.word_moves);
        if let Some(width) = self.width {
            out.resize(start + width, 0);
        }
    }

    /// Appends what a slot without a value holds: no bytes, or a fixed width's zeros.
    #[inline]
    pub fn write_nothing(&self, out: &mut Vec<u8>) {
        if let Some(width) = self.width {
            out.resize(out.len() + width, 0);
        }
    }

    /// About the mean length of a value, in bytes: what a batch's buffer is sized for, so it
    /// rarely grows (each growth copies the buffer and touches fresh pages).
    pub fn typical_len(&self) -> usize {
        if let Some(width) = self.width {
            return width;
        }
        let prefix = self.prefix.total_len();
        match &self.source {
            Source::Words(lists) => lists
                .iter()
                .map(|(_, entries)| entries.total_len() / entries.len().max(1) + 1)
                .sum(),
            Source::Random => self.lengths.mean().ceil() as usize,
            Source::Sequential(_) => prefix + self.digits,
            Source::Unique => prefix + 16,
        }
    }

    /// The longest value written, in bytes.
    pub fn max_len(&self) -> u64 {
        if let Some(width) = self.width {
            return width as u64;
        }
        let prefix = self.prefix.total_len() as u64;
        match &self.source {
            Source::Words(lists) => lists
                .iter()
                .map(|(_, entries)| {
                    entries
                        .iter()
                        .map(|e| e.len() as u64 + 1)
                        .max()
                        .unwrap_or(0)
                })
                .sum(),
            Source::Random => self.lengths.max(),
            Source::Sequential(_) => prefix + (self.digits as u64).max(40),
            Source::Unique => prefix + 16,
        }
    }

    /// The vocabulary entries, when values are drawn from one list of them (a dictionary can
    /// hold them).
    pub fn vocabulary(&self) -> Option<&WordList> {
        match &self.source {
            Source::Words(lists) if lists.len() == 1 => Some(&lists[0].1),
            _ => None,
        }
    }

    /// The picker and entries of values laid out in passes (`spec-laid-vocabulary`): values
    /// of one vocabulary list, not cut to a fixed width, with that path on; and whether short
    /// entries are copied as blocks (`spec-word-moves`).
    pub fn laid_vocabulary(&self) -> Option<(&Picker, &WordList, bool)> {
        if !self.paths.laid_vocabulary || self.width.is_some() {
            return None;
        }
        let (picker, entries) = self.picker().zip(self.vocabulary())?;
        Some((picker, entries, self.paths.word_moves))
    }

    /// What picks a value's entry by its value draw, when values are drawn from one list.
    pub fn picker(&self) -> Option<&Picker> {
        match &self.source {
            Source::Words(lists) if lists.len() == 1 => Some(&lists[0].0),
            _ => None,
        }
    }

    /// The number of `slot`'s value, when values are sequential.
    pub fn sequential_number(&self, slot: Slot) -> Option<i128> {
        match &self.source {
            Source::Sequential(sequence) => Some(sequence.number(slot.ordinal)),
            _ => None,
        }
    }

    /// An identifier of `slot`'s value among the vocabulary's, when values are drawn from one.
    pub fn vocabulary_index(&self, stream: Stream, slot: Slot) -> Option<usize> {
        match &self.source {
            Source::Words(lists) => Some(lists.iter().enumerate().fold(
                0,
                |id, (word, (picker, entries))| {
                    id * entries.len() + picker.pick(stream, slot, word_draw(word))
                },
            )),
            _ => None,
        }
    }
}

/// Whether values of `data_type` are text, and their fixed width, or `None` when it is not a
/// string or binary type.
fn kind(data_type: &DataType) -> Option<(bool, Option<usize>)> {
    Some(match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => (true, None),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => (false, None),
        DataType::FixedSizeBinary(width) => (false, Some(*width as usize)),
        _ => return None,
    })
}

/// The lengths of random values: `params`' lengths, 8 to 16 by default, or the fixed `width`.
fn lengths(width: Option<usize>, params: &Params) -> Lengths {
    Lengths::new(params, width.map_or((8, 16), |w| (w as u64, w as u64)))
}

/// The number sequential strings start from: `min`, a whole number, or 0.
fn sequential_start(params: &Params, path: &str) -> Result<i128, SpecError> {
    match &params.min {
        None => Ok(0),
        Some(x) => x.to_units(0, Rounding::Exact).map_err(|_| {
            error(
                path,
                format!(
                    "min {x}: sequential strings count from a whole number of at most 38 digits"
                ),
            )
        }),
    }
}

/// A sequential string's `step`, refused from 2^63 on: below it, its product with any 64-bit
/// row number fits the 128-bit numbers strings count in, so no number saturates.
fn sequential_step(step: f64, path: &str) -> Result<f64, SpecError> {
    match step.abs() < 2f64.powi(63) {
        true => Ok(step),
        false => Err(error(
            path,
            format!("step {step:e}: sequential strings count in steps below 2^63 (9223372036854775808): use a smaller step"),
        )),
    }
}

/// Values of one word from each of `params`' shipped word lists.
fn word_lists(params: &Params) -> Source {
    Source::Words(
        params
            .word_lists
            .iter()
            .map(|list| {
                let words = match list.as_str() {
                    "first_names" => first_names(),
                    _ => last_names(),
                };
                let words = WordList::new(words.iter().map(|w| w.as_bytes()));
                (Picker::new(params, words.len()), words)
            })
            .collect(),
    )
}
