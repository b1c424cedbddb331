//! Zobrist keys for the incremental 64-bit position hash.
//!
//! The hash of a position is the XOR of `DISC[color][square]` over every disc, XOR `SIDE` when
//! White is to move. Keys come from a fixed SplitMix64 stream, so hashes are the same on every
//! build and machine (transposition-table contents and bench signatures are reproducible).

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// `DISC[color][square]`: the key of a disc of that colour on that square.
pub const DISC: [[u64; 64]; 2] = {
    let mut keys = [[0u64; 64]; 2];
    let mut state = 0x7473_7572_755f_6b65; // "tsuru_ke"
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let (next, key) = splitmix64(state);
            state = next;
            keys[c][sq] = key;
            sq += 1;
        }
        c += 1;
    }
    keys
};

/// `FLIP[square]`: the change of hash when the disc on that square changes colour.
pub const FLIP: [u64; 64] = {
    let mut keys = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        keys[sq] = DISC[0][sq] ^ DISC[1][sq];
        sq += 1;
    }
    keys
};

/// Key XORed in when White is to move.
pub const SIDE: u64 = splitmix64(0x5349_4445).1;
