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
//! search depth, the weights that searched and the count); a cache is used only for the same
//! description and count.
//!
//! A shard of the values (`tsuru label --shard K/N`) has the same layout; its description is
//! the whole job's followed by the part it holds ([`ValueShard`]), and it holds the values of
//! positions `start .. end` of the job's `total`:
//!
//! ```text
//! <the whole job's description> | shard 1/2 positions 1200-2400 of 2400
//! ```

use super::Shard;

/// The part of a job's values that a shard's cache holds: positions `start .. end` of `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueShard {
    /// Which part of the job.
    pub shard: Shard,
    /// The first position of the part.
    pub start: u64,
    /// One past the part's last position.
    pub end: u64,
    /// The positions of the whole job.
    pub total: u64,
}

/// The separator between the job's description and a shard's part.
const SHARD_MARK: &str = " | shard ";

/// The description of a shard's cache: the job's `description` and the part.
pub fn shard_description(description: &str, part: &ValueShard) -> String {
    format!(
        "{description}{SHARD_MARK}{} positions {}-{} of {}",
        part.shard, part.start, part.end, part.total
    )
}

/// The job's description and the part, from a description written by [`shard_description`];
/// `None` for the description of a whole job or anything else. The part's range is checked
/// to lie within the total.
pub fn parse_shard_description(description: &str) -> Option<(&str, ValueShard)> {
    let (job, part) = description.rsplit_once(SHARD_MARK)?;
    let words: Vec<&str> = part.split(' ').collect();
    let [shard, "positions", range, "of", total] = words[..] else {
        return None;
    };
    let (start, end) = range.split_once('-')?;
    let number = |word: &str| -> Option<u64> {
        word.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| word.parse().ok())
            .flatten()
    };
    let part = ValueShard {
        shard: Shard::parse(shard).ok()?,
        start: number(start)?,
        end: number(end)?,
        total: number(total)?,
    };
    (part.start <= part.end && part.end <= part.total).then_some((job, part))
}

/// The description and the value bytes of a cache image (one byte a value, as stored);
/// `None` when the image does not start with the magic and a description line.
pub fn split(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let line = rest.iter().position(|&b| b == b'\n')?;
    let description = std::str::from_utf8(&rest[..line]).ok()?;
    Some((description, &rest[line + 1..]))
}

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

/// The magic, the description and its line break: what an image holds before its values.
pub fn header(description: &str) -> Vec<u8> {
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
        assert_eq!(
            split(&bytes),
            Some((description, &[12u8, 192, 0, 64, 253][..]))
        );
        assert_eq!(split(b"TSURUSLV no line break"), None);
        assert_eq!(split(b"TSURUPOS x\n"), None);
    }

    #[test]
    fn shard_descriptions_name_the_job_and_the_part() {
        let part = ValueShard {
            shard: Shard { index: 1, count: 2 },
            start: 1200,
            end: 2400,
            total: 2400,
        };
        let job = "set a | search depth 4 with weights 563a71f1 | 2400 training positions";
        let description = shard_description(job, &part);
        assert_eq!(
            description,
            "set a | search depth 4 with weights 563a71f1 | 2400 training positions \
             | shard 1/2 positions 1200-2400 of 2400"
        );
        assert_eq!(parse_shard_description(&description), Some((job, part)));
        assert_eq!(parse_shard_description(job), None);
        for bad in [
            "x | shard 2/2 positions 0-5 of 5",
            "x | shard 0/2 positions 3-2 of 5",
            "x | shard 0/2 positions 0-6 of 5",
            "x | shard 0/2 positions 0+5 of 5",
            "x | shard 0/2 positions 0-5 of",
            "x | shard 0/2 position 0-5 of 5",
        ] {
            assert_eq!(parse_shard_description(bad), None, "{bad:?}");
        }
    }
}
