//! The trained pattern evaluation: a sum of table look-ups, one per pattern copy, plus a bias,
//! with one weight set per game stage.
//!
//! Tables are indexed from the side to move's view: digit 1 is a disc of the side to move,
//! 2 one of the opponent. The board keeps indices in absolute colours (1 Black, 2 White), so
//! [`PatternEval`] holds every table twice, once as stored (Black to move) and once with the
//! digits 1 and 2 swapped (White to move), and the 54 pattern look-ups are direct.
//!
//! One more look-up is not a pattern: the *mobility table*, indexed by the number of legal
//! moves of the side to move and of the opponent (each capped at [`MOBILITY_SIDE`] - 1), so
//! the weight of a mobility difference can depend on how much mobility there is. It is
//! computed from the bitboards at evaluation time, is already from the side to move's view,
//! and follows the pattern tables in a stage's flat table. [`features`] lists all
//! [`FEATURES`] look-ups of a position.
//!
//! A shape whose squares some symmetry maps onto themselves (row 2, the corner 3x3...) sees
//! each configuration and its mirror image as the same pattern: [`Layout::canonical`] maps
//! both to one index, training ties them, and the weights file stores only canonical entries.
//!
//! The weights file stores only the canonical entries of each stage, in order; its byte
//! layout is [`crate::formats::weights`].
//!
//! Weights may also hold an *interaction term* ([`Interaction`], a factorisation machine):
//! every flat entry carries a vector v of [`Interaction::dim`] components, at most
//! [`MAX_INTERACTION_DIM`] (shared by all stages), and a
//! position whose look-ups are the entries 1..n gains `s * 2 * sum over pairs i < j of <v_i,
//! v_j>`, with a scale s per stage (the exact form is [`Interaction`]'s). [`PatternEval`]
//! evaluates it in the folded form: since
//! `2 * sum_{i<j} <v_i, v_j> = |sum_i v_i|^2 - sum_i |v_i|^2`, the second sum belongs to each
//! entry alone and is subtracted from the entry's table value when the weights are prepared,
//! so an evaluation adds one d-wide sum of rows at the look-ups it already makes and one
//! squared norm. Rows are read only for the look-ups whose shape (or the mobility table) has
//! a nonzero vector, so a term over a few shapes costs a few reads, and rows whose components
//! all fit in 8 bits are kept in 16 bytes instead of 32 (the same values, half the memory).
//! Every row is [`MAX_INTERACTION_DIM`] wide whatever the term's width, its unused
//! components zero, so one code path serves every width and a row stays one aligned read
//! within a cache line.

use std::sync::{Arc, OnceLock};

use anyhow::{ensure, Context, Result};

use super::{stage_blend, Evaluation};
use crate::board::patterns::{pattern_tables, pow3, Shape, COPIES, SHAPES};
use crate::board::{bits, Board, Color, Symmetry};
use crate::formats::term::{self as term_file, TermRecord};
use crate::formats::weights::{self as file, InteractionRecord, StageRecord, WeightsRecord};
use crate::score::Score;

use crate::formats::checksum::fnv1a_32;
/// Entries per side of the mobility table: mobility counts 0 to 35 (more share the last).
pub const MOBILITY_SIDE: usize = 36;
/// Look-ups per evaluation: one per pattern copy, then the mobility table.
pub const FEATURES: usize = COPIES + 1;

/// The stage of a position with `empties` empty squares when there are `stages` stages: the
/// 60 plies are cut into `stages` equal parts (15 stages: 4 plies each).
#[inline]
pub fn stage_of(empties: u32, stages: usize) -> usize {
    let ply = 60usize.saturating_sub(empties as usize);
    (ply * stages / 60).min(stages - 1)
}

/// Where each shape's table starts, how copies map to tables, and the tie and colour-swap
/// maps; derived from [`SHAPES`] once.
pub struct Layout {
    /// Length of a stage's flat table (all shapes).
    pub total: usize,
    /// Per copy: the start of its shape's table.
    pub copy_offsets: [usize; COPIES],
    /// Per flat entry: the canonical entry it is tied to (itself if canonical).
    pub canonical: Vec<u32>,
    /// Per flat entry: the entry with digits 1 and 2 swapped.
    pub swapped: Vec<u32>,
    /// The canonical entries in order (what the file stores).
    pub canonical_entries: Vec<u32>,
    /// Start of the mobility table in a stage's flat table (after every shape's table).
    pub mobility_offset: usize,
    /// FNV-1a of the shapes and the mobility table's size.
    pub pattern_set_id: u32,
}

/// Position permutations of `shape` under the symmetries that map its squares onto
/// themselves (identity excluded): `perm[i]` is where the square at position `i` goes.
fn self_symmetries(shape: &Shape) -> Vec<Vec<usize>> {
    let squares: Vec<crate::board::Square> = shape
        .squares
        .iter()
        .map(|s| s.parse().expect("valid"))
        .collect();
    let mut perms = Vec::new();
    for symmetry in Symmetry::ALL.iter().skip(1) {
        let perm: Option<Vec<usize>> = squares
            .iter()
            .map(|&sq| squares.iter().position(|&t| t == symmetry.apply(sq)))
            .collect();
        if let Some(perm) = perm {
            if !perms.contains(&perm) && perm.iter().enumerate().any(|(i, &p)| i != p) {
                perms.push(perm);
            }
        }
    }
    perms
}

/// The layout of the pattern set, built once.
pub fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let mut offsets = Vec::new();
        let mut total = 0;
        for shape in &SHAPES {
            offsets.push(total);
            total += pow3(shape.squares.len());
        }
        let mobility_offset = total;
        total += MOBILITY_SIDE * MOBILITY_SIDE;
        let mut copy_offsets = [0usize; COPIES];
        for (copy, offset) in pattern_tables().copies.iter().zip(copy_offsets.iter_mut()) {
            *offset = offsets[copy.shape];
        }
        let mut canonical = vec![0u32; total];
        let mut swapped = vec![0u32; total];
        for (shape_index, shape) in SHAPES.iter().enumerate() {
            let len = shape.squares.len();
            let perms = self_symmetries(shape);
            // The place value each position's digit takes in each symmetry's image.
            let weights: Vec<Vec<usize>> = perms
                .iter()
                .map(|perm| perm.iter().map(|&to| pow3(to)).collect())
                .collect();
            // Per position, 3^i: an index is the sum of digit * 3^i (no allocation per index:
            // this runs for every entry at every start).
            let place: Vec<usize> = (0..len).map(pow3).collect();
            for index in 0..pow3(len) {
                let mut best = index;
                for weight in &weights {
                    // The image has at position perm[i] the digit that was at i.
                    let mut rest = index;
                    let mut image = 0;
                    for &w in weight {
                        image += rest % 3 * w;
                        rest /= 3;
                    }
                    best = best.min(image);
                }
                let mut swap = 0;
                let mut rest = index;
                for &p in &place {
                    swap += [0, 2, 1][rest % 3] * p;
                    rest /= 3;
                }
                canonical[offsets[shape_index] + index] = (offsets[shape_index] + best) as u32;
                swapped[offsets[shape_index] + index] = (offsets[shape_index] + swap) as u32;
            }
        }
        // Mobility entries are already from the side to move's view and have no mirror images.
        for entry in mobility_offset..total {
            canonical[entry] = entry as u32;
            swapped[entry] = entry as u32;
        }
        let canonical_entries = (0..total as u32)
            .filter(|&i| canonical[i as usize] == i)
            .collect();
        let mut description = String::new();
        for shape in &SHAPES {
            description.push_str(shape.name);
            description.push(':');
            description.push_str(&shape.squares.join(","));
            description.push(';');
        }
        description.push_str(&format!("mobility:{MOBILITY_SIDE};"));
        Layout {
            total,
            copy_offsets,
            canonical,
            swapped,
            canonical_entries,
            mobility_offset,
            pattern_set_id: fnv1a_32(description.as_bytes()),
        }
    })
}

/// The mobility table's entry for `board`, whose table starts at `offset`.
#[inline]
fn mobility_entry(board: &Board, offset: usize) -> usize {
    mobility_entry_with(board, board.legal_moves(), offset)
}

/// [`mobility_entry`] given the side to move's legal squares `moves`.
#[inline]
fn mobility_entry_with(board: &Board, moves: u64, offset: usize) -> usize {
    let (player, opponent) = (board.player_discs(), board.opponent_discs());
    let own = moves.count_ones() as usize;
    let theirs = bits::mobility(opponent, player).count_ones() as usize;
    offset + own.min(MOBILITY_SIDE - 1) * MOBILITY_SIDE + theirs.min(MOBILITY_SIDE - 1)
}

/// The flat-table entries a position looks up (the pattern copies, then the mobility table),
/// from the side to move's view and tied to canonical entries (what training sees).
pub fn features(board: &Board) -> [u32; FEATURES] {
    let layout = layout();
    let indices = board.pattern_indices();
    let white = board.side_to_move() == Color::White;
    let mut out = [0u32; FEATURES];
    out[COPIES] = mobility_entry(board, layout.mobility_offset) as u32;
    for copy in 0..COPIES {
        let mut entry = layout.copy_offsets[copy] + indices[copy] as usize;
        if white {
            entry = layout.swapped[entry] as usize;
        }
        out[copy] = layout.canonical[entry];
    }
    out
}

/// The identity of a weights file: the checksum in its last four bytes
/// ([`Weights::file_id`]), written as eight hex digits. Statistics measured for some weights
/// record it, so that they are never used with others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WeightsId(pub u32);

impl std::fmt::Display for WeightsId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:08x}", self.0)
    }
}

impl std::str::FromStr for WeightsId {
    type Err = anyhow::Error;

    /// Eight hex digits, as [`WeightsId`] displays.
    fn from_str(text: &str) -> Result<WeightsId> {
        ensure!(
            text.len() == 8 && text.bytes().all(|b| b.is_ascii_hexdigit()),
            "a weights checksum is eight hex digits, not {text:?}"
        );
        Ok(WeightsId(u32::from_str_radix(text, 16)?))
    }
}

/// The widest interaction vectors this build evaluates: a file's term may be 1 to this many
/// components wide ([`Interaction::dim`]); a wider one is refused.
pub const MAX_INTERACTION_DIM: usize = 16;

/// `dim` if this build evaluates vectors that wide (1 to [`MAX_INTERACTION_DIM`]), else the
/// error that names it.
fn checked_dim(dim: usize) -> Result<usize> {
    ensure!(
        (1..=MAX_INTERACTION_DIM).contains(&dim),
        "interaction vectors {dim} wide; this build evaluates 1 to {MAX_INTERACTION_DIM}"
    );
    Ok(dim)
}

/// Every flat entry's vector from a file's `dim` components per canonical entry (in file
/// order), zero-padded to [`MAX_INTERACTION_DIM`], tied entries given their canonical one's.
/// `dim` must have passed [`checked_dim`].
fn padded_vectors<T: Copy + Into<i16>>(
    dim: usize,
    stored: &[T],
) -> Vec<[i16; MAX_INTERACTION_DIM]> {
    let layout = layout();
    let mut vectors = vec![[0i16; MAX_INTERACTION_DIM]; layout.total];
    for (&entry, values) in layout
        .canonical_entries
        .iter()
        .zip(stored.chunks_exact(dim))
    {
        for (slot, &value) in vectors[entry as usize].iter_mut().zip(values) {
            *slot = value.into();
        }
    }
    for entry in 0..layout.total {
        vectors[entry] = vectors[layout.canonical[entry] as usize];
    }
    vectors
}

/// The interaction term of [`Weights`] (see the module doc). Its value for a position whose
/// look-ups ([`features`]) are the entries `e_1 .. e_n` is, by definition,
///
/// ```text
/// scales[stage] * (|v_1 + ... + v_n|^2 - (|v_1|^2 + ... + |v_n|^2)) / 2^shift
/// ```
///
/// in Score units (exact, then rounded once). [`PatternEval`] folds it: each entry's table
/// value loses `round(scales[stage] * |v_e|^2 / 2^shift)` and the evaluation adds
/// `round(scales[stage] * |sum v|^2 / 2^shift)`, which differs from the definition by at most
/// half a unit per look-up and half for the sum ([`Interaction::FOLDING_ERROR`] units).
#[derive(Clone, Debug, PartialEq)]
pub struct Interaction {
    /// The vectors' width: 1 to [`MAX_INTERACTION_DIM`] components, the rest of each
    /// stored vector zero (what a file holds and writes back).
    pub dim: usize,
    /// The scales are divided by `2^shift` (1 to 62).
    pub shift: u32,
    /// Per stage: the scale.
    pub scales: Vec<i32>,
    /// Per flat entry (`layout().total`; tied entries equal): the vector, zero from
    /// component `dim` on.
    pub vectors: Vec<[i16; MAX_INTERACTION_DIM]>,
}

impl Interaction {
    /// The most the folded evaluation can differ from the definition, in Score units
    /// (half a unit of rounding per look-up and for the sum, rounded up).
    pub const FOLDING_ERROR: i64 = (FEATURES as i64 + 2) / 2;

    /// `round(scale * norm / 2^shift)`, halves rounded up.
    #[inline]
    fn scaled(&self, scale: i64, norm: i64) -> i64 {
        (scale * norm + (1i64 << (self.shift - 1))) >> self.shift
    }

    /// Refuses terms whose arithmetic could overflow 64 bits, whose folded entries leave
    /// the tables' 16 bits, whose shape does not match the `weights`, or whose vectors have
    /// components beyond their width.
    fn check(&self, weights: &Weights) -> Result<()> {
        checked_dim(self.dim)?;
        ensure!(
            self.vectors
                .iter()
                .all(|v| v[self.dim..].iter().all(|&x| x == 0)),
            "interaction vectors with components beyond their width {}",
            self.dim
        );
        ensure!(
            (1..=62).contains(&self.shift),
            "bad interaction shift {}",
            self.shift
        );
        ensure!(
            self.scales.len() == weights.stages(),
            "{} interaction scales for {} stages",
            self.scales.len(),
            weights.stages()
        );
        ensure!(self.vectors.len() == layout().total, "bad interaction size");
        let largest = self
            .vectors
            .iter()
            .flatten()
            .map(|&v| i128::from(v).abs())
            .max()
            .unwrap_or(0);
        let scale = self
            .scales
            .iter()
            .map(|&s| i128::from(s).abs())
            .max()
            .unwrap_or(0);
        ensure!(
            FEATURES as i128 * largest <= i128::from(i16::MAX),
            "interaction vectors too large for 16-bit sums (largest component {largest}, at most {})",
            i16::MAX as usize / FEATURES
        );
        let norm = self.dim as i128 * (FEATURES as i128 * largest).pow(2);
        ensure!(
            norm * scale < 1i128 << 62,
            "interaction vectors and scales too large for 64-bit sums"
        );
        for (stage, table) in weights.tables.iter().enumerate() {
            for (entry, &value) in table.iter().enumerate() {
                let folded = i64::from(value) - self.fold(stage, entry);
                ensure!(
                    folded.abs() <= i64::from(i16::MAX),
                    "stage {stage} entry {entry}: the folded interaction leaves 16 bits ({folded})"
                );
            }
        }
        Ok(())
    }

    /// What folding subtracts from `entry`'s table value at `stage`.
    fn fold(&self, stage: usize, entry: usize) -> i64 {
        let norm: i64 = self.vectors[entry]
            .iter()
            .map(|&v| i64::from(v) * i64::from(v))
            .sum();
        self.scaled(i64::from(self.scales[stage]), norm)
    }

    /// The term for the look-ups `entries` at `stage`, rounded once: equal to
    /// [`Interaction::by_definition`], computed through `|sum|^2 - sum of |v|^2` (exact in
    /// integers); for tools, not the search.
    pub fn value_of(&self, stage: usize, entries: &[u32]) -> i64 {
        let mut sum = [0i64; MAX_INTERACTION_DIM];
        let mut squares = 0i64;
        for &entry in entries {
            for (total, &v) in sum.iter_mut().zip(&self.vectors[entry as usize]) {
                *total += i64::from(v);
                squares += i64::from(v) * i64::from(v);
            }
        }
        let norm: i64 = sum.iter().map(|&x| x * x).sum();
        self.scaled(i64::from(self.scales[stage]), norm - squares)
    }

    /// The term for the look-ups `entries` at `stage` by its definition (pairs, unfolded),
    /// rounded once; for tests, not the search.
    pub fn by_definition(&self, stage: usize, entries: &[u32]) -> i64 {
        let mut pairs: i64 = 0;
        for (i, &a) in entries.iter().enumerate() {
            for &b in &entries[i + 1..] {
                let (a, b) = (&self.vectors[a as usize], &self.vectors[b as usize]);
                pairs += a
                    .iter()
                    .zip(b)
                    .map(|(&x, &y)| i64::from(x) * i64::from(y))
                    .sum::<i64>();
            }
        }
        self.scaled(i64::from(self.scales[stage]), 2 * pairs)
    }
}

/// Weights for every stage: a bias and one value per canonical entry, in Score units, and
/// perhaps an interaction term.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Per stage: the bias.
    pub bias: Vec<i16>,
    /// Per stage: a flat table of `layout().total` entries (tied entries equal).
    pub tables: Vec<Vec<i16>>,
    /// The interaction term, if any.
    pub interaction: Option<Interaction>,
}

impl Weights {
    /// All-zero weights for `stages` stages.
    pub fn zero(stages: usize) -> Weights {
        Weights {
            bias: vec![0; stages],
            tables: vec![vec![0; layout().total]; stages],
            interaction: None,
        }
    }

    /// The value of `board` by the definition (the look-ups' sum plus the interaction term
    /// unfolded), in Score units; for tests and tools, not the search.
    pub fn value_by_definition(&self, board: &Board) -> i64 {
        let stage = stage_of(board.empties(), self.stages());
        let entries = features(board);
        let linear: i64 = entries
            .iter()
            .map(|&e| i64::from(self.tables[stage][e as usize]))
            .sum();
        let term = self
            .interaction
            .as_ref()
            .map_or(0, |term| term.by_definition(stage, &entries));
        i64::from(self.bias[stage]) + linear + term
    }

    /// Number of stages.
    pub fn stages(&self) -> usize {
        self.bias.len()
    }

    /// The file form ([`crate::formats::weights`]): each stage's canonical entries.
    pub fn to_bytes(&self) -> Vec<u8> {
        file::to_bytes(&self.record(false))
    }

    /// The file form of these stages read blended ([`super::stage_blend`]; versions 3 and 4):
    /// whoever loads the file gets [`Weights::per_ply`] of them. Error unless the stage count
    /// divides the 60 plies.
    pub fn to_blended_bytes(&self) -> Result<Vec<u8>> {
        ensure!(
            stage_blend::can_blend(self.stages()),
            "{} stages cannot be read blended (they must divide the 60 plies)",
            self.stages()
        );
        Ok(file::to_bytes(&self.record(true)))
    }

    /// One weight set per ply from these stages read blended ([`super::stage_blend`]): each
    /// ply's bias and entries are its two stages' mixed by [`stage_blend::ply_shares`] and
    /// rounded ([`stage_blend::mix_i16`]); a term keeps its vectors (shared by all stages)
    /// and has its scales mixed ([`stage_blend::mix_scale`]). Stages of one ply are returned
    /// as they are. Panics unless the stage count divides 60.
    pub fn per_ply(&self) -> Weights {
        let count = self.stages();
        let mut out = Weights::zero(stage_blend::PLIES);
        for ply in 0..stage_blend::PLIES {
            let shares = stage_blend::ply_shares(ply, count);
            out.bias[ply] = stage_blend::mix_i16(shares, |s| self.bias[s]);
            for (entry, value) in out.tables[ply].iter_mut().enumerate() {
                *value = stage_blend::mix_i16(shares, |s| self.tables[s][entry]);
            }
        }
        out.interaction = self.interaction.clone().map(|mut term| {
            term.scales = (0..stage_blend::PLIES)
                .map(|ply| {
                    stage_blend::mix_scale(stage_blend::ply_shares(ply, count), &term.scales)
                })
                .collect();
            term
        });
        out
    }

    /// The file record of these weights, read blended or not.
    fn record(&self, blended: bool) -> WeightsRecord {
        let layout = layout();
        let stages = self
            .bias
            .iter()
            .zip(&self.tables)
            .map(|(&bias, table)| StageRecord {
                bias,
                entries: layout
                    .canonical_entries
                    .iter()
                    .map(|&entry| table[entry as usize])
                    .collect(),
            })
            .collect();
        let interaction = self.interaction.as_ref().map(|term| InteractionRecord {
            dim: term.dim as u16,
            shift: term.shift as u16,
            scales: term.scales.clone(),
            vectors: layout
                .canonical_entries
                .iter()
                .flat_map(|&entry| term.vectors[entry as usize][..term.dim].iter().copied())
                .collect(),
        });
        WeightsRecord {
            pattern_set: layout.pattern_set_id,
            stages,
            interaction,
            blended,
        }
    }

    /// The checksum stored in the last four bytes of a weights file, which identifies the
    /// weights (tools record it to say which weights made something). `None` if `bytes` is
    /// not a file that [`Weights::from_bytes`] accepts.
    pub fn file_id(bytes: &[u8]) -> Option<u32> {
        Weights::from_bytes(bytes).ok()?;
        file::stored_checksum(bytes)
    }

    /// Reads the file form for this build's pattern set; every inconsistency is an error
    /// naming it. Tied entries get their canonical entry's value. Stages stored to be read
    /// blended come back as one weight set per ply ([`Weights::per_ply`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights> {
        let layout = layout();
        let record =
            file::from_bytes(bytes, layout.pattern_set_id, layout.canonical_entries.len())?;
        let mut weights = Weights::zero(record.stages.len());
        for (stage, stored) in record.stages.iter().enumerate() {
            weights.bias[stage] = stored.bias;
            let table = &mut weights.tables[stage];
            for (&entry, &value) in layout.canonical_entries.iter().zip(&stored.entries) {
                table[entry as usize] = value;
            }
            for entry in 0..layout.total {
                table[entry] = table[layout.canonical[entry] as usize];
            }
        }
        if let Some(stored) = record.interaction {
            let dim = checked_dim(usize::from(stored.dim))?;
            let term = Interaction {
                dim,
                shift: u32::from(stored.shift),
                scales: stored.scales,
                vectors: padded_vectors(dim, &stored.vectors),
            };
            term.check(&weights)?;
            weights.interaction = Some(term);
        }
        if record.blended {
            weights = weights.per_ply();
            if let Some(term) = &weights.interaction {
                // The mixed scales are within the stages' range, but the folded entries are
                // new values: check them as the stored ones were checked.
                term.check(&weights)?;
            }
        }
        Ok(weights)
    }
}

impl Weights {
    /// The term file form ([`crate::formats::term`]) of these weights' interaction term, for
    /// the weights file whose identity is `base` (the tables the term was fitted to): each
    /// canonical entry's vector. Error if there is no term or a component leaves 8 bits.
    pub fn term_to_bytes(&self, base: u32) -> Result<Vec<u8>> {
        let layout = layout();
        let term = self
            .interaction
            .as_ref()
            .context("the weights have no interaction term")?;
        let mut vectors = Vec::with_capacity(layout.canonical_entries.len() * term.dim);
        for &entry in &layout.canonical_entries {
            for &value in &term.vectors[entry as usize][..term.dim] {
                let value = i8::try_from(value).map_err(|_| {
                    anyhow::anyhow!(
                        "entry {entry}: component {value} does not fit a term file's 8 bits                          (quantise with --fm-compact)"
                    )
                })?;
                vectors.push(value);
            }
        }
        Ok(term_file::to_bytes(&TermRecord {
            pattern_set: layout.pattern_set_id,
            base,
            dim: term.dim as u16,
            shift: term.shift as u16,
            scales: term.scales.clone(),
            vectors,
        }))
    }

    /// The weights a file holds, with their identity: a weights file's own, or for a term
    /// file ([`crate::formats::term`]) the compiled-in weights ([`super::SHIPPED_WEIGHTS`])
    /// with its term attached ([`Weights::with_term_file`]).
    pub fn load(bytes: &[u8]) -> Result<(Weights, WeightsId)> {
        if term_file::is_term_file(bytes) {
            return Weights::with_term_file(super::SHIPPED_WEIGHTS, bytes);
        }
        let weights = Weights::from_bytes(bytes)?;
        let id = Weights::file_id(bytes).expect("bytes that load have an identity");
        Ok((weights, WeightsId(id)))
    }

    /// The weights of the file `weights` with the interaction term of the term file `term`
    /// attached, and the identity of the two together (the term file's checksum, which
    /// covers the weights' identity). Refused unless the term was made for these very
    /// weights (their identity), which have no term of their own.
    pub fn with_term_file(weights: &[u8], term: &[u8]) -> Result<(Weights, WeightsId)> {
        let layout = layout();
        let mut base = Weights::from_bytes(weights)?;
        let base_id = file::stored_checksum(weights).expect("weights that load have a checksum");
        ensure!(
            base.interaction.is_none(),
            "the weights have an interaction term of their own"
        );
        let record =
            term_file::from_bytes(term, layout.pattern_set_id, layout.canonical_entries.len())?;
        ensure!(
            record.base == base_id,
            "the term was made for weights {}, not for these (weights {})",
            WeightsId(record.base),
            WeightsId(base_id)
        );
        let dim = checked_dim(usize::from(record.dim))?;
        let term_value = Interaction {
            dim,
            shift: u32::from(record.shift),
            scales: record.scales,
            vectors: padded_vectors(dim, &record.vectors),
        };
        term_value.check(&base)?;
        base.interaction = Some(term_value);
        let id = file::stored_checksum(term).expect("a term file that loads has a checksum");
        Ok((base, WeightsId(id)))
    }
}

/// The evaluation: per stage and side to move, a flat table ready for direct look-ups.
#[derive(Clone)]
pub struct PatternEval {
    stages: usize,
    bias: Arc<Vec<i32>>,
    /// `(stage * 2 + side) * total + entry`; the interaction term folded in.
    tables: Arc<Vec<i16>>,
    /// The interaction term's rows, if the weights have one.
    interaction: Option<Arc<InteractionRows>>,
}

/// One interaction vector, zero-padded to [`MAX_INTERACTION_DIM`] and aligned so that a row
/// is two 16-byte loads in one cache line.
#[derive(Clone, Copy)]
#[repr(align(32))]
struct Row([i16; MAX_INTERACTION_DIM]);

/// One interaction vector whose components fit in 8 bits, zero-padded and aligned so that a
/// row is one 16-byte load: half the memory of [`Row`], so that more of the rows stay in the
/// cache.
#[derive(Clone, Copy)]
#[repr(align(16))]
struct CompactRow([i8; MAX_INTERACTION_DIM]);

/// A sum of rows in 16-bit lanes that wrap (`Interaction::check` bounds every component so
/// that 55 of them never do). On x86-64 a row is added with SSE2, which every such processor
/// has, because left to itself the compiler adds a 16-wide row one component at a time
/// (docs/training.md, "Wider vectors", gives the cost).
#[derive(Clone, Copy)]
struct RowSum([i16; MAX_INTERACTION_DIM]);

impl RowSum {
    #[inline(always)]
    fn add_compact(&mut self, row: &CompactRow) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of x86-64; both operands are 16 bytes, `row` is 16-aligned and
        // the sum is read and written unaligned.
        unsafe {
            use std::arch::x86_64::*;
            let r = _mm_load_si128(row.0.as_ptr() as *const __m128i);
            let sign = _mm_cmpgt_epi8(_mm_setzero_si128(), r);
            let sum = self.0.as_mut_ptr() as *mut __m128i;
            let lo = _mm_add_epi16(_mm_loadu_si128(sum), _mm_unpacklo_epi8(r, sign));
            let hi = _mm_add_epi16(_mm_loadu_si128(sum.add(1)), _mm_unpackhi_epi8(r, sign));
            _mm_storeu_si128(sum, lo);
            _mm_storeu_si128(sum.add(1), hi);
        }
        #[cfg(not(target_arch = "x86_64"))]
        for (total, &value) in self.0.iter_mut().zip(&row.0) {
            *total = total.wrapping_add(i16::from(value));
        }
    }

    #[inline(always)]
    fn add(&mut self, row: &Row) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of x86-64; `row` is 32-aligned and the sum is read and written
        // unaligned, 16 bytes at a time.
        unsafe {
            use std::arch::x86_64::*;
            let r = row.0.as_ptr() as *const __m128i;
            let sum = self.0.as_mut_ptr() as *mut __m128i;
            let lo = _mm_add_epi16(_mm_loadu_si128(sum), _mm_load_si128(r));
            let hi = _mm_add_epi16(_mm_loadu_si128(sum.add(1)), _mm_load_si128(r.add(1)));
            _mm_storeu_si128(sum, lo);
            _mm_storeu_si128(sum.add(1), hi);
        }
        #[cfg(not(target_arch = "x86_64"))]
        for (total, &value) in self.0.iter_mut().zip(&row.0) {
            *total = total.wrapping_add(value);
        }
    }
}

/// The interaction term ready for look-ups: the rows per side to move (like the tables, the
/// second half has the digits 1 and 2 swapped) and the scales.
struct InteractionRows {
    shift: u32,
    scales: Vec<i64>,
    /// `side * total + entry`; empty when `compact` holds them.
    rows: Vec<Row>,
    /// The rows as [`CompactRow`]s when every component fits in 8 bits (the same values),
    /// else empty.
    compact: Vec<CompactRow>,
    /// The pattern copies whose shape has a nonzero vector, the first `with_rows_len` of them:
    /// only their rows are read (a term over a few shapes costs a few reads; the others'
    /// rows are zero and would add nothing).
    with_rows: [u8; COPIES],
    with_rows_len: usize,
    /// Whether the mobility table's entries have nonzero vectors.
    mobility_rows: bool,
    /// Whether every scale is nonnegative, so that the rows' part of the term is never
    /// negative ([`PatternEval::leaf_bounds`]).
    never_negative: bool,
}

impl PatternEval {
    /// Prepares weights for evaluation (the interaction term folded into the tables).
    pub fn new(weights: &Weights) -> PatternEval {
        let layout = layout();
        let mut tables = Vec::with_capacity(weights.stages() * 2 * layout.total);
        for (stage, table) in weights.tables.iter().enumerate() {
            let folded: Vec<i16> = match &weights.interaction {
                // `Weights::from_bytes` has checked that the folded values fit.
                Some(term) => (0..layout.total)
                    .map(|entry| {
                        (i64::from(table[entry]) - term.fold(stage, entry))
                            .clamp(-i64::from(i16::MAX), i64::from(i16::MAX))
                            as i16
                    })
                    .collect(),
                None => table.clone(),
            };
            tables.extend_from_slice(&folded);
            tables.extend(layout.swapped.iter().map(|&s| folded[s as usize]));
        }
        let interaction = weights.interaction.as_ref().map(|term| {
            let mut rows: Vec<Row> = term.vectors.iter().map(|&v| Row(v)).collect();
            rows.extend(
                layout
                    .swapped
                    .iter()
                    .map(|&s| Row(term.vectors[s as usize])),
            );
            let fits = |x: i16| i8::try_from(x).is_ok();
            let compact: Vec<CompactRow> = if rows.iter().all(|row| row.0.iter().all(|&x| fits(x)))
            {
                let compact = rows
                    .iter()
                    .map(|row| CompactRow(row.0.map(|x| x as i8)))
                    .collect();
                rows = Vec::new();
                compact
            } else {
                Vec::new()
            };
            let nonzero = |range: std::ops::Range<usize>| {
                term.vectors[range]
                    .iter()
                    .any(|v| v.iter().any(|&x| x != 0))
            };
            let mut with_rows = [0u8; COPIES];
            let mut with_rows_len = 0;
            for copy in 0..COPIES {
                let start = layout.copy_offsets[copy];
                let size = pow3(pattern_tables().copies[copy].squares.len());
                if nonzero(start..start + size) {
                    with_rows[with_rows_len] = copy as u8;
                    with_rows_len += 1;
                }
            }
            Arc::new(InteractionRows {
                shift: term.shift,
                scales: term.scales.iter().map(|&s| i64::from(s)).collect(),
                rows,
                compact,
                with_rows,
                with_rows_len,
                mobility_rows: nonzero(layout.mobility_offset..layout.total),
                never_negative: term.scales.iter().all(|&s| s >= 0),
            })
        });
        PatternEval {
            stages: weights.stages(),
            bias: Arc::new(weights.bias.iter().map(|&b| i32::from(b)).collect()),
            tables: Arc::new(tables),
            interaction,
        }
    }

    /// Whether the weights have an interaction term.
    pub fn has_interaction(&self) -> bool {
        self.interaction.is_some()
    }

    /// Reads a weights file from disk, with the file's identity.
    pub fn from_file(path: &str) -> Result<(PatternEval, WeightsId)> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {path}"))?;
        PatternEval::from_bytes(&bytes).with_context(|| format!("loading {path}"))
    }

    /// Reads a weights file's bytes, or a term file's (applied to the compiled-in weights),
    /// with the identity ([`Weights::load`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<(PatternEval, WeightsId)> {
        let (weights, id) = Weights::load(bytes)?;
        Ok((PatternEval::new(&weights), id))
    }

    /// The raw sum for `board` (bias plus look-ups), in Score units, unclamped.
    #[inline]
    pub fn raw(&self, board: &Board) -> i32 {
        self.raw_with_moves(board, board.legal_moves())
    }

    /// [`PatternEval::raw`] given the side to move's legal squares `moves`.
    #[inline]
    pub fn raw_with_moves(&self, board: &Board, moves: u64) -> i32 {
        self.raw_of(&LeafView::of(board, moves))
    }

    /// [`PatternEval::raw`] of a position given by its parts (see [`LeafView`]).
    #[inline]
    pub fn raw_of(&self, leaf: &LeafView) -> i32 {
        let (sum, stage, mobility) = self.linear_of(leaf);
        match &self.interaction {
            Some(term) => sum + term.term_of(leaf, stage, mobility),
            None => sum,
        }
    }

    /// The bias and the look-ups' sum for `leaf` (the interaction term's folded share
    /// included, the part from its rows not), with the stage and the mobility table's entry.
    #[inline(always)]
    fn linear_of(&self, leaf: &LeafView) -> (i32, usize, usize) {
        let layout = layout();
        let stage = stage_of(leaf.empties, self.stages);
        let base = (stage * 2 + leaf.side.index()) * layout.total;
        let table = &self.tables[base..base + layout.total];
        let own = leaf.moves.count_ones() as usize;
        let theirs = bits::mobility(leaf.opponent, leaf.player).count_ones() as usize;
        let mobility = layout.mobility_offset
            + own.min(MOBILITY_SIDE - 1) * MOBILITY_SIDE
            + theirs.min(MOBILITY_SIDE - 1);
        let mut sum = self.bias[stage] + i32::from(table[mobility]);
        for copy in 0..COPIES {
            sum += i32::from(table[layout.copy_offsets[copy] + leaf.indices[copy] as usize]);
        }
        (sum, stage, mobility)
    }

    /// [`Evaluation::evaluate_with_moves`] of a position given by its parts.
    #[inline]
    pub fn evaluate_leaf(&self, leaf: &LeafView) -> Score {
        Score::from_units(self.raw_of(leaf)).clamped_below_max()
    }

    /// What the search needs of `leaf` against `beta`: its value, unless a lower bound of
    /// it already reaches `beta`, which then stands in for it (a fail-high leaf). With an
    /// interaction term whose scales are all nonnegative the row part is never negative, so
    /// the sum without it is such a bound and the rows are read only where the bound falls
    /// short of `beta` (issue 53: the term evaluated where it can change the result). Without
    /// a term, or with a negative scale, the value is always exact.
    #[inline]
    pub fn leaf_bounds(&self, leaf: &LeafView, beta: Score) -> LeafBounds {
        let (sum, stage, mobility) = self.linear_of(leaf);
        let score = |units: i32| Score::from_units(units).clamped_below_max();
        match &self.interaction {
            None => LeafBounds::exact(score(sum)),
            Some(term) if term.never_negative && score(sum) >= beta => LeafBounds {
                lower: score(sum),
                exact: None,
            },
            Some(term) => {
                let exact = score(sum + term.term_of(leaf, stage, mobility));
                LeafBounds {
                    // With a negative scale the sum alone bounds nothing: the value is its
                    // own bound.
                    lower: if term.never_negative {
                        score(sum)
                    } else {
                        exact
                    },
                    exact: Some(exact),
                }
            }
        }
    }
}

/// A leaf's value as far as [`PatternEval::leaf_bounds`] computed it: a lower bound, and
/// the exact value where it was needed. The value a search takes against a `beta` is
/// [`LeafBounds::against`]'s, a function of the position and `beta` alone, however much
/// of it was computed (so that a cache of these never changes what the search returns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafBounds {
    /// At most the exact value.
    pub lower: Score,
    /// The exact value, if it was computed.
    pub exact: Option<Score>,
}

impl LeafBounds {
    /// An exact value (its own lower bound).
    pub fn exact(value: Score) -> LeafBounds {
        LeafBounds {
            lower: value,
            exact: Some(value),
        }
    }

    /// The leaf's value against `beta`: the lower bound when it reaches `beta`, else the
    /// exact value; `None` when that is needed and was not computed.
    #[inline]
    pub fn against(&self, beta: Score) -> Option<Score> {
        if self.lower >= beta {
            Some(self.lower)
        } else {
            self.exact
        }
    }
}

impl InteractionRows {
    /// The part of the folded term read from the rows of `leaf`'s look-ups (never negative
    /// when [`InteractionRows::never_negative`]).
    #[inline(always)]
    fn term_of(&self, leaf: &LeafView, stage: usize, mobility: usize) -> i32 {
        let layout = layout();
        // The rows of the copies with vectors, in a loop of their own. (One generic helper for
        // both row widths was measured 11 % slower with the term, so the two loops stay.)
        let side = leaf.side.index() * layout.total;
        let mut vector = RowSum([0; MAX_INTERACTION_DIM]);
        let copies = &self.with_rows[..self.with_rows_len];
        let entry_of =
            |copy: u8| layout.copy_offsets[copy as usize] + leaf.indices[copy as usize] as usize;
        if self.compact.is_empty() {
            let rows = &self.rows[side..side + layout.total];
            if self.mobility_rows {
                vector.add(&rows[mobility]);
            }
            for &copy in copies {
                vector.add(&rows[entry_of(copy)]);
            }
        } else {
            let rows = &self.compact[side..side + layout.total];
            if self.mobility_rows {
                vector.add_compact(&rows[mobility]);
            }
            for &copy in copies {
                vector.add_compact(&rows[entry_of(copy)]);
            }
        }
        self.value_of_sum(stage, &vector.0)
    }

    /// `round(scale * |vector|^2 / 2^shift)` for the sum `vector` of the rows read: the
    /// folded term's share that depends on the position as a whole.
    #[inline]
    fn value_of_sum(&self, stage: usize, vector: &[i16; MAX_INTERACTION_DIM]) -> i32 {
        let norm: i64 = vector.iter().map(|&x| i64::from(x) * i64::from(x)).sum();
        let value = (self.scales[stage] * norm + (1i64 << (self.shift - 1))) >> self.shift;
        value.clamp(i64::from(i32::MIN / 4), i64::from(i32::MAX / 4)) as i32
    }
}

/// What the pattern evaluation reads of a position, for a position the search evaluates
/// without playing into it on the board (a leaf one move from a board node).
pub struct LeafView<'a> {
    /// The pattern indices ([`Board::pattern_indices`], or
    /// [`Board::pattern_indices_after`] a move).
    pub indices: &'a [u16; crate::board::patterns::LANES],
    /// Empty squares.
    pub empties: u32,
    /// The side to move.
    pub side: Color,
    /// The side to move's discs.
    pub player: u64,
    /// The other side's discs.
    pub opponent: u64,
    /// The side to move's legal squares.
    pub moves: u64,
}

impl<'a> LeafView<'a> {
    /// The parts of the position after the side to move of `board` plays `square` flipping
    /// `flipped`, whose pattern indices are `indices` ([`Board::pattern_indices_after`]);
    /// `board` is not played into.
    #[inline]
    pub fn after_move(
        board: &Board,
        square: crate::board::Square,
        flipped: u64,
        indices: &'a [u16; crate::board::patterns::LANES],
    ) -> LeafView<'a> {
        let child = board.view().play(square.index(), flipped);
        LeafView {
            indices,
            empties: board.empties() - 1,
            side: board.side_to_move().opponent(),
            player: child.player,
            opponent: child.opponent,
            moves: child.mobility(),
        }
    }

    /// The parts of `board`, whose side to move has the legal squares `moves`.
    #[inline]
    pub fn of(board: &'a Board, moves: u64) -> LeafView<'a> {
        LeafView {
            indices: board.pattern_indices(),
            empties: board.empties(),
            side: board.side_to_move(),
            player: board.player_discs(),
            opponent: board.opponent_discs(),
            moves,
        }
    }
}

impl Evaluation for PatternEval {
    #[inline]
    fn evaluate(&self, board: &Board) -> Score {
        self.evaluate_with_moves(board, board.legal_moves())
    }

    #[inline]
    fn evaluate_with_moves(&self, board: &Board, moves: u64) -> Score {
        debug_assert_eq!(moves, board.legal_moves());
        self.evaluate_leaf(&LeafView::of(board, moves))
    }
}

/// The position after `plies` random plies from the start (passes played when forced; it
/// stops early at the game's end). For tests of the evaluation and its training.
#[cfg(any(test, feature = "testkit"))]
pub fn random_board(rng: &mut crate::rng::Rng, plies: usize) -> Board {
    let mut board = Board::start();
    for _ in 0..plies {
        if board.is_game_over() {
            break;
        }
        if board.must_pass() {
            board.make_pass();
            continue;
        }
        let square = rng.pick(board.legal_moves());
        board.make_move(square);
    }
    board
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Random weights with ties respected.
    fn random_weights(seed: u64, stages: usize) -> Weights {
        let layout = layout();
        let mut rng = Rng::new(seed);
        let mut weights = Weights::zero(stages);
        for stage in 0..stages {
            weights.bias[stage] = rng.below(200) as i16 - 100;
            for &entry in &layout.canonical_entries {
                // Leave a third at zero so zero runs are exercised.
                if rng.below(3) > 0 {
                    weights.tables[stage][entry as usize] = rng.below(2001) as i16 - 1000;
                }
            }
            for entry in 0..layout.total {
                weights.tables[stage][entry] =
                    weights.tables[stage][layout.canonical[entry] as usize];
            }
        }
        weights
    }

    /// [`random_weights`] with a random interaction term [`MAX_INTERACTION_DIM`] wide (ties
    /// respected), its vectors and scale large enough that the term moves values by tens of
    /// discs.
    fn random_interaction_weights(seed: u64, stages: usize) -> Weights {
        random_term_weights(seed, stages, MAX_INTERACTION_DIM)
    }

    /// [`random_weights`] with a random interaction term `dim` wide (ties respected).
    fn random_term_weights(seed: u64, stages: usize, dim: usize) -> Weights {
        let layout = layout();
        let mut weights = random_weights(seed, stages);
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut vectors = vec![[0i16; MAX_INTERACTION_DIM]; layout.total];
        for &entry in &layout.canonical_entries {
            for value in &mut vectors[entry as usize][..dim] {
                *value = rng.below(401) as i16 - 200;
            }
        }
        for entry in 0..layout.total {
            vectors[entry] = vectors[layout.canonical[entry] as usize];
        }
        let scales = (0..stages).map(|_| rng.below(4001) as i32 - 2000).collect();
        weights.interaction = Some(Interaction {
            dim,
            shift: 16,
            scales,
            vectors,
        });
        weights
    }

    /// Terms of every width up to the widest are stored at their own width, read back
    /// zero-padded to the same weights and evaluated as their definition, in weights files
    /// and in term files; a width of 0 or beyond the widest, or a component beyond a term's
    /// width, is refused.
    #[test]
    fn terms_narrower_than_the_widest_are_read_zero_padded() {
        let mut rng = Rng::new(47);
        let entries = layout().canonical_entries.len();
        for dim in [1, 8, 9, MAX_INTERACTION_DIM] {
            let weights = random_term_weights(dim as u64, 15, dim);
            let bytes = weights.to_bytes();
            let plain = Weights {
                interaction: None,
                ..weights.clone()
            };
            // The stages, then 2 bytes a component of each canonical entry, then a header
            // (dim, shift) and 15 scales.
            assert_eq!(
                bytes.len() - plain.to_bytes().len(),
                entries * dim * 2 + 4 + 15 * 4,
                "dim {dim}"
            );
            let read = Weights::from_bytes(&bytes).unwrap();
            assert_eq!(read, weights, "dim {dim}");
            assert_eq!(read.interaction.as_ref().unwrap().dim, dim);
            let eval = PatternEval::new(&weights);
            for plies in [5, 25, 45] {
                let board = random_board(&mut rng, plies);
                let definition = weights.value_by_definition(&board);
                assert!(
                    (i64::from(eval.raw(&board)) - definition).abs() <= Interaction::FOLDING_ERROR,
                    "dim {dim}"
                );
            }
            // The same term with 8-bit components, in a term file.
            let mut small = weights.clone();
            let term = small.interaction.as_mut().unwrap();
            for vector in term.vectors.iter_mut() {
                *vector = vector.map(|x| x * 127 / 200);
            }
            let base_bytes = plain.to_bytes();
            let term_bytes = small
                .term_to_bytes(Weights::file_id(&base_bytes).unwrap())
                .unwrap();
            let (joined, _) = Weights::with_term_file(&base_bytes, &term_bytes).unwrap();
            assert_eq!(joined, small, "dim {dim}");
        }
        let weights = random_term_weights(3, 3, 8);
        // 17 wide: the file's own layout is sound, the width is not this build's.
        let mut record = weights.record(false);
        let stored = record.interaction.as_mut().unwrap();
        stored.dim = MAX_INTERACTION_DIM as u16 + 1;
        stored.vectors = vec![0; entries * (MAX_INTERACTION_DIM + 1)];
        let error = Weights::from_bytes(&file::to_bytes(&record)).unwrap_err();
        assert!(format!("{error:#}").contains("1 to 16"), "{error:#}");
        let mut bad = weights.clone();
        bad.interaction.as_mut().unwrap().dim = 0;
        let error = bad
            .interaction
            .as_ref()
            .unwrap()
            .check(&weights)
            .unwrap_err();
        assert!(error.to_string().contains("1 to 16"), "{error}");
        let mut beyond = weights.clone();
        beyond.interaction.as_mut().unwrap().vectors[7][8] = 1;
        let error = beyond
            .interaction
            .as_ref()
            .unwrap()
            .check(&weights)
            .unwrap_err();
        assert!(
            error.to_string().contains("beyond their width 8"),
            "{error}"
        );
    }

    #[test]
    fn an_interaction_term_round_trips_and_plain_weights_keep_version_1() {
        let plain = random_weights(3, 3);
        assert_eq!(&plain.to_bytes()[8..10], &[1, 0]);
        let weights = random_interaction_weights(3, 3);
        let bytes = weights.to_bytes();
        assert_eq!(&bytes[8..10], &[2, 0]);
        assert_eq!(Weights::from_bytes(&bytes).unwrap(), weights);
        assert_ne!(
            Weights::file_id(&bytes),
            Weights::file_id(&plain.to_bytes())
        );
        // A term whose folded entries leave 16 bits is refused with a reason.
        let mut huge = weights.clone();
        let term = huge.interaction.as_mut().unwrap();
        term.shift = 1;
        term.scales = vec![1000; 3];
        let error = Weights::from_bytes(&huge.to_bytes())
            .unwrap_err()
            .to_string();
        assert!(error.contains("16 bits"), "{error}");
    }

    /// A term file holds the term alone and attaches it only to the weights it names: the
    /// weights with the term back equal the originals, with the term file's identity; other
    /// weights, weights with a term of their own and 16-bit components are refused; the
    /// compiled-in weights take a term file through [`Weights::load`].
    #[test]
    fn a_term_file_attaches_its_term_to_its_own_weights_only() {
        let mut weights = random_interaction_weights(5, 15);
        let term = weights.interaction.as_mut().unwrap();
        for vector in term.vectors.iter_mut() {
            *vector = vector.map(|x| x * 127 / 200);
        }
        let mut base = weights.clone();
        base.interaction = None;
        let base_bytes = base.to_bytes();
        let base_id = Weights::file_id(&base_bytes).unwrap();
        let term_bytes = weights.term_to_bytes(base_id).unwrap();
        let (joined, id) = Weights::with_term_file(&base_bytes, &term_bytes).unwrap();
        assert_eq!(joined, weights);
        assert_eq!(Some(id.0), file::stored_checksum(&term_bytes));
        assert_ne!(id.0, base_id);
        // Other weights, or weights that have a term already.
        let other = random_weights(6, 15).to_bytes();
        let error = Weights::with_term_file(&other, &term_bytes).unwrap_err();
        assert!(error.to_string().contains("made for weights"), "{error}");
        let error = Weights::with_term_file(&weights.to_bytes(), &term_bytes).unwrap_err();
        assert!(error.to_string().contains("of their own"), "{error}");
        // Components beyond 8 bits have no term file form.
        let mut wide = weights.clone();
        wide.interaction.as_mut().unwrap().vectors[layout().canonical_entries[0] as usize][0] = 200;
        let error = wide.term_to_bytes(base_id).unwrap_err();
        assert!(error.to_string().contains("8 bits"), "{error}");
        // The compiled-in weights with a term of zero vectors but one nonzero entry: loaded
        // from the term file alone, evaluated as the two together.
        let shipped = Weights::from_bytes(super::super::SHIPPED_WEIGHTS).unwrap();
        let shipped_id = Weights::file_id(super::super::SHIPPED_WEIGHTS).unwrap();
        let mut with_term = shipped.clone();
        let mut vectors = vec![[0i16; MAX_INTERACTION_DIM]; layout().total];
        vectors[layout().mobility_offset + 5 * MOBILITY_SIDE + 7] =
            [3, -2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        with_term.interaction = Some(Interaction {
            dim: 8,
            shift: 4,
            scales: vec![5; shipped.stages()],
            vectors,
        });
        let bytes = with_term.term_to_bytes(shipped_id).unwrap();
        assert!(bytes.len() < 50_000, "{} bytes", bytes.len());
        let (loaded, loaded_id) = Weights::load(&bytes).unwrap();
        assert_eq!(loaded, with_term);
        assert_eq!(Some(loaded_id.0), file::stored_checksum(&bytes));
        let (eval, _) = PatternEval::from_bytes(&bytes).unwrap();
        let mut rng = Rng::new(7);
        for plies in [10, 30, 50] {
            let board = random_board(&mut rng, plies);
            let definition = with_term.value_by_definition(&board);
            assert!((i64::from(eval.raw(&board)) - definition).abs() <= Interaction::FOLDING_ERROR);
        }
    }

    /// The folded evaluation equals the definition (look-ups plus the pairs of vectors,
    /// unfolded) within the stated rounding, on random positions of every stage; and the
    /// term is not idle: it moves values.
    #[test]
    fn the_folded_interaction_equals_the_unfolded_definition() {
        let weights = random_interaction_weights(29, 15);
        let eval = PatternEval::new(&weights);
        let linear = PatternEval::new(&Weights {
            interaction: None,
            ..weights.clone()
        });
        let mut rng = Rng::new(31);
        let mut largest_term = 0;
        for round in 0..4 {
            for plies in 0..60 {
                let board = random_board(&mut rng, plies);
                let definition = weights.value_by_definition(&board);
                let folded = i64::from(eval.raw(&board));
                assert!(
                    (folded - definition).abs() <= Interaction::FOLDING_ERROR,
                    "round {round}, {plies} plies: folded {folded}, definition {definition}"
                );
                largest_term = largest_term.max((definition - i64::from(linear.raw(&board))).abs());
                let term = weights.interaction.as_ref().unwrap();
                let stage = stage_of(board.empties(), 15);
                assert_eq!(
                    term.value_of(stage, &features(&board)),
                    term.by_definition(stage, &features(&board))
                );
            }
        }
        assert!(largest_term > 1000, "{largest_term}");
    }

    #[test]
    fn a_term_over_some_shapes_reads_only_their_rows_and_equals_the_definition() {
        // Vectors on the corner 3x3 and diagonal shapes only, none on the mobility table;
        // with 16-bit components (rows of 16 bytes), then with components that fit in 8 bits
        // (compact rows).
        for compact in [false, true] {
            let layout = layout();
            let mut weights = random_interaction_weights(41, 15);
            let tables = pattern_tables();
            let term = weights.interaction.as_mut().unwrap();
            if compact {
                for vector in term.vectors.iter_mut() {
                    *vector = vector.map(|x| x * 127 / 200);
                }
            }
            let mut kept = Vec::new();
            for (copy, pattern) in tables.copies.iter().enumerate() {
                let start = layout.copy_offsets[copy];
                let size = pow3(pattern.squares.len());
                let name = SHAPES[pattern.shape].name;
                if name == "corner3x3" || name == "diag8" {
                    kept.push(copy as u8);
                } else {
                    term.vectors[start..start + size].fill([0; MAX_INTERACTION_DIM]);
                }
            }
            term.vectors[layout.mobility_offset..].fill([0; MAX_INTERACTION_DIM]);
            let eval = PatternEval::new(&weights);
            let rows = eval.interaction.as_ref().unwrap();
            assert_eq!(&rows.with_rows[..rows.with_rows_len], &kept[..]);
            assert_eq!(kept.len(), 6);
            assert!(!rows.mobility_rows);
            assert_eq!(rows.compact.is_empty(), !compact);
            assert_eq!(rows.rows.is_empty(), compact);
            let mut rng = Rng::new(43);
            let mut largest_term = 0;
            for plies in 0..60 {
                let board = random_board(&mut rng, plies);
                let definition = weights.value_by_definition(&board);
                let folded = i64::from(eval.raw(&board));
                assert!(
                    (folded - definition).abs() <= Interaction::FOLDING_ERROR,
                    "{plies} plies: folded {folded}, definition {definition}"
                );
                let term = weights.interaction.as_ref().unwrap();
                let stage = stage_of(board.empties(), 15);
                largest_term = largest_term.max(term.by_definition(stage, &features(&board)).abs());
            }
            assert!(largest_term > 1000, "compact {compact}: {largest_term}");
        }
    }

    /// The lazy leaf value: with nonnegative scales the bound is at most the value and
    /// stands in for it exactly where it reaches beta (the rows then unread); with a negative
    /// scale, and without a term, the value is always computed and is its own bound.
    #[test]
    fn leaf_bounds_skip_the_term_only_where_the_bound_reaches_beta() {
        let mut weights = random_interaction_weights(47, 15);
        let term = weights.interaction.as_mut().unwrap();
        let signed = term.scales.clone();
        assert!(signed.iter().any(|&s| s < 0), "some scale negative");
        term.scales = signed.iter().map(|s| s.abs()).collect();
        let nonnegative = PatternEval::new(&weights);
        weights.interaction.as_mut().unwrap().scales = signed;
        let mixed = PatternEval::new(&weights);
        weights.interaction = None;
        let plain = PatternEval::new(&weights);
        let mut rng = Rng::new(48);
        let (mut skipped, mut computed) = (0, 0);
        for plies in 0..60 {
            let board = random_board(&mut rng, plies);
            let leaf = LeafView::of(&board, board.legal_moves());
            for beta in [-8000, -2000, -300, 0, 300, 2000, 8000].map(Score::from_units) {
                let value = nonnegative.evaluate_leaf(&leaf);
                let bounds = nonnegative.leaf_bounds(&leaf, beta);
                assert!(bounds.lower <= value, "{plies} plies, beta {beta:?}");
                match bounds.exact {
                    None => {
                        assert!(bounds.lower >= beta);
                        skipped += 1;
                    }
                    Some(exact) => {
                        assert_eq!(exact, value);
                        assert!(bounds.lower < beta);
                        computed += 1;
                    }
                }
                // Against beta: the value itself below beta, a fail-high bound above it.
                let against = bounds.against(beta).unwrap();
                if value < beta {
                    assert_eq!(against, value);
                } else {
                    assert!(beta <= against && against <= value);
                }
                for eval in [&mixed, &plain] {
                    let value = eval.evaluate_leaf(&leaf);
                    assert_eq!(eval.leaf_bounds(&leaf, beta), LeafBounds::exact(value));
                }
            }
        }
        assert!(
            skipped > 20 && computed > 20,
            "{skipped} skipped, {computed} computed"
        );
    }

    #[test]
    fn per_ply_weights_move_linearly_between_stage_middles() {
        // A bias and an entry rising by 8 units a stage rise by 2 units a ply between the
        // first and last middles and stay flat outside them.
        let mut stages = Weights::zero(15);
        for stage in 0..15 {
            stages.bias[stage] = 8 * stage as i16;
            stages.tables[stage][123] = -16 * stage as i16;
        }
        let plies = stages.per_ply();
        assert_eq!(plies.stages(), 60);
        for ply in 0..60 {
            // 8 units a stage over 4 plies from ply 1.5: 2 * (ply - 1.5), clamped to 0..=112.
            let expected = (2.0 * (ply as f32 - 1.5)).clamp(0.0, 112.0);
            assert_eq!(plies.bias[ply], expected.round() as i16, "ply {ply}");
            assert_eq!(
                plies.tables[ply][123],
                (-2.0 * expected).round() as i16,
                "ply {ply}"
            );
            assert_eq!(plies.tables[ply][124], 0);
        }
        // Stages of one ply are left as they are.
        assert_eq!(plies.per_ply(), plies);
        // A term keeps its vectors and has its scales mixed like the biases (in 32 bits:
        // 1 << 24 + 1 would not survive f32).
        stages.interaction = Some(Interaction {
            dim: MAX_INTERACTION_DIM,
            shift: 20,
            scales: (0..15).map(|stage| (1 << 24) + 1 + 8 * stage).collect(),
            vectors: vec![[3; MAX_INTERACTION_DIM]; layout().total],
        });
        let plies = stages.per_ply();
        let term = plies.interaction.as_ref().unwrap();
        assert_eq!(term.shift, 20);
        assert_eq!(term.vectors, stages.interaction.as_ref().unwrap().vectors);
        for ply in 0..60 {
            assert_eq!(
                term.scales[ply],
                (1 << 24) + 1 + i32::from(plies.bias[ply]),
                "ply {ply}"
            );
        }
    }

    /// Stages stored to be read blended load as one weight set per ply: each ply's values
    /// are its two stages' mixed as the shares say; a term keeps its vectors and has its
    /// scales mixed; and a term file made for a blended file attaches to the expanded sets.
    #[test]
    fn blended_stages_load_as_one_weight_set_per_ply() {
        let stages = random_interaction_weights(9, 15);
        let bytes = stages.to_blended_bytes().unwrap();
        assert_eq!(&bytes[8..10], &[4, 0]);
        let loaded = Weights::from_bytes(&bytes).unwrap();
        assert_eq!(loaded, stages.per_ply());
        assert_eq!(loaded.stages(), 60);
        let layout = layout();
        let mut rng = Rng::new(90);
        for ply in 0..60 {
            let [(a, wa), (b, wb)] = stage_blend::ply_shares(ply, 15);
            // Where one stage alone reads the ply, its values are that stage's.
            if wb == 0.0 {
                assert_eq!(loaded.tables[ply], stages.tables[a], "ply {ply}");
            }
            for _ in 0..50 {
                let entry = rng.below(layout.total as u64) as usize;
                let mixed = wa * f32::from(stages.tables[a][entry])
                    + wb * f32::from(stages.tables[b][entry]);
                let value = loaded.tables[ply][entry];
                assert!(
                    (f32::from(value) - mixed).abs() <= 0.5,
                    "ply {ply} entry {entry}"
                );
            }
            // The stage an unblended reading takes is one of the two.
            let own = stage_of(60 - ply as u32, 15);
            assert!(own == a || own == b, "ply {ply}");
        }
        let term = loaded.interaction.as_ref().unwrap();
        assert_eq!(term.vectors, stages.interaction.as_ref().unwrap().vectors);
        assert_eq!(
            term.scales[0],
            stages.interaction.as_ref().unwrap().scales[0]
        );
        // Evaluated, a position at a ply between two middles gets the mixed value within the
        // rounding of its look-ups (half a unit each) and the term's.
        let plain = {
            let mut w = stages.clone();
            w.interaction = None;
            w
        };
        let plain_loaded = Weights::from_bytes(&plain.to_blended_bytes().unwrap()).unwrap();
        assert_eq!(&plain_loaded.to_bytes()[8..10], &[1, 0]);
        for _ in 0..40 {
            let plies = 1 + rng.below(55) as usize;
            let board = random_board(&mut rng, plies);
            let ply = 60 - board.empties() as usize;
            let [(a, wa), (b, wb)] = stage_blend::ply_shares(ply, 15);
            let at = |stage: usize| {
                let table = &plain.tables[stage];
                f64::from(plain.bias[stage])
                    + features(&board)
                        .iter()
                        .map(|&e| f64::from(table[e as usize]))
                        .sum::<f64>()
            };
            let mixed = f64::from(wa) * at(a) + f64::from(wb) * at(b);
            let value = plain_loaded.value_by_definition(&board) as f64;
            assert!(
                (value - mixed).abs() <= (FEATURES as f64 + 1.0) / 2.0,
                "ply {ply}: {value} against {mixed}"
            );
        }
        // A term file for the blended tables: per-ply scales, attached to the expansion.
        let mut per_ply_term = loaded.clone();
        for vector in per_ply_term
            .interaction
            .as_mut()
            .unwrap()
            .vectors
            .iter_mut()
        {
            *vector = vector.map(|x| x * 127 / 200);
        }
        let plain_bytes = plain.to_blended_bytes().unwrap();
        let base_id = Weights::file_id(&plain_bytes).unwrap();
        let term_bytes = per_ply_term.term_to_bytes(base_id).unwrap();
        let (joined, _) = Weights::with_term_file(&plain_bytes, &term_bytes).unwrap();
        assert_eq!(joined, per_ply_term);
        // Stages that do not divide 60 have no blended form.
        let error = random_weights(1, 7).to_blended_bytes().unwrap_err();
        assert!(error.to_string().contains("divide"), "{error}");
        // Stages of one ply read blended are themselves.
        assert_eq!(loaded.per_ply(), loaded);
    }

    #[test]
    fn file_round_trip_and_damage_is_detected() {
        let weights = random_weights(3, 3);
        let bytes = weights.to_bytes();
        assert_eq!(Weights::from_bytes(&bytes).unwrap(), weights);
        let mut damaged = bytes.clone();
        damaged[100] ^= 1;
        let err = Weights::from_bytes(&damaged).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");
        assert!(Weights::from_bytes(&bytes[..bytes.len() - 10]).is_err());
        assert!(Weights::from_bytes(b"not a weights file at all, no").is_err());
        // The identity is the stored checksum of a sound file, and other weights have another.
        assert_eq!(
            Weights::file_id(&bytes),
            Some(fnv1a_32(&bytes[..bytes.len() - 4]))
        );
        assert_eq!(Weights::file_id(&damaged), None);
        assert_ne!(
            Weights::file_id(&random_weights(4, 3).to_bytes()),
            Weights::file_id(&bytes)
        );
        let (_, id) = PatternEval::from_bytes(&bytes).unwrap();
        assert_eq!(Some(id.0), Weights::file_id(&bytes));
        assert_eq!(id.to_string().parse::<WeightsId>().unwrap(), id);
        assert_eq!(WeightsId(0xab).to_string(), "000000ab");
        for bad in ["ab", "0000000g", "000000001", "+0000001"] {
            assert!(bad.parse::<WeightsId>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_last_feature_is_the_mobility_table_entry() {
        let layout = layout();
        let entry = |board: &Board| features(board)[COPIES] as usize - layout.mobility_offset;
        // The start: four moves each.
        let mut board = Board::start();
        assert_eq!(entry(&board), 4 * MOBILITY_SIDE + 4);
        // After f5, White (to move) has d6, f4 and f6; Black's count comes from the bitboards.
        board.play("f5".parse().unwrap()).unwrap();
        let black_moves = bits::mobility(board.opponent_discs(), board.player_discs());
        assert_eq!(board.mobility(), 3);
        assert_eq!(
            entry(&board),
            3 * MOBILITY_SIDE + black_moves.count_ones() as usize
        );
        // The table follows the pattern tables and ends the flat table.
        assert_eq!(
            layout.total,
            layout.mobility_offset + MOBILITY_SIDE * MOBILITY_SIDE
        );
    }

    #[test]
    fn evaluation_is_the_sum_of_its_look_ups() {
        let weights = random_weights(5, 15);
        let eval = PatternEval::new(&weights);
        let mut rng = Rng::new(9);
        for plies in 0..58 {
            let board = random_board(&mut rng, plies);
            let stage = stage_of(board.empties(), 15);
            let expected: i32 = i32::from(weights.bias[stage])
                + features(&board)
                    .iter()
                    .map(|&f| i32::from(weights.tables[stage][f as usize]))
                    .sum::<i32>();
            assert_eq!(eval.raw(&board), expected, "after {plies} plies");
        }
    }

    /// A leaf evaluated from its parts (the indices and bitboards after a move, the board
    /// not played into) has the value of the same position played on the board.
    #[test]
    fn a_leaf_from_its_parts_has_the_value_of_the_played_position() {
        let eval = PatternEval::new(&random_interaction_weights(19, 15));
        let mut rng = Rng::new(23);
        let mut checked = 0;
        for plies in 0..58 {
            let mut board = random_board(&mut rng, plies);
            for square in bits::squares(board.legal_moves()) {
                let flipped = board.flips(square);
                let indices = board.pattern_indices_after(square, flipped);
                let leaf = LeafView::after_move(&board, square, flipped, &indices);
                let value = eval.evaluate_leaf(&leaf);
                board.apply_flips(square, flipped);
                assert_eq!(
                    value,
                    eval.evaluate(&board),
                    "after {plies} plies, {square}"
                );
                board.undo();
                checked += 1;
            }
        }
        assert!(checked > 200, "{checked}");
    }

    #[test]
    fn evaluation_is_the_same_on_all_symmetries() {
        for weights in [random_weights(7, 15), random_interaction_weights(7, 15)] {
            let eval = PatternEval::new(&weights);
            let mut rng = Rng::new(11);
            for plies in [0, 5, 20, 33, 47, 56] {
                let board = random_board(&mut rng, plies);
                let value = eval.raw(&board);
                for symmetry in Symmetry::ALL {
                    assert_eq!(
                        eval.raw(&board.transformed(symmetry)),
                        value,
                        "{plies} plies"
                    );
                }
            }
        }
    }

    #[test]
    fn colours_swapped_with_the_side_to_move_give_the_same_value() {
        for weights in [random_weights(13, 15), random_interaction_weights(13, 15)] {
            let eval = PatternEval::new(&weights);
            let mut rng = Rng::new(17);
            for plies in [3, 18, 40] {
                let board = random_board(&mut rng, plies);
                let swapped = Board::from_discs(
                    board.discs(Color::White),
                    board.discs(Color::Black),
                    board.side_to_move().opponent(),
                )
                .unwrap();
                assert_eq!(eval.raw(&board), eval.raw(&swapped));
            }
        }
    }
}
