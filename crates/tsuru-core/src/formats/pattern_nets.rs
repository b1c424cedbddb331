//! Pattern-network files: one small network per pattern shape and game stage, from which the
//! pattern tables are generated (`tsuru tables`; what the networks compute is
//! `lab::training::pattern_nets`). `crates/tsuru-lab/scripts/pattern_nets.py` writes them.
//!
//! Layout, little-endian:
//!
//! ```text
//! magic        8 bytes  "TSURUPNN"
//! version      u16      1
//! pattern set  u32      the pattern set's identity, as in weights files
//! stages       u16
//! shapes       u16
//! hidden       u16 u16  the widths of the two hidden layers, H1 and H2
//! mobility     u16      entries per side of the mobility table, M
//! squares      u8       per shape, its square count n
//! per stage             bias f32, then the mobility table f32 x M*M (own * M + theirs)
//! per shape,
//!  per stage            w1 f32 x 3n*H1 (input-major: input 3i+d is square i in state d),
//!                       b1 f32 x H1, w2 f32 x H1*H2 (H1-major), b2 f32 x H2,
//!                       w3 f32 x H2, b3 f32
//! checksum     u32      FNV-1a of every byte before it
//! ```
//!
//! Values are in discs.

use anyhow::{ensure, Context, Result};

use super::bytes::Reader;
use super::checksum::fnv1a_32;

/// The magic bytes at the start of a pattern-network file.
pub const MAGIC: &[u8; 8] = b"TSURUPNN";
/// The format version written and read.
pub const FORMAT_VERSION: u16 = 1;

/// One shape's network for one stage: inputs `3n` (one-hot square states), two ReLU hidden
/// layers and a linear output.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeNet {
    /// First layer, input-major: `w1[input * H1 + unit]`.
    pub w1: Vec<f32>,
    /// First layer's biases.
    pub b1: Vec<f32>,
    /// Second layer, `w2[first unit * H2 + second unit]`.
    pub w2: Vec<f32>,
    /// Second layer's biases.
    pub b2: Vec<f32>,
    /// Output weights.
    pub w3: Vec<f32>,
    /// Output bias.
    pub b3: f32,
}

/// What a pattern-network file holds.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternNetsRecord {
    /// The identity of the pattern set the networks are for.
    pub pattern_set: u32,
    /// Game stages.
    pub stages: usize,
    /// Widths of the two hidden layers.
    pub hidden: (usize, usize),
    /// Entries per side of the mobility table.
    pub mobility_side: usize,
    /// Squares of each shape.
    pub squares: Vec<usize>,
    /// Per stage, the bias in discs.
    pub bias: Vec<f32>,
    /// Per stage, the mobility table (`own * mobility_side + theirs`).
    pub mobility: Vec<Vec<f32>>,
    /// `nets[shape][stage]`.
    pub nets: Vec<Vec<ShapeNet>>,
}

/// The file form of `record`.
pub fn to_bytes(record: &PatternNetsRecord) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&record.pattern_set.to_le_bytes());
    for value in [
        record.stages,
        record.squares.len(),
        record.hidden.0,
        record.hidden.1,
        record.mobility_side,
    ] {
        out.extend_from_slice(&(value as u16).to_le_bytes());
    }
    out.extend(record.squares.iter().map(|&n| n as u8));
    let floats = |out: &mut Vec<u8>, values: &[f32]| {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    for stage in 0..record.stages {
        floats(&mut out, &[record.bias[stage]]);
        floats(&mut out, &record.mobility[stage]);
    }
    for shape in &record.nets {
        for net in shape {
            floats(&mut out, &net.w1);
            floats(&mut out, &net.b1);
            floats(&mut out, &net.w2);
            floats(&mut out, &net.b2);
            floats(&mut out, &net.w3);
            floats(&mut out, &[net.b3]);
        }
    }
    let checksum = fnv1a_32(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Reads a pattern-network file; a damaged file (checksum), another version or a file cut
/// short is refused.
pub fn from_bytes(bytes: &[u8]) -> Result<PatternNetsRecord> {
    ensure!(
        bytes.len() >= 30 && &bytes[..8] == MAGIC,
        "not a tsuru pattern-network file (no TSURUPNN magic)"
    );
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let checksum = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    ensure!(
        fnv1a_32(body) == checksum,
        "pattern-network file: checksum mismatch (damaged file)"
    );
    let mut cursor = Reader::new(body, 8, "the pattern-network file is truncated");
    let version = usize::from(cursor.u16()?);
    ensure!(
        version == usize::from(FORMAT_VERSION),
        "pattern-network file: version {version}, this build reads {FORMAT_VERSION}"
    );
    let pattern_set = cursor.u32()?;
    let stages = usize::from(cursor.u16()?);
    let shapes = usize::from(cursor.u16()?);
    let hidden = (usize::from(cursor.u16()?), usize::from(cursor.u16()?));
    let mobility_side = usize::from(cursor.u16()?);
    ensure!(
        stages > 0 && hidden.0 > 0 && hidden.1 > 0,
        "pattern-network file: empty"
    );
    let squares: Vec<usize> = cursor.take(shapes)?.iter().map(|&n| n as usize).collect();
    let mut bias = Vec::new();
    let mut mobility = Vec::new();
    for _ in 0..stages {
        bias.push(cursor.f32s(1)?[0]);
        mobility.push(cursor.f32s(mobility_side * mobility_side)?);
    }
    let mut nets = Vec::new();
    for &n in &squares {
        let mut shape = Vec::new();
        for _ in 0..stages {
            shape.push(ShapeNet {
                w1: cursor.f32s(3 * n * hidden.0)?,
                b1: cursor.f32s(hidden.0)?,
                w2: cursor.f32s(hidden.0 * hidden.1)?,
                b2: cursor.f32s(hidden.1)?,
                w3: cursor.f32s(hidden.1)?,
                b3: cursor.f32s(1)?[0],
            });
        }
        nets.push(shape);
    }
    ensure!(
        cursor.position() == body.len(),
        "pattern-network file: {} bytes left over",
        body.len() - cursor.position()
    );
    Ok(PatternNetsRecord {
        pattern_set,
        stages,
        hidden,
        mobility_side,
        squares,
        bias,
        mobility,
        nets,
    })
}

/// Reads the pattern-network file at `path`.
pub fn read(path: &std::path::Path) -> Result<PatternNetsRecord> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    from_bytes(&bytes).with_context(|| format!("in {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn small_record() -> PatternNetsRecord {
        let mut k = 0.0f32;
        let mut next = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| {
                    k += 0.37;
                    (k * 7.1).sin()
                })
                .collect()
        };
        let squares = vec![3, 2];
        let (h1, h2) = (4, 3);
        let nets = squares
            .iter()
            .map(|&n| {
                (0..2)
                    .map(|_| ShapeNet {
                        w1: next(3 * n * h1),
                        b1: next(h1),
                        w2: next(h1 * h2),
                        b2: next(h2),
                        w3: next(h2),
                        b3: next(1)[0],
                    })
                    .collect()
            })
            .collect();
        PatternNetsRecord {
            pattern_set: 0x1234_5678,
            stages: 2,
            hidden: (h1, h2),
            mobility_side: 3,
            squares,
            bias: next(2),
            mobility: vec![next(9), next(9)],
            nets,
        }
    }

    #[test]
    fn files_read_back_and_damage_is_refused() {
        let record = small_record();
        let bytes = to_bytes(&record);
        assert_eq!(from_bytes(&bytes).unwrap(), record);
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        let err = from_bytes(&damaged).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        assert!(from_bytes(&bytes[..bytes.len() - 8]).is_err());
    }
}
