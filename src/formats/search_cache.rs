//! Search-value caches, as `tsuru train --search-cache FILE` keeps them: the values of a
//! depth-limited search of every training position (whole discs, side to move's view), stored
//! so that a later fit of the same positions skips the searches.
//!
//! Layout:
//!
//! ```text
//! magic "TSURUSLV" | description (ASCII, no line break) | "\n" | one i8 a position
//! ```
//!
//! The description names what the values were made for (the positions' description, the
//! search depth and the count); a cache is used only for the same description and count.

/// The magic bytes at the start of a cache.
pub const MAGIC: &[u8; 8] = b"TSURUSLV";

/// The file image of `values` made for `description`.
pub fn to_bytes(description: &str, values: &[i8]) -> Vec<u8> {
    let mut bytes = header(description);
    bytes.extend(values.iter().map(|&value| value as u8));
    bytes
}

/// The values of a cache image made for `description` and holding `count` values; `None` for
/// anything else (another description or count, a damaged or foreign file).
pub fn values_for(bytes: &[u8], description: &str, count: usize) -> Option<Vec<i8>> {
    let header = header(description);
    (bytes.starts_with(&header) && bytes.len() == header.len() + count)
        .then(|| bytes[header.len()..].iter().map(|&b| b as i8).collect())
}

/// The magic, the description and its line break.
fn header(description: &str) -> Vec<u8> {
    let mut header = MAGIC.to_vec();
    header.extend_from_slice(description.as_bytes());
    header.push(b'\n');
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_read_back_only_for_what_they_were_made_for() {
        let values = [12, -64, 0, 64, -3];
        let bytes = to_bytes("set a | search depth 4 | 5 training positions", &values);
        assert_eq!(&bytes[..8], b"TSURUSLV");
        assert_eq!(
            &bytes[8..bytes.len() - 5],
            b"set a | search depth 4 | 5 training positions\n"
        );
        assert_eq!(&bytes[bytes.len() - 5..], &[12, 192, 0, 64, 253]);
        let description = "set a | search depth 4 | 5 training positions";
        assert_eq!(values_for(&bytes, description, 5).unwrap(), values);
        assert_eq!(values_for(&bytes, description, 4), None);
        assert_eq!(
            values_for(&bytes, "set a | search depth 5 | 5 training positions", 5),
            None
        );
        assert_eq!(values_for(&bytes[..bytes.len() - 1], description, 5), None);
        assert_eq!(values_for(b"TSURUPOS", description, 0), None);
    }
}
