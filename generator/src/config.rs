//! The skew configuration: every knob that shapes the generated data, validated in one place.

use thiserror::Error;

/// Highest phone count a contact may have. Phone ids are `row * max_phones + k`, so this bounds
/// the stride of the id space.
pub const MAX_PHONES_LIMIT: u8 = 16;

/// Phone numbers are `+91-` followed by this many zero-padded digits.
pub const PHONE_ID_DIGITS: u32 = 10;

/// One past the largest phone id that fits in [`PHONE_ID_DIGITS`] digits.
pub const PHONE_ID_SPACE: u64 = 10u64.pow(PHONE_ID_DIGITS);

/// Shapes the generated contacts. The defaults are the study's weights, except that names are
/// drawn by Zipf rank from ranked vocabularies instead of uniformly.
#[derive(Debug, Clone, PartialEq)]
pub struct SkewConfig {
    /// Percentage of contacts whose name is NULL (0..=100).
    pub null_name_percent: u8,
    /// Zipf exponent `s` for first and last names: rank `k` has weight `1 / k^s` (0 is uniform).
    pub name_zipf_exponent: f64,
    /// Weights of phone counts 0 (a NULL list), 1, 2, and "3..=max_phones, uniform".
    pub phone_count_weights: [u32; 4],
    /// Largest phone count (3..=16).
    pub max_phones: u8,
    /// Weights of phone shapes: number and type, number only, type only, neither.
    pub phone_shape_weights: [u32; 4],
    /// Weights of phone types: Mobile, Work, Home.
    pub phone_type_weights: [u32; 3],
}

impl Default for SkewConfig {
    fn default() -> Self {
        Self {
            null_name_percent: 20,
            name_zipf_exponent: 1.0,
            phone_count_weights: [40, 45, 10, 5],
            max_phones: 5,
            phone_shape_weights: [90, 5, 4, 1],
            phone_type_weights: [55, 35, 10],
        }
    }
}

/// A skew configuration or row range that cannot be generated.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConfigError {
    /// The NULL-name percentage is above 100.
    #[error("null_name_percent is {0}, but it must be between 0 and 100")]
    NullNamePercent(u8),
    /// The Zipf exponent is negative, NaN or infinite.
    #[error("name_zipf_exponent is {0}, but it must be a finite number >= 0 (1.0 is classic Zipf, 0 is uniform)")]
    ZipfExponent(f64),
    /// Every weight of one distribution is zero.
    #[error("{0} weights are all zero: give at least one outcome a positive weight")]
    AllZeroWeights(&'static str),
    /// The phone-count limit is out of range.
    #[error("max_phones is {0}, but it must be between 3 and {MAX_PHONES_LIMIT}")]
    MaxPhones(u8),
    /// More rows were requested than the phone-id space can number uniquely.
    #[error("{rows} rows need phone ids up to {rows} x {max_phones}, beyond the {PHONE_ID_DIGITS}-digit id space: use at most {max_rows} rows")]
    RowsBeyondIdSpace {
        /// Rows requested.
        rows: u64,
        /// Phone-id stride per row.
        max_phones: u8,
        /// The largest row count that fits.
        max_rows: u64,
    },
}

impl SkewConfig {
    /// Checks every knob, returning the first problem found.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.null_name_percent > 100 {
            return Err(ConfigError::NullNamePercent(self.null_name_percent));
        }
        if !(self.name_zipf_exponent.is_finite() && self.name_zipf_exponent >= 0.0) {
            return Err(ConfigError::ZipfExponent(self.name_zipf_exponent));
        }
        if !(3..=MAX_PHONES_LIMIT).contains(&self.max_phones) {
            return Err(ConfigError::MaxPhones(self.max_phones));
        }
        let weight_sets: [(&'static str, &[u32]); 3] = [
            ("phone_count", &self.phone_count_weights),
            ("phone_shape", &self.phone_shape_weights),
            ("phone_type", &self.phone_type_weights),
        ];
        for (name, weights) in weight_sets {
            if weights.iter().all(|&w| w == 0) {
                return Err(ConfigError::AllZeroWeights(name));
            }
        }
        Ok(())
    }

    /// The largest number of rows whose phone ids stay unique within the id space.
    pub fn max_rows(&self) -> u64 {
        PHONE_ID_SPACE / u64::from(self.max_phones)
    }

    /// Checks that `rows` rows can be generated with unique phone ids.
    pub fn check_rows(&self, rows: u64) -> Result<(), ConfigError> {
        if rows > self.max_rows() {
            return Err(ConfigError::RowsBeyondIdSpace {
                rows,
                max_phones: self.max_phones,
                max_rows: self.max_rows(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(SkewConfig::default().validate(), Ok(()));
    }

    #[test]
    fn each_bad_knob_is_named() {
        let bad = |edit: fn(&mut SkewConfig)| {
            let mut config = SkewConfig::default();
            edit(&mut config);
            config.validate().unwrap_err().to_string()
        };
        assert!(bad(|c| c.null_name_percent = 101).contains("null_name_percent"));
        assert!(bad(|c| c.name_zipf_exponent = f64::NAN).contains("name_zipf_exponent"));
        assert!(bad(|c| c.name_zipf_exponent = -1.0).contains("name_zipf_exponent"));
        assert!(bad(|c| c.max_phones = 2).contains("max_phones"));
        assert!(bad(|c| c.phone_type_weights = [0; 3]).contains("phone_type"));
    }

    #[test]
    fn id_space_bounds_rows() {
        let config = SkewConfig::default();
        assert_eq!(config.max_rows(), 2_000_000_000);
        assert!(config.check_rows(2_000_000_000).is_ok());
        let err = config.check_rows(2_000_000_001).unwrap_err().to_string();
        assert!(err.contains("at most 2000000000 rows"), "{err}");
    }
}
