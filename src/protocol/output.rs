//! Writing protocol lines to stdout: ASCII only, flushed after every line.
//!
//! NBoard's reader thread dies on any character above U+00FF and referees block until a
//! flush, so every line goes through [`ascii`] and is flushed at once. The writer is a cheap
//! clonable handle so the search thread can print `search` lines while the command thread
//! prints the rest; each line is written under the lock, whole.

use std::io::Write;
use std::sync::{Arc, Mutex};

pub use tsuru_core::io::ascii::{ascii, escape};

/// A shared, line-oriented writer (stdout in the engine, a buffer in tests).
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    /// Writes to the process's stdout.
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// Writes to any sink (tests use a shared buffer).
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    /// Writes `text` plus a newline and flushes. Non-ASCII characters become `?`; an
    /// embedded newline is kept (GTP multi-line answers), a carriage return is dropped.
    /// A closed stdout is logged, not fatal: the engine ends at the next input EOF.
    pub fn line(&self, text: &str) {
        let mut sink = match self.sink.lock() {
            Ok(sink) => sink,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut bytes = ascii(text).into_bytes();
        bytes.push(b'\n');
        if let Err(err) = sink.write_all(&bytes).and_then(|_| sink.flush()) {
            log::debug!("writing to stdout failed: {err}");
        }
    }
}

#[cfg(test)]
/// A `Write` sink that appends to a shared buffer, for tests of front ends.
#[derive(Clone, Default)]
pub struct SharedBuffer(pub Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl SharedBuffer {
    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("buffer lock")).into_owned()
    }
}

#[cfg(test)]
impl Write for SharedBuffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_ascii_and_newline_terminated() {
        let buffer = SharedBuffer::default();
        let out = Output::new(Box::new(buffer.clone()));
        out.line("status caf\u{e9} \u{2192} ok\r");
        out.line("= A1\n");
        assert_eq!(buffer.text(), "status caf? ? ok\n= A1\n\n");
    }
}
