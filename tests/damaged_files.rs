//! Every binary reader (tsuru's book, Edax's book, the weights file) refuses a truncated,
//! corrupted or oversized file with a clear error and never panics: real files are cut at
//! many points, have bytes flipped, and are made longer.

use tsuru_core::book::edax;
use tsuru_core::formats::{book, edax_book};

/// Cut points spread over a file of `len` bytes, with the first and last few.
fn cuts(len: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = (0..48).chain(len.saturating_sub(9)..len).collect();
    cuts.extend((1..64).map(|i| len * i / 64));
    cuts.sort_unstable();
    cuts.dedup();
    cuts.retain(|&c| c < len);
    cuts
}

/// Byte positions to flip, spread over the file.
fn flips(len: usize) -> Vec<usize> {
    let mut at: Vec<usize> = (0..24).chain((1..48).map(|i| len * i / 48)).collect();
    at.push(len - 1);
    at.retain(|&a| a < len);
    at.sort_unstable();
    at.dedup();
    at
}

fn clear(message: &str, words: &[&str]) -> bool {
    message.is_ascii() && words.iter().any(|w| message.contains(w))
}

#[test]
fn the_book_reader_refuses_damaged_books() {
    let bytes = tsuru_core::book::SHIPPED;
    for cut in cuts(bytes.len()) {
        let err = format!("{:#}", book::from_bytes(&bytes[..cut]).unwrap_err());
        assert!(
            clear(&err, &["truncated", "not a tsuru book"]),
            "{cut}: {err}"
        );
    }
    for at in flips(bytes.len()) {
        for bit in [0x01, 0x80] {
            let mut damaged = bytes.to_vec();
            damaged[at] ^= bit;
            let err = format!("{:#}", book::from_bytes(&damaged).unwrap_err());
            assert!(
                clear(
                    &err,
                    &["corrupted", "truncated", "not a tsuru book", "version"]
                ),
                "{at}: {err}"
            );
        }
    }
    let mut longer = bytes.to_vec();
    longer.extend_from_slice(&[0; 100]);
    let err = format!("{:#}", book::from_bytes(&longer).unwrap_err());
    assert!(clear(&err, &["corrupted"]), "{err}");
    let mut huge = bytes.to_vec();
    huge[10..14].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = format!("{:#}", book::from_bytes(&huge).unwrap_err());
    assert!(clear(&err, &["claims"]), "{err}");
}

/// The Edax book Edax wrote (beside the repository), else tsuru's export of its own book.
fn edax_bytes() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/edax-book/sample-edax.book.dat"
    );
    std::fs::read(path).unwrap_or_else(|_| {
        let shipped = tsuru_core::book::shipped().unwrap();
        edax_book::to_bytes(&edax::export(&shipped).0)
    })
}

#[test]
fn the_edax_reader_refuses_damaged_books() {
    let bytes = edax_bytes();
    let read = |bytes: &[u8]| edax_book::from_bytes(bytes).and_then(|raw| edax::import(&raw));
    for cut in cuts(bytes.len()) {
        let err = format!("{:#}", read(&bytes[..cut]).unwrap_err());
        assert!(
            clear(&err, &["truncated", "not an Edax book"]),
            "{cut}: {err}"
        );
    }
    // Edax's books carry no checksum: a flipped game count or value reads as another book.
    // The structure (header, counts, boards, moves) is checked: the flips that land there
    // are refused (a quarter of these), and none panics.
    let (mut refused, mut tried) = (0, 0);
    for at in flips(bytes.len()) {
        for bit in [0x01, 0x10, 0x80] {
            let mut damaged = bytes.clone();
            damaged[at] ^= bit;
            tried += 1;
            if let Err(err) = read(&damaged) {
                let err = format!("{err:#}");
                assert!(err.is_ascii() && err.contains("Edax"), "{at}: {err}");
                refused += 1;
            }
        }
    }
    assert!(refused * 8 > tried, "{refused} of {tried} flips refused");
    // The two words and the version (Edax too reads any release of version 4).
    for at in 0..9 {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x04;
        assert!(read(&damaged).is_err(), "header byte {at}");
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 44]);
    let err = format!("{:#}", read(&longer).unwrap_err());
    assert!(clear(&err, &["corrupted"]), "{err}");
    let mut huge = bytes.clone();
    huge[38..42].copy_from_slice(&i32::MAX.to_le_bytes());
    let err = format!("{:#}", read(&huge).unwrap_err());
    assert!(clear(&err, &["claims"]), "{err}");
}

#[test]
fn the_term_reader_refuses_damaged_files() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/tsuru-core/src/eval/term.tsi"
    );
    let bytes = std::fs::read(path).unwrap();
    let read = |bytes: &[u8]| tsuru_core::eval::pattern::Weights::load(bytes);
    assert!(read(&bytes).is_ok());
    // A cut or damaged term file is refused (a cut one that lost its magic is read as a
    // weights file and refused as one).
    let words = ["too short", "checksum", "not a tsuru"];
    for cut in cuts(bytes.len()).into_iter().step_by(3) {
        let err = format!("{:#}", read(&bytes[..cut]).unwrap_err());
        assert!(clear(&err, &words), "{cut}: {err}");
    }
    for at in flips(bytes.len()).into_iter().step_by(2) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x20;
        let err = format!("{:#}", read(&damaged).unwrap_err());
        assert!(clear(&err, &words), "{at}: {err}");
    }
}

#[test]
fn the_weights_reader_refuses_damaged_files() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/tsuru-core/src/eval/weights.tsw"
    );
    let bytes = std::fs::read(path).unwrap();
    let read = |bytes: &[u8]| tsuru_core::eval::pattern::Weights::from_bytes(bytes);
    assert!(read(&bytes).is_ok());
    let words = ["too short", "checksum", "not a tsuru weights file"];
    for cut in cuts(bytes.len()).into_iter().step_by(3) {
        let err = format!("{:#}", read(&bytes[..cut]).unwrap_err());
        assert!(clear(&err, &words), "{cut}: {err}");
    }
    for at in flips(bytes.len()).into_iter().step_by(2) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x20;
        let err = format!("{:#}", read(&damaged).unwrap_err());
        assert!(clear(&err, &words), "{at}: {err}");
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 64]);
    let err = format!("{:#}", read(&longer).unwrap_err());
    assert!(clear(&err, &words), "{err}");
}
