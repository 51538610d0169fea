//! Numbers written as text straight into a column's bytes, as `format!` would write them but
//! without the formatting machinery: sequential strings are mostly digits, and going through
//! `core::fmt` for each one was about an eighth of generating the contacts spec.

/// Appends `number` in decimal, zero-padded to `width` characters after its sign, as
/// `format!("{number:0width$}")` writes it.
pub(super) fn push_decimal(out: &mut Vec<u8>, number: i128, width: usize) {
    // The longest i128 has 39 digits.
    let mut digits = [0u8; 39];
    let mut at = digits.len();
    let magnitude = number.unsigned_abs();
    // 64-bit division where the value allows it: 128-bit division is a library call.
    match u64::try_from(magnitude) {
        Ok(mut rest) => loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        },
        Err(_) => {
            let mut rest = magnitude;
            while rest > 0 {
                at -= 1;
                digits[at] = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
        }
    }
    let sign = usize::from(number < 0);
    if sign == 1 {
        out.push(b'-');
    }
    let written = digits.len() - at;
    out.extend(std::iter::repeat_n(
        b'0',
        width.saturating_sub(written + sign),
    ));
    out.extend_from_slice(&digits[at..]);
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
            for width in [0, 1, 5, 10, 45] {
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
            number in prop_oneof![any::<i128>(), any::<i64>().prop_map(i128::from)],
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
