//! Unit tests of the parent module.

use super::*;

#[test]
fn numbers_are_positions() {
    for (i, e) in CATALOG.iter().enumerate() {
        assert_eq!(e.number as usize, i);
    }
}

#[test]
fn every_optimization_is_added_exactly_once() {
    for &o in Optimization::ALL {
        let adders = CATALOG.iter().filter(|e| e.adds == Some(o)).count();
        assert_eq!(adders, 1, "{o}");
        assert_eq!(o.slug().parse::<Optimization>(), Ok(o));
    }
}

#[test]
fn unknown_names_are_rejected() {
    assert!("turbo"
        .parse::<Optimization>()
        .unwrap_err()
        .to_string()
        .contains("--list"));
}
