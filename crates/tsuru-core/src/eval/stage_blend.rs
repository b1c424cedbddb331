//! Stages read blended: each stage's weights stand for the middle of its plies, and a position
//! is valued by the two stages whose middles enclose its ply, mixed in proportion to its
//! distance from each (before the first middle and after the last, the nearest stage alone).
//!
//! With 15 stages of 4 plies the middles are plies 1.5, 5.5, ..., 57.5, so a ply's shares are
//! eighths: ply 6 is 7/8 of stage 1 and 1/8 of stage 2. A weights file may say its stages are
//! read this way ([`crate::formats::weights`], versions 3 and 4); the evaluation then expands
//! them to one weight set per ply when it loads them
//! ([`super::pattern::Weights::per_ply`]), so the search reads one table per ply and blends
//! nothing itself. The lab fits stages this way (`tsuru train --blend`).

/// The plies a weight set per ply covers (ply 60, the full board, shares ply 59's set, as
/// [`super::pattern::stage_of`] has it).
pub const PLIES: usize = 60;

/// Whether `stages` stages of equal length can be read blended: they must cut the 60 plies
/// evenly.
pub fn can_blend(stages: usize) -> bool {
    stages > 0 && PLIES.is_multiple_of(stages)
}

/// The two stages a position at `ply` (60 minus its empty squares) is read from with
/// `stages` stages of equal length, and each one's share (the shares sum to 1; the second is
/// 0 where one stage alone values the ply). Panics unless [`can_blend`]`(stages)`.
pub fn ply_shares(ply: usize, stages: usize) -> [(usize, f32); 2] {
    assert!(can_blend(stages), "{stages} stages do not divide 60 plies");
    let width = (PLIES / stages) as f32;
    let middle = |stage: usize| width * stage as f32 + (width - 1.0) / 2.0;
    let ply = ply.min(PLIES - 1) as f32;
    if ply <= middle(0) {
        return [(0, 1.0), (0, 0.0)];
    }
    if ply >= middle(stages - 1) {
        return [(stages - 1, 1.0), (stages - 1, 0.0)];
    }
    let stage = ((ply - middle(0)) / width).floor() as usize;
    let share = (ply - middle(stage)) / width;
    if share == 0.0 {
        // On a middle (stages of an odd number of plies): that stage alone.
        return [(stage, 1.0), (stage, 0.0)];
    }
    [(stage, 1.0 - share), (stage + 1, share)]
}

/// The value at one ply of a table entry (or bias) whose stage values `value(stage)` are read
/// with `shares` ([`ply_shares`]): the mix rounded to the nearest unit (halves away from
/// zero) and kept within 16 bits. Computed in `f32` exactly as the lab's fit writes it.
#[inline]
pub fn mix_i16(shares: [(usize, f32); 2], value: impl Fn(usize) -> i16) -> i16 {
    let [(a, wa), (b, wb)] = shares;
    let mixed = wa * f32::from(value(a)) + wb * f32::from(value(b));
    mixed.round().clamp(-32767.0, 32767.0) as i16
}

/// The value at one ply of an interaction scale whose stage values are `scales`: mixed in
/// `f64` (scales are 32-bit and `f32` would round them), rounded to the nearest integer.
#[inline]
pub fn mix_scale(shares: [(usize, f32); 2], scales: &[i32]) -> i32 {
    let [(a, wa), (b, wb)] = shares;
    (f64::from(wa) * f64::from(scales[a]) + f64::from(wb) * f64::from(scales[b])).round() as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pattern::stage_of;

    #[test]
    fn shares_sit_at_the_stage_middles_and_sum_to_one() {
        // 15 stages: the middles are plies 1.5, 5.5, ..., 57.5.
        assert_eq!(ply_shares(0, 15), [(0, 1.0), (0, 0.0)]);
        assert_eq!(ply_shares(1, 15), [(0, 1.0), (0, 0.0)]);
        assert_eq!(ply_shares(2, 15), [(0, 0.875), (1, 0.125)]);
        assert_eq!(ply_shares(5, 15), [(0, 0.125), (1, 0.875)]);
        assert_eq!(ply_shares(6, 15), [(1, 0.875), (2, 0.125)]);
        assert_eq!(ply_shares(57, 15), [(13, 0.125), (14, 0.875)]);
        assert_eq!(ply_shares(58, 15), [(14, 1.0), (14, 0.0)]);
        assert_eq!(ply_shares(60, 15), [(14, 1.0), (14, 0.0)]);
        for stages in [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60] {
            assert!(can_blend(stages));
            for ply in 0..=60 {
                let [(a, wa), (b, wb)] = ply_shares(ply, stages);
                assert!((wa + wb - 1.0).abs() < 1e-6, "{stages} stages, ply {ply}");
                assert!(wa > 0.0 && wb >= 0.0 && b >= a && b <= a + 1 && b < stages);
                // The stage a position belongs to unblended is one of its two, and the
                // larger share goes to the stage whose middle is nearer.
                let own = stage_of(60 - ply.min(60) as u32, stages);
                assert!(
                    own == a || (own == b && wb > 0.0),
                    "{stages} stages, ply {ply}"
                );
            }
        }
        // One stage per ply: every ply its own stage alone.
        for ply in 0..60 {
            assert_eq!(ply_shares(ply, 60), [(ply, 1.0), (ply, 0.0)]);
        }
        for stages in [0, 7, 16, 61] {
            assert!(!can_blend(stages), "{stages}");
        }
    }

    #[test]
    fn mixes_round_halves_away_from_zero_and_keep_scales_whole() {
        let shares = ply_shares(3, 15); // 5/8 of stage 0, 3/8 of stage 1
        assert_eq!(shares, [(0, 0.625), (1, 0.375)]);
        let values = [4i16, 0];
        assert_eq!(mix_i16(shares, |s| values[s]), 3); // 2.5 -> 3
        let values = [-4i16, 0];
        assert_eq!(mix_i16(shares, |s| values[s]), -3); // -2.5 -> -3
        let values = [i16::MAX, i16::MAX];
        assert_eq!(mix_i16(shares, |s| values[s]), i16::MAX);
        // 1 << 24 + 1 is not an f32; the mix of two equal scales is the scale.
        let scales = [(1 << 24) + 1, (1 << 24) + 1];
        assert_eq!(mix_scale(shares, &scales), (1 << 24) + 1);
        assert_eq!(mix_scale(shares, &[800, 0]), 500);
    }
}
