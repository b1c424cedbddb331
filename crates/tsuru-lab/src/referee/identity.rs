//! What an engine says it is, for the match record: a GTP engine's `name` and `version`, an
//! NBoard engine's `set myname`. The referee asks before the first game, in a process of its
//! own that is then stopped (killed, as the referee stops every engine).

use std::time::{Duration, Instant};

use super::engine::{EngineLog, EngineProcess};
use super::gtp::GtpPlayer;
use super::{detect_protocol, EngineSpec, Fault};
use tsuru_core::config::Protocol;

/// The engine's own account of itself (`tsuru 0.1.0 (commit 96647e2, weights c1d7ae0d)` for
/// tsuru over GTP, `myname NTest` for an NBoard engine that sends its name), or why there is
/// none; asking never fails the match.
pub fn identify(spec: &EngineSpec, log: &EngineLog, timeout: Duration) -> String {
    let protocol = match spec.protocol {
        Some(protocol) => protocol,
        None => match detect_protocol(spec, log, timeout) {
            Ok(protocol) => protocol,
            Err(err) => return format!("unknown ({err:#})"),
        },
    };
    // The process is stopped when it is dropped, after the answers.
    let asked = EngineProcess::spawn(spec, log).and_then(|mut process| {
        let deadline = Instant::now() + timeout;
        match protocol {
            Protocol::Gtp => ask_gtp(process, deadline),
            Protocol::Nboard => ask_nboard(&mut process, deadline),
        }
    });
    asked.unwrap_or_else(|fault| format!("unknown ({fault})"))
}

/// `name` and `version`, joined; a refused command is left out.
fn ask_gtp(process: EngineProcess, deadline: Instant) -> Result<String, Fault> {
    let mut player = GtpPlayer::new(process);
    let mut words = Vec::new();
    for command in ["name", "version"] {
        if let Ok(text) = player.command(command, deadline)? {
            if !text.is_empty() {
                words.push(text.replace('\n', " "));
            }
        }
    }
    Ok(if words.is_empty() {
        "no name or version given (gtp)".to_string()
    } else {
        words.join(" ")
    })
}

/// The name from `set myname`, sent in answer to `nboard 2` (before `pong 1`).
fn ask_nboard(process: &mut EngineProcess, deadline: Instant) -> Result<String, Fault> {
    process.send("nboard 2")?;
    process.send("ping 1")?;
    let mut name = None;
    loop {
        let line = process.recv(deadline)?;
        let line = line.trim();
        if line == "pong 1" {
            break;
        }
        if let Some(rest) = line.strip_prefix("set myname ") {
            name = Some(rest.trim().to_string());
        }
    }
    Ok(name.map_or_else(
        || "no name given (nboard)".to_string(),
        |name| format!("myname {name} (nboard)"),
    ))
}
