//! Ctrl-C as a request to stop, for the tools that can end cleanly (`tsuru book build`).
//!
//! [`catch`] replaces the default action of SIGINT (ending the process at once) with a
//! handler that only raises a flag, which the tool polls ([`requested`]) between units of
//! work and answers by saving and returning. The handler also restores the default action,
//! so a second Ctrl-C ends the process as usual, for a tool that does not get to its next
//! poll. There is no libc crate: `signal` is declared here, on unix only; elsewhere [`catch`]
//! does nothing and Ctrl-C ends the process as before.

use std::sync::atomic::{AtomicBool, Ordering};

/// Raised by the SIGINT handler; never lowered.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// From now on, the first Ctrl-C (SIGINT) of the process raises the flag that [`requested`]
/// reads instead of ending the process, whatever action the process inherited for it; a
/// second one ends the process. Does nothing on platforms other than unix.
pub fn catch() {
    #[cfg(unix)]
    unix::install();
}

/// Whether a Ctrl-C caught by [`catch`] has arrived.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

#[cfg(unix)]
mod unix {
    use std::os::raw::c_int;
    use std::sync::atomic::Ordering;

    /// SIGINT's number, the same on every unix.
    const SIGINT: c_int = 2;

    /// `SIG_DFL`: the default action.
    const SIG_DFL: usize = 0;

    extern "C" {
        /// libc's `signal(2)`; `handler` is a `sighandler_t`, a pointer-sized value (a
        /// function's address or `SIG_DFL`). Returns the previous one.
        fn signal(signum: c_int, handler: usize) -> usize;
    }

    /// The handler: only async-signal-safe work (an atomic store and `signal`, which POSIX
    /// lists as safe there).
    extern "C" fn on_sigint(_: c_int) {
        super::REQUESTED.store(true, Ordering::Relaxed);
        // SAFETY: `signal` with a valid signal number and `SIG_DFL` has no other effect.
        unsafe {
            signal(SIGINT, SIG_DFL);
        }
    }

    pub(super) fn install() {
        let handler: extern "C" fn(c_int) = on_sigint;
        // SAFETY: the handler is an `extern "C" fn(c_int)` that lives as long as the
        // process and does only async-signal-safe work.
        unsafe {
            signal(SIGINT, handler as usize);
        }
    }
}
