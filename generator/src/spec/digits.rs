//! Numbers written as text straight into a column's bytes, as `format!` would write them but
//! without the formatting machinery: sequential strings are mostly digits, and going through
//! `core::fmt` for each one was about an eighth of generating the contacts spec.

use super::words::append_cut;

/// The decimal digits of 0 to 99, two by two: a number is written two digits per division.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The most characters a number and its zero padding take in [`push_long`]'s buffer: the 39
/// digits of the longest i128 and one more, so that padding to the widths of most columns is
/// written with the digits in one copy.
const BUFFER_DIGITS: usize = 40;

/// The most characters of a u64 (20 digits), and the widest padding written in place.
const SHORT: usize = 20;

/// Appends `number` in decimal, zero-padded to `width` characters after its sign, as
/// `format!("{number:0width$}")` writes it. Inlined into the loops that write a column's
/// values: as a call, its register saves and restores cost a sixth of the number's writing.
#[inline(always)]
pub(super) fn push_decimal(out: &mut Vec<u8>, number: i128, width: usize) {
    if number < 0 {
        out.push(b'-');
    }
    let width = width.saturating_sub(usize::from(number < 0));
    let magnitude = number.unsigned_abs();
    match u64::try_from(magnitude) {
        Ok(short) if width <= SHORT => push_short(out, short, width),
        _ => push_long(out, magnitude, width),
    }
}

/// [`push_decimal`] for a u64 and a width of at most [`SHORT`]: zeros laid where the value goes,
/// then the digits written over them from the end, two per division, straight into `out` (no
/// buffer to fill and copy, which cost as much as the digits).
#[inline(always)]
fn push_short(out: &mut Vec<u8>, mut number: u64, width: usize) {
    // A sequence's numbers mostly fit its width: then the length is the width, without
    // counting the digits (a logarithm cost a quarter of the writing).
    let len = match POWERS_OF_TEN.get(width) {
        Some(&limit) if width > 0 && number < limit => width,
        _ => width.max(number.checked_ilog10().map_or(1, |log| log as usize + 1)),
    };
    let start = out.len();
    append_cut(out, &[b'0'; SHORT], len);
    let digits = &mut out[start..];
    let mut at = len;
    while number >= 100 {
        let pair = (number % 100) as usize * 2;
        number /= 100;
        at -= 2;
        digits[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    match number {
        10.. => {
            let pair = number as usize * 2;
            digits[at - 2..at].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        _ => digits[at - 1] = b'0' + number as u8,
    }
}

/// 10^k for every k whose power fits a u64: the numbers below 10^width fill the width.
const POWERS_OF_TEN: [u64; 20] = {
    let mut powers = [1; 20];
    let mut k = 1;
    while k < powers.len() {
        powers[k] = powers[k - 1] * 10;
        k += 1;
    }
    powers
};

/// [`push_decimal`] for numbers past u64 or widths past [`SHORT`]: the digits written into a
/// buffer of zeros, then copied.
#[cold]
#[inline(never)]
fn push_long(out: &mut Vec<u8>, magnitude: u128, width: usize) {
    // Zeros already, so that the padding is in place when the digits are written.
    let mut digits = [b'0'; BUFFER_DIGITS];
    let mut at = digits.len();
    let mut rest = magnitude;
    // 128-bit division, a library call, only while the value needs it.
    while rest > 0 {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    // The number 0 has one digit.
    let written = (digits.len() - at).max(1);
    let padded = width.max(written);
    if padded > BUFFER_DIGITS {
        out.extend(std::iter::repeat_n(b'0', padded - BUFFER_DIGITS));
    }
    out.extend_from_slice(&digits[BUFFER_DIGITS - padded.min(BUFFER_DIGITS)..]);
}

/// Appends `number` as 16 lowercase hexadecimal digits, as `format!("{number:016x}")` writes
/// it.
pub(super) fn push_hex(out: &mut Vec<u8>, number: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digits: [u8; 16] = std::array::from_fn(|i| HEX[((number >> (60 - 4 * i)) & 0xf) as usize]);
    out.extend_from_slice(&digits);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn decimal(number: i128, width: usize) -> String {
        let mut out = Vec::new();
        push_decimal(&mut out, number, width);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_extremes_are_format_s() {
        for number in [
            0,
            1,
            -1,
            9,
            10,
            i128::from(u64::MAX),
            -i128::from(u64::MAX),
            i128::MAX,
            i128::MIN,
        ] {
            for width in [0, 1, 5, 10, 38, 39, 40, 41, 45] {
                assert_eq!(decimal(number, width), format!("{number:0width$}"));
            }
        }
        let mut out = Vec::new();
        push_hex(&mut out, u64::MAX);
        push_hex(&mut out, 0x0123_4567_89ab_cdef);
        assert_eq!(out, b"ffffffffffffffff0123456789abcdef");
    }

    proptest! {
        /// Any number at any width, and any hexadecimal, as `format!` writes them.
        #[test]
        fn numbers_are_written_as_format_writes_them(
            number in prop_oneof![
                any::<i128>(),
                any::<i64>().prop_map(i128::from),
                // Every count of digits alike: short numbers as often as long ones.
                (0u32..=20, any::<u64>(), any::<bool>()).prop_map(|(count, bits, negative)| {
                    let number = i128::from(bits % 10u64.saturating_pow(count).max(1));
                    if negative { -number } else { number }
                }),
            ],
            width in 0usize..45,
            hex in any::<u64>(),
        ) {
            prop_assert_eq!(decimal(number, width), format!("{number:0width$}"));
            let mut out = Vec::new();
            push_hex(&mut out, hex);
            prop_assert_eq!(String::from_utf8(out).unwrap(), format!("{hex:016x}"));
        }
    }
}
