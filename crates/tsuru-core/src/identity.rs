//! The build's identity, as `tsuru --version`, GTP's `version` and the match records give it:
//! the package version, the commit the binary was built from (with `+modified` when the
//! tracked files differed from it; `build.rs` records it) and the checksum of the weights it
//! evaluates with: those compiled in, or the `--eval-file` the engine was started with.

use crate::eval::pattern::WeightsId;
use crate::eval::EvalBundle;

/// The commit the binary was built from: a short id, `ID+modified`, or `unknown`.
pub const COMMIT: &str = env!("TSURU_COMMIT");

/// `0.1.0 (commit 96647e2, weights c1d7ae0d)` for the compiled-in weights.
pub fn version() -> String {
    version_with(EvalBundle::shipped().weights_id())
}

/// `0.1.0 (commit 96647e2, weights ID)`: what GTP's `version` answers and `tsuru --version`
/// prints after the name, for an engine evaluating with the weights `weights` (`None`: the
/// hand-written evaluation v1, named `weights v1`).
pub fn version_with(weights: Option<WeightsId>) -> String {
    let weights = weights.map_or_else(|| "v1".to_string(), |id| id.to_string());
    format!(
        "{} (commit {COMMIT}, weights {weights})",
        env!("CARGO_PKG_VERSION")
    )
}

/// `tsuru 0.1.0 (commit 96647e2, weights c1d7ae0d)` for the compiled-in weights.
pub fn version_line() -> String {
    format!("tsuru {}", version())
}

/// [`version_line`] for an engine evaluating with `weights` ([`version_with`]).
pub fn version_line_with(weights: Option<WeightsId>) -> String {
    format!("tsuru {}", version_with(weights))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_names_the_package_commit_and_weights() {
        let line = version_line();
        let rest = line
            .strip_prefix(&format!("tsuru {} (commit ", env!("CARGO_PKG_VERSION")))
            .unwrap();
        let (commit, weights) = rest.split_once(", weights ").unwrap();
        let id = commit.strip_suffix("+modified").unwrap_or(commit);
        assert!(
            id == "unknown" || (id.len() >= 7 && id.bytes().all(|b| b.is_ascii_hexdigit())),
            "{line}"
        );
        let weights = weights.strip_suffix(')').unwrap();
        assert_eq!(
            weights,
            EvalBundle::shipped().weights_id().unwrap().to_string()
        );
        assert!(version_with(Some(WeightsId(0x0123_abcd))).ends_with(", weights 0123abcd)"));
        assert!(version_with(None).ends_with(", weights v1)"));
    }
}
