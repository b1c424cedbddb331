//! Term files: an interaction term ([`crate::eval::pattern::Interaction`]) on its own,
//! for the tables of one weights file, so that a term fitted to weights already shipped
//! ships without a second copy of their tables. This module knows the byte layout only;
//! which entries there are and what the term means is the evaluation's business.
//!
//! # Layout (little-endian)
//!
//! ```text
//! magic        8 bytes  "TSURUEVT"
//! version      u16      1
//! pattern set  u32      as in a weights file (a file for another set is refused)
//! base         u32      the identity (checksum) of the weights file the term belongs to
//! stages       u16      as the base weights'
//! dim          u16      width d of the vectors (1 or more)
//! shift        u16      the term is scaled by 2^-shift (1 to 62)
//! scales       i32      one per stage
//! entries      u32      canonical entries
//! present      bytes    one bit an entry (entry e: byte e / 8, bit e % 8), set where its
//!                       vector is not all zero
//! vectors      i8       d per present entry, in entry order
//! checksum     u32      FNV-1a of every byte before it
//! ```
//!
//! Components are 8-bit: the engine's compact rows, and about 8 bytes a trained entry.

use super::bytes::Reader;
use super::checksum::fnv1a_32;
use anyhow::{ensure, Result};

/// The magic bytes at the start of a term file.
pub const MAGIC: &[u8; 8] = b"TSURUEVT";
/// The term file format version.
pub const FORMAT_VERSION: u16 = 1;

/// What a term file holds, as plain values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermRecord {
    /// The identity of the pattern set.
    pub pattern_set: u32,
    /// The identity of the weights file whose tables the term belongs to.
    pub base: u32,
    /// Width of each vector.
    pub dim: u16,
    /// The power of two the scales are divided by.
    pub shift: u16,
    /// Per stage, in stage order.
    pub scales: Vec<i32>,
    /// `dim` values per canonical entry, entry-major, in file order (zeros where absent).
    pub vectors: Vec<i8>,
}

/// Whether `bytes` begin as a term file does (to tell one from a weights file).
pub fn is_term_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The file form of `record` (see the module doc).
pub fn to_bytes(record: &TermRecord) -> Vec<u8> {
    let dim = record.dim as usize;
    debug_assert!(dim >= 1 && record.vectors.len().is_multiple_of(dim));
    let entries = record.vectors.len() / dim;
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&record.pattern_set.to_le_bytes());
    out.extend_from_slice(&record.base.to_le_bytes());
    out.extend_from_slice(&(record.scales.len() as u16).to_le_bytes());
    out.extend_from_slice(&record.dim.to_le_bytes());
    out.extend_from_slice(&record.shift.to_le_bytes());
    for scale in &record.scales {
        out.extend_from_slice(&scale.to_le_bytes());
    }
    out.extend_from_slice(&(entries as u32).to_le_bytes());
    let mut present = vec![0u8; entries.div_ceil(8)];
    for (entry, vector) in record.vectors.chunks_exact(dim).enumerate() {
        if vector.iter().any(|&v| v != 0) {
            present[entry / 8] |= 1 << (entry % 8);
        }
    }
    out.extend_from_slice(&present);
    for vector in record.vectors.chunks_exact(dim) {
        if vector.iter().any(|&v| v != 0) {
            out.extend(vector.iter().map(|&v| v as u8));
        }
    }
    let checksum = fnv1a_32(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Reads a term file for the pattern set `pattern_set` with `entries` canonical entries;
/// every inconsistency (damage, another version, set or size) is an error naming it.
pub fn from_bytes(bytes: &[u8], pattern_set: u32, entries: usize) -> Result<TermRecord> {
    ensure!(
        bytes.len() >= 12,
        "term file too short ({} bytes)",
        bytes.len()
    );
    ensure!(is_term_file(bytes), "not a tsuru term file (bad magic)");
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let checksum = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
    ensure!(
        fnv1a_32(body) == checksum,
        "term file checksum mismatch (the file is damaged)"
    );
    let mut reader = Reader::new(body, 8, "the term file is truncated");
    let version = reader.u16()?;
    ensure!(
        version == FORMAT_VERSION,
        "term format version {version} is not {FORMAT_VERSION}"
    );
    let set = reader.u32()?;
    ensure!(
        set == pattern_set,
        "the term is for another pattern set ({set:08x}, this build uses {pattern_set:08x})"
    );
    let base = reader.u32()?;
    let stages = reader.u16()? as usize;
    ensure!((1..=60).contains(&stages), "bad stage count {stages}");
    let dim = reader.u16()?;
    ensure!(dim >= 1, "interaction vectors of width 0");
    let shift = reader.u16()?;
    ensure!(
        (1..=62).contains(&shift),
        "bad interaction shift {shift} (1 to 62)"
    );
    let scales = (0..stages)
        .map(|_| reader.i32())
        .collect::<Result<Vec<i32>>>()?;
    let stored = reader.u32()? as usize;
    ensure!(stored == entries, "{stored} entries, expected {entries}");
    let present = (0..entries.div_ceil(8))
        .map(|_| reader.u8())
        .collect::<Result<Vec<u8>>>()?;
    let dim = dim as usize;
    let mut vectors = vec![0i8; entries * dim];
    for entry in 0..entries {
        if present[entry / 8] >> (entry % 8) & 1 == 1 {
            for slot in &mut vectors[entry * dim..(entry + 1) * dim] {
                *slot = reader.u8()? as i8;
            }
        }
    }
    ensure!(
        present[entries / 8..]
            .first()
            .is_none_or(|&last| entries.is_multiple_of(8) || last >> (entries % 8) == 0),
        "entries past the end marked present"
    );
    ensure!(
        reader.position() == body.len(),
        "{} stray bytes at the end",
        body.len() - reader.position()
    );
    Ok(TermRecord {
        pattern_set,
        base,
        dim: dim as u16,
        shift,
        scales,
        vectors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> TermRecord {
        // 11 entries of width 2, entries 1, 4 and 10 present (10: in the second byte of the
        // bitmap).
        let mut vectors = vec![0i8; 22];
        vectors[2..4].copy_from_slice(&[-128, 5]);
        vectors[8..10].copy_from_slice(&[0, 127]);
        vectors[20..22].copy_from_slice(&[-1, 0]);
        TermRecord {
            pattern_set: 0x1234_5678,
            base: 0xdead_beef,
            dim: 2,
            shift: 30,
            scales: vec![7, -3, 1 << 20],
            vectors,
        }
    }

    #[test]
    fn records_round_trip_and_the_layout_is_as_documented() {
        let bytes = to_bytes(&record());
        assert!(is_term_file(&bytes));
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(&bytes[8..10], &[1, 0]);
        assert_eq!(&bytes[10..14], &0x1234_5678u32.to_le_bytes());
        assert_eq!(&bytes[14..18], &0xdead_beefu32.to_le_bytes());
        assert_eq!(&bytes[18..24], &[3, 0, 2, 0, 30, 0]);
        assert_eq!(&bytes[24..28], &7i32.to_le_bytes());
        assert_eq!(&bytes[36..40], &11u32.to_le_bytes());
        // The bitmap: entries 1 and 4, then entry 10; then the three vectors.
        assert_eq!(&bytes[40..42], &[0b0001_0010, 0b0000_0100]);
        assert_eq!(&bytes[42..48], &[128, 5, 0, 127, 255, 0]);
        assert_eq!(bytes.len(), 48 + 4);
        assert_eq!(from_bytes(&bytes, 0x1234_5678, 11).unwrap(), record());
    }

    #[test]
    fn damage_and_other_expectations_are_refused() {
        let bytes = to_bytes(&record());
        let error =
            |bytes: &[u8], set, entries| from_bytes(bytes, set, entries).unwrap_err().to_string();
        let mut damaged = bytes.clone();
        damaged[44] ^= 1;
        assert!(error(&damaged, 0x1234_5678, 11).contains("checksum"));
        assert!(error(&bytes, 0x1234_5679, 11).contains("another pattern set"));
        assert!(error(&bytes, 0x1234_5678, 12).contains("entries, expected"));
        assert!(error(&bytes[..6], 0x1234_5678, 11).contains("too short"));
        assert!(error(b"TSURUEVW weights, not a term", 0, 11).contains("magic"));
        // A bitmap that marks more entries than the vectors hold (checksum mended).
        let mut more = bytes[..bytes.len() - 4].to_vec();
        more[40] |= 1;
        let checksum = fnv1a_32(&more);
        more.extend_from_slice(&checksum.to_le_bytes());
        assert!(error(&more, 0x1234_5678, 11).contains("truncated"));
        // A bit past the last entry.
        let mut past = bytes[..bytes.len() - 4].to_vec();
        past[41] |= 0b1000_0000;
        let checksum = fnv1a_32(&past);
        past.extend_from_slice(&checksum.to_le_bytes());
        assert!(error(&past, 0x1234_5678, 11).contains("past the end"));
    }
}
