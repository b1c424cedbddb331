//! A small deterministic pseudo-random generator (xorshift64*).
//!
//! Used wherever tsuru needs reproducible randomness: test games, match opening order,
//! data generation. The same seed gives the same sequence on every machine.

/// Xorshift64* generator; never yields the all-zero state.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A uniformly chosen square of a non-empty bitboard.
    pub fn pick(&mut self, bits: u64) -> crate::board::Square {
        debug_assert!(bits != 0);
        let mut k = self.below(bits.count_ones() as u64);
        let mut rest = bits;
        while k > 0 {
            rest &= rest - 1;
            k -= 1;
        }
        crate::board::Square::from_lowest_bit(rest)
    }
}
