//! Standard normal values by the ziggurat method (Marsaglia and Tsang, 2000; 256 layers): most
//! values take one draw, a multiply and a compare, where Box-Muller took two draws, a `log`, a
//! `cos` and a `sqrt` for every value. The layers are computed once with the `libm` crate's
//! functions, whose arithmetic is the same on every machine, and so are the rare wedge and tail
//! draws: a seed gives the same values on any CPU (spec data version 2).

use std::sync::LazyLock;

use super::draw::{Draw, Slot, Stream};
use crate::rng::unit_fraction;

/// Where the tail starts: the right edge of the base layer of 256 equal-area layers.
const TAIL_START: f64 = 3.654_152_885_361_009;

/// The layers: `x[i]` is layer `i`'s right edge (`x[0]` the base layer's width as a rectangle of
/// the same area, `x[1]` the tail's start, `x[256]` zero), `f[i]` the density there.
struct Layers {
    x: [f64; 257],
    f: [f64; 257],
}

/// The unnormalised density, `exp(-x^2 / 2)`.
fn density(x: f64) -> f64 {
    libm::exp(-0.5 * x * x)
}

static LAYERS: LazyLock<Layers> = LazyLock::new(|| {
    // Each layer's area: the base layer's rectangle plus the tail beyond it.
    let area = TAIL_START * density(TAIL_START)
        + (std::f64::consts::PI / 2.0).sqrt() * libm::erfc(TAIL_START / std::f64::consts::SQRT_2);
    let mut x = [0.0; 257];
    x[0] = area / density(TAIL_START);
    x[1] = TAIL_START;
    for i in 1..255 {
        x[i + 1] = (-2.0 * libm::log(density(x[i]) + area / x[i])).sqrt();
    }
    // The top layer's edge is 0 (the recurrence, rounded, lands a hair past it).
    x[256] = 0.0;
    Layers {
        x,
        f: x.map(density),
    }
});

/// A standard normal value for `slot`: its value draw, then its second and extra draws for the
/// rare value that falls outside its layer's rectangle.
pub(super) fn standard_normal(stream: Stream, slot: Slot) -> f64 {
    let layers = &*LAYERS;
    let mut drawn = 0;
    let mut next = || {
        let draw = match drawn {
            0 => Draw::Value,
            1 => Draw::Second,
            n => Draw::Extra(n - 1),
        };
        drawn += 1;
        stream.bits(slot, draw)
    };
    loop {
        let bits = next();
        // The layer from the low 8 bits, the value from the top 53: no bit serves both.
        let layer = (bits & 0xff) as usize;
        let x = (2.0 * unit_fraction(bits) - 1.0) * layers.x[layer];
        if x.abs() < layers.x[layer + 1] {
            return x;
        }
        if layer == 0 {
            return tail(x.is_sign_negative(), &mut next);
        }
        // The wedge between the rectangle and the curve: accepted under the density.
        let height =
            layers.f[layer] + (layers.f[layer + 1] - layers.f[layer]) * unit_fraction(next());
        if height < density(x) {
            return x;
        }
    }
}

/// A value beyond [`TAIL_START`] (Marsaglia's tail method), negative if `negative`.
fn tail(negative: bool, next: &mut impl FnMut() -> u64) -> f64 {
    loop {
        // Uniforms in (0, 1], so that their logarithms are finite.
        let x = libm::log(1.0 - unit_fraction(next())) / TAIL_START;
        let y = libm::log(1.0 - unit_fraction(next()));
        if -2.0 * y >= x * x {
            return if negative {
                x - TAIL_START
            } else {
                TAIL_START - x
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard normal distribution function.
    fn cdf(x: f64) -> f64 {
        0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
    }

    #[test]
    fn the_layers_close_at_zero_and_decrease() {
        let layers = &*LAYERS;
        assert_eq!(
            (layers.x[1], layers.x[256], layers.f[256]),
            (TAIL_START, 0.0, 1.0)
        );
        assert!(layers.x.windows(2).all(|w| w[0] > w[1]), "edges decrease");
        // The recurrence closed the top layer: its edge before the fix-up was near 0.
        assert!(
            layers.x[255] < 0.22 && layers.x[255] > 0.2,
            "{}",
            layers.x[255]
        );
    }

    #[test]
    fn values_are_standard_normal() {
        let stream = Stream::new(42, 7);
        let n = 400_000;
        let mut values: Vec<f64> = (0..n)
            .map(|row| standard_normal(stream, Slot::row(row, false)))
            .collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.006, "mean {mean}");
        assert!((variance - 1.0).abs() < 0.01, "variance {variance}");
        // Kolmogorov-Smirnov against the normal CDF: 1.63 / sqrt(n) is its 1 % critical value.
        values.sort_by(f64::total_cmp);
        let distance = values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let f = cdf(v);
                (f - i as f64 / n as f64)
                    .abs()
                    .max((f - (i + 1) as f64 / n as f64).abs())
            })
            .fold(0.0, f64::max);
        assert!(
            distance < 1.63 / (n as f64).sqrt(),
            "KS distance {distance}"
        );
        // The tails beyond the base layer (both sides: 2.58e-4 of values) are drawn too.
        let beyond = values.iter().filter(|v| v.abs() > TAIL_START).count();
        let expected = 2.0 * (1.0 - cdf(TAIL_START)) * n as f64;
        assert!(
            (beyond as f64 - expected).abs() < 5.0 * expected.sqrt(),
            "{beyond} beyond the tail's start, {expected:.0} expected"
        );
    }

    #[test]
    fn a_slot_s_value_does_not_depend_on_anything_else() {
        let stream = Stream::new(1, 2);
        let once = standard_normal(stream.sharing_keys(true), Slot::row(99, true));
        assert_eq!(
            once.to_bits(),
            standard_normal(stream, Slot::row(99, false)).to_bits()
        );
        assert_ne!(
            once,
            standard_normal(Stream::new(1, 3).sharing_keys(true), Slot::row(99, true))
        );
    }
}
