//! "Did you mean ...?": the nearest valid name to a mistyped subcommand or option.
//!
//! Distance is the optimal-string-alignment edit distance (insertions, deletions,
//! substitutions and swaps of two neighbouring characters, each costing 1), so `--levle`
//! is one edit from `--level` and `perf` one from `perft`.

/// The optimal-string-alignment distance between `a` and `b`, counted in characters.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the dynamic-programming table: two back (for swaps), previous, current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The candidate nearest to `word`, if it is close enough to be what was meant: at most one
/// edit per three characters of `word`, rounded up (leading dashes not counted), and fewer
/// edits than those characters, so that `-x` does not suggest `-h`.
/// Ties go to the earlier candidate; `word` itself is never suggested.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let letters = word.trim_start_matches('-').chars().count();
    let allowed = letters.div_ceil(3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let d = distance(word, candidate);
        if d == 0 || d > allowed || d >= letters {
            continue;
        }
        if best.is_none_or(|(best_d, _)| d < best_d) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// `"; did you mean 'NAME'?"` for the nearest candidate, or an empty string when none is
/// close: ready to append to an "unknown ..." message.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, candidates)
        .map(|name| format!("; did you mean '{name}'?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_each_kind_of_edit() {
        assert_eq!(distance("perft", "perft"), 0);
        assert_eq!(distance("perf", "perft"), 1); // insertion
        assert_eq!(distance("perfts", "perft"), 1); // deletion
        assert_eq!(distance("--hesh", "--hash"), 1); // substitution
        assert_eq!(distance("--levle", "--level"), 1); // swap
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("ca", "abc"), 3); // optimal string alignment, not full Damerau
        assert_eq!(distance("solve", "bench"), 5);
    }

    #[test]
    fn distance_is_symmetric() {
        for (a, b) in [
            ("--levle", "--level"),
            ("perf", "perft"),
            ("datagne", "train"),
        ] {
            assert_eq!(distance(a, b), distance(b, a), "{a} {b}");
        }
    }

    #[test]
    fn nearest_finds_close_names_only() {
        let subcommands = ["perft", "solve", "bench", "match", "train", "datagen"];
        assert_eq!(nearest("perf", subcommands), Some("perft"));
        assert_eq!(nearest("sovle", subcommands), Some("solve"));
        assert_eq!(nearest("datagne", subcommands), Some("datagen"));
        assert_eq!(nearest("xyz", subcommands), None);
        assert_eq!(nearest("banana", subcommands), None);
        assert_eq!(nearest("perft", subcommands), None);
        let options = ["--level", "--depth", "--hash", "--help", "--move-time"];
        assert_eq!(nearest("--levle", options), Some("--level"));
        assert_eq!(nearest("--hsh", options), Some("--hash"));
        assert_eq!(nearest("-hash", options), Some("--hash"));
        assert_eq!(nearest("--movetime", options), Some("--move-time"));
        assert_eq!(nearest("--frobnicate", options), None);
        assert_eq!(nearest("--epoks", ["--epochs", "--rate"]), Some("--epochs"));
        assert_eq!(nearest("-x", ["-h", "-V"]), None);
        assert_eq!(nearest("", ["-h", "a"]), None);
    }

    #[test]
    fn nearest_prefers_the_smaller_distance_then_the_earlier_name() {
        assert_eq!(nearest("--hep", ["--hash", "--help"]), Some("--help"));
        assert_eq!(nearest("--hap", ["--hat", "--has"]), Some("--hat"));
        assert_eq!(nearest("--hap", ["--has", "--hat"]), Some("--has"));
    }

    #[test]
    fn did_you_mean_names_the_suggestion_or_nothing() {
        assert_eq!(
            did_you_mean("perf", ["perft", "solve"]),
            "; did you mean 'perft'?"
        );
        assert_eq!(did_you_mean("zzzz", ["perft", "solve"]), "");
    }
}
