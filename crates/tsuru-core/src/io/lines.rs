//! Reading stdin on its own thread, so commands arrive while the engine is thinking.
//!
//! Input is read as bytes up to `\n`: a trailing `\r` is dropped (CRLF from Windows GUIs),
//! invalid UTF-8 is decoded lossily (player names in the platform charset), and a line longer
//! than [`MAX_LINE_BYTES`] is not kept: only its first [`TOO_LONG_PREFIX`] bytes are delivered,
//! as [`Input::TooLong`], so that GTP can still answer it with its id. End of input is
//! delivered as [`Input::Eof`], which both protocols treat as `quit`.

use std::io::{BufRead, Read};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

/// Longest accepted input line in bytes; longer lines are dropped (a GGF game of 60 moves
/// with evals and times is under 2 KiB).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How much of an over-long line is kept (enough for a GTP id and command name).
pub const TOO_LONG_PREFIX: usize = 64;

/// One event from the input stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A complete line, without its line terminator.
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`]: its first [`TOO_LONG_PREFIX`] bytes.
    TooLong(String),
    /// The input was closed (or could not be read any more).
    Eof,
}

/// Starts a thread that reads `source` line by line and sends each line, then `Eof`, to the
/// returned receiver. The thread ends after `Eof` or when the receiver is dropped.
pub fn spawn_reader<R: Read + Send + 'static>(source: R) -> Receiver<Input> {
    let (sender, receiver) = mpsc::channel();
    spawn_reader_into(source, sender);
    receiver
}

/// Starts a thread that reads `source` line by line and sends each line, then `Eof`, into
/// `sender`'s channel as a `T` (the engine's event channel carries other events beside the
/// input). The thread ends after `Eof` or when the receiver is dropped.
pub fn spawn_reader_into<R, T>(source: R, sender: Sender<T>)
where
    R: Read + Send + 'static,
    T: From<Input> + Send + 'static,
{
    thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || {
            let mut reader = std::io::BufReader::new(source);
            loop {
                let event = read_line(&mut reader);
                let eof = event == Input::Eof;
                if sender.send(T::from(event)).is_err() || eof {
                    break;
                }
            }
        })
        .expect("spawning the input thread");
}

/// Reads one line (see the module doc for the rules).
pub fn read_line<R: BufRead>(reader: &mut R) -> Input {
    let mut bytes = Vec::new();
    let mut too_long = false;
    let mut prefix = Vec::new();
    loop {
        let (consumed, done) = {
            let available = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    log::error!("reading input failed: {err}");
                    return Input::Eof;
                }
            };
            if available.is_empty() {
                // End of input: a last line without a newline still counts.
                if bytes.is_empty() && !too_long {
                    return Input::Eof;
                }
                (0, true)
            } else {
                match available.iter().position(|&b| b == b'\n') {
                    Some(pos) => {
                        if !too_long {
                            bytes.extend_from_slice(&available[..pos]);
                        }
                        (pos + 1, true)
                    }
                    None => {
                        if !too_long {
                            bytes.extend_from_slice(available);
                        }
                        (available.len(), false)
                    }
                }
            }
        };
        reader.consume(consumed);
        if bytes.len() > MAX_LINE_BYTES {
            too_long = true;
            prefix = bytes[..TOO_LONG_PREFIX].to_vec();
            bytes = Vec::new();
        }
        if done {
            if too_long {
                log::warn!("input line longer than {MAX_LINE_BYTES} bytes not read");
                return Input::TooLong(String::from_utf8_lossy(&prefix).into_owned());
            }
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
            return Input::Line(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(data: &[u8]) -> Vec<Input> {
        let mut reader = std::io::BufReader::with_capacity(16, data);
        let mut out = Vec::new();
        loop {
            let event = read_line(&mut reader);
            let eof = event == Input::Eof;
            out.push(event);
            if eof {
                return out;
            }
        }
    }

    #[test]
    fn splits_lines_and_strips_carriage_returns() {
        assert_eq!(
            lines(b"ping 1\r\nhint 4\nlast"),
            [
                Input::Line("ping 1".into()),
                Input::Line("hint 4".into()),
                Input::Line("last".into()),
                Input::Eof
            ]
        );
        assert_eq!(lines(b""), [Input::Eof]);
        assert_eq!(lines(b"\n"), [Input::Line(String::new()), Input::Eof]);
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily() {
        let got = lines(b"set game PB[J\xe9r\xf4me]\n");
        assert_eq!(
            got[0],
            Input::Line("set game PB[J\u{fffd}r\u{fffd}me]".into())
        );
    }

    #[test]
    fn over_long_lines_are_reported_by_their_start() {
        let mut data = b"12 ".to_vec();
        data.extend(vec![b'x'; MAX_LINE_BYTES + 10]);
        data.extend_from_slice(b"\nping 7\n");
        data.extend(vec![b'y'; MAX_LINE_BYTES * 2]);
        let mut first = "12 ".to_string();
        first.push_str(&"x".repeat(TOO_LONG_PREFIX - 3));
        assert_eq!(
            lines(&data),
            [
                Input::TooLong(first),
                Input::Line("ping 7".into()),
                Input::TooLong("y".repeat(TOO_LONG_PREFIX)),
                Input::Eof
            ]
        );
        // A line of exactly the limit is still read.
        let mut data = vec![b'z'; MAX_LINE_BYTES];
        data.push(b'\n');
        assert_eq!(
            lines(&data),
            [Input::Line("z".repeat(MAX_LINE_BYTES)), Input::Eof]
        );
    }

    #[test]
    fn reader_thread_delivers_lines_then_eof() {
        let receiver = spawn_reader(&b"a\nb\n"[..]);
        let got: Vec<Input> = receiver.iter().collect();
        assert_eq!(
            got,
            [Input::Line("a".into()), Input::Line("b".into()), Input::Eof]
        );
    }
}
