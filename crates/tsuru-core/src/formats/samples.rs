//! Samples files: labelled training positions as the pattern look-ups they make, for a trainer
//! outside the engine (`crates/tsuru-lab/scripts/pattern_nets.py`, PyTorch) to read as one flat array. `tsuru
//! train --export-samples FILE` writes them; `tsuru tables --check FILE` reads them back.
//!
//! Layout, little-endian:
//!
//! ```text
//! magic "TSURUSMP" | header (ASCII, one line, ends with "\n") | records of 114 bytes:
//!     look-ups u16 x 55 | empties u8 | label i8 | flags u8 | reserved u8 (0)
//! ```
//!
//! The header is space-separated words:
//!
//! ```text
//! v1 lookups 55 records N held-out M pattern-set 0123abcd shapes 9,10,...,4 copies 0,0,0,0,1,...
//! mobility 36
//! ```
//!
//! (one line). The pattern set is the identity weights files carry (hex).
//! Look-up `c < 54` is pattern copy `c`'s index into its shape's table (shape `copies[c]`,
//! whose `shapes[s]` squares give `3^shapes[s]` entries; digit `i` of the index in base 3 is
//! the state of the shape's square `i`: 0 empty, 1 the side to move's disc, 2 the
//! opponent's), already tied to its canonical entry. Look-up 54 is the mobility table's
//! entry, `own * mobility + theirs`. The label is in discs for the side to move; flags bit 0
//! marks a held-out position. Training records come first, then the `M` held-out ones.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{bail, ensure, Context, Result};

/// The magic bytes at the start of a samples file.
pub const MAGIC: &[u8; 8] = b"TSURUSMP";
/// Bytes of one record.
pub const RECORD_BYTES: usize = 114;
/// Look-ups of a record.
pub const LOOKUPS: usize = 55;

/// What the look-ups of a samples file index: each shape's square count, each copy's shape
/// and the mobility table's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplesLayout {
    /// The identity of the pattern set.
    pub pattern_set: u32,
    /// Squares of each shape, in shape order.
    pub shapes: Vec<u8>,
    /// The shape of each pattern copy (`LOOKUPS - 1` of them).
    pub copies: Vec<u8>,
    /// Entries per side of the mobility table.
    pub mobility: u16,
}

/// One position of a samples file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleRecord {
    /// The look-ups (see the module doc).
    pub lookups: [u16; LOOKUPS],
    /// Empty squares of the position.
    pub empties: u8,
    /// The label in discs, side to move's view.
    pub label: i8,
    /// Whether the position is held out of training.
    pub held_out: bool,
}

fn join(values: impl Iterator<Item = u8>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

/// The header line (without its line break) of a file of `records` positions, `held_out` of
/// them held out.
fn header(layout: &SamplesLayout, records: u64, held_out: u64) -> String {
    format!(
        "v1 lookups {LOOKUPS} records {records} held-out {held_out} pattern-set {:08x} \
         shapes {} copies {} mobility {}",
        layout.pattern_set,
        join(layout.shapes.iter().copied()),
        join(layout.copies.iter().copied()),
        layout.mobility
    )
}

/// The bytes of one record.
pub fn record_bytes(record: &SampleRecord) -> [u8; RECORD_BYTES] {
    let mut out = [0u8; RECORD_BYTES];
    for (k, lookup) in record.lookups.iter().enumerate() {
        out[2 * k..2 * k + 2].copy_from_slice(&lookup.to_le_bytes());
    }
    out[2 * LOOKUPS] = record.empties;
    out[2 * LOOKUPS + 1] = record.label as u8;
    out[2 * LOOKUPS + 2] = u8::from(record.held_out);
    out
}

/// Writes `train` then `held_out` to `path` (each record's `held_out` flag is set from
/// which list it is in).
pub fn write(
    path: &Path,
    layout: &SamplesLayout,
    train: &[SampleRecord],
    held_out: &[SampleRecord],
) -> Result<()> {
    ensure!(
        layout.copies.len() == LOOKUPS - 1,
        "a samples file has {} pattern copies, not {}",
        LOOKUPS - 1,
        layout.copies.len()
    );
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let records = (train.len() + held_out.len()) as u64;
    out.write_all(MAGIC)?;
    out.write_all(header(layout, records, held_out.len() as u64).as_bytes())?;
    out.write_all(b"\n")?;
    for (&record, held) in train
        .iter()
        .map(|r| (r, false))
        .chain(held_out.iter().map(|r| (r, true)))
    {
        let mut record = record;
        record.held_out = held;
        out.write_all(&record_bytes(&record))?;
    }
    out.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// A samples file read whole: its layout and records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Samples {
    /// What the look-ups index.
    pub layout: SamplesLayout,
    /// Every record, training ones first.
    pub records: Vec<SampleRecord>,
}

/// Reads a samples file from its bytes; a file whose size does not match its header, or
/// whose header is not this version's, is refused.
pub fn from_bytes(bytes: &[u8]) -> Result<Samples> {
    ensure!(
        bytes.len() > MAGIC.len() && &bytes[..MAGIC.len()] == MAGIC,
        "not a tsuru samples file (no TSURUSMP magic)"
    );
    let rest = &bytes[MAGIC.len()..];
    let end = rest
        .iter()
        .position(|&b| b == b'\n')
        .context("samples file: the header line has no end")?;
    let line = std::str::from_utf8(&rest[..end]).context("samples file: header not ASCII")?;
    let words: Vec<&str> = line.split(' ').collect();
    let field = |name: &str| -> Result<&str> {
        let at = words
            .iter()
            .position(|w| *w == name)
            .with_context(|| format!("samples file: header without {name}"))?;
        words
            .get(at + 1)
            .copied()
            .with_context(|| format!("samples file: {name} without a value"))
    };
    ensure!(words.first() == Some(&"v1"), "samples file: not version 1");
    ensure!(
        field("lookups")? == LOOKUPS.to_string(),
        "samples file: not {LOOKUPS} look-ups a record"
    );
    let number = |name: &str| -> Result<u64> {
        field(name)?
            .parse()
            .with_context(|| format!("samples file: bad {name}"))
    };
    let list = |name: &str| -> Result<Vec<u8>> {
        field(name)?
            .split(',')
            .map(|v| {
                v.parse()
                    .with_context(|| format!("samples file: bad {name}"))
            })
            .collect()
    };
    let layout = SamplesLayout {
        pattern_set: u32::from_str_radix(field("pattern-set")?, 16)
            .context("samples file: bad pattern-set")?,
        shapes: list("shapes")?,
        copies: list("copies")?,
        mobility: number("mobility")? as u16,
    };
    let count = number("records")?;
    let held = number("held-out")?;
    ensure!(
        held <= count,
        "samples file: more held-out records than records"
    );
    let body = &rest[end + 1..];
    if body.len() as u64 != count * RECORD_BYTES as u64 {
        bail!(
            "samples file: {} bytes of records, the header says {count} records of {RECORD_BYTES}",
            body.len()
        );
    }
    let records = body
        .chunks_exact(RECORD_BYTES)
        .map(|chunk| {
            let mut lookups = [0u16; LOOKUPS];
            for (k, lookup) in lookups.iter_mut().enumerate() {
                *lookup = u16::from_le_bytes([chunk[2 * k], chunk[2 * k + 1]]);
            }
            SampleRecord {
                lookups,
                empties: chunk[2 * LOOKUPS],
                label: chunk[2 * LOOKUPS + 1] as i8,
                held_out: chunk[2 * LOOKUPS + 2] & 1 != 0,
            }
        })
        .collect::<Vec<_>>();
    let flagged = records.iter().filter(|r| r.held_out).count() as u64;
    ensure!(
        flagged == held
            && records[(count - held) as usize..]
                .iter()
                .all(|r| r.held_out),
        "samples file: the held-out records are not the last {held}"
    );
    Ok(Samples { layout, records })
}

/// Reads the samples file at `path` ([`from_bytes`]).
pub fn read(path: &Path) -> Result<Samples> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    from_bytes(&bytes).with_context(|| format!("in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> SamplesLayout {
        SamplesLayout {
            pattern_set: 0x00ab_cdef,
            shapes: vec![9, 4],
            copies: (0..LOOKUPS as u8 - 1).map(|c| c % 2).collect(),
            mobility: 36,
        }
    }

    fn record(seed: u16) -> SampleRecord {
        let mut lookups = [0u16; LOOKUPS];
        for (k, lookup) in lookups.iter_mut().enumerate() {
            *lookup = seed.wrapping_mul(31).wrapping_add(k as u16 * 7);
        }
        SampleRecord {
            lookups,
            empties: (seed % 61) as u8,
            label: (seed as i16 % 129 - 64) as i8,
            held_out: false,
        }
    }

    #[test]
    fn files_read_back_as_written() {
        let dir = std::env::temp_dir().join(format!("tsuru-samples-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.bin");
        let train: Vec<SampleRecord> = (0..5).map(record).collect();
        let held: Vec<SampleRecord> = (5..7).map(record).collect();
        write(&path, &layout(), &train, &held).unwrap();
        let samples = read(&path).unwrap();
        assert_eq!(samples.layout, layout());
        assert_eq!(samples.records.len(), 7);
        assert_eq!(samples.records[..5], train[..]);
        for (read, written) in samples.records[5..].iter().zip(&held) {
            assert!(read.held_out);
            assert_eq!(read.lookups, written.lookups);
            assert_eq!((read.empties, read.label), (written.empties, written.label));
        }
        // A truncated file is refused, not read short.
        let bytes = std::fs::read(&path).unwrap();
        let err = from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(err.to_string().contains("header says 7 records"), "{err}");
        assert!(from_bytes(b"TSURUPOSxxxx").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
