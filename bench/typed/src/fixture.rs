//! What every compared fixture provides, and loading it into every format.

use std::collections::BTreeMap;
use std::fmt::{self, Debug};
use std::path::{Path, PathBuf};

use flatbuffers::{FlatBufferBuilder, Follow, InvalidFlatbuffer, Verifiable, WIPOffset};
use flexbuf::{FlexBorrow, FlexCoder};
use prost::Message as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// One value read by a partial read. Probes from different formats are
/// compared to prove they read the same fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field<'a> {
    /// The field (or the element) is not there.
    Absent,
    /// An integer field.
    Int(i64),
    /// A float field.
    Float(f64),
    /// A string field, borrowed from the buffer or the owned value.
    Str(&'a str),
}

/// The fields a partial read returns (unused slots are [`Field::Absent`]).
pub type Probe<'a> = [Field<'a>; 3];

/// One fixture in every compared representation.
///
/// Implemented on the fixture's root serde struct (see [`crate::model`]).
pub trait Fixture: Sized + 'static {
    /// File stem in `conformance/fixtures/` and `conformance/schemas/`.
    const NAME: &'static str;
    /// The fields the partial-read benchmark reads, for the report.
    const PARTIAL: &'static str;

    /// The root type flexbuf generated from the `.fxs` schema.
    type Gen: FlexCoder + Clone + PartialEq + Debug;
    /// The generated root's borrowed form (`{Name}Ref<'a>`).
    type GenRef<'a>: FlexBorrow<'a, Owned = Self::Gen>;
    /// The serde struct mirroring the schema.
    type Serde: Serialize + DeserializeOwned + Clone + PartialEq + Debug;
    /// The same serde struct borrowing its strings and map keys (`serde_ref`).
    type SerdeRef<'a>: Serialize + Deserialize<'a> + Debug;
    /// The prost message mirroring the schema.
    type Proto: prost::Message + Default + PartialEq + DeserializeOwned;
    /// The FlatBuffers object-API (owned) root type.
    type Fb: PartialEq + Debug;
    /// The FlatBuffers table accessor of the root.
    type FbRoot<'a>: Follow<'a, Inner = Self::FbRoot<'a>> + Verifiable + 'a;

    /// Converts the serde value into the FlatBuffers object-API value.
    fn to_fb(value: &Self::Serde) -> Self::Fb;
    /// Packs the object-API value (the generated `pack`).
    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>>;
    /// Reads every field into the object-API value (the generated `unpack`).
    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb;

    /// The partial-read fields of a fully decoded value.
    fn probe_owned(value: &Self::Gen) -> Probe<'_>;
    /// The partial-read fields through the generated views (checked reads on
    /// unverified bytes).
    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>>;
    /// The partial-read fields through the FlatBuffers accessors.
    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a>;

    /// Encodes with a reused FlatBuffers builder (reset first).
    fn fb_encode<'b>(value: &Self::Fb, b: &'b mut FlatBufferBuilder<'_>) -> &'b [u8] {
        b.reset();
        let root = Self::fb_pack(value, b);
        b.finish(root, None);
        b.finished_data()
    }

    /// Verifies `bytes` and reads every field into an owned value.
    fn fb_decode(bytes: &[u8]) -> Result<Self::Fb, InvalidFlatbuffer> {
        flatbuffers::root::<Self::FbRoot<'_>>(bytes).map(Self::fb_unpack)
    }

    /// Partial read after FlatBuffers' verification of the whole buffer.
    fn probe_fb_verified(bytes: &[u8]) -> Result<Probe<'_>, InvalidFlatbuffer> {
        flatbuffers::root::<Self::FbRoot<'_>>(bytes).map(Self::probe_fb)
    }

    /// Partial read without any verification.
    ///
    /// # Safety
    ///
    /// `bytes` must be a valid FlatBuffer of this root type.
    unsafe fn probe_fb_unchecked(bytes: &[u8]) -> Probe<'_> {
        Self::probe_fb(flatbuffers::root_unchecked::<Self::FbRoot<'_>>(bytes))
    }
}

/// The compared wire formats, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    /// flexbuf's generated coders (`FlexCoder`).
    Generated,
    /// flexbuf's serde tier (`flexbuf::to_vec` / `flexbuf::from_slice`).
    FlexbufSerde,
    /// `serde_json`.
    SerdeJson,
    /// `rmp_serde` (MessagePack; structs as arrays, its default).
    RmpSerde,
    /// prost (Protocol Buffers).
    Prost,
    /// The `flatbuffers` crate with `flatc`'s object API.
    Flatbuffers,
    /// The `flexbuffers` crate's serde support.
    Flexbuffers,
}

impl Format {
    /// Every format, in report order.
    pub const ALL: [Format; 7] = [
        Format::Generated,
        Format::FlexbufSerde,
        Format::SerdeJson,
        Format::RmpSerde,
        Format::Prost,
        Format::Flatbuffers,
        Format::Flexbuffers,
    ];

    /// The criterion benchmark id and sizes-file key.
    pub fn id(self) -> &'static str {
        match self {
            Format::Generated => "generated",
            Format::FlexbufSerde => "flexbuf_serde",
            Format::SerdeJson => "serde_json",
            Format::RmpSerde => "rmp_serde",
            Format::Prost => "prost",
            Format::Flatbuffers => "flatbuffers",
            Format::Flexbuffers => "flexbuffers",
        }
    }
}

/// Why a fixture could not be loaded or a format could not round-trip it.
#[derive(Debug)]
pub enum LoadError {
    /// Reading the fixture file failed.
    Io(PathBuf, std::io::Error),
    /// flexbuf (JSON import, verify, generated decode or serde tier) failed.
    Flexbuf(flexbuf::Error),
    /// `serde_json` failed.
    Json(serde_json::Error),
    /// `rmp_serde` failed to encode.
    RmpEncode(rmp_serde::encode::Error),
    /// `rmp_serde` failed to decode.
    RmpDecode(rmp_serde::decode::Error),
    /// prost failed to decode.
    Prost(prost::DecodeError),
    /// FlatBuffers verification failed.
    Flatbuffers(InvalidFlatbuffer),
    /// The `flexbuffers` crate failed to encode.
    FlexbuffersEncode(flexbuffers::SerializationError),
    /// The `flexbuffers` crate failed to decode.
    FlexbuffersDecode(flexbuffers::DeserializationError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            LoadError::Flexbuf(e) => write!(f, "flexbuf: {e}"),
            LoadError::Json(e) => write!(f, "serde_json: {e}"),
            LoadError::RmpEncode(e) => write!(f, "rmp_serde: {e}"),
            LoadError::RmpDecode(e) => write!(f, "rmp_serde: {e}"),
            LoadError::Prost(e) => write!(f, "prost: {e}"),
            LoadError::Flatbuffers(e) => write!(f, "flatbuffers: {e}"),
            LoadError::FlexbuffersEncode(e) => write!(f, "flexbuffers: {e}"),
            LoadError::FlexbuffersDecode(e) => write!(f, "flexbuffers: {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<flexbuf::Error> for LoadError {
    fn from(e: flexbuf::Error) -> Self {
        LoadError::Flexbuf(e)
    }
}

impl From<serde_json::Error> for LoadError {
    fn from(e: serde_json::Error) -> Self {
        LoadError::Json(e)
    }
}

/// The path of `conformance/fixtures/<name>.json`.
pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/fixtures")
        .join(format!("{name}.json"))
}

/// A fixture loaded once into every representation.
pub struct Loaded<F: Fixture> {
    /// The fixture file's text.
    pub json: String,
    /// The generated type, via `flexbuf::from_json` and `FlexCoder::from_flex`.
    pub gen: F::Gen,
    /// The serde struct, via `serde_json`.
    pub serde: F::Serde,
    /// The prost message, via `serde_json` (derive added by `build.rs`).
    pub proto: F::Proto,
    /// The FlatBuffers object-API value, converted from [`serde`](Self::serde).
    pub fb: F::Fb,
}

impl<F: Fixture> Loaded<F> {
    /// Reads `conformance/fixtures/<F::NAME>.json` into every representation.
    pub fn load() -> Result<Self, LoadError> {
        let path = fixture_path(F::NAME);
        let json = std::fs::read_to_string(&path).map_err(|e| LoadError::Io(path, e))?;
        let gen = F::Gen::from_flex(&flexbuf::from_json(&json)?)?;
        let serde: F::Serde = serde_json::from_str(&json)?;
        let proto: F::Proto = serde_json::from_str(&json)?;
        let fb = F::to_fb(&serde);
        Ok(Loaded {
            json,
            gen,
            serde,
            proto,
            fb,
        })
    }

    /// Encodes the fixture in `format`.
    pub fn encode(&self, format: Format) -> Result<Vec<u8>, LoadError> {
        Ok(match format {
            Format::Generated => self.gen.to_flex()?,
            Format::FlexbufSerde => flexbuf::to_vec(&self.serde)?,
            Format::SerdeJson => serde_json::to_vec(&self.serde)?,
            Format::RmpSerde => rmp_serde::to_vec(&self.serde).map_err(LoadError::RmpEncode)?,
            Format::Prost => self.proto.encode_to_vec(),
            Format::Flatbuffers => F::fb_encode(&self.fb, &mut FlatBufferBuilder::new()).to_vec(),
            Format::Flexbuffers => {
                flexbuffers::to_vec(&self.serde).map_err(LoadError::FlexbuffersEncode)?
            }
        })
    }

    /// Decodes `bytes` written in `format` and tells whether the result equals
    /// the loaded value of that format.
    pub fn decodes_to_original(&self, format: Format, bytes: &[u8]) -> Result<bool, LoadError> {
        Ok(match format {
            Format::Generated => F::Gen::from_flex(bytes)? == self.gen,
            Format::FlexbufSerde => flexbuf::from_slice::<F::Serde>(bytes)? == self.serde,
            Format::SerdeJson => serde_json::from_slice::<F::Serde>(bytes)? == self.serde,
            Format::RmpSerde => {
                rmp_serde::from_slice::<F::Serde>(bytes).map_err(LoadError::RmpDecode)?
                    == self.serde
            }
            Format::Prost => F::Proto::decode(bytes).map_err(LoadError::Prost)? == self.proto,
            Format::Flatbuffers => F::fb_decode(bytes).map_err(LoadError::Flatbuffers)? == self.fb,
            Format::Flexbuffers => {
                flexbuffers::from_slice::<F::Serde>(bytes).map_err(LoadError::FlexbuffersDecode)?
                    == self.serde
            }
        })
    }

    /// Encoded size in bytes per format, plus the fixture file as `json_file`.
    pub fn sizes(&self) -> Result<BTreeMap<&'static str, usize>, LoadError> {
        let mut sizes = BTreeMap::new();
        sizes.insert("json_file", self.json.len());
        for format in Format::ALL {
            sizes.insert(format.id(), self.encode(format)?.len());
        }
        Ok(sizes)
    }
}
