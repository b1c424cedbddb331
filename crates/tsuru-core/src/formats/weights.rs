//! Weights files: the trained pattern evaluation's tables ([`crate::eval::pattern::Weights`])
//! as bytes. This module knows the byte layout only; which entries a stage holds (the
//! canonical entries of the pattern set, in order) is the evaluation's business, which hands
//! them over as a [`WeightsRecord`] and says what it expects back.
//!
//! # Layout (little-endian)
//!
//! ```text
//! magic        8 bytes  "TSURUEVW"
//! version      u16      1; 2 with the interaction section; 3 and 4 as 1 and 2 with the
//!                       stages read blended (below)
//! pattern set  u32      FNV-1a of the shapes' names and squares (a file for another set
//!                       is refused)
//! stages       u16      number of stages; the 60 plies are cut into that many equal parts
//!                       (15 stages: stage s covers empties 60-4s down to 57-4s); read
//!                       blended, it must divide 60
//! units/disc   u16      weights are in 1/units of a disc (Score units)
//! entries      u32      canonical entries per stage
//! payload               per stage: bias i16, then the canonical entries shape by shape in
//!                       index order, as i16, where -32768 followed by a u16 n stands for n
//!                       zeros
//! interaction           version 2 only:
//!   dim        u16      width d of the vectors (1 or more)
//!   shift      u16      the term is scaled by 2^-shift (1 to 62)
//!   scales     i32      one per stage
//!   vectors    i16      d per canonical entry, entry-major, in file order
//! checksum     u32      FNV-1a of every byte before it
//! ```
//!
//! A file without the interaction section is written as version 1, so weights that have
//! none keep the bytes (and the identity) they always had. What the section means is the
//! evaluation's business ([`crate::eval::pattern`]).
//!
//! Versions 3 and 4 hold the same bytes as 1 and 2 and say that each stage stands for the
//! middle of its plies and a position is valued by the two nearest stages mixed
//! ([`crate::eval::stage_blend`]); the reader passes that on as [`WeightsRecord::blended`] and
//! the evaluation expands the stages to one weight set per ply when it loads them.

use super::bytes::Reader;
use super::checksum::fnv1a_32;
use anyhow::{ensure, Result};

use crate::score::UNITS_PER_DISC;

/// The magic bytes at the start of a weights file.
pub const MAGIC: &[u8; 8] = b"TSURUEVW";
/// The weights file format version of weights without the interaction section.
pub const FORMAT_VERSION: u16 = 1;
/// The version of weights with the interaction section.
pub const INTERACTION_VERSION: u16 = 2;
/// What a version number adds to say the stages are read blended (3 and 4).
pub const BLENDED_OFFSET: u16 = 2;
/// The zero-run marker in the payload.
const ZERO_RUN: i16 = i16::MIN;
/// The shortest file: the header and the checksum.
const HEADER_AND_CHECKSUM: usize = 26;

/// What a weights file holds, as plain values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightsRecord {
    /// The identity of the pattern set the weights are for.
    pub pattern_set: u32,
    /// Per stage, in stage order.
    pub stages: Vec<StageRecord>,
    /// The interaction section, if the weights have one.
    pub interaction: Option<InteractionRecord>,
    /// Whether the stages are read blended (versions 3 and 4): the evaluation mixes the two
    /// stages whose middles enclose a position's ply.
    pub blended: bool,
}

/// The interaction section of a weights file: a `dim`-wide vector per canonical entry and a
/// scale per stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteractionRecord {
    /// Width of each vector.
    pub dim: u16,
    /// The power of two the scales are divided by.
    pub shift: u16,
    /// Per stage, in stage order.
    pub scales: Vec<i32>,
    /// `dim` values per canonical entry, entry-major, in file order.
    pub vectors: Vec<i16>,
}

/// One stage of a weights file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageRecord {
    /// The stage's bias, in Score units.
    pub bias: i16,
    /// The canonical entries in file order, in Score units. Every stage has as many.
    pub entries: Vec<i16>,
}

/// The file form of `record` (see the module doc). An entry of -32768 is written as -32767,
/// since -32768 marks a run of zeros.
pub fn to_bytes(record: &WeightsRecord) -> Vec<u8> {
    let entries = record.stages.first().map_or(0, |stage| stage.entries.len());
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    let unblended_version = match record.interaction {
        Some(_) => INTERACTION_VERSION,
        None => FORMAT_VERSION,
    };
    let version = match record.blended {
        true => unblended_version + BLENDED_OFFSET,
        false => unblended_version,
    };
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&record.pattern_set.to_le_bytes());
    out.extend_from_slice(&(record.stages.len() as u16).to_le_bytes());
    out.extend_from_slice(&(UNITS_PER_DISC as u16).to_le_bytes());
    out.extend_from_slice(&(entries as u32).to_le_bytes());
    for stage in &record.stages {
        debug_assert_eq!(stage.entries.len(), entries, "stages differ in size");
        out.extend_from_slice(&stage.bias.to_le_bytes());
        let mut zeros = 0u16;
        let flush = |out: &mut Vec<u8>, zeros: &mut u16| {
            if *zeros > 0 {
                out.extend_from_slice(&ZERO_RUN.to_le_bytes());
                out.extend_from_slice(&zeros.to_le_bytes());
                *zeros = 0;
            }
        };
        for &entry in &stage.entries {
            let value = entry.max(-i16::MAX);
            if value == 0 {
                zeros += 1;
                if zeros == u16::MAX {
                    flush(&mut out, &mut zeros);
                }
            } else {
                flush(&mut out, &mut zeros);
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        flush(&mut out, &mut zeros);
    }
    if let Some(interaction) = &record.interaction {
        debug_assert_eq!(interaction.scales.len(), record.stages.len());
        debug_assert_eq!(
            interaction.vectors.len(),
            entries * interaction.dim as usize
        );
        out.extend_from_slice(&interaction.dim.to_le_bytes());
        out.extend_from_slice(&interaction.shift.to_le_bytes());
        for scale in &interaction.scales {
            out.extend_from_slice(&scale.to_le_bytes());
        }
        for value in &interaction.vectors {
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    let checksum = fnv1a_32(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// The checksum stored in the last four bytes of a file (no other check: call it on bytes
/// that [`from_bytes`] accepts).
pub fn stored_checksum(bytes: &[u8]) -> Option<u32> {
    let tail = bytes.get(bytes.len().checked_sub(4)?..)?;
    Some(u32::from_le_bytes(tail.try_into().expect("4 bytes")))
}

/// Reads the file form of weights for the pattern set `pattern_set` with `entries` canonical
/// entries per stage; every inconsistency (damage, another version, set, unit or size) is an
/// error naming it.
pub fn from_bytes(bytes: &[u8], pattern_set: u32, entries: usize) -> Result<WeightsRecord> {
    ensure!(
        bytes.len() >= HEADER_AND_CHECKSUM,
        "weights file too short ({} bytes)",
        bytes.len()
    );
    ensure!(&bytes[..8] == MAGIC, "not a tsuru weights file (bad magic)");
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let checksum = u32::from_le_bytes(tail.try_into().expect("4 bytes"));
    ensure!(
        fnv1a_32(body) == checksum,
        "weights file checksum mismatch (the file is damaged)"
    );
    let mut reader = Reader::new(body, 8, "the weights file is truncated");
    let version = reader.u16()?;
    ensure!(
        (FORMAT_VERSION..=INTERACTION_VERSION + BLENDED_OFFSET).contains(&version),
        "weights format version {version} is not {FORMAT_VERSION} to {}",
        INTERACTION_VERSION + BLENDED_OFFSET
    );
    let blended = version > INTERACTION_VERSION;
    let unblended_version = match blended {
        true => version - BLENDED_OFFSET,
        false => version,
    };
    let has_interaction = unblended_version == INTERACTION_VERSION;
    let set = reader.u32()?;
    ensure!(
        set == pattern_set,
        "the weights are for another pattern set ({set:08x}, this build uses {pattern_set:08x})"
    );
    let stages = reader.u16()? as usize;
    ensure!((1..=60).contains(&stages), "bad stage count {stages}");
    ensure!(
        !blended || 60 % stages == 0,
        "{stages} stages read blended do not divide the 60 plies"
    );
    let units = reader.u16()?;
    ensure!(
        units as i32 == UNITS_PER_DISC,
        "weights in 1/{units} disc, expected 1/{UNITS_PER_DISC}"
    );
    let stored = reader.u32()? as usize;
    ensure!(
        stored == entries,
        "{stored} entries per stage, expected {entries}"
    );
    let mut record = WeightsRecord {
        pattern_set,
        stages: Vec::with_capacity(stages),
        interaction: None,
        blended,
    };
    for stage in 0..stages {
        let bias = reader.i16()?;
        let mut values = vec![0i16; entries];
        let mut next = 0;
        while next < entries {
            let value = reader.i16()?;
            if value == ZERO_RUN {
                let run = reader.u16()? as usize;
                ensure!(
                    run > 0 && next + run <= entries,
                    "bad zero run in stage {stage}"
                );
                next += run;
            } else {
                values[next] = value;
                next += 1;
            }
        }
        record.stages.push(StageRecord {
            bias,
            entries: values,
        });
    }
    if has_interaction {
        let dim = reader.u16()?;
        let shift = reader.u16()?;
        ensure!(dim >= 1, "interaction vectors of width 0");
        ensure!(
            (1..=62).contains(&shift),
            "bad interaction shift {shift} (1 to 62)"
        );
        let scales = (0..stages)
            .map(|_| reader.i32())
            .collect::<Result<Vec<i32>>>()?;
        let vectors = (0..entries * dim as usize)
            .map(|_| reader.i16())
            .collect::<Result<Vec<i16>>>()?;
        record.interaction = Some(InteractionRecord {
            dim,
            shift,
            scales,
            vectors,
        });
    }
    ensure!(
        reader.position() == body.len(),
        "{} stray bytes at the end",
        body.len() - reader.position()
    );
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> WeightsRecord {
        let stage = |bias, first| StageRecord {
            bias,
            // Zeros at the start, in the middle and at the end exercise the zero runs; the
            // marker value itself is written one higher.
            entries: vec![0, 0, first, -5, 0, 0, 0, 7, i16::MIN, 0],
        };
        WeightsRecord {
            pattern_set: 0x1234_5678,
            stages: vec![stage(-3, 12), stage(40, -1000)],
            interaction: None,
            blended: false,
        }
    }

    fn with_interaction() -> WeightsRecord {
        WeightsRecord {
            interaction: Some(InteractionRecord {
                dim: 2,
                shift: 20,
                scales: vec![-7, 1 << 20],
                vectors: (0..20).map(|i| i * 997 - 9000).collect(),
            }),
            ..record()
        }
    }

    #[test]
    fn the_interaction_section_round_trips_as_version_2() {
        let plain = to_bytes(&record());
        let bytes = to_bytes(&with_interaction());
        assert_eq!(&bytes[8..10], &[2, 0]);
        // The section sits between the stages and the checksum: dim, shift, 2 scales,
        // 10 entries x 2 values.
        assert_eq!(bytes.len(), plain.len() + 2 + 2 + 2 * 4 + 20 * 2);
        let start = plain.len() - 4;
        assert_eq!(&bytes[start..start + 4], &[2, 0, 20, 0]);
        assert_eq!(&bytes[start + 4..start + 8], &(-7i32).to_le_bytes());
        let mut expected = with_interaction();
        for stage in &mut expected.stages {
            stage.entries[8] = -i16::MAX;
        }
        assert_eq!(from_bytes(&bytes, 0x1234_5678, 10).unwrap(), expected);
        // Cut short (with a mended checksum) or of width 0, it is refused.
        let mut short = bytes[..bytes.len() - 6].to_vec();
        let checksum = fnv1a_32(&short);
        short.extend_from_slice(&checksum.to_le_bytes());
        let error = from_bytes(&short, 0x1234_5678, 10).unwrap_err().to_string();
        assert!(error.contains("truncated"), "{error}");
        let mut zero_width = bytes[..bytes.len() - 4].to_vec();
        zero_width[start] = 0;
        let checksum = fnv1a_32(&zero_width);
        zero_width.extend_from_slice(&checksum.to_le_bytes());
        let error = from_bytes(&zero_width, 0x1234_5678, 10)
            .unwrap_err()
            .to_string();
        assert!(error.contains("width 0"), "{error}");
    }

    #[test]
    fn blended_stages_are_versions_3_and_4_and_must_divide_60() {
        let plain = to_bytes(&record());
        for (base, version) in [(record(), 3u8), (with_interaction(), 4)] {
            let blended = WeightsRecord {
                blended: true,
                ..base.clone()
            };
            let bytes = to_bytes(&blended);
            assert_eq!(&bytes[8..10], &[version, 0]);
            // Only the version differs from the unblended file (and so the checksum).
            let unblended = to_bytes(&base);
            assert_eq!(
                bytes[10..bytes.len() - 4],
                unblended[10..unblended.len() - 4]
            );
            let read = from_bytes(&bytes, 0x1234_5678, 10).unwrap();
            assert!(read.blended);
            assert_eq!(read.interaction.is_some(), version == 4);
            assert_eq!(
                read.stages,
                from_bytes(&plain, 0x1234_5678, 10).unwrap().stages
            );
        }
        // 7 stages cannot be read blended (they would be unblended).
        let seven = WeightsRecord {
            stages: vec![record().stages[0].clone(); 7],
            blended: true,
            ..record()
        };
        let error = from_bytes(&to_bytes(&seven), 0x1234_5678, 10)
            .unwrap_err()
            .to_string();
        assert!(error.contains("do not divide"), "{error}");
        let unblended_seven = WeightsRecord {
            blended: false,
            ..seven
        };
        assert_eq!(
            from_bytes(&to_bytes(&unblended_seven), 0x1234_5678, 10)
                .unwrap()
                .stages
                .len(),
            7
        );
        // Version 5 is no version.
        let mut five = plain[..plain.len() - 4].to_vec();
        five[8] = 5;
        let checksum = fnv1a_32(&five);
        five.extend_from_slice(&checksum.to_le_bytes());
        let error = from_bytes(&five, 0x1234_5678, 10).unwrap_err().to_string();
        assert!(error.contains("version 5"), "{error}");
    }

    #[test]
    fn records_round_trip_and_the_layout_is_as_documented() {
        let bytes = to_bytes(&record());
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(&bytes[8..10], &[1, 0]);
        assert_eq!(&bytes[10..14], &0x1234_5678u32.to_le_bytes());
        assert_eq!(&bytes[14..16], &[2, 0]);
        assert_eq!(&bytes[16..18], &(UNITS_PER_DISC as u16).to_le_bytes());
        assert_eq!(&bytes[18..22], &[10, 0, 0, 0]);
        // Stage 0: bias, run of 2, 12, -5, run of 3, 7, -32767, run of 1.
        let stage: Vec<i16> = bytes[22..22 + 2 * 11]
            .chunks(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        assert_eq!(
            stage,
            [
                -3,
                i16::MIN,
                2,
                12,
                -5,
                i16::MIN,
                3,
                7,
                -i16::MAX,
                i16::MIN,
                1
            ]
        );
        assert_eq!(
            stored_checksum(&bytes),
            Some(fnv1a_32(&bytes[..bytes.len() - 4]))
        );
        let mut expected = record();
        for stage in &mut expected.stages {
            stage.entries[8] = -i16::MAX;
        }
        assert_eq!(from_bytes(&bytes, 0x1234_5678, 10).unwrap(), expected);
    }

    #[test]
    fn damage_and_other_expectations_are_refused() {
        let bytes = to_bytes(&record());
        let error =
            |bytes: &[u8], set, entries| from_bytes(bytes, set, entries).unwrap_err().to_string();
        let mut damaged = bytes.clone();
        damaged[24] ^= 1;
        assert!(error(&damaged, 0x1234_5678, 10).contains("checksum"));
        assert!(error(&bytes, 0x1234_5679, 10).contains("another pattern set"));
        assert!(error(&bytes, 0x1234_5678, 11).contains("entries per stage"));
        assert!(error(&bytes[..bytes.len() - 1], 0x1234_5678, 10).contains("checksum"));
        assert!(error(&bytes[..20], 0x1234_5678, 10).contains("too short"));
        assert!(error(b"not a weights file at all, no", 0, 10).contains("magic"));
    }
}
