//! Positions files' purpose in training: a file ([`PositionSet`], its layout in
//! [`tsuru_core::formats::positions`]) holds the labelled positions of a training run, stored once
//! so that later fits skip the exact solves that dominate the time of building them; its
//! description names what the positions were built from (the collections, a [`fingerprint`]
//! of their games, the solve depth and the hold-out rule), and `tsuru train` reuses a file
//! only when it matches its own inputs.

use super::games::Game;
use tsuru_core::board::Move;
pub use tsuru_core::formats::positions::PositionSet;

/// A 64-bit FNV-1a digest of games (moves, results, theoretical scores, first samples), so
/// that a positions file built from other games is recognised.
pub fn fingerprint(games: &[Game]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |byte: u8| {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    for game in games {
        for mv in &game.moves {
            eat(match mv {
                Move::Play(square) => square.index() as u8,
                Move::Pass => 64,
            });
        }
        eat(0xff);
        eat(game.black_diff as u8);
        let (depth, value) = game.theoretical.unwrap_or((0xff, 0));
        eat(depth);
        eat(value as u8);
        for byte in (game.first_sample as u32).to_le_bytes() {
            eat(byte);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_games_apart() {
        let game = |black_diff| Game {
            moves: vec!["f5".parse().unwrap(), "d6".parse().unwrap()],
            black_diff,
            theoretical: None,
            first_sample: 0,
            recorded: Vec::new(),
        };
        assert_eq!(fingerprint(&[game(2)]), fingerprint(&[game(2)]));
        assert_ne!(fingerprint(&[game(2)]), fingerprint(&[game(4)]));
        assert_ne!(fingerprint(&[game(2)]), fingerprint(&[game(2), game(2)]));
    }
}
