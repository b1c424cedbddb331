//! Factorisation-machine model files: pattern tables with an interaction term in floating
//! point, as `crates/tsuru-lab/scripts/fm_train.py` writes them; `tsuru tables --fm` quantises one into a weights
//! file (`lab::training::fm`).
//!
//! Layout, little-endian:
//!
//! ```text
//! magic        8 bytes  "TSURUFMM"
//! version      u16      1
//! pattern set  u32      the pattern set's identity, as in weights files
//! stages       u16
//! entries      u32      flat entries a stage (every shape's table, then the mobility table)
//! dim          u16      width of the vectors
//! per stage             bias f32, then the flat table f32 x entries
//! scales       f32      one per stage
//! vectors      f32      dim per flat entry, entry-major
//! checksum     u32      FNV-1a of every byte before it
//! ```
//!
//! Values are in discs: a position's value is its stage's bias, the table values of its
//! look-ups, and scale * sum over pairs of look-ups of the vectors' dot products.

use anyhow::{ensure, Context, Result};

use super::bytes::Reader;
use super::checksum::fnv1a_32;

/// The magic bytes at the start of a model file.
pub const MAGIC: &[u8; 8] = b"TSURUFMM";
/// The format version written and read.
pub const FORMAT_VERSION: u16 = 1;

/// What a model file holds.
#[derive(Clone, Debug, PartialEq)]
pub struct FmModelRecord {
    /// The identity of the pattern set the model is for.
    pub pattern_set: u32,
    /// Flat entries a stage.
    pub entries: usize,
    /// Width of the vectors.
    pub dim: usize,
    /// Per stage, the bias.
    pub bias: Vec<f32>,
    /// Per stage, the flat table.
    pub tables: Vec<Vec<f32>>,
    /// Per stage, the interaction's scale.
    pub scales: Vec<f32>,
    /// `dim` values per flat entry.
    pub vectors: Vec<f32>,
}

/// The file form of `record`.
pub fn to_bytes(record: &FmModelRecord) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&record.pattern_set.to_le_bytes());
    out.extend_from_slice(&(record.bias.len() as u16).to_le_bytes());
    out.extend_from_slice(&(record.entries as u32).to_le_bytes());
    out.extend_from_slice(&(record.dim as u16).to_le_bytes());
    let floats = |out: &mut Vec<u8>, values: &[f32]| {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    for (bias, table) in record.bias.iter().zip(&record.tables) {
        floats(&mut out, &[*bias]);
        floats(&mut out, table);
    }
    floats(&mut out, &record.scales);
    floats(&mut out, &record.vectors);
    let checksum = fnv1a_32(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Reads a model file; a damaged file (checksum), another version, a file cut short or with
/// stray bytes, or a value that is not finite is refused.
pub fn from_bytes(bytes: &[u8]) -> Result<FmModelRecord> {
    ensure!(
        bytes.len() >= 26 && &bytes[..8] == MAGIC,
        "not a tsuru FM model file (no TSURUFMM magic)"
    );
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let checksum = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    ensure!(
        fnv1a_32(body) == checksum,
        "FM model file: checksum mismatch (damaged file)"
    );
    let mut reader = Reader::new(body, 8, "the FM model file is truncated");
    let version = reader.u16()?;
    ensure!(
        version == FORMAT_VERSION,
        "FM model file: version {version}, this build reads {FORMAT_VERSION}"
    );
    let pattern_set = reader.u32()?;
    let stages = usize::from(reader.u16()?);
    let entries = reader.u32()? as usize;
    let dim = usize::from(reader.u16()?);
    ensure!(
        (1..=60).contains(&stages) && entries > 0 && dim > 0,
        "FM model file: bad sizes ({stages} stages, {entries} entries, width {dim})"
    );
    let mut bias = Vec::with_capacity(stages);
    let mut tables = Vec::with_capacity(stages);
    for _ in 0..stages {
        bias.push(reader.f32s(1)?[0]);
        tables.push(reader.f32s(entries)?);
    }
    let scales = reader.f32s(stages)?;
    let vectors = reader.f32s(entries * dim)?;
    ensure!(
        reader.position() == body.len(),
        "FM model file: {} stray bytes at the end",
        body.len() - reader.position()
    );
    let finite = bias
        .iter()
        .chain(tables.iter().flatten())
        .chain(&scales)
        .chain(&vectors)
        .all(|v| v.is_finite());
    ensure!(finite, "FM model file: a value is not finite");
    Ok(FmModelRecord {
        pattern_set,
        entries,
        dim,
        bias,
        tables,
        scales,
        vectors,
    })
}

/// Reads the model file at `path`.
pub fn read(path: &std::path::Path) -> Result<FmModelRecord> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    from_bytes(&bytes).with_context(|| format!("in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> FmModelRecord {
        FmModelRecord {
            pattern_set: 0xabcd_0123,
            entries: 3,
            dim: 2,
            bias: vec![0.5, -1.25],
            tables: vec![vec![1.0, 2.0, 3.0], vec![-4.0, 0.0, 6.5]],
            scales: vec![0.25, 2.0],
            vectors: vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        }
    }

    #[test]
    fn records_round_trip_with_the_documented_size() {
        let bytes = to_bytes(&record());
        // Header 22 bytes, 2 stages of 1 + 3 floats, 2 scales, 6 vector values, checksum.
        assert_eq!(bytes.len(), 22 + (8 + 2 + 6) * 4 + 4);
        assert_eq!(from_bytes(&bytes).unwrap(), record());
    }

    #[test]
    fn damage_and_bad_values_are_refused() {
        let bytes = to_bytes(&record());
        let mut damaged = bytes.clone();
        damaged[30] ^= 4;
        let error = from_bytes(&damaged).unwrap_err().to_string();
        assert!(error.contains("checksum"), "{error}");
        let mut nan = record();
        nan.vectors[3] = f32::NAN;
        let error = from_bytes(&to_bytes(&nan)).unwrap_err().to_string();
        assert!(error.contains("finite"), "{error}");
        let error = from_bytes(b"TSURUPNN and more bytes here..").unwrap_err();
        assert!(error.to_string().contains("magic"), "{error}");
    }
}
