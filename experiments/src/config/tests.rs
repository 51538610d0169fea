//! Unit tests of run resolution: defaults from the catalog, explicit values, allocators.

use super::*;

#[test]
fn experiment_defaults_follow_the_catalog() {
    let at = |experiment| {
        let request = RunRequest {
            experiment,
            ..RunRequest::default()
        };
        PipelineConfig::resolve(&request, 8).unwrap()
    };
    assert_eq!(
        (at(0).writers, at(0).batch_size, at(0).producers),
        (1, 1024, 8)
    );
    assert_eq!(at(5).writers, 2);
    assert_eq!(at(7).writers, 4);
    assert_eq!(at(8).batch_size, 4096);
    assert_eq!((at(17).writers, at(17).pool_threads), (1, 8));
    assert_eq!(at(19).batch_size, 16_384);
}

#[test]
fn explicit_values_win_and_zero_is_rejected() {
    let request = RunRequest {
        writers: Some(3),
        batch_size: Some(10),
        ..RunRequest::default()
    };
    let config = PipelineConfig::resolve(&request, 2).unwrap();
    assert_eq!((config.writers, config.batch_size), (3, 10));
    for bad in [
        RunRequest {
            rows: 0,
            ..RunRequest::default()
        },
        RunRequest {
            producers: Some(0),
            ..RunRequest::default()
        },
        RunRequest {
            writers: Some(0),
            ..RunRequest::default()
        },
        RunRequest {
            batch_size: Some(0),
            ..RunRequest::default()
        },
    ] {
        let err = PipelineConfig::resolve(&bad, 2).unwrap_err().to_string();
        assert!(err.contains("must be at least 1"), "{err}");
    }
}

#[test]
fn an_enabled_allocator_replaces_the_experiment_s_and_two_are_refused() {
    let allocator = |experiment, enable: &[Optimization]| {
        let request = RunRequest {
            experiment,
            enable: enable.to_vec(),
            ..RunRequest::default()
        };
        PipelineConfig::resolve(&request, 2).map(|c| c.allocator())
    };
    use Optimization::{Jemalloc, Mimalloc};
    assert_eq!(allocator(16, &[]).unwrap(), Allocator::Mimalloc);
    assert_eq!(allocator(16, &[Jemalloc]).unwrap(), Allocator::Jemalloc);
    assert_eq!(allocator(23, &[Mimalloc]).unwrap(), Allocator::Mimalloc);
    assert_eq!(
        allocator(0, &[Mimalloc, Mimalloc]).unwrap(),
        Allocator::Mimalloc
    );
    let err = allocator(0, &[Jemalloc, Mimalloc]).unwrap_err().to_string();
    assert!(err.starts_with("--enable jemalloc,mimalloc: "), "{err}");
}

#[test]
fn an_optimization_both_enabled_and_disabled_is_refused() {
    let request = RunRequest {
        enable: vec![Optimization::LargeBatches],
        disable: vec![Optimization::LargeBatches],
        ..RunRequest::default()
    };
    let err = PipelineConfig::resolve(&request, 2)
        .unwrap_err()
        .to_string();
    assert!(err.contains("both name large-batches"), "{err}");
}

#[test]
fn batches_cover_rows_exactly() {
    let request = RunRequest {
        rows: 10,
        batch_size: Some(4),
        ..RunRequest::default()
    };
    let config = PipelineConfig::resolve(&request, 2).unwrap();
    assert_eq!(config.batch_count(), 3);
    assert_eq!(config.batch_rows(2), 8..10);
    let sharded = RunRequest {
        rows: 10,
        batch_size: Some(4),
        part: 1,
        parts: 2,
        ..RunRequest::default()
    };
    let config = PipelineConfig::resolve(&sharded, 2).unwrap();
    assert_eq!(
        (
            config.batch_count(),
            config.batch_rows(0),
            config.batch_rows(1)
        ),
        (2, 5..9, 9..10)
    );
}
