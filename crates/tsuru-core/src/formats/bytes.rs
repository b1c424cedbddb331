//! Reading the binary formats: one little-endian reader for every file of `formats/` that is
//! read byte by byte (books, Edax's books, weights, pattern networks).

use anyhow::{bail, Result};

/// Reads a byte slice in order, little-endian; running out of bytes is an error that says
/// what was cut short and where it ends.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// What the error says is cut short ("the book file is truncated").
    truncated: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` from byte `at`; `truncated` starts the error when they run out.
    pub fn new(bytes: &'a [u8], at: usize, truncated: &'static str) -> Reader<'a> {
        Reader {
            bytes,
            at,
            truncated,
        }
    }

    /// Where the next byte is read from.
    pub fn position(&self) -> usize {
        self.at
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            bail!("{} (it ends at byte {})", self.truncated, self.bytes.len());
        };
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// The next byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// The next `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    /// The next `i16`.
    pub fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_le_bytes(self.array()?))
    }

    /// The next `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// The next `i32`.
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    /// The next `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next `n` `f32`s.
    pub fn f32s(&mut self, n: usize) -> Result<Vec<f32>> {
        let bytes = self.take(n.saturating_mul(4))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_in_order_and_running_out_says_where() {
        let bytes = [1, 2, 0, 0xfe, 0xff, 5, 0, 0, 0, 0, 0, 0x80, 0x3f];
        let mut reader = Reader::new(&bytes, 0, "the test file is truncated");
        assert_eq!(reader.u8().unwrap(), 1);
        assert_eq!(reader.u16().unwrap(), 2);
        assert_eq!(reader.i16().unwrap(), -2);
        assert_eq!(reader.u32().unwrap(), 5);
        assert_eq!(reader.f32s(1).unwrap(), vec![1.0]);
        assert_eq!(reader.position(), bytes.len());
        let err = reader.u8().unwrap_err().to_string();
        assert_eq!(err, "the test file is truncated (it ends at byte 13)");
        assert!(Reader::new(&bytes, 0, "x").f32s(usize::MAX).is_err());
    }
}
