//! The one checksum of the project's binary files: FNV-1a (Fowler, Noll, Vo), in the two
//! widths the formats store. Cheap, and a change of any byte changes it; it guards against
//! damage, not against tampering.

/// FNV-1a over `bytes` in 64-bit arithmetic from `offset_basis` with `prime`. The low 32
/// bits of each step depend only on the low 32 bits of the step before (a product's low
/// bits come from its factors' low bits), so the 32-bit hash is this one's low half.
#[inline]
fn fnv1a(bytes: &[u8], offset_basis: u64, prime: u64) -> u64 {
    bytes.iter().fold(offset_basis, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(prime)
    })
}

/// FNV-1a, 32 bits: the weights and pattern-network files' checksum, and a pattern set's
/// identity.
pub fn fnv1a_32(bytes: &[u8]) -> u32 {
    fnv1a(bytes, 0x811c_9dc5, 0x0100_0193) as u32
}

/// FNV-1a, 64 bits: the book file's checksum.
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    fnv1a(bytes, 0xcbf2_9ce4_8422_2325, 0x0000_0100_0000_01b3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_test_vectors() {
        // The FNV authors' test vectors.
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_32_bit_hash_equals_a_32_bit_computation() {
        let mut bytes = Vec::new();
        for i in 0..2000u32 {
            bytes.push((i.wrapping_mul(2_654_435_761) >> 13) as u8);
            let narrow = bytes.iter().fold(0x811c_9dc5u32, |hash, &byte| {
                (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
            });
            assert_eq!(fnv1a_32(&bytes), narrow);
        }
    }
}
