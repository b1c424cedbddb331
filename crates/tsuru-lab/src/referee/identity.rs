//! What an engine says it is, for the match record: a GTP engine's `name` and `version`, an
//! NBoard engine's `set myname`. The referee asks before the first game, in a process of its
//! own that is then stopped (killed, as the referee stops every engine).

use std::time::{Duration, Instant};

use super::{detect_protocol, launch, EngineSpec, Fault};
use tsuru_core::client::gtp::GtpClient;
use tsuru_core::client::nboard::NboardClient;
use tsuru_core::client::{EngineLog, EngineProcess};
use tsuru_core::config::Protocol;

/// The engine's own account of itself (`tsuru 0.1.0 (commit 96647e2, weights c1d7ae0d)` for
/// tsuru over GTP, `myname NTest (nboard)` for an NBoard engine that sends its name), or why
/// there is none; asking never fails the match.
pub fn identify(spec: &EngineSpec, log: &EngineLog, timeout: Duration) -> String {
    let protocol = match spec.protocol {
        Some(protocol) => protocol,
        None => match detect_protocol(spec, log, timeout) {
            Ok(protocol) => protocol,
            Err(err) => return format!("unknown ({err:#})"),
        },
    };
    // The process is stopped when it is dropped, after the answers.
    let asked = EngineProcess::spawn(&launch(spec), Some(log))
        .map_err(Fault::from)
        .and_then(|process| {
            let deadline = Some(Instant::now() + timeout);
            match protocol {
                Protocol::Gtp => ask_gtp(GtpClient::new(process), deadline),
                Protocol::Nboard => ask_nboard(process, deadline),
            }
        });
    asked.unwrap_or_else(|fault| format!("unknown ({fault})"))
}

/// `name` and `version`, joined; a refused command is left out.
fn ask_gtp(mut client: GtpClient, deadline: Option<Instant>) -> Result<String, Fault> {
    let mut words = Vec::new();
    for command in ["name", "version"] {
        if let Ok(text) = client.command(command, deadline)? {
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

/// The name from `set myname`, sent in answer to `nboard 2` (before the first `pong`).
fn ask_nboard(process: EngineProcess, deadline: Option<Instant>) -> Result<String, Fault> {
    let client = NboardClient::greet(process, Some(deadline))?;
    Ok(client.name().map_or_else(
        || "no name given (nboard)".to_string(),
        |name| format!("myname {name} (nboard)"),
    ))
}
