//! Row-addressable determinism, schema, id uniqueness, and fast path == baseline path.

use std::collections::HashSet;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use shredlab_generator::text::{
    DirectDigits, DirectName, FreshName, FreshNumber, ReusedNameBuffer, ReusedNumberBuffer,
};
use shredlab_generator::{
    contact_schema, contacts_to_batch, ContactBatchBuilder, ContactBuilder, ContactGenerator,
    ContactSampler, PerCallSampler, PhoneTypeEncoding, PhoneTypeKeys, PhoneTypeStrings,
    PrecomputedSampler, RawContactBuilder, SkewConfig,
};

fn fast() -> ContactGenerator<PrecomputedSampler> {
    ContactGenerator::new(
        7,
        PrecomputedSampler::try_new(SkewConfig::default()).unwrap(),
    )
}

fn slow() -> ContactGenerator<PerCallSampler> {
    ContactGenerator::new(7, PerCallSampler::try_new(SkewConfig::default()).unwrap())
}

#[test]
fn schema_matches_the_study() {
    let schema = contact_schema(PhoneTypeEncoding::Dictionary);
    assert_eq!(schema.field(0).name(), "name");
    assert_eq!(schema.field(0).data_type(), &DataType::Utf8);
    assert!(schema.field(0).is_nullable());
    let phones = schema.field(1);
    assert!(phones.is_nullable());
    let DataType::List(item) = phones.data_type() else {
        panic!("phones is not a list")
    };
    assert!(!item.is_nullable(), "list items are never null");
    let DataType::Struct(fields) = item.data_type() else {
        panic!("item is not a struct")
    };
    assert_eq!(fields[0].name(), "number");
    assert_eq!(fields[1].name(), "phone_type");
    assert_eq!(
        fields[1].data_type(),
        &DataType::Dictionary(Box::new(DataType::UInt8), Box::new(DataType::Utf8))
    );
    let plain = contact_schema(PhoneTypeEncoding::Utf8);
    let DataType::List(item) = plain.field(1).data_type() else {
        unreachable!()
    };
    let DataType::Struct(fields) = item.data_type() else {
        unreachable!()
    };
    assert_eq!(fields[1].data_type(), &DataType::Utf8);
}

#[test]
fn content_does_not_depend_on_batch_boundaries() {
    let generator = fast();
    let whole = generator.contacts(0..10_000);
    let mut pieces = Vec::new();
    let mut start = 0;
    for size in [1, 999, 4_096, 17, 4_887] {
        pieces.extend(generator.contacts(start..start + size));
        start += size;
    }
    assert_eq!(start, 10_000);
    assert_eq!(whole, pieces);
}

#[test]
fn seeds_change_the_data() {
    let other = ContactGenerator::new(
        8,
        PrecomputedSampler::try_new(SkewConfig::default()).unwrap(),
    );
    assert_ne!(fast().contacts(0..100), other.contacts(0..100));
}

#[test]
fn fast_path_equals_baseline_path_for_every_strategy() {
    let rows = 3_000..9_000;
    let baseline_dict = contacts_to_batch(
        &slow().contacts(rows.clone()),
        PhoneTypeEncoding::Dictionary,
    );
    let baseline_utf8 = contacts_to_batch(&slow().contacts(rows.clone()), PhoneTypeEncoding::Utf8);
    let generator = fast();
    let batches: [RecordBatch; 5] = [
        RawContactBuilder::default().build(&generator, rows.clone()),
        ContactBatchBuilder::<PhoneTypeKeys, DirectName, DirectDigits>::default()
            .build(&generator, rows.clone()),
        ContactBatchBuilder::<PhoneTypeKeys, ReusedNameBuffer, ReusedNumberBuffer>::default()
            .build(&generator, rows.clone()),
        ContactBatchBuilder::<PhoneTypeKeys, FreshName, FreshNumber>::default()
            .build(&generator, rows.clone()),
        contacts_to_batch(
            &generator.contacts(rows.clone()),
            PhoneTypeEncoding::Dictionary,
        ),
    ];
    for batch in &batches {
        assert_eq!(batch, &baseline_dict);
    }
    let plain = ContactBatchBuilder::<PhoneTypeStrings, DirectName, DirectDigits>::default()
        .build(&generator, rows);
    assert_eq!(plain, baseline_utf8);
}

#[test]
fn persistent_builder_restarts_cleanly_between_batches() {
    let generator = fast();
    let mut builder = ContactBatchBuilder::<PhoneTypeKeys, DirectName, DirectDigits>::default();
    let first = builder.build(&generator, 0..500);
    let second = builder.build(&generator, 500..1_000);
    let fresh = ContactBatchBuilder::<PhoneTypeKeys, DirectName, DirectDigits>::default()
        .build(&generator, 500..1_000);
    assert_eq!(first.num_rows(), 500);
    assert_eq!(second, fresh);
}

/// The builders' batches, the reference the raw vectors must match.
type Builders = ContactBatchBuilder<PhoneTypeKeys, DirectName, DirectDigits>;

#[test]
fn raw_vectors_equal_the_builders_for_any_batch_and_skew() {
    let skews = [
        SkewConfig::default(),
        // No NULL at all in names, lists, numbers or types: arrays without validity bits.
        SkewConfig {
            null_name_percent: 0,
            phone_count_weights: [0, 1, 1, 1],
            phone_shape_weights: [1, 0, 0, 0],
            ..SkewConfig::default()
        },
        // Nothing but NULLs.
        SkewConfig {
            null_name_percent: 100,
            phone_count_weights: [1, 0, 0, 0],
            ..SkewConfig::default()
        },
        // Many phones, every shape, uniform names.
        SkewConfig {
            name_zipf_exponent: 0.0,
            phone_count_weights: [1, 1, 1, 5],
            max_phones: 16,
            phone_shape_weights: [1, 1, 1, 1],
            ..SkewConfig::default()
        },
    ];
    for skew in skews {
        let generator = ContactGenerator::new(11, PrecomputedSampler::try_new(skew).unwrap());
        let mut raw = RawContactBuilder::default();
        // Batches that end inside, at and just past a 64-bit validity word, a long one and
        // an empty one.
        for rows in [
            0..1,
            1..64,
            64..128,
            128..193,
            193..5_000,
            5_000..5_001,
            9..9,
        ] {
            let batch = raw.build(&generator, rows.clone());
            let expected = Builders::default().build(&generator, rows.clone());
            assert_eq!(
                batch,
                expected,
                "{:?}, rows {rows:?}",
                generator.sampler().skew()
            );
            assert_eq!(layout(&batch), layout(&expected), "rows {rows:?}");
            // Every other batch goes back with its names still held elsewhere, so that only
            // some of its buffers can be taken back.
            let held = (rows.start % 2 == 1).then(|| batch.column(0).clone());
            raw.recycle(batch);
            drop(held);
        }
    }
}

/// Every buffer of a batch's arrays and their children, and their validity bits: equal layouts,
/// not only the equal values that `RecordBatch`'s `==` compares (an all-valid null buffer
/// equals none there, and a key under a NULL is not compared).
fn layout(batch: &RecordBatch) -> Vec<String> {
    fn of(array: &dyn Array) -> Vec<String> {
        let data = array.to_data();
        let mut parts = vec![
            format!(
                "{:?} len {} offset {}",
                data.data_type(),
                data.len(),
                data.offset()
            ),
            format!(
                "nulls {:?}",
                data.nulls().map(|n| n.iter().collect::<Vec<_>>())
            ),
        ];
        parts.extend(data.buffers().iter().map(|b| format!("{:?}", b.as_slice())));
        for child in data.child_data() {
            parts.extend(of(arrow_array::make_array(child.clone()).as_ref()));
        }
        parts
    }
    batch
        .columns()
        .iter()
        .flat_map(|c| of(c.as_ref()))
        .collect()
}

#[test]
fn phone_numbers_are_unique_and_well_formed() {
    let contacts = fast().contacts(0..50_000);
    let mut seen = HashSet::new();
    let mut phones = 0;
    for contact in &contacts {
        if let Some(list) = &contact.phones {
            assert!(
                !list.is_empty(),
                "a contact without phones must have a NULL list"
            );
            for number in list.iter().filter_map(|p| p.number.as_deref()) {
                assert_eq!(number.len(), 14);
                assert!(
                    number.starts_with("+91-") && number[4..].bytes().all(|b| b.is_ascii_digit())
                );
                assert!(seen.insert(number.to_string()), "duplicate number {number}");
            }
            phones += list.len();
        }
    }
    // 0.45*1 + 0.10*2 + 0.05*4 = 0.85 phones per contact on average.
    let mean = phones as f64 / contacts.len() as f64;
    assert!((0.83..0.87).contains(&mean), "mean phones {mean}");
}

#[test]
fn ids_at_the_top_of_the_id_space_still_have_ten_digits() {
    let skew = SkewConfig::default();
    let last_row = skew.max_rows() - 1;
    let rows = last_row - 200..last_row + 1;
    let batch = Builders::default().build(&fast(), rows.clone());
    assert_eq!(RawContactBuilder::default().build(&fast(), rows), batch);
    let numbers = batch
        .column(1)
        .as_list::<i32>()
        .values()
        .as_struct()
        .column(0)
        .as_string::<i32>()
        .clone();
    for number in numbers.iter().flatten() {
        assert_eq!(number.len(), 14);
        assert!(number.starts_with("+91-99999"), "{number}");
    }
    assert!(numbers.len() > numbers.null_count());
}

#[test]
fn recycled_buffers_build_the_same_batches() {
    let generator = fast();
    let mut recycling = ContactBatchBuilder::<PhoneTypeKeys, DirectName, DirectDigits>::default();
    let mut fresh = ContactBatchBuilder::<PhoneTypeKeys, DirectName, DirectDigits>::default();
    let mut previous = None;
    for start in (0..20_000).step_by(4_000) {
        if let Some(batch) = previous.take() {
            recycling.recycle(batch);
        }
        let batch = recycling.build(&generator, start..start + 4_000);
        assert_eq!(
            batch,
            fresh.build(&generator, start..start + 4_000),
            "rows from {start}"
        );
        previous = Some(batch);
    }
    let mut plain = ContactBatchBuilder::<PhoneTypeStrings, DirectName, DirectDigits>::default();
    let first = plain.build(&generator, 0..1_000);
    plain.recycle(first);
    assert_eq!(
        plain.build(&generator, 1_000..2_000),
        fresh_plain(&generator)
    );
}

fn fresh_plain(generator: &ContactGenerator<PrecomputedSampler>) -> RecordBatch {
    ContactBatchBuilder::<PhoneTypeStrings, DirectName, DirectDigits>::default()
        .build(generator, 1_000..2_000)
}
