//! `leaf-costs`: every leaf of every preset and matrix shape is found in Parquet's column order,
//! a leaf's flat values are its non-null values, and a small run maps every leaf and stage.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, StringBuilder, StructBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowSchemaConverter;
use parquet::file::properties::WriterProperties;
use shredlab_bench::leaf_costs::flat::{leaf_paths, leaf_values};
use shredlab_bench::leaf_costs::measure::measure;
use shredlab_bench::leaf_costs::readme::{markdown, LeafCostsResults};
use shredlab_bench::leaf_costs::{Stage, Workload};
use shredlab_bench::writer_bench::{spec_table, table, Shape};
use shredlab_generator::spec::{parse, SpecGenerator};

const SPECS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs");

/// A list of structs {a: Int32, b: Utf8} with NULLs at both levels.
fn nested() -> (Field, ArrayRef) {
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
    ]);
    let item = StructBuilder::new(
        fields.clone(),
        vec![
            Box::new(Int32Builder::new()),
            Box::new(StringBuilder::new()),
        ],
    );
    let mut list = ListBuilder::new(item);
    for (a, b) in [(Some(1), Some("x")), (None, Some("y")), (Some(3), None)] {
        let entry = list.values();
        entry
            .field_builder::<Int32Builder>(0)
            .unwrap()
            .append_option(a);
        entry
            .field_builder::<StringBuilder>(1)
            .unwrap()
            .append_option(b);
        entry.append(true);
    }
    list.append(true);
    list.append(false);
    let array: ArrayRef = Arc::new(list.finish());
    let field = Field::new("l", array.data_type().clone(), true);
    (field, array)
}

#[test]
fn a_leaf_path_reaches_its_non_null_values() {
    let (field, array) = nested();
    assert_eq!(
        leaf_paths(&field),
        vec![vec!["a".to_string()], vec!["b".to_string()]]
    );
    let a = leaf_values(&array, &["a"]).unwrap();
    assert_eq!(a.as_primitive::<Int32Type>().values().to_vec(), vec![1, 3]);
    let b = leaf_values(&array, &["b"]).unwrap();
    let b: Vec<_> = b.as_string::<i32>().iter().flatten().collect();
    assert_eq!(b, vec!["x", "y"]);
}

#[test]
fn values_under_a_null_parent_or_outside_a_slice_are_not_the_leaf_s() {
    // A struct {s: {v}} whose second row is NULL over a non-null child value.
    let inner = Fields::from(vec![Field::new("v", DataType::Int32, true)]);
    let values: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![1, 2, 3]));
    let s = arrow_array::StructArray::new(
        inner.clone(),
        vec![values],
        Some(arrow_buffer::NullBuffer::from(vec![true, false, true])),
    );
    let s: ArrayRef = Arc::new(s);
    let v = leaf_values(&s, &["v"]).unwrap();
    assert_eq!(v.as_primitive::<Int32Type>().values().to_vec(), vec![1, 3]);
    // A nullable fixed-size list of 2, its middle list NULL: its two items are not the leaf's.
    let items: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![1, 2, 3, 4, 5, 6]));
    let lists = arrow_array::FixedSizeListArray::new(
        Arc::new(Field::new("item", DataType::Int32, true)),
        2,
        items,
        Some(arrow_buffer::NullBuffer::from(vec![true, false, true])),
    );
    let lists: ArrayRef = Arc::new(lists);
    let items = leaf_values(&lists, &[]).unwrap();
    assert_eq!(
        items.as_primitive::<Int32Type>().values().to_vec(),
        vec![1, 2, 5, 6]
    );
    // A list sliced to its last row: only that row's items.
    let (_, list) = nested();
    let tail = list.slice(1, 1);
    assert_eq!(leaf_values(&tail, &["a"]).unwrap().len(), 0);
    let head = list.slice(0, 1);
    assert_eq!(leaf_values(&head, &["a"]).unwrap().len(), 2);
}

#[test]
fn every_preset_and_shape_has_as_many_leaves_as_parquet_columns() {
    let mut schemas = Vec::new();
    for entry in std::fs::read_dir(SPECS).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let generator = SpecGenerator::new(&parse(&text).unwrap(), 1).unwrap();
        schemas.push(generator.schema());
    }
    for shape in [Shape::Simple, Shape::Complex] {
        schemas.push(table(shape, 6, 10, 1).0);
    }
    for schema in schemas {
        let leaves: usize = schema.fields().iter().map(|f| leaf_paths(f).len()).sum();
        let parquet = ArrowSchemaConverter::new().convert(&schema).unwrap();
        assert_eq!(leaves, parquet.num_columns(), "{schema:?}");
    }
}

#[test]
fn a_small_run_maps_every_leaf_and_stage_and_renders() {
    let text = std::fs::read_to_string(format!("{SPECS}/otel-logs.json")).unwrap();
    let generator = SpecGenerator::new(&parse(&text).unwrap(), 1).unwrap();
    let (schema, batches) = spec_table(&generator, 3_000, 1_000).unwrap();
    let (field, array) = nested();
    let extra = Workload {
        name: "nested".into(),
        schema: Arc::new(Schema::new(vec![field])),
        batches: vec![
            RecordBatch::try_new(Arc::new(Schema::new(vec![nested().0])), vec![array]).unwrap(),
        ],
        properties: WriterProperties::builder()
            .set_max_row_group_row_count(Some(1))
            .build(),
    };
    let workloads = [
        Workload {
            name: "otel".into(),
            schema: schema.clone(),
            batches,
            properties: WriterProperties::default(),
        },
        extra,
    ];
    let maps: Vec<_> = workloads.iter().map(|w| measure(w, 2).unwrap()).collect();
    let parquet = ArrowSchemaConverter::new().convert(&schema).unwrap();
    assert_eq!(maps[0].leaves.len(), parquet.num_columns());
    assert_eq!(maps[0].rows, 3_000);
    for leaf in maps.iter().flat_map(|m| &m.leaves) {
        assert_eq!(leaf.samples.len(), Stage::ALL.len());
        assert!(
            leaf.samples.iter().all(|rounds| rounds.len() == 2),
            "{leaf:?}"
        );
        assert!(leaf.samples.iter().flatten().all(|s| *s > 0.0), "{leaf:?}");
    }
    // One batch of two rows, the second a NULL list: the leaf `a` holds two values.
    assert_eq!(maps[1].leaves[0].values, 2);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("costs.json"),
        serde_json::to_string(&maps).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("metadata.json"),
        r#"{"command": "make leaf-costs", "host": "test", "cores": 2, "commit": "abc", "dirty": false}"#,
    )
    .unwrap();
    let readme = markdown(&LeafCostsResults::load(dir.path()).unwrap());
    assert!(
        readme.contains("## otel") && readme.contains("## nested"),
        "{readme}"
    );
    assert!(
        readme.contains("`l.list.element.b`") || readme.contains("`l.list.item.b`"),
        "{readme}"
    );
}
