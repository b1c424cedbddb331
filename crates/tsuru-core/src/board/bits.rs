//! Bitboard operations on the derived view of the board.
//!
//! A bitboard is a `u64` with bit `8 * row + col` set for each square in the set (a1 = bit 0,
//! h8 = bit 63). The board module keeps one bitboard per colour in step with the mailbox; the
//! functions here are pure and take the side to move's discs `p` and the opponent's `o`;
//! [`BitView`] names that pair where the endgame solver searches on it.
//!
//! Measured on perft (see `tsuru perft --reference`): generating moves and flips from these
//! bitboards is several times faster than the seeds' per-direction mailbox scan, which stays
//! in [`super::scan`] as the reference the tests compare against.

/// The eight directions as (column step, row step).
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
];

/// `RAYS[d][sq]`: the squares from `sq` (exclusive) to the edge in direction `d`.
/// Directions 0, 2, 4, 6 increase the bit index, 1, 3, 5, 7 decrease it.
const RAYS: [[u64; 64]; 8] = {
    let mut rays = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (dc, dr) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 64 {
            let mut c = (sq % 8) as i32 + dc;
            let mut r = (sq / 8) as i32 + dr;
            let mut ray = 0u64;
            while c >= 0 && c < 8 && r >= 0 && r < 8 {
                ray |= 1u64 << (r * 8 + c);
                c += dc;
                r += dr;
            }
            rays[d][sq] = ray;
            sq += 1;
        }
        d += 1;
    }
    rays
};

/// `NEIGHBOURS[sq]`: the up to eight squares next to `sq`. A move on `sq` can only flip if
/// one of them holds an opponent disc, a test much cheaper than [`flips`].
pub const NEIGHBOURS: [u64; 64] = {
    let mut out = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let c = (sq % 8) as i32 + DIRECTIONS[d].0;
            let r = (sq / 8) as i32 + DIRECTIONS[d].1;
            if c >= 0 && c < 8 && r >= 0 && r < 8 {
                out[sq] |= 1u64 << (r * 8 + c);
            }
            d += 1;
        }
        sq += 1;
    }
    out
};

/// A position as two bitboards, the side to move's discs first: the endgame solver's view of
/// the board below the [`Board`](super::Board)'s make/undo. A move makes a new view
/// ([`BitView::play`]) instead of changing this one, so there is nothing to undo. The two
/// sets never overlap when made from a board and played with legal moves and their flips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitView {
    /// The side to move's discs.
    pub player: u64,
    /// The opponent's discs.
    pub opponent: u64,
}

impl BitView {
    /// The empty squares.
    #[inline]
    pub fn empty(self) -> u64 {
        !(self.player | self.opponent)
    }

    /// How many squares are empty.
    #[inline]
    pub fn empties(self) -> u32 {
        self.empty().count_ones()
    }

    /// The side to move's legal squares ([`mobility`]).
    #[inline]
    pub fn mobility(self) -> u64 {
        mobility(self.player, self.opponent)
    }

    /// The discs the side to move's disc on `sq` would flip ([`flips`]).
    #[inline]
    pub fn flips(self, sq: usize) -> u64 {
        flips(self.player, self.opponent, sq)
    }

    /// The view after the side to move plays `sq`, flipping `flipped` (from [`BitView::flips`]);
    /// the opponent is then to move.
    #[inline]
    pub fn play(self, sq: usize, flipped: u64) -> BitView {
        BitView {
            player: self.opponent & !flipped,
            opponent: self.player | flipped | (1 << sq),
        }
    }

    /// The view after the side to move passes.
    #[inline]
    pub fn passed(self) -> BitView {
        BitView {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// The view's hash ([`hash`]).
    #[inline]
    pub fn hash(self) -> u64 {
        hash(self.player, self.opponent)
    }
}

/// The opponent discs that a disc placed on square `sq` by the side owning `p` would flip.
/// Zero when the move is illegal (or `sq` is occupied by `o` only in the sense that no line
/// closes; callers must not pass an occupied square).
///
/// Three paths give the same answer (tested on random boards): AVX-512 VL/CD builds use
/// [`flips_vector`], AVX2 builds without them [`flips_avx2`], others [`flips_scalar`].
#[inline]
pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "avx512vl",
        target_feature = "avx512cd"
    ))]
    {
        flips_vector(p, o, sq)
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(all(target_feature = "avx512vl", target_feature = "avx512cd"))
    ))]
    {
        flips_avx2(p, o, sq)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        flips_scalar(p, o, sq)
    }
}

/// [`flips`] one direction at a time in general-purpose registers.
#[inline]
pub fn flips_scalar(p: u64, o: u64, sq: usize) -> u64 {
    // Branch-free: a misjudged branch costs more than computing every direction.
    let mut flipped = 0u64;
    // Increasing directions: the first non-opponent square is the lowest set bit.
    let mut d = 0;
    while d < 8 {
        let ray = RAYS[d][sq];
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        let closed = ((first & p) != 0) as u64;
        flipped |= ray & first.wrapping_sub(1) & closed.wrapping_neg();
        d += 2;
    }
    // Decreasing directions: the first non-opponent square is the highest set bit.
    let mut d = 1;
    while d < 8 {
        let ray = RAYS[d][sq];
        let stop = ray & !o;
        let first = ((1u128 << 63) >> stop.leading_zeros()) as u64;
        let closed = ((first & p) != 0) as u64;
        flipped |= ray & !(first << 1).wrapping_sub(1) & closed.wrapping_neg();
        d += 2;
    }
    flipped
}

/// Four rays of a square in one 256-bit load.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Rays4([u64; 4]);

/// `RAYS4[sq]`: the rays of `sq` in the increasing directions (`.0`: 0, 2, 4, 6 of
/// [`DIRECTIONS`]) and the decreasing ones (`.1`: 1, 3, 5, 7), four lanes each.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
static RAYS4: [(Rays4, Rays4); 64] = {
    let mut out = [(Rays4([0; 4]), Rays4([0; 4])); 64];
    let mut sq = 0;
    while sq < 64 {
        let mut lane = 0;
        while lane < 4 {
            out[sq].0 .0[lane] = RAYS[2 * lane][sq];
            out[sq].1 .0[lane] = RAYS[2 * lane + 1][sq];
            lane += 1;
        }
        sq += 1;
    }
    out
};

/// [`flips`] four directions at a time in 256-bit lanes: the same computation as
/// [`flips_scalar`], with the highest set bit of the decreasing rays found by a vector
/// leading-zero count (AVX-512 CD and VL).
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "avx512vl",
    target_feature = "avx512cd"
))]
#[inline]
pub fn flips_vector(p: u64, o: u64, sq: usize) -> u64 {
    use std::arch::x86_64::*;
    flips_in_lanes(p, o, sq, |p, o, down| {
        // SAFETY: these intrinsics need only the target features this function is
        // compiled for (the cfg above).
        unsafe {
            let zero = _mm256_setzero_si256();
            // The highest bit of the stop squares; a shift by 64 (no stop square) gives zero.
            let stop = _mm256_andnot_si256(o, down);
            let first = _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MIN), _mm256_lzcnt_epi64(stop));
            let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, p), zero);
            // The squares above the stop square: minus twice its bit.
            let above = _mm256_sub_epi64(zero, _mm256_add_epi64(first, first));
            _mm256_andnot_si256(open, _mm256_and_si256(down, above))
        }
    })
}

/// [`flips`] four directions at a time in 256-bit lanes with AVX2 alone (no vector
/// leading-zero count): the increasing rays as in [`flips_vector`], the decreasing ones by
/// smearing each lane's stop squares down its own step, so that the highest stop square is
/// the one no other lies above.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline]
pub fn flips_avx2(p: u64, o: u64, sq: usize) -> u64 {
    use std::arch::x86_64::*;
    flips_in_lanes(p, o, sq, |p, o, down| {
        // SAFETY: these intrinsics need only AVX2, which the cfg above requires.
        unsafe {
            let zero = _mm256_setzero_si256();
            // Directions 1, 3, 5, 7: one step lowers the index by 1, 8, 9, 7. `below`: every
            // square at most 7 steps below a stop square; the highest stop square is the one
            // not within 1 to 8 steps below another (a ray has at most 7).
            let step = _mm256_set_epi64x(7, 9, 8, 1);
            let stop = _mm256_andnot_si256(o, down);
            let mut below = _mm256_or_si256(stop, _mm256_srlv_epi64(stop, step));
            below = _mm256_or_si256(
                below,
                _mm256_srlv_epi64(below, _mm256_add_epi64(step, step)),
            );
            below = _mm256_or_si256(
                below,
                _mm256_srlv_epi64(below, _mm256_slli_epi64::<2>(step)),
            );
            let first = _mm256_andnot_si256(_mm256_srlv_epi64(below, step), stop);
            let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, p), zero);
            // The ray's squares above the highest stop square, all the opponent's.
            _mm256_andnot_si256(open, _mm256_andnot_si256(below, down))
        }
    })
}

/// The flips of a disc on `sq` in 256-bit lanes, one direction a lane: the increasing rays
/// (their first square that is not the opponent's is the lowest bit) here, the decreasing
/// ones by `decreasing(p, o, rays)`, the lanes OR-ed into one bitboard.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn flips_in_lanes(
    p: u64,
    o: u64,
    sq: usize,
    decreasing: impl Fn(
        std::arch::x86_64::__m256i,
        std::arch::x86_64::__m256i,
        std::arch::x86_64::__m256i,
    ) -> std::arch::x86_64::__m256i,
) -> u64 {
    use std::arch::x86_64::*;
    let (up, down) = &RAYS4[sq];
    // SAFETY: the loads read 32 bytes from a 32-byte aligned `Rays4`; every other intrinsic
    // needs only AVX2, which the cfg above requires.
    unsafe {
        let p = _mm256_set1_epi64x(p as i64);
        let o = _mm256_set1_epi64x(o as i64);
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi64x(1);
        let up = _mm256_load_si256(up.0.as_ptr() as *const __m256i);
        let down = _mm256_load_si256(down.0.as_ptr() as *const __m256i);
        let stop = _mm256_andnot_si256(o, up);
        let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
        let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, p), zero);
        let flipped_up =
            _mm256_andnot_si256(open, _mm256_and_si256(up, _mm256_sub_epi64(first, one)));
        let lanes = _mm256_or_si256(flipped_up, decreasing(p, o, down));
        let half = _mm_or_si128(
            _mm256_castsi256_si128(lanes),
            _mm256_extracti128_si256::<1>(lanes),
        );
        (_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64
    }
}

/// `LINES[sq]`: the four lines through `sq` (row, column, a1-h8 diagonal, h1-a8 diagonal)
/// as masks, `sq` included, and `sq`'s position among each mask's squares counted from the
/// lowest bit (what [`last_flips`] extracts and looks up).
const LINES: [([u64; 4], [u8; 4]); 64] = {
    let mut out = [([0u64; 4], [0u8; 4]); 64];
    // Each line runs in an increasing direction of DIRECTIONS (0, 2, 4, 6), backed by the
    // decreasing one after it.
    let mut sq = 0;
    while sq < 64 {
        let mut line = 0;
        while line < 4 {
            let backward = RAYS[2 * line + 1][sq];
            out[sq].0[line] = RAYS[2 * line][sq] | backward | (1 << sq);
            out[sq].1[line] = backward.count_ones() as u8;
            line += 1;
        }
        sq += 1;
    }
    out
};

/// `LAST_FLIPS[pos][own]`: on a full line whose squares (lowest bit first) hold `own`'s
/// discs where its bits are set and the opponent's elsewhere, how many discs a disc on the
/// empty square at `pos` flips along the line. Bits past the line's end are clear, and a
/// run of opponent discs flips only when an own disc closes it, so shorter lines need no
/// table of their own.
const LAST_FLIPS: [[u8; 256]; 8] = {
    let mut out = [[0u8; 256]; 8];
    let mut pos = 0;
    while pos < 8 {
        let mut own = 0;
        while own < 256 {
            let mut count = 0;
            // Towards higher positions, then towards lower ones.
            let mut i = pos + 1;
            while i < 8 && own & (1 << i) == 0 {
                i += 1;
            }
            if i < 8 {
                count += i - pos - 1;
            }
            let mut i = pos as i32 - 1;
            while i >= 0 && own & (1 << i) == 0 {
                i -= 1;
            }
            if i >= 0 {
                count += pos - i as usize - 1;
            }
            out[pos][own] = count as u8;
            own += 1;
        }
        pos += 1;
    }
    out
};

/// How many discs the side owning `p` flips by playing `sq` when `sq` is the only empty
/// square (every other square not in `p` is the opponent's): [`flips`]' count without
/// computing the discs, for scoring the last move of a game. Zero when the move is illegal.
#[inline]
pub fn last_flips(p: u64, sq: usize) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    if pext_is_fast() {
        return last_flips_by_pext(p, sq);
    }
    // Without a fast bit extraction the general flip computation is the cheaper way.
    let _ = (&LINES, &LAST_FLIPS);
    flips(p, !p & !(1 << sq), sq).count_ones()
}

/// [`last_flips`] by extracting each line's discs with `pext` and looking the count up.
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[inline]
fn last_flips_by_pext(p: u64, sq: usize) -> u32 {
    let (masks, positions) = &LINES[sq];
    let mut count = 0;
    for line in 0..4 {
        // SAFETY: the build enables BMI2 (checked by the cfg above), which is all that
        // `_pext_u64` requires.
        let own = unsafe { std::arch::x86_64::_pext_u64(p, masks[line]) };
        // A line has at most 8 squares: `own` fits a byte, and the cast spares a bounds check.
        count += LAST_FLIPS[positions[line] as usize][own as u8 as usize] as u32;
    }
    count
}

/// Whether this processor's `pext` is fast. Every processor with BMI2 has the instruction,
/// but AMD's before Zen 3 (family 0x17 and older) run it in microcode, hundreds of cycles
/// for a 64-bit mask, where the general flip computation takes a few dozen; a binary built
/// with BMI2 for one machine (or for `x86-64-v3`) then still runs well on those. Asked once
/// (CPUID), then one relaxed load.
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[inline]
pub fn pext_is_fast() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
    // 0: not asked yet, 1: fast, 2: slow.
    static FAST: AtomicU8 = AtomicU8::new(0);
    match FAST.load(Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let fast = !slow_pext_processor();
            FAST.store(if fast { 1 } else { 2 }, Relaxed);
            fast
        }
    }
}

/// Whether CPUID names an AMD processor of a family before Zen 3's (0x19).
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[cold]
fn slow_pext_processor() -> bool {
    use std::arch::x86_64::__cpuid;
    let vendor = __cpuid(0);
    let amd = vendor.ebx == u32::from_le_bytes(*b"Auth")
        && vendor.edx == u32::from_le_bytes(*b"enti")
        && vendor.ecx == u32::from_le_bytes(*b"cAMD");
    amd && family_before_zen3(__cpuid(1).eax)
}

/// Whether the CPUID signature (leaf 1, EAX) of an AMD processor gives a family before 0x19:
/// the base family field, plus the extended one when the base is 0xf.
#[cfg_attr(
    not(all(target_arch = "x86_64", target_feature = "bmi2")),
    allow(dead_code)
)]
fn family_before_zen3(signature: u32) -> bool {
    let base = (signature >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((signature >> 20) & 0xff)
    } else {
        base
    };
    family < 0x19
}

/// The final score, for the side owning `p`, of a finished game whose discs are `p` and
/// `o`: the disc difference, with the empty squares going to the winner.
#[inline]
pub fn final_score(p: u64, o: u64) -> crate::score::Discs {
    let mine = p.count_ones() as i32;
    let theirs = o.count_ones() as i32;
    let empties = 64 - mine - theirs;
    crate::score::Discs::new(match mine.cmp(&theirs) {
        std::cmp::Ordering::Greater => mine - theirs + empties,
        std::cmp::Ordering::Less => mine - theirs - empties,
        std::cmp::Ordering::Equal => 0,
    })
}

/// Squares where the side owning `p` may play: empty squares that flip at least one disc.
#[inline]
pub fn mobility(p: u64, o: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        mobility_vector(p, o)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        mobility_scalar(p, o)
    }
}

/// Masks stop horizontal and diagonal runs from wrapping around the board's edge.
const NOT_EDGE_COLS: u64 = 0x7e7e_7e7e_7e7e_7e7e;

/// [`mobility`] one axis at a time in general-purpose registers.
#[inline]
pub fn mobility_scalar(p: u64, o: u64) -> u64 {
    let empty = !(p | o);
    let inner = o & NOT_EDGE_COLS;
    let mut moves = 0u64;
    for (shift, mask) in [(1u32, inner), (8, o), (7, inner), (9, inner)] {
        // Runs of opponent discs walked from `p`: one square, then two, then two pairs of
        // squares at a time; a run is at most 6 long, reached in 4 steps instead of 6.
        let mut up = mask & (p << shift);
        let mut down = mask & (p >> shift);
        up |= mask & (up << shift);
        down |= mask & (down >> shift);
        // Squares whose neighbour one step back along the direction is in the mask too.
        let pair_up = mask & (mask << shift);
        let pair_down = mask & (mask >> shift);
        let double = 2 * shift;
        up |= pair_up & (up << double);
        down |= pair_down & (down >> double);
        up |= pair_up & (up << double);
        down |= pair_down & (down >> double);
        moves |= (up << shift) | (down >> shift);
    }
    moves & empty
}

/// [`mobility_scalar`]'s steps on the four axes at once, one 64-bit lane each (AVX2). An
/// earlier trial of this measured no faster; with the solver's flips in vector lanes too it
/// measured 4-7 % less time in the solver and in perft (docs/results.md).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline]
pub fn mobility_vector(p: u64, o: u64) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: every intrinsic here needs only AVX2, which the cfg above requires.
    let empty = !(p | o);
    unsafe {
        let inner = (o & NOT_EDGE_COLS) as i64;
        // Lanes, lowest first: shifts 1, 8, 7, 9, as in the scalar loop.
        let shift = _mm256_set_epi64x(9, 7, 8, 1);
        let double = _mm256_add_epi64(shift, shift);
        let mask = _mm256_set_epi64x(inner, inner, o as i64, inner);
        let p = _mm256_set1_epi64x(p as i64);
        let mut up = _mm256_and_si256(mask, _mm256_sllv_epi64(p, shift));
        let mut down = _mm256_and_si256(mask, _mm256_srlv_epi64(p, shift));
        up = _mm256_or_si256(up, _mm256_and_si256(mask, _mm256_sllv_epi64(up, shift)));
        down = _mm256_or_si256(down, _mm256_and_si256(mask, _mm256_srlv_epi64(down, shift)));
        let pair_up = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
        let pair_down = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift));
        for _ in 0..2 {
            up = _mm256_or_si256(up, _mm256_and_si256(pair_up, _mm256_sllv_epi64(up, double)));
            down = _mm256_or_si256(
                down,
                _mm256_and_si256(pair_down, _mm256_srlv_epi64(down, double)),
            );
        }
        let lanes = _mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift));
        let half = _mm_or_si128(
            _mm256_castsi256_si128(lanes),
            _mm256_extracti128_si256::<1>(lanes),
        );
        ((_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64) & empty
    }
}

/// The squares next to (one king step from) some square of `set`, `set`'s own squares
/// included where they neighbour each other: the union of [`NEIGHBOURS`] over `set`.
#[inline]
pub fn adjacent(set: u64) -> u64 {
    // A step east may not wrap from file h to file a, nor a step west the other way.
    let east = (set << 1) & !FILE_A;
    let west = (set >> 1) & !FILE_H;
    let row = set | east | west;
    east | west | (row << 8) | (row >> 8)
}

/// The squares of a bitboard, lowest first.
#[inline]
pub fn squares(mut bits: u64) -> impl Iterator<Item = super::Square> {
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let square = super::Square::from_lowest_bit(bits);
            bits &= bits - 1;
            Some(square)
        }
    })
}

/// A 64-bit hash of the bitboard view `(p, o)` (the side to move's discs, the opponent's).
///
/// The endgame solver searches on the bitboard view below the board's make/undo, where the
/// board's incremental Zobrist hash is not kept; this hash costs three multiplications and
/// mixes every input bit into both halves (the table uses the low bits to choose a bucket
/// and the high bits as a check). Equal views give equal hashes on every build.
#[inline]
pub fn hash(p: u64, o: u64) -> u64 {
    let mut h = p.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ o.wrapping_mul(0xc2b2_ae3d_27d4_eb4f).rotate_left(29);
    h ^= h >> 32;
    h = h.wrapping_mul(0xd6e8_feb8_6659_fd93);
    h ^ (h >> 29)
}

/// At most this many empty squares, [`stable`] finds the full lines from them
/// ([`full_lines_around`]).
const FEW_EMPTIES: u32 = 10;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;
const RANK_1: u64 = 0x0000_0000_0000_00ff;
const RANK_8: u64 = 0xff00_0000_0000_0000;
const BORDER: u64 = FILE_A | FILE_H | RANK_1 | RANK_8;

/// The 15 diagonals along a1-h8 (`.0`) and the 15 along h1-a8 (`.1`), as bitboards.
const DIAGONALS: ([u64; 15], [u64; 15]) = {
    let mut up = [0u64; 15];
    let mut down = [0u64; 15];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = (sq % 8, sq / 8);
        up[c + 7 - r] |= 1 << sq;
        down[c + r] |= 1 << sq;
        sq += 1;
    }
    (up, down)
};

/// The squares whose line is completely filled, for each of the four axes: horizontal,
/// vertical, a1-h8 diagonal, h1-a8 diagonal. No move can ever be played on a full line, so
/// no disc on it can be flipped along that axis.
#[inline]
pub fn full_lines(occupied: u64) -> [u64; 4] {
    let mut rows = occupied & (occupied >> 1) & (occupied >> 2) & (occupied >> 3);
    rows &= rows >> 4;
    let rows = (rows & FILE_A) * 0xff;
    let mut cols = occupied & (occupied >> 32);
    cols &= cols >> 16;
    cols &= cols >> 8;
    let cols = (cols & RANK_1) * FILE_A;
    let mut up = 0;
    let mut down = 0;
    let mut i = 0;
    while i < 15 {
        let (u, d) = (DIAGONALS.0[i], DIAGONALS.1[i]);
        if occupied & u == u {
            up |= u;
        }
        if occupied & d == d {
            down |= d;
        }
        i += 1;
    }
    [rows, cols, up, down]
}

/// The four lines through each square (horizontal, vertical, a1-h8 diagonal, h1-a8
/// diagonal), for [`full_lines_around`].
const LINES_THROUGH: [[u64; 4]; 64] = {
    let mut lines = [[0u64; 4]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = (sq % 8, sq / 8);
        lines[sq] = [
            RANK_1 << (8 * r),
            FILE_A << c,
            DIAGONALS.0[c + 7 - r],
            DIAGONALS.1[c + r],
        ];
        sq += 1;
    }
    lines
};

/// [`full_lines`] computed from the `empty` squares instead: a line is full when it goes
/// through none of them. Cheaper than [`full_lines`] when the empty squares are few (a
/// lookup for each, where [`full_lines`] tests all 30 diagonals).
#[inline]
pub fn full_lines_around(empty: u64) -> [u64; 4] {
    let mut open = [0u64; 4];
    for sq in squares(empty) {
        let lines = &LINES_THROUGH[sq.index()];
        for axis in 0..4 {
            open[axis] |= lines[axis];
        }
    }
    open.map(|lines| !lines)
}

/// The discs on a line of eight squares (bit `i` the line's `i`-th square) that a move on the
/// square `sq` by the side owning `mover` flips along the line: the runs of `other`'s discs
/// between `sq` and a disc of `mover`.
const fn line_flips(mover: u8, other: u8, sq: u32) -> u8 {
    let mut flipped = 0u8;
    let (mut run, mut i) = (0u8, sq + 1);
    while i < 8 && other & (1 << i) != 0 {
        run |= 1 << i;
        i += 1;
    }
    if i < 8 && mover & (1 << i) != 0 {
        flipped |= run;
    }
    let (mut run, mut i) = (0u8, sq as i32 - 1);
    while i >= 0 && other & (1 << i) != 0 {
        run |= 1 << i;
        i -= 1;
    }
    if i >= 0 && mover & (1 << i) != 0 {
        flipped |= run;
    }
    flipped
}

/// `EDGE_STABLE[own | occupied << 8]`, for a line of eight squares (bit `i` the line's
/// `i`-th square; `own` a subset of `occupied`): the discs of `own` that no sequence of moves
/// on the line's empty squares, by either side in any order, can flip along the line. Every
/// empty square counts as playable by both sides (a move may be legal through another
/// line), so the set is sound; on an edge of the board, where a disc's other three axes
/// end off the board, it is the edge discs' stability itself. A line's value depends on
/// the lines with one more disc, which have a larger `occupied`: filled from `occupied` =
/// 255 down.
static EDGE_STABLE: [u8; 1 << 16] = {
    let mut table = [0u8; 1 << 16];
    let mut occupied: i32 = 255;
    while occupied >= 0 {
        let occ = occupied as u8;
        // Every subset of `occ`, from `occ` itself down to the empty set.
        let mut own = occ;
        loop {
            let other = occ & !own;
            let mut stable = own;
            let mut sq = 0;
            while sq < 8 {
                let bit = 1u8 << sq;
                if occ & bit == 0 {
                    let next = ((occ | bit) as usize) << 8;
                    // The side plays sq: none of its discs flips; those stable after it stay.
                    let flipped = line_flips(own, other, sq);
                    stable &= table[next | (own | bit | flipped) as usize];
                    // The other side plays sq: the flipped discs are not stable.
                    let flipped = line_flips(other, own, sq);
                    stable &= table[next | (own & !flipped) as usize] & !flipped;
                }
                sq += 1;
            }
            table[(occ as usize) << 8 | own as usize] = stable;
            if own == 0 {
                break;
            }
            own = (own - 1) & occ;
        }
        occupied -= 1;
    }
    table
};

/// `FILE_OF[b]`: the squares of the a-file whose rows are the set bits of `b` (bit `i`: row
/// `i`); shifted left by 7, the h-file's.
static FILE_OF: [u64; 256] = {
    let mut out = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut row = 0;
        while row < 8 {
            if b & (1 << row) != 0 {
                out[b] |= 1 << (8 * row);
            }
            row += 1;
        }
        b += 1;
    }
    out
};

/// The discs of `own` on the four edges that can never be flipped ([`EDGE_STABLE`] of each
/// edge line).
#[inline]
fn edge_stable(own: u64, occupied: u64) -> u64 {
    let row = |x: u64, shift: u32| ((x >> shift) & 0xff) as usize;
    // The a-file (shifted right by `shift`) gathered into a byte, row i to bit i.
    let file = |x: u64, shift: u32| {
        (((x >> shift) & FILE_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
    };
    let line = |own: usize, occupied: usize| EDGE_STABLE[occupied << 8 | own];
    let first_row = line(row(own, 0), row(occupied, 0)) as u64;
    let last_row = (line(row(own, 56), row(occupied, 56)) as u64) << 56;
    let file_a = FILE_OF[line(file(own, 0), file(occupied, 0)) as usize];
    let file_h = FILE_OF[line(file(own, 7), file(occupied, 7)) as usize] << 7;
    first_row | last_row | file_a | file_h
}

/// Discs of `own` that can never be flipped, whatever is played (a subset of the truly
/// stable discs).
///
/// The edges' stable discs come from a table of every edge line ([`EDGE_STABLE`]). Inside,
/// a disc is safe along an axis if its line on that axis is full, or if one of its two
/// neighbours on that axis is off the board or is itself a stable disc of `own` (a bracket
/// would have to flip that neighbour too). A disc safe along all four axes is stable; the
/// set grows from the edges until nothing changes.
pub fn stable(own: u64, occupied: u64) -> u64 {
    // Ten empty squares cost about what the 30 diagonal tests of `full_lines` do.
    let [rows, cols, up, down] = if (!occupied).count_ones() <= FEW_EMPTIES {
        full_lines_around(!occupied)
    } else {
        full_lines(occupied)
    };
    let mut stable = edge_stable(own, occupied);
    loop {
        let horizontal = rows | FILE_A | FILE_H | (stable << 1) | (stable >> 1);
        let vertical = cols | RANK_1 | RANK_8 | (stable << 8) | (stable >> 8);
        let diagonal = up | BORDER | (stable << 9) | (stable >> 9);
        let anti = down | BORDER | (stable << 7) | (stable >> 7);
        // Shifts that wrap across a row land on the border, which is safe anyway.
        let next = stable | (own & horizontal & vertical & diagonal & anti);
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rays_have_expected_lengths() {
        // a1 towards h1 holds b1..h1; a1 towards h8 holds b2..h8.
        assert_eq!(RAYS[0][0].count_ones(), 7);
        assert_eq!(RAYS[4][0].count_ones(), 7);
        assert_eq!(RAYS[1][0], 0);
        assert_eq!(RAYS[5][63].count_ones(), 7);
    }

    #[test]
    fn start_position_mobility_and_flips() {
        // Black: e4 (28), d5 (35); White: d4 (27), e5 (36).
        let black = (1 << 28) | (1 << 35);
        let white = (1 << 27) | (1 << 36);
        let moves = mobility(black, white);
        // d3 (19), c4 (26), f5 (37), e6 (44)
        assert_eq!(moves, (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44));
        assert_eq!(flips(black, white, 37), 1 << 36);
        assert_eq!(flips(black, white, 19), 1 << 27);
        assert_eq!(flips(black, white, 0), 0);
    }

    /// Plays up to `plies` uniformly random legal moves (passing when forced), stopping when
    /// the game ends; returns the side to move's and the opponent's discs, and whether the
    /// side to move changed.
    fn random_playout(
        mut p: u64,
        mut o: u64,
        plies: u64,
        rng: &mut crate::rng::Rng,
    ) -> (u64, u64, bool) {
        let mut swapped = false;
        for _ in 0..plies {
            let moves = mobility(p, o);
            if moves == 0 {
                if mobility(o, p) == 0 {
                    break;
                }
            } else {
                let sq = rng.pick(moves).index();
                let f = flips(p, o, sq);
                p |= f | (1 << sq);
                o &= !f;
            }
            (p, o) = (o, p);
            swapped = !swapped;
        }
        (p, o, swapped)
    }

    #[test]
    fn stable_discs_are_never_flipped() {
        let mut rng = crate::rng::Rng::new(11);
        let mut checked = 0;
        for _ in 0..300 {
            // A random position part-way through a random game.
            let start = ((1u64 << 28) | (1 << 35), (1u64 << 27) | (1 << 36));
            let plies = 20 + rng.below(40);
            let (p, o, _) = random_playout(start.0, start.1, plies, &mut rng);
            let (sp, so) = (stable(p, p | o), stable(o, p | o));
            assert_eq!(sp & !p, 0);
            assert_eq!(so & !o, 0);
            checked += (sp | so).count_ones();
            for _ in 0..20 {
                let (a, b, swapped) = random_playout(p, o, 100, &mut rng);
                let (fp, fo) = if swapped { (b, a) } else { (a, b) };
                assert_eq!(sp & !fp, 0, "a stable disc of the side to move was flipped");
                assert_eq!(so & !fo, 0, "a stable disc of the opponent was flipped");
            }
        }
        assert!(
            checked > 1000,
            "the positions had stable discs to check ({checked})"
        );
    }

    #[test]
    fn stability_of_known_shapes() {
        // Black a1, b1, c1 and b2 against White d1: the corner run is stable; b2 is not,
        // because a2 and c2 are empty (a disc there can bracket it along the second row).
        let black = 0b111 | (1 << 9);
        let white = 1 << 3;
        assert_eq!(stable(black, black | white), 0b111);
        // With a2 and c2 Black too, b2 leans on stable neighbours on every axis; c2 does
        // not (d1 is White and b3 empty on its h1-a8 diagonal).
        let black = black | (1 << 8) | (1 << 10);
        assert_eq!(stable(black, black | white), black & !(1 << 10));
        assert_eq!(stable(white, black | white), 0);
        // A full first row: every disc on it is stable, whoever owns it.
        let row_black = 0b1010_1010;
        let row_white = 0b0101_0101;
        assert_eq!(stable(row_black, 0xff), row_black);
        assert_eq!(stable(row_white, 0xff), row_white);
        // A full board: everything is stable.
        assert_eq!(
            stable(0x00ff_00ff_00ff_00ff, u64::MAX),
            0x00ff_00ff_00ff_00ff
        );
        // An interior disc with empty surroundings is not.
        assert_eq!(stable(1 << 27, (1 << 27) | (1 << 28)), 0);
        // First row: Black a1, White b1 c1, Black d1 .. g1, h1 empty. White's b1 and c1 are
        // bracketed by Black on both sides already, and the only move left on the row (h1)
        // either fills it (Black) or flips d1 .. g1 to White: b1 and c1 can never flip,
        // though neither neighbour is stable for White. d1 .. g1 are not (White h1).
        let black = 0b0111_1001u64;
        let white = 0b0000_0110u64;
        assert_eq!(stable(white, black | white), white);
        assert_eq!(stable(black, black | white), 0b1);
        // The same on the h-file, read from h8 down (the file's own extraction).
        let file = |row_bits: u64| {
            (0..8)
                .filter(|i| row_bits >> i & 1 != 0)
                .fold(0u64, |acc, i| acc | 1 << (63 - 8 * i))
        };
        assert_eq!(stable(file(white), file(black | white)), file(white));
        assert_eq!(stable(file(black), file(black | white)), file(0b1));
    }

    /// The edge table against a brute-force search of every continuation of the line: a
    /// disc is stable when no sequence of moves (either side on any empty square, flipping
    /// along the line) ever flips it.
    #[test]
    fn edge_table_equals_a_search_of_every_continuation() {
        fn flippable(own: u8, occupied: u8) -> u8 {
            let mut out = 0;
            for sq in 0..8 {
                let bit = 1u8 << sq;
                if occupied & bit != 0 {
                    continue;
                }
                let other = occupied & !own;
                let mine = line_flips(own, other, sq);
                out |= flippable(own | bit | mine, occupied | bit) & own;
                let theirs = line_flips(other, own, sq);
                out |= theirs | flippable(own & !theirs, occupied | bit) & own;
            }
            out
        }
        let mut rng = crate::rng::Rng::new(12);
        for _ in 0..400 {
            let occupied = (rng.next_u64() | rng.next_u64()) as u8;
            let own = rng.next_u64() as u8 & occupied;
            assert_eq!(
                EDGE_STABLE[(occupied as usize) << 8 | own as usize],
                own & !flippable(own, occupied),
                "own {own:08b} occupied {occupied:08b}"
            );
        }
        // A full line is stable, an empty one has nothing to keep.
        assert_eq!(EDGE_STABLE[0xff << 8 | 0x5a], 0x5a);
        assert_eq!(EDGE_STABLE[0], 0);
    }

    #[test]
    fn full_lines_from_the_empty_squares_equal_full_lines() {
        let mut rng = crate::rng::Rng::new(33);
        for _ in 0..5_000 {
            // From none to a few dozen empty squares.
            let mut empty = 0u64;
            for _ in 0..rng.below(40) {
                empty |= 1 << rng.below(64);
            }
            assert_eq!(full_lines_around(empty), full_lines(!empty), "{empty:#x}");
        }
        assert_eq!(full_lines_around(0), [u64::MAX; 4]);
    }

    #[test]
    fn full_lines_of_a_filled_row_column_and_diagonal() {
        let diagonal = 0x8040_2010_0804_0201u64;
        let [rows, cols, up, down] = full_lines(RANK_1 | FILE_A | diagonal);
        assert_eq!(rows, RANK_1);
        assert_eq!(cols, FILE_A);
        assert_eq!(up & diagonal, diagonal);
        // h1-a8 diagonals: a1 and h8 alone, b1-a2, and c1-b2-a3.
        assert_eq!(down, 0b111 | (1 << 8) | (1 << 9) | (1 << 16) | (1 << 63));
    }

    #[test]
    fn adjacent_is_the_union_of_the_neighbours() {
        let mut rng = crate::rng::Rng::new(31);
        for _ in 0..5_000 {
            let set = match rng.below(3) {
                0 => 1 << rng.below(64),
                1 => rng.next_u64() & rng.next_u64() & rng.next_u64(),
                _ => rng.next_u64(),
            };
            let union = squares(set).fold(0, |acc, sq| acc | NEIGHBOURS[sq.index()]);
            assert_eq!(adjacent(set), union, "set {set:#x}");
        }
        assert_eq!(adjacent(1 << 7), (1 << 6) | (1 << 14) | (1 << 15));
        assert_eq!(adjacent(0), 0);
    }

    #[test]
    fn neighbours_count_three_at_corners_five_on_edges_eight_inside() {
        assert_eq!(NEIGHBOURS[0], (1 << 1) | (1 << 8) | (1 << 9));
        assert_eq!(NEIGHBOURS[63].count_ones(), 3);
        assert_eq!(NEIGHBOURS[3].count_ones(), 5);
        assert_eq!(NEIGHBOURS[27].count_ones(), 8);
        for (sq, neighbours) in NEIGHBOURS.iter().enumerate() {
            assert_eq!(neighbours & (1 << sq), 0);
        }
    }

    #[test]
    fn flips_equal_the_scalar_flips() {
        let mut rng = crate::rng::Rng::new(23);
        let mut flipping = 0;
        for _ in 0..50_000 {
            let p = rng.next_u64() & rng.next_u64();
            let o = rng.next_u64() & !p;
            let empty = !(p | o);
            if empty == 0 {
                continue;
            }
            let sq = rng.pick(empty).index();
            let expected = flips_scalar(p, o, sq);
            assert_eq!(flips(p, o, sq), expected, "p {p:#x} o {o:#x} sq {sq}");
            #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
            assert_eq!(flips_avx2(p, o, sq), expected, "p {p:#x} o {o:#x} sq {sq}");
            flipping += u32::from(expected != 0);
        }
        assert!(flipping > 10_000, "many random moves flip ({flipping})");
    }

    #[test]
    fn mobility_equals_the_scalar_mobility() {
        let mut rng = crate::rng::Rng::new(29);
        for _ in 0..50_000 {
            let p = rng.next_u64() & rng.next_u64();
            let o = rng.next_u64() & !p;
            assert_eq!(mobility(p, o), mobility_scalar(p, o), "p {p:#x} o {o:#x}");
        }
    }

    #[test]
    fn pext_counts_as_slow_on_amd_before_zen_3() {
        // Signatures of real processors: Zen 2 (family 0x17), Zen 3 (0x19), Zen 4 (0x19),
        // Bulldozer (0x15).
        assert!(family_before_zen3(0x0083_0f10));
        assert!(!family_before_zen3(0x00a2_0f10));
        assert!(!family_before_zen3(0x00a6_0f12));
        assert!(family_before_zen3(0x0060_0f12));
    }

    #[test]
    fn last_flips_counts_the_flips_of_the_last_move() {
        let mut rng = crate::rng::Rng::new(17);
        let mut flipping = 0;
        for _ in 0..20_000 {
            let sq = rng.below(64) as usize;
            // A full board but `sq`, owned at random; sparse and dense owners both occur.
            let p = match rng.below(3) {
                0 => rng.next_u64() & rng.next_u64(),
                1 => rng.next_u64(),
                _ => rng.next_u64() | rng.next_u64(),
            } & !(1 << sq);
            let o = !p & !(1 << sq);
            let expected = flips(p, o, sq).count_ones();
            assert_eq!(last_flips(p, sq), expected, "p {p:#x} sq {sq}");
            // Both ways of counting, whichever this processor uses.
            #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
            assert_eq!(last_flips_by_pext(p, sq), expected, "p {p:#x} sq {sq}");
            assert_eq!(last_flips(o, sq), flips(o, p, sq).count_ones());
            flipping += u32::from(expected > 0);
        }
        assert!(
            flipping > 10_000,
            "most random last moves flip ({flipping})"
        );
        // h8 empty, Black on a1 alone, White everywhere else: Black flips the six discs of
        // the diagonal b2-g7 (the row and the column have no Black disc to close them), and
        // White flips nothing.
        let white = !1u64 & !(1 << 63);
        assert_eq!(last_flips(1, 63), 6);
        assert_eq!(last_flips(white, 63), 0);
    }

    #[test]
    fn view_hash_tells_views_apart() {
        let mut seen = std::collections::HashSet::new();
        for sq in 0..64 {
            assert!(seen.insert(hash(1 << sq, 0)));
            assert!(seen.insert(hash(0, 1 << sq)));
        }
        assert_ne!(hash(1, 2), hash(2, 1));
    }

    #[test]
    fn a_view_moves_as_the_board_does() {
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..50 {
            let mut board = crate::board::Board::start();
            while !board.is_game_over() {
                let view = board.view();
                assert_eq!(view.empties(), board.empties());
                assert_eq!(view.mobility(), board.legal_moves());
                let moves = board.legal_moves();
                if moves == 0 {
                    board.make_pass();
                    assert_eq!(board.view(), view.passed());
                } else {
                    let square = rng.pick(moves);
                    let flipped = view.flips(square.index());
                    board.make_move(square);
                    assert_eq!(board.view(), view.play(square.index(), flipped));
                }
            }
        }
    }
}
