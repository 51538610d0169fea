//! IEEE 754 total-order keys of floats' bits (`f32::total_cmp`'s order): the sort keys of
//! half floats, floats and doubles in their bounds, and whether each is NaN.

/// [`total_order_32`] for half floats.
pub(crate) fn total_order_16(bits: i16) -> i16 {
    bits ^ ((((bits >> 15) as u16) >> 1) as i16)
}

/// The IEEE 754 total-order key of a float's bits, as a signed integer (`f32::total_cmp`'s):
/// a negative value's magnitude bits flipped. Its own inverse.
pub(crate) fn total_order_32(bits: i32) -> i32 {
    bits ^ ((((bits >> 31) as u32) >> 1) as i32)
}

/// [`total_order_32`] for doubles.
pub(crate) fn total_order_64(bits: i64) -> i64 {
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// A half float's total-order key and whether it is NaN, from its little-endian bytes.
pub(crate) fn f16_key(value: [u8; 2]) -> (i64, bool) {
    let bits = i16::from_le_bytes(value);
    let nan = (bits as u16 & 0x7fff) > 0x7c00;
    (i64::from(total_order_16(bits)), nan)
}

/// [`f16_key`] for floats.
pub(crate) fn f32_key(value: [u8; 4]) -> (i64, bool) {
    let bits = i32::from_le_bytes(value);
    let nan = (bits as u32 & 0x7fff_ffff) > 0x7f80_0000;
    (i64::from(total_order_32(bits)), nan)
}

/// [`f16_key`] for doubles.
pub(crate) fn f64_key(value: [u8; 8]) -> (i64, bool) {
    let bits = i64::from_le_bytes(value);
    let nan = (bits as u64 & 0x7fff_ffff_ffff_ffff) > 0x7ff0_0000_0000_0000;
    (total_order_64(bits), nan)
}

#[cfg(test)]
mod tests {
    use arrow_array::types::Float16Type;
    use arrow_array::ArrowPrimitiveType;

    use super::f16_key;

    type F16 = <Float16Type as ArrowPrimitiveType>::Native;

    /// Every half float, sorted by its key, rises in `total_cmp`'s order, and the key says
    /// NaN exactly where the value is one.
    #[test]
    fn half_float_keys_are_total_order() {
        let mut every: Vec<u16> = (0..=u16::MAX).collect();
        every.sort_by_key(|bits| f16_key(bits.to_le_bytes()).0);
        for pair in every.windows(2) {
            let (low, high) = (F16::from_bits(pair[0]), F16::from_bits(pair[1]));
            assert!(low.total_cmp(&high).is_lt(), "{low} before {high}");
        }
        for bits in every {
            let nan = f16_key(bits.to_le_bytes()).1;
            assert_eq!(nan, F16::from_bits(bits).is_nan(), "{bits:#06x}");
        }
    }
}
