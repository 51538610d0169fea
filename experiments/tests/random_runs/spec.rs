//! Random spec files: nested schemas over every type SPEC.md lists, each leaf with one of the
//! parameter sets its type takes, and, in some cases, one hostile edit (a parameter out of
//! range, a misspelt key, a size beyond Arrow's limits, a truncated file) that the pipeline must
//! refuse with a clear error.

use proptest::prelude::*;
use serde_json::{json, Value};

/// Edge values of an integer type: its bounds, their neighbours, and small numbers.
fn integer_edges(bits: u32, signed: bool) -> Vec<Value> {
    let (min, max): (i128, i128) = if signed {
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    } else {
        (0, (1 << bits) - 1)
    };
    [min, min + 1, -1, 0, 1, 7, 1000, max - 1, max]
        .into_iter()
        .filter(|v| (min..=max).contains(v))
        .map(|v| match u64::try_from(v) {
            Ok(unsigned) => json!(unsigned),
            Err(_) => json!(v as i64),
        })
        .collect()
}

/// Two edge values of the type in order, for `min` and `max`.
fn edge_range(edges: Vec<Value>) -> impl Strategy<Value = (Value, Value)> {
    let n = edges.len();
    (0..n, 0..n).prop_map(move |(a, b)| (edges[a.min(b)].clone(), edges[a.max(b)].clone()))
}

/// `zipf` over a generated vocabulary.
fn zipf() -> impl Strategy<Value = Value> {
    (prop_oneof![Just(0.5), Just(1.0), Just(1.3)], 1u32..400).prop_map(
        |(s, cardinality)| json!({"distribution": "zipf", "zipf_s": s, "cardinality": cardinality}),
    )
}

fn int_leaf() -> impl Strategy<Value = (Value, Value)> {
    (
        prop_oneof![Just(8u32), Just(16), Just(32), Just(64)],
        any::<bool>(),
    )
        .prop_flat_map(|(bits, signed)| {
            let edges = integer_edges(bits, signed);
            let picks = proptest::sample::subsequence(edges.clone(), 1..=4);
            let metadata = prop_oneof![
                Just(json!({})),
                edge_range(edges.clone()).prop_map(|(min, max)| json!({"min": min, "max": max})),
                zipf(),
                (proptest::sample::select(edges), prop_oneof![Just(json!(1)), Just(json!(-3)), Just(json!(0.25))])
                    .prop_map(|(min, step)| json!({"distribution": "sequential", "min": min, "step": step})),
                picks.clone().prop_map(|values| json!({"values": values})),
                picks.prop_map(|values| {
                    let weights: Vec<u32> = (1..=values.len() as u32).collect();
                    json!({"distribution": "categorical", "values": values, "weights": weights})
                }),
                Just(json!({"distribution": "normal", "mean": 100, "stddev": 30})),
            ];
            (
                Just(json!({"name": "int", "bitWidth": bits, "isSigned": signed})),
                metadata,
            )
        })
}

fn float_leaf() -> impl Strategy<Value = (Value, Value)> {
    (
        prop_oneof![Just("HALF"), Just("SINGLE"), Just("DOUBLE")],
        prop_oneof![
            Just(json!({})),
            Just(json!({"min": -10.5, "max": 1000})),
            Just(json!({"distribution": "normal", "mean": 0, "stddev": 1})),
            zipf(),
        ],
    )
        .prop_map(|(precision, metadata)| {
            (
                json!({"name": "floatingpoint", "precision": precision}),
                metadata,
            )
        })
}

fn decimal_leaf() -> impl Strategy<Value = (Value, Value)> {
    (prop_oneof![Just(128u32), Just(256)], 1u32..=38)
        .prop_flat_map(|(bits, precision)| (Just(bits), Just(precision), 0..=precision))
        .prop_flat_map(|(bits, precision, scale)| {
            let metadata = prop_oneof![
                Just(json!({})),
                Just(json!({"min": "-1.5", "max": "2.25"})),
                Just(json!({"min": 0.001, "max": 0.009})),
                Just(json!({"values": ["0", "1.5"]})),
            ];
            (
                Just(json!({"name": "decimal", "precision": precision, "scale": scale, "bitWidth": bits})),
                metadata,
            )
        })
}

fn time_leaf() -> impl Strategy<Value = (Value, Value)> {
    let units = prop_oneof![
        Just(("SECOND", 32)),
        Just(("MILLISECOND", 32)),
        Just(("MICROSECOND", 64)),
        Just(("NANOSECOND", 64)),
    ];
    let zones = prop_oneof![
        Just(Value::Null),
        Just(json!("UTC")),
        Just(json!("+02:00")),
        Just(json!("Europe/Paris")),
    ];
    let sequential =
        json!({"distribution": "sequential", "min": 1_767_225_600_000i64, "step": 1000});
    prop_oneof![
        (
            prop_oneof![Just("DAY"), Just("MILLISECOND")],
            prop_oneof![
                Just(json!({})),
                Just(json!({"distribution": "sequential", "min": 20000}))
            ],
        )
            .prop_map(|(unit, metadata)| (json!({"name": "date", "unit": unit}), metadata)),
        units.clone().prop_map(|(unit, bits)| {
            (
                json!({"name": "time", "unit": unit, "bitWidth": bits}),
                json!({}),
            )
        }),
        (units, zones, prop_oneof![Just(json!({})), Just(sequential)]).prop_map(
            |((unit, _), zone, metadata)| {
                let mut ty = json!({"name": "timestamp", "unit": unit});
                if !zone.is_null() {
                    ty["timezone"] = zone;
                }
                (ty, metadata)
            }
        ),
    ]
}

/// Prefixes of sequential and unique strings are cut from this.
const PREFIX: &str = "id-+0123456789abcdefgh";

/// Strings and binaries; `dictionary` says whether the field is to be dictionary-encoded, which
/// needs a vocabulary.
fn bytes_leaf() -> impl Strategy<Value = (Value, Value, bool)> {
    let names = prop_oneof![
        Just("utf8"),
        Just("largeutf8"),
        Just("utf8view"),
        Just("binary"),
        Just("largebinary"),
        Just("binaryview"),
    ];
    let metadata = prop_oneof![
        Just((json!({}), false)),
        (0u32..4, 4u32..40)
            .prop_map(|(min, max)| (json!({"min_length": min, "max_length": max}), false)),
        (zipf(), any::<bool>()),
        // Prefixes and widths on both sides of the blocks `spec-digit-moves` copies (16 and
        // 32 bytes), negative and long numbers.
        (0usize..20, 0u32..40, -1_000i64..1_000_000_000_000).prop_map(|(prefix, digits, min)| (
            json!({"distribution": "sequential", "prefix": &PREFIX[..prefix], "digits": digits, "min": min}),
            false
        )),
        (0usize..20).prop_map(|prefix| (json!({"unique": true, "prefix": &PREFIX[..prefix]}), false)),
        Just((json!({"values": ["alpha", "beta", "gamma"]}), true)),
    ];
    (names, metadata).prop_map(|(name, (metadata, dictionary))| {
        let text = name.contains("utf8");
        let words = text && metadata.as_object().is_some_and(|m| m.is_empty());
        // Word lists apply to text only.
        let metadata = if words {
            json!({"vocabulary": "first_names"})
        } else {
            metadata
        };
        (json!({"name": name}), metadata, dictionary)
    })
}

/// A leaf field without its name: type, metadata and perhaps a dictionary.
fn leaf() -> impl Strategy<Value = Value> {
    let simple = prop_oneof![
        int_leaf(),
        float_leaf(),
        decimal_leaf(),
        time_leaf(),
        prop_oneof![Just(json!({})), Just(json!({"true_probability": 0.2}))]
            .prop_map(|metadata| (json!({"name": "bool"}), metadata)),
        (1u32..24, any::<bool>()).prop_map(|(width, unique)| {
            // Unique values are 16 hex digits: a narrower width is refused.
            let (width, metadata) = match unique {
                true => (width.max(16), json!({"unique": true})),
                false => (width, json!({})),
            };
            (
                json!({"name": "fixedsizebinary", "byteWidth": width}),
                metadata,
            )
        }),
    ]
    .prop_map(|(ty, metadata)| json!({"type": ty, "metadata": metadata}));
    let bytes = (bytes_leaf(), prop_oneof![Just(8u32), Just(16), Just(32)], any::<bool>()).prop_map(
        |((ty, metadata, dictionary), bits, signed)| {
            let mut field = json!({"type": ty, "metadata": metadata});
            if dictionary {
                field["dictionary"] =
                    json!({"id": 0, "indexType": {"name": "int", "bitWidth": bits, "isSigned": signed}});
            }
            field
        },
    );
    prop_oneof![
        4 => simple,
        2 => bytes,
        1 => Just(json!({"type": {"name": "null"}, "nullable": true, "metadata": {}})),
    ]
}

/// A map's `entries`: a key that keeps keys within a map distinct, and any value.
fn map_entries(value: Value) -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": {"name": "utf8"}, "metadata": {"distribution": "zipf", "zipf_s": 1.0, "cardinality": 30}})),
        Just(json!({"type": {"name": "int", "bitWidth": 32, "isSigned": true}, "metadata": {"distribution": "sequential"}})),
        Just(json!({"type": {"name": "utf8"}, "metadata": {"unique": true}})),
        // Keys of one vocabulary list, which `spec-map-key-picks` makes from their picks: a
        // fixed width (values cut and padded), a dictionary, a word list, weighted binaries.
        Just(json!({"type": {"name": "fixedsizebinary", "byteWidth": 3}, "metadata": {"values": ["a", "abcd", "xyz"]}})),
        Just(json!({"type": {"name": "utf8"}, "dictionary": {"id": 0, "indexType": {"name": "int", "bitWidth": 8, "isSigned": false}},
                    "metadata": {"distribution": "zipf", "zipf_s": 1.0, "cardinality": 30}})),
        Just(json!({"type": {"name": "utf8view"}, "metadata": {"vocabulary": "first_names"}})),
        Just(json!({"type": {"name": "largebinary"}, "metadata": {"values": ["alpha", "beta", "gamma"], "distribution": "categorical", "weights": [3, 2, 1]}})),
    ]
    .prop_map(move |mut key| {
        key["name"] = json!("key");
        key["nullable"] = json!(false);
        let mut value = value.clone();
        value["name"] = json!("value");
        json!({"name": "entries", "nullable": false, "type": {"name": "struct"}, "children": [key, value]})
    })
}

/// A field without its name, nested up to four levels.
fn field() -> impl Strategy<Value = Value> {
    with_nulls(leaf()).prop_recursive(4, 24, 3, |inner| {
        let lengths = (0u32..2, 0u32..4).prop_map(|(min, extra)| json!({"min_length": min, "max_length": min + extra}));
        with_nulls(prop_oneof![
            (prop_oneof![Just("list"), Just("largelist")], inner.clone(), lengths.clone()).prop_map(
                |(name, item, metadata)| json!({"type": {"name": name}, "metadata": metadata, "children": [named(item, "item")]})
            ),
            (1u32..4, inner.clone()).prop_map(|(size, item)| {
                json!({"type": {"name": "fixedsizelist", "listSize": size}, "metadata": {}, "children": [named(item, "item")]})
            }),
            proptest::collection::vec(inner.clone(), 1..4).prop_map(|children| {
                json!({"type": {"name": "struct"}, "metadata": {}, "children": numbered(children)})
            }),
            (inner.prop_flat_map(map_entries), lengths).prop_map(|(entries, metadata)| {
                json!({"type": {"name": "map", "keysSorted": false}, "metadata": metadata, "children": [entries]})
            }),
        ])
    })
}

/// `fields` made nullable or not (a Null field stays nullable), nullable ones with a chance of
/// NULLs.
fn with_nulls(fields: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    (fields, any::<bool>(), 0u32..3).prop_map(|(mut field, nullable, nulls)| {
        let nullable = field.get("nullable").is_some() || nullable;
        field["nullable"] = json!(nullable);
        if nullable && nulls > 0 && field["type"]["name"] != "null" {
            field["metadata"]["null_probability"] = json!(f64::from(nulls) * 0.2);
        }
        field
    })
}

fn named(mut field: Value, name: &str) -> Value {
    field["name"] = json!(name);
    field
}

fn numbered(fields: Vec<Value>) -> Vec<Value> {
    fields
        .into_iter()
        .enumerate()
        .map(|(i, field)| named(field, &format!("f{i}")))
        .collect()
}

/// Where a hostile edit sets its key.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// The field's `metadata`.
    Metadata,
    /// The field object itself.
    Field,
    /// The field's `type` object.
    Type,
}

/// An edit a valid spec must not survive silently: the data still comes out exact, or the spec
/// is refused with a clear error.
#[derive(Debug, Clone)]
pub enum Hostile {
    /// A key set to a value out of its range, of the wrong kind, or unknown; `refused` when no
    /// field of any type may take it.
    Key {
        place: Place,
        key: &'static str,
        value: Value,
        refused: bool,
    },
    /// The field's name repeated on its neighbour (no change for an only child).
    DuplicateName,
    /// The file cut off after this many bytes.
    Truncated(usize),
}

impl Hostile {
    /// Whether every spec with this edit must be refused.
    pub fn always_refused(&self) -> bool {
        match self {
            Hostile::Key { refused, .. } => *refused,
            Hostile::DuplicateName => false,
            Hostile::Truncated(_) => true,
        }
    }
}

fn hostile() -> impl Strategy<Value = Hostile> {
    use Place::{Field, Metadata, Type};
    let keys = [
        (Metadata, "cardinality", json!(0), true),
        (Metadata, "cardinality", json!(-1), true),
        (Metadata, "cardinality", json!(100_000_000), true),
        (Metadata, "min_length", json!(4_294_967_297u64), true),
        (Metadata, "max_length", json!(3_000_000_000u64), true),
        (Metadata, "zipf_s", json!("abc"), true),
        (Metadata, "null_probability", json!(1.5), true),
        (Metadata, "null_probability", json!(1), false),
        (Metadata, "min", json!("18446744073709551616"), false),
        (Metadata, "max", json!(-1e300), false),
        (Metadata, "step", json!(0), false),
        (Metadata, "values", json!([]), true),
        (Metadata, "values", json!([null]), true),
        (Metadata, "prefix", json!("p"), false),
        (Metadata, "nulable", json!(true), true),
        (Metadata, "weights", json!([1, -2]), true),
        (Metadata, "distribution", json!("poisson"), true),
        (Field, "nullable", json!("yes"), true),
        (Field, "name", json!(""), true),
        (Field, "nulable", json!(false), true),
        (Field, "children", json!([]), false),
        (
            Field,
            "dictionary",
            json!({"indexType": {"name": "int", "bitWidth": 7}}),
            true,
        ),
        (Type, "name", json!("interval"), true),
        (Type, "bitWidth", json!(128), false),
        (Type, "byteWidth", json!(2_147_483_647u64), true),
        (Type, "listSize", json!(100_000_000), false),
        (Type, "precision", json!(77), true),
        (Type, "scale", json!(-2), true),
        (Type, "unit", json!("FORTNIGHT"), true),
        (Type, "timezone", json!("Mars/Olympus"), true),
    ];
    prop_oneof![
        8 => proptest::sample::select(keys.to_vec()).prop_map(|(place, key, value, refused)| {
            Hostile::Key { place, key, value, refused }
        }),
        1 => Just(Hostile::DuplicateName),
        1 => (1usize..2000).prop_map(Hostile::Truncated),
    ]
}

/// A spec file's text, and the hostile edit made to it, if any.
#[derive(Debug, Clone)]
pub struct SpecText {
    /// The file's contents.
    pub text: String,
    /// The edit, and the field it was made to (modulo the count of fields, depth first).
    pub hostile: Option<(Hostile, usize)>,
    /// Whether pyarrow can read the data back: see [`pyarrow_reads`].
    pub pyarrow_reads: bool,
}

impl SpecText {
    /// Whether the pipeline must refuse this spec.
    pub fn must_be_refused(&self) -> bool {
        self.hostile
            .as_ref()
            .is_some_and(|(edit, _)| edit.always_refused())
    }
}

/// A spec of one to four top-level fields; one case in four carries a hostile edit.
pub fn spec_text() -> impl Strategy<Value = SpecText> {
    let edit = prop_oneof![3 => Just(None), 1 => (hostile(), any::<usize>()).prop_map(Some)];
    (proptest::collection::vec(field(), 1..5), edit).prop_map(|(fields, hostile)| {
        let mut spec = json!({"fields": numbered(fields)});
        let pyarrow_reads = pyarrow_reads(&spec["fields"], false);
        let text = match &hostile {
            Some((Hostile::Truncated(at), _)) => {
                let text = spec.to_string();
                text[..(*at).min(text.len() - 1)].to_string()
            }
            Some((edit, at)) => {
                apply(&mut spec, edit, *at);
                spec.to_string()
            }
            None => spec.to_string(),
        };
        SpecText {
            text,
            hostile,
            pyarrow_reads,
        }
    })
}

/// Whether pyarrow (26) reads `fields` back: it cannot read a non-nullable fixed-size list below
/// a struct that has NULLs, with only structs between them ("Expected all lists to be of size=N
/// but index I had size=0"), even from a file it wrote itself; a list or map in between, or a
/// nullable fixed-size list, reads fine. `below_null_struct` says whether such a struct is
/// above `fields`. scripts/peers/tests/test_readers.py notices when pyarrow fixes it.
fn pyarrow_reads(fields: &Value, below_null_struct: bool) -> bool {
    fields.as_array().into_iter().flatten().all(|field| {
        let nullable = field["nullable"] == json!(true);
        let has_nulls = nullable
            && field["metadata"]["null_probability"]
                .as_f64()
                .is_some_and(|p| p > 0.0);
        let below = match field["type"]["name"].as_str() {
            Some("struct") => below_null_struct || has_nulls,
            Some("fixedsizelist") if below_null_struct && !nullable => return false,
            _ => false,
        };
        pyarrow_reads(&field["children"], below)
    })
}

/// Applies `edit` to the field `at` (modulo their count) in depth-first order.
fn apply(spec: &mut Value, edit: &Hostile, at: usize) {
    let mut paths = Vec::new();
    collect_fields(&spec["fields"], &mut Vec::new(), &mut paths);
    let path = &paths[at % paths.len()];
    if let Hostile::DuplicateName = edit {
        let (last, parent) = path.split_last().expect("a field has a path");
        let siblings = fields_at(spec, parent);
        let name = siblings[*last]["name"].clone();
        let other = if *last == 0 { siblings.len() - 1 } else { 0 };
        siblings[other]["name"] = name;
        return;
    }
    let (last, parent) = path.split_last().expect("a field has a path");
    let field = &mut fields_at(spec, parent)[*last];
    let Hostile::Key {
        place, key, value, ..
    } = edit
    else {
        unreachable!("names and truncation are handled above")
    };
    match place {
        Place::Metadata => field["metadata"][*key] = value.clone(),
        Place::Field => field[*key] = value.clone(),
        Place::Type => field["type"][*key] = value.clone(),
    }
}

/// Every field's path of child indices, depth first.
fn collect_fields(fields: &Value, prefix: &mut Vec<usize>, paths: &mut Vec<Vec<usize>>) {
    for (i, field) in fields.as_array().into_iter().flatten().enumerate() {
        prefix.push(i);
        paths.push(prefix.clone());
        collect_fields(&field["children"], prefix, paths);
        prefix.pop();
    }
}

/// The array of fields that `parent` (a path of child indices) holds: the top level for `[]`.
fn fields_at<'a>(spec: &'a mut Value, parent: &[usize]) -> &'a mut Vec<Value> {
    let mut fields = &mut spec["fields"];
    for &i in parent {
        fields = &mut fields[i]["children"];
    }
    fields.as_array_mut().expect("fields are an array")
}
