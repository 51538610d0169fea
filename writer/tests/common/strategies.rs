//! proptest strategies shared by the property tests: random nested schemas over every type
//! the writer supports, and random `WriterProperties`.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::{Compression, Encoding, Type as PhysicalType, ZstdLevel};
use parquet::file::metadata::{KeyValue, SortingColumn};
use parquet::file::properties::{
    BloomFilterPosition, DeltaBinaryPackedEncoderOptions, EnabledStatistics, WriterProperties,
    WriterVersion,
};
use parquet::schema::types::ColumnPath;
use proptest::prelude::*;

/// Every leaf type the writer supports.
pub fn leaf_type() -> impl Strategy<Value = DataType> {
    let unit = prop_oneof![
        Just(TimeUnit::Second),
        Just(TimeUnit::Millisecond),
        Just(TimeUnit::Microsecond),
        Just(TimeUnit::Nanosecond),
    ];
    let zone = prop_oneof![Just(None), Just(Some("UTC")), Just(Some("+05:30"))];
    prop_oneof![
        prop_oneof![
            Just(DataType::Int8),
            Just(DataType::Int16),
            Just(DataType::Int32),
            Just(DataType::Int64),
            Just(DataType::UInt8),
            Just(DataType::UInt16),
            Just(DataType::UInt32),
            Just(DataType::UInt64),
            Just(DataType::Float32),
            Just(DataType::Float64),
            Just(DataType::Boolean),
            Just(DataType::Date32),
            Just(DataType::Date64),
            Just(DataType::Float16),
            Just(DataType::Time32(TimeUnit::Second)),
            Just(DataType::Time32(TimeUnit::Millisecond)),
            Just(DataType::Time64(TimeUnit::Microsecond)),
            Just(DataType::Time64(TimeUnit::Nanosecond)),
        ],
        (1u8..=38, 0i8..=9).prop_map(|(p, s)| DataType::Decimal128(p, s.min(p as i8))),
        (1u8..=76, 0i8..=9).prop_map(|(p, s)| DataType::Decimal256(p, s.min(p as i8))),
        (unit, zone).prop_map(|(u, z)| DataType::Timestamp(u, z.map(Into::into))),
        prop_oneof![
            Just(DataType::Utf8),
            Just(DataType::LargeUtf8),
            Just(DataType::Utf8View),
            Just(DataType::Binary),
            Just(DataType::LargeBinary),
            Just(DataType::BinaryView),
        ],
        (1i32..=16).prop_map(DataType::FixedSizeBinary),
        prop_oneof![Just(DataType::Int8), Just(DataType::Int32)]
            .prop_map(|k| DataType::Dictionary(Box::new(k), Box::new(DataType::Utf8))),
    ]
}

/// Leaves nested up to three levels in lists, large lists, fixed-size lists, structs and maps.
pub fn data_type() -> impl Strategy<Value = DataType> {
    leaf_type().prop_recursive(3, 12, 3, |inner| {
        let child = (inner.clone(), any::<bool>());
        prop_oneof![
            child
                .clone()
                .prop_map(|(t, n)| DataType::List(Arc::new(Field::new("item", t, n)))),
            child
                .clone()
                .prop_map(|(t, n)| DataType::LargeList(Arc::new(Field::new("item", t, n)))),
            (child.clone(), 1i32..4).prop_map(|((t, n), size)| DataType::FixedSizeList(
                Arc::new(Field::new("item", t, n)),
                size
            )),
            prop::collection::vec(child.clone(), 1..4).prop_map(|children| {
                DataType::Struct(
                    children
                        .into_iter()
                        .enumerate()
                        .map(|(i, (t, n))| Field::new(format!("f{i}"), t, n))
                        .collect(),
                )
            }),
            child.prop_map(|(t, n)| map_type(t, n)),
        ]
    })
}

fn map_type(value: DataType, nullable: bool) -> DataType {
    let entries = Fields::from(vec![
        Field::new("keys", DataType::Utf8, false),
        Field::new("values", value, nullable),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

pub fn schema() -> impl Strategy<Value = SchemaRef> {
    prop::collection::vec((data_type(), any::<bool>()), 1..4).prop_map(|columns| {
        let fields: Vec<_> = columns
            .into_iter()
            .enumerate()
            .map(|(i, (t, n))| Field::new(format!("c{i}"), t, n))
            .collect();
        Arc::new(Schema::new(fields))
    })
}

/// Bloom filters on every leaf: where parquet writes them, sized for `ndv` distinct values at
/// the false-positive rate `fpp`, and whether a chunk of dictionary pages only keeps its own.
#[derive(Debug, Clone, Copy)]
pub struct Bloom {
    pub position: BloomFilterPosition,
    pub ndv: u64,
    pub fpp: f64,
    pub dictionary_chunks: bool,
}

/// Random writer settings; `leaf` picks the column that gets column-level settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub version: WriterVersion,
    pub compression: Compression,
    pub dictionary: bool,
    pub dictionary_page_limit: usize,
    pub statistics: EnabledStatistics,
    pub truncate: Option<usize>,
    pub bloom: Option<Bloom>,
    pub offset_index_disabled: bool,
    pub data_page_limit: usize,
    pub page_rows: usize,
    pub write_batch: usize,
    pub row_group_rows: Option<usize>,
    pub row_group_bytes: Option<usize>,
    pub sorting: bool,
    pub metadata: bool,
    pub leaf: usize,
    pub leaf_dictionary: bool,
    pub leaf_encoding: u8,
    /// Data page v2 values stay compressed below this share of their page's size.
    pub v2_compression_threshold: f64,
    /// `DELTA_BINARY_PACKED` blocks: values per block and mini blocks per block, if not the
    /// default layout.
    pub delta_layout: Option<(usize, usize)>,
}

pub fn settings() -> impl Strategy<Value = Settings> {
    let compression = prop_oneof![
        Just(Compression::UNCOMPRESSED),
        Just(Compression::SNAPPY),
        Just(Compression::LZ4),
        Just(Compression::LZ4_RAW),
        (1i32..=3).prop_map(|l| Compression::ZSTD(ZstdLevel::try_new(l).unwrap())),
    ];
    let statistics = prop_oneof![
        Just(EnabledStatistics::None),
        Just(EnabledStatistics::Chunk),
        Just(EnabledStatistics::Page),
    ];
    // Filters written at the end stay in memory until the file closes, one per leaf and row
    // group: sized for 2^20 values (1 or 2 MiB each), 3,000 row groups of one row took 3 GB in
    // ArrowWriter alone. The large filters go with the position that writes them as it goes.
    let position_and_ndv = prop_oneof![
        (
            Just(BloomFilterPosition::AfterRowGroup),
            prop_oneof![Just(16u64), Just(1_000), Just(1 << 20)]
        ),
        (
            Just(BloomFilterPosition::End),
            prop_oneof![Just(16u64), Just(1_000)]
        ),
    ];
    let bloom = prop_oneof![
        Just(None),
        (
            position_and_ndv,
            prop_oneof![Just(0.01), Just(0.05), Just(0.3)],
            any::<bool>(),
        )
            .prop_map(|((position, ndv), fpp, dictionary_chunks)| Some(Bloom {
                position,
                ndv,
                fpp,
                dictionary_chunks,
            })),
    ];
    (
        (
            prop_oneof![
                Just(WriterVersion::PARQUET_1_0),
                Just(WriterVersion::PARQUET_2_0)
            ],
            compression,
            any::<bool>(),
            prop_oneof![Just(64usize), Just(1 << 20)],
            statistics,
            prop_oneof![Just(None), (1usize..16).prop_map(Some)],
            bloom,
            any::<bool>(),
        ),
        (
            // 12 bytes: many a string or fixed-length value alone fills a page.
            prop_oneof![Just(12usize), Just(256), Just(1 << 20)],
            prop_oneof![Just(7usize), Just(20_000)],
            prop_oneof![Just(1usize), Just(33), Just(1024)],
            prop_oneof![
                Just(None),
                Just(Some(1usize)),
                Just(Some(150)),
                Just(Some(10_000))
            ],
            prop_oneof![Just(None), Just(Some(2_000usize))],
            any::<bool>(),
            any::<bool>(),
            any::<usize>(),
            any::<bool>(),
            0u8..3,
        ),
        (
            prop_oneof![Just(1.0), Just(0.5), Just(0.98), Just(1.5)],
            prop_oneof![
                Just(None),
                Just(Some((128usize, 4usize))),
                Just(Some((128, 1))),
                Just(Some((256, 2))),
                Just(Some((512, 16))),
            ],
        ),
    )
        .prop_map(|(a, b, c)| Settings {
            version: a.0,
            compression: a.1,
            dictionary: a.2,
            dictionary_page_limit: a.3,
            statistics: a.4,
            truncate: a.5,
            bloom: a.6,
            offset_index_disabled: a.7,
            data_page_limit: b.0,
            page_rows: b.1,
            write_batch: b.2,
            row_group_rows: b.3,
            row_group_bytes: b.4,
            sorting: b.5,
            metadata: b.6,
            leaf: b.7,
            leaf_dictionary: b.8,
            leaf_encoding: b.9,
            v2_compression_threshold: c.0,
            delta_layout: c.1,
        })
}

/// An encoding valid for `physical` that is not a dictionary encoding.
fn encoding_for(physical: PhysicalType, choice: u8) -> Encoding {
    match (physical, choice) {
        (PhysicalType::INT32 | PhysicalType::INT64, 1) => Encoding::DELTA_BINARY_PACKED,
        (PhysicalType::INT32 | PhysicalType::INT64, 2) => Encoding::BYTE_STREAM_SPLIT,
        (PhysicalType::BYTE_ARRAY, 1) => Encoding::DELTA_LENGTH_BYTE_ARRAY,
        (PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY, 2) => {
            Encoding::DELTA_BYTE_ARRAY
        }
        (PhysicalType::FLOAT | PhysicalType::DOUBLE, 1) => Encoding::BYTE_STREAM_SPLIT,
        (PhysicalType::FLOAT | PhysicalType::DOUBLE, 2) => Encoding::ALP,
        (PhysicalType::BOOLEAN, 1) => Encoding::RLE,
        _ => Encoding::PLAIN,
    }
}

impl Settings {
    pub fn properties(&self, schema: &SchemaRef) -> WriterProperties {
        let mut builder = WriterProperties::builder()
            .set_writer_version(self.version)
            .set_compression(self.compression)
            .set_dictionary_enabled(self.dictionary)
            .set_dictionary_page_size_limit(self.dictionary_page_limit)
            .set_statistics_enabled(self.statistics)
            .set_statistics_truncate_length(self.truncate)
            .set_column_index_truncate_length(self.truncate)
            .set_offset_index_disabled(self.offset_index_disabled)
            .set_data_page_size_limit(self.data_page_limit)
            .set_data_page_row_count_limit(self.page_rows)
            .set_write_batch_size(self.write_batch)
            .set_max_row_group_row_count(self.row_group_rows)
            .set_max_row_group_bytes(self.row_group_bytes)
            .set_data_page_v2_compression_ratio_threshold(self.v2_compression_threshold);
        if let Some((block, mini_blocks)) = self.delta_layout {
            let layout = DeltaBinaryPackedEncoderOptions::try_new(block, mini_blocks).unwrap();
            builder = builder.set_delta_binary_packed_encoder_options(layout);
        }
        if let Some(bloom) = self.bloom {
            builder = builder
                .set_bloom_filter_enabled(true)
                .set_bloom_filter_position(bloom.position)
                .set_bloom_filter_max_ndv(bloom.ndv)
                .set_bloom_filter_fpp(bloom.fpp)
                .set_bloom_filter_for_dictionary_encoded_chunks(bloom.dictionary_chunks);
        }
        if self.sorting {
            builder = builder.set_sorting_columns(Some(vec![SortingColumn {
                column_idx: 0,
                descending: true,
                nulls_first: false,
            }]));
        }
        if self.metadata {
            builder = builder.set_key_value_metadata(Some(vec![KeyValue::new(
                "origin".to_string(),
                "property test".to_string(),
            )]));
        }
        let descriptor = ArrowSchemaConverter::new().convert(schema).unwrap();
        let leaf = descriptor.column(self.leaf % descriptor.num_columns());
        let path = ColumnPath::new(leaf.path().parts().to_vec());
        builder
            .set_column_dictionary_enabled(path.clone(), self.leaf_dictionary)
            .set_column_encoding(
                path.clone(),
                encoding_for(leaf.physical_type(), self.leaf_encoding),
            )
            .set_column_statistics_enabled(path, EnabledStatistics::Page)
            .build()
    }
}
