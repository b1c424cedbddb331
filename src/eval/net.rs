//! The pattern network: a second term of the pattern evaluation that sums, for the same
//! feature entries the linear tables look up ([`super::pattern::features`]), one embedding
//! row of [`HIDDEN`] values each into an accumulator shared by all stages, and passes it
//! through a small head of the position's stage: a clipped ReLU, [`HEAD`] ReLU units and one
//! output, in discs. The linear tables value each pattern on its own; the head values how
//! they combine (which regions are open together, who holds which corners at once).
//!
//! The network is stored beside a weights file `X` as `X.net` (made by `tsuru train
//! --net-out`): the embedding rows of the canonical entries, quantised to 1/4096, then each
//! stage's head in `f32`, all little-endian, then an FNV-1a checksum:
//!
//! ```text
//! "TSNN" | version u32 = 1 | pattern set u32 | hidden u32 | stages u32 | canonical entries u32
//! | rows: canonical entries x hidden i16 | heads: stages x (acc bias[hidden], w1[HEAD x
//! hidden], b1[HEAD], w2[HEAD], b2) f32 | checksum u32
//! ```

use anyhow::{ensure, Result};

use super::pattern::layout;
use crate::board::patterns::{COPIES, LANES};
use crate::formats::weights::fnv1a;

/// Units of a head's hidden layer.
pub const HEAD: usize = 16;
/// Width of the embedding rows and the accumulator that the engine evaluates.
pub const HIDDEN: usize = 16;

const MAGIC: &[u8; 4] = b"TSNN";
const VERSION: u32 = 1;
/// Embedding values are stored as multiples of this.
const ROW_SCALE: f32 = 1.0 / 4096.0;

/// One stage's head, in discs.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    /// The accumulator's bias (`hidden`).
    pub acc_bias: Vec<f32>,
    /// The first layer, `HEAD x hidden`, row-major.
    pub w1: Vec<f32>,
    /// Its biases (`HEAD`).
    pub b1: Vec<f32>,
    /// The output weights (`HEAD`).
    pub w2: Vec<f32>,
    /// The output bias.
    pub b2: f32,
}

/// The network part of an evaluation, as stored: embedding rows per flat entry (tied entries
/// equal) and a head per stage.
#[derive(Clone, Debug, PartialEq)]
pub struct NetPart {
    /// Accumulator width.
    pub hidden: usize,
    /// `layout().total x hidden`.
    pub embedding: Vec<f32>,
    /// One head per stage.
    pub heads: Vec<Head>,
}

fn push_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn push_f32(out: &mut Vec<u8>, value: f32) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// Reads little-endian values from a byte slice, failing on a short file.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        ensure!(
            self.bytes.len() - self.at >= n,
            "the network file is truncated"
        );
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn f32(&mut self) -> Result<f32> {
        let value = f32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes"));
        ensure!(
            value.is_finite(),
            "the network file holds a non-finite value"
        );
        Ok(value)
    }

    fn f32s(&mut self, n: usize) -> Result<Vec<f32>> {
        (0..n).map(|_| self.f32()).collect()
    }
}

impl NetPart {
    /// The file form (see the module doc); embedding values are rounded to 1/4096.
    pub fn to_bytes(&self) -> Vec<u8> {
        let layout = layout();
        let h = self.hidden;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        push_u32(&mut out, VERSION);
        push_u32(&mut out, layout.pattern_set_id);
        push_u32(&mut out, h as u32);
        push_u32(&mut out, self.heads.len() as u32);
        push_u32(&mut out, layout.canonical_entries.len() as u32);
        for &entry in &layout.canonical_entries {
            for &value in &self.embedding[entry as usize * h..(entry as usize + 1) * h] {
                let q = (value / ROW_SCALE).round().clamp(-32767.0, 32767.0) as i16;
                out.extend_from_slice(&q.to_le_bytes());
            }
        }
        for head in &self.heads {
            for &v in head
                .acc_bias
                .iter()
                .chain(&head.w1)
                .chain(&head.b1)
                .chain(&head.w2)
            {
                push_f32(&mut out, v);
            }
            push_f32(&mut out, head.b2);
        }
        let checksum = fnv1a(&out);
        push_u32(&mut out, checksum);
        out
    }

    /// Reads the file form for this build's pattern set; every inconsistency is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<NetPart> {
        ensure!(bytes.len() >= 28, "the network file is truncated");
        let (body, stored) = bytes.split_at(bytes.len() - 4);
        ensure!(
            fnv1a(body) == u32::from_le_bytes(stored.try_into().expect("4 bytes")),
            "the network file is damaged (checksum mismatch)"
        );
        let layout = layout();
        let mut reader = Reader { bytes: body, at: 0 };
        ensure!(reader.take(4)? == MAGIC, "not a tsuru network file");
        ensure!(reader.u32()? == VERSION, "unknown network file version");
        ensure!(
            reader.u32()? == layout.pattern_set_id,
            "the network was made for another pattern set"
        );
        let h = reader.u32()? as usize;
        ensure!(
            h == HIDDEN,
            "the network is {h} wide; this build evaluates {HIDDEN}"
        );
        let stages = reader.u32()? as usize;
        ensure!(
            (1..=60).contains(&stages),
            "{stages} stages in the network file"
        );
        ensure!(
            reader.u32()? as usize == layout.canonical_entries.len(),
            "the network file's entry count does not match the pattern set"
        );
        let mut embedding = vec![0.0f32; layout.total * h];
        for &entry in &layout.canonical_entries {
            let row = reader.take(2 * h)?;
            for (j, pair) in row.chunks_exact(2).enumerate() {
                let q = i16::from_le_bytes([pair[0], pair[1]]);
                embedding[entry as usize * h + j] = f32::from(q) * ROW_SCALE;
            }
        }
        for entry in 0..layout.total {
            let canonical = layout.canonical[entry] as usize;
            if canonical != entry {
                embedding.copy_within(canonical * h..(canonical + 1) * h, entry * h);
            }
        }
        let mut heads = Vec::with_capacity(stages);
        for _ in 0..stages {
            heads.push(Head {
                acc_bias: reader.f32s(h)?,
                w1: reader.f32s(HEAD * h)?,
                b1: reader.f32s(HEAD)?,
                w2: reader.f32s(HEAD)?,
                b2: reader.f32()?,
            });
        }
        ensure!(
            reader.at == body.len(),
            "the network file has trailing bytes"
        );
        Ok(NetPart {
            hidden: h,
            embedding,
            heads,
        })
    }

    /// The checksum stored in the last four bytes of a network file.
    pub fn file_id(bytes: &[u8]) -> Option<u32> {
        let tail = bytes.get(bytes.len().checked_sub(4)?..)?;
        Some(u32::from_le_bytes(tail.try_into().ok()?))
    }
}

/// A head ready for evaluation.
#[derive(Clone, Debug)]
struct FixedHead {
    acc_bias: [f32; HIDDEN],
    /// The first layer transposed, `w1_by_input[j][k]` = `w1[k * hidden + j]`: the layer is
    /// then [`HIDDEN`] vector steps over all `HEAD` units at once, with each unit's sum taken
    /// in the same order as a row-by-row dot product (so the values are the same).
    w1_by_input: [[f32; HEAD]; HIDDEN],
    b1: [f32; HEAD],
    w2: [f32; HEAD],
    b2: f32,
}

/// The network prepared for evaluation: embedding rows for both sides to move (the second
/// half with the digits of the side to move and the opponent swapped, as the linear tables).
#[derive(Clone, Debug)]
pub struct NetEval {
    /// In units of 1/4096, as stored: half the bytes of `f32` rows, so more of the table
    /// stays in the caches (the evaluation reads 55 random rows).
    rows: Vec<[i16; HIDDEN]>,
    heads: Vec<FixedHead>,
}

impl NetEval {
    /// Prepares a stored network; `None` unless it is [`HIDDEN`] wide.
    pub fn new(part: &NetPart) -> Option<NetEval> {
        if part.hidden != HIDDEN {
            return None;
        }
        let layout = layout();
        let row = |entry: usize| -> [i16; HIDDEN] {
            std::array::from_fn(|j| {
                (part.embedding[entry * HIDDEN + j] / ROW_SCALE)
                    .round()
                    .clamp(-32767.0, 32767.0) as i16
            })
        };
        let mut rows = Vec::with_capacity(2 * layout.total);
        rows.extend((0..layout.total).map(row));
        rows.extend((0..layout.total).map(|entry| row(layout.swapped[entry] as usize)));
        let heads = part
            .heads
            .iter()
            .map(|head| FixedHead {
                acc_bias: head.acc_bias.clone().try_into().expect("HIDDEN values"),
                w1_by_input: std::array::from_fn(|j| {
                    std::array::from_fn(|k| head.w1[k * HIDDEN + j])
                }),
                b1: head.b1.clone().try_into().expect("HEAD values"),
                w2: head.w2.clone().try_into().expect("HEAD values"),
                b2: head.b2,
            })
            .collect();
        Some(NetEval { rows, heads })
    }

    /// Stages of the network.
    pub fn stages(&self) -> usize {
        self.heads.len()
    }

    /// The head's value in discs for a position of `stage` whose side to move has index
    /// `side` (0 Black, 1 White), with pattern indices `indices` and the mobility table's
    /// flat entry `mobility`.
    #[inline]
    pub fn value(&self, stage: usize, side: usize, indices: &[u16; LANES], mobility: usize) -> f32 {
        let layout = layout();
        let base = side * layout.total;
        let head = &self.heads[stage];
        let mut sum = [0i32; HIDDEN];
        let mut add = |row: &[i16; HIDDEN]| {
            for (a, &r) in sum.iter_mut().zip(row) {
                *a += i32::from(r);
            }
        };
        for (&offset, &index) in layout.copy_offsets.iter().zip(&indices[..COPIES]) {
            add(&self.rows[base + offset + index as usize]);
        }
        add(&self.rows[base + mobility]);
        let mut acc = [0.0f32; HIDDEN];
        for ((a, &b), &s) in acc.iter_mut().zip(&head.acc_bias).zip(&sum) {
            *a = (b + s as f32 * ROW_SCALE).clamp(0.0, 1.0);
        }
        let mut z = head.b1;
        for (column, &a) in head.w1_by_input.iter().zip(&acc) {
            for (z, &w) in z.iter_mut().zip(column) {
                *z += w * a;
            }
        }
        let mut out = head.b2;
        for (&w, &z) in head.w2.iter().zip(&z) {
            out += w * z.max(0.0);
        }
        out
    }
}

/// A random network (tests only) of `stages` stages, tied entries equal as a fit makes them.
#[cfg(test)]
pub fn random_part(stages: usize, seed: u64) -> NetPart {
    let layout = layout();
    let mut rng = crate::rng::Rng::new(seed);
    let mut uniform = |scale: f32| (rng.below(2001) as f32 / 1000.0 - 1.0) * scale;
    let mut embedding: Vec<f32> = (0..layout.total * HIDDEN).map(|_| uniform(0.1)).collect();
    for entry in 0..layout.total {
        let canonical = layout.canonical[entry] as usize;
        embedding.copy_within(canonical * HIDDEN..(canonical + 1) * HIDDEN, entry * HIDDEN);
    }
    // Quantise as the file does, so that a round trip is exact.
    for v in embedding.iter_mut() {
        *v = (*v / ROW_SCALE).round() * ROW_SCALE;
    }
    let heads = (0..stages)
        .map(|_| Head {
            acc_bias: (0..HIDDEN).map(|_| 0.5 + uniform(0.3)).collect(),
            w1: (0..HEAD * HIDDEN).map(|_| uniform(0.5)).collect(),
            b1: (0..HEAD).map(|_| uniform(0.2)).collect(),
            w2: (0..HEAD).map(|_| uniform(3.0)).collect(),
            b2: uniform(1.0),
        })
        .collect();
    NetPart {
        hidden: HIDDEN,
        embedding,
        heads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The network's value as its definition reads (row-major head, one unit at a time),
    /// from the stored part: what [`NetEval::value`]'s vector form must equal exactly.
    fn reference_value(
        part: &NetPart,
        stage: usize,
        side: usize,
        indices: &[u16; LANES],
        mobility: usize,
    ) -> f32 {
        let layout = layout();
        let entry = |flat: usize| {
            if side == 0 {
                flat
            } else {
                layout.swapped[flat] as usize
            }
        };
        let mut sum = [0i32; HIDDEN];
        let flats = layout
            .copy_offsets
            .iter()
            .zip(&indices[..COPIES])
            .map(|(&offset, &index)| offset + index as usize)
            .chain([mobility]);
        for flat in flats {
            let row = &part.embedding[entry(flat) * HIDDEN..(entry(flat) + 1) * HIDDEN];
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += (v / ROW_SCALE).round() as i32;
            }
        }
        let head = &part.heads[stage];
        let acc: Vec<f32> = (0..HIDDEN)
            .map(|j| (head.acc_bias[j] + sum[j] as f32 * ROW_SCALE).clamp(0.0, 1.0))
            .collect();
        let mut out = head.b2;
        for k in 0..HEAD {
            let mut z = head.b1[k];
            for (&w, &a) in head.w1[k * HIDDEN..(k + 1) * HIDDEN].iter().zip(&acc) {
                z += w * a;
            }
            out += head.w2[k] * z.max(0.0);
        }
        out
    }

    #[test]
    fn the_vector_head_equals_the_definition_exactly() {
        let part = random_part(15, 41);
        let net = NetEval::new(&part).unwrap();
        let layout = layout();
        let mut rng = crate::rng::Rng::new(43);
        let mut nonzero = 0;
        for plies in [0, 4, 9, 15, 22, 30, 38, 45, 51, 57] {
            let board = crate::eval::pattern::random_board(&mut rng, plies);
            let indices = *board.pattern_indices();
            let mobility_entries = layout.total - layout.mobility_offset;
            for stage in [0, 7, 14] {
                for side in [0, 1] {
                    let mobility =
                        layout.mobility_offset + rng.below(mobility_entries as u64) as usize;
                    let value = net.value(stage, side, &indices, mobility);
                    let expected = reference_value(&part, stage, side, &indices, mobility);
                    assert_eq!(
                        value.to_bits(),
                        expected.to_bits(),
                        "{plies} plies, stage {stage}"
                    );
                    nonzero += usize::from(value != 0.0);
                }
            }
        }
        assert!(nonzero > 50, "{nonzero}");
    }

    #[test]
    fn the_file_form_round_trips_and_refuses_damage() {
        let part = random_part(3, 5);
        let bytes = part.to_bytes();
        assert_eq!(NetPart::from_bytes(&bytes).unwrap(), part);
        for cut in [0, 10, 27, bytes.len() / 2, bytes.len() - 1] {
            assert!(NetPart::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in [0, 5, 30, bytes.len() / 2, bytes.len() - 2] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(NetPart::from_bytes(&damaged).is_err(), "byte {at} flipped");
        }
        let mut longer = bytes[..bytes.len() - 4].to_vec();
        longer.push(0);
        let checksum = fnv1a(&longer);
        longer.extend_from_slice(&checksum.to_le_bytes());
        assert!(NetPart::from_bytes(&longer).is_err(), "trailing bytes");
    }
}
