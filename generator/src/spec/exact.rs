//! Numbers as a spec writes them, kept exactly: a bound near 2^64 of a UInt64 column, a 64-bit
//! key above 2^53 or a decimal's bound reaches the column's representation without passing
//! through a float, which would round them.

use std::cmp::Ordering;
use std::fmt;

/// A finite number as a spec gives it (`-12`, `0.001`, `1e6`), exactly, with the text it was
/// written as.
#[derive(Debug, Clone)]
pub struct Number {
    /// The text as written, for messages.
    text: String,
    negative: bool,
    /// The decimal digits, without leading or trailing zeros (none for zero).
    digits: Vec<u8>,
    /// The value is `digits * 10^exponent`.
    exponent: i64,
}

/// Why a number is not a whole number of a column's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NotWhole {
    /// It has digits below the unit.
    Fraction,
    /// It is beyond what 128 bits hold.
    TooLarge,
}

/// Which whole number a number with digits below the unit becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rounding {
    /// None: it must be whole.
    Exact,
    /// The next whole number up (a range's lower end).
    Up,
    /// The next whole number down (a range's upper end).
    Down,
}

/// Exponents beyond this make any non-zero number too large or too small for a column, and
/// keep the arithmetic far from overflowing.
const EXPONENT_LIMIT: i64 = 1 << 40;

impl Number {
    /// Reads `text`: an optional sign, digits with an optional fraction, and an optional
    /// exponent (`-1.5e3`); `None` for anything else, such as `NaN` or `inf`.
    pub fn parse(text: &str) -> Option<Self> {
        let trimmed = text.trim();
        let (negative, unsigned) = match trimmed.as_bytes().first()? {
            b'-' => (true, &trimmed[1..]),
            b'+' => (false, &trimmed[1..]),
            _ => (false, trimmed),
        };
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], parse_exponent(&unsigned[at + 1..])?),
            None => (unsigned, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
            return None;
        }
        let digits: Vec<u8> = whole
            .bytes()
            .chain(fraction.bytes())
            .map(|b| b - b'0')
            .collect();
        let exponent = exponent - fraction.len() as i64;
        Some(Self::from_digits(
            trimmed.to_string(),
            negative,
            digits,
            exponent,
        ))
    }

    /// The number of `digits * 10^exponent`, normalised.
    fn from_digits(text: String, negative: bool, mut digits: Vec<u8>, exponent: i64) -> Self {
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..leading);
        let trailing = digits.iter().rev().take_while(|&&d| d == 0).count();
        digits.truncate(digits.len() - trailing);
        Self {
            text,
            negative: negative && !digits.is_empty(),
            exponent: if digits.is_empty() {
                0
            } else {
                exponent + trailing as i64
            },
            digits,
        }
    }

    /// The nearest `f64` (infinite beyond its range).
    pub fn to_f64(&self) -> f64 {
        self.text.parse().unwrap_or(f64::NAN)
    }

    /// The whole number `self * 10^scale`, rounded as `rounding` says.
    pub(super) fn to_units(&self, scale: i32, rounding: Rounding) -> Result<i128, NotWhole> {
        let (magnitude, fraction) = self.magnitude_at(scale)?;
        let up = match (rounding, fraction) {
            (_, false) => false,
            (Rounding::Exact, true) => return Err(NotWhole::Fraction),
            (Rounding::Up, true) => !self.negative,
            (Rounding::Down, true) => self.negative,
        };
        let magnitude = magnitude
            .checked_add(i128::from(up))
            .ok_or(NotWhole::TooLarge)?;
        Ok(if self.negative { -magnitude } else { magnitude })
    }

    /// The whole part of `|self| * 10^scale`, and whether digits are left below it.
    fn magnitude_at(&self, scale: i32) -> Result<(i128, bool), NotWhole> {
        let shift = self.exponent + i64::from(scale);
        // Digits below the unit: the last `-shift` ones (the last digit is never 0).
        let kept = if shift >= 0 {
            self.digits.len()
        } else {
            self.digits
                .len()
                .saturating_sub(shift.unsigned_abs() as usize)
        };
        let mut magnitude: i128 = 0;
        for &digit in &self.digits[..kept] {
            magnitude = magnitude
                .checked_mul(10)
                .and_then(|m| m.checked_add(i128::from(digit)))
                .ok_or(NotWhole::TooLarge)?;
        }
        if shift > 0 && magnitude != 0 {
            let power = u32::try_from(shift).map_err(|_| NotWhole::TooLarge)?;
            magnitude = 10i128
                .checked_pow(power)
                .and_then(|p| magnitude.checked_mul(p))
                .ok_or(NotWhole::TooLarge)?;
        }
        Ok((magnitude, kept < self.digits.len()))
    }

    /// Compares the sizes `|self|` and `|other|`.
    fn cmp_magnitude(&self, other: &Self) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        // The power of ten of the leading digit decides, then the digits from the left.
        let lead = |n: &Self| n.exponent + n.digits.len() as i64;
        lead(self)
            .cmp(&lead(other))
            .then_with(|| self.digits.cmp(&other.digits))
    }
}

/// An exponent's digits, with an optional sign, held within [`EXPONENT_LIMIT`].
fn parse_exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = digits.bytes().fold(0i64, |v, b| {
        (v * 10 + i64::from(b - b'0')).min(EXPONENT_LIMIT)
    });
    Some(if negative { -value } else { value })
}

/// How many significant digits the shortest decimal form of a JSON number has: more than 15,
/// and the literal a JSON parser read into an `f64` may have lost digits.
pub(super) fn significant_digits(shortest: &str) -> usize {
    let mantissa = shortest.split(['e', 'E']).next().unwrap_or_default();
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

/// The most significant digits an `f64` keeps for any decimal: a JSON number with more may not
/// be the number written.
pub(super) const EXACT_FLOAT_DIGITS: usize = 15;

/// Why a JSON number with more than [`EXACT_FLOAT_DIGITS`] digits is refused where it is used
/// exactly, and the fix.
pub(super) const ROUNDED_JSON_NUMBER: &str = "a JSON number beyond 64-bit integers keeps only 15 significant digits for sure: write it as a string (in quotes) to keep every digit";

impl fmt::Display for Number {
    /// As written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for Number {
    /// Equal values, however written (`1.0` = `1`).
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Number {}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    /// By value.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl From<i64> for Number {
    fn from(value: i64) -> Self {
        Self::parse(&value.to_string()).expect("an integer's text is a number")
    }
}

impl From<u64> for Number {
    fn from(value: u64) -> Self {
        Self::parse(&value.to_string()).expect("an integer's text is a number")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Number {
        Number::parse(text).unwrap()
    }

    #[test]
    fn integers_of_any_size_stay_exact() {
        assert_eq!(
            n("18446744073709551615").to_units(0, Rounding::Exact),
            Ok(u64::MAX.into())
        );
        assert_eq!(
            n("9007199254740993").to_units(0, Rounding::Exact),
            Ok(9_007_199_254_740_993)
        );
        assert_eq!(
            n("-170141183460469231731687303715884105728").to_units(0, Rounding::Exact),
            Err(NotWhole::TooLarge)
        );
        assert_eq!(n("1e30").to_units(0, Rounding::Exact), Ok(10i128.pow(30)));
        assert_eq!(
            n("1e99999999999").to_units(0, Rounding::Exact),
            Err(NotWhole::TooLarge)
        );
        assert_eq!(n("1e-99999999999").to_units(0, Rounding::Down), Ok(0));
    }

    #[test]
    fn fractions_round_only_as_asked() {
        assert_eq!(
            n("0.001").to_units(2, Rounding::Exact),
            Err(NotWhole::Fraction)
        );
        assert_eq!(n("0.001").to_units(2, Rounding::Up), Ok(1));
        assert_eq!(n("0.009").to_units(2, Rounding::Down), Ok(0));
        assert_eq!(n("-0.001").to_units(2, Rounding::Up), Ok(0));
        assert_eq!(n("-0.001").to_units(2, Rounding::Down), Ok(-1));
        assert_eq!(n("99.5").to_units(2, Rounding::Exact), Ok(9_950));
        assert_eq!(n("1.50").to_units(1, Rounding::Exact), Ok(15));
        assert_eq!(n("1200").to_units(-2, Rounding::Exact), Ok(12));
    }

    #[test]
    fn compares_by_value_and_shows_the_text() {
        assert!(n("1.0") == n("1"));
        assert!(n("-0") == n("0"));
        assert!(n("0.009") < n("0.01"));
        assert!(n("-5") < n("-4.5"));
        assert!(n("1e3") > n("999.999"));
        assert!(n("18446744073709551614") < n("18446744073709551615"));
        assert_eq!(n(" 1e300 ").to_string(), "1e300");
        for bad in ["", "-", "1.2.3", "e5", "1e", "NaN", "inf", "0x10", "1_000"] {
            assert!(Number::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(significant_digits("1.2345678901234568e29"), 17);
        assert_eq!(significant_digits("0.001"), 1);
        assert_eq!(significant_digits("100"), 1);
    }
}
