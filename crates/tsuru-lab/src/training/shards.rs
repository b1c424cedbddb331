//! The training data cut among machines: which part of a job a shard does, and the merges
//! that join the shards' files into the file of the whole job (`tsuru merge`).
//!
//! Two jobs are cut:
//!
//! - **self-play** (`tsuru datagen --shard K/N`): shard K plays the run's games whose index
//!   `i` has `i % N == K` ([`tsuru_core::formats::selfplay::RunShard`]); [`merge_selfplay`] puts
//!   the games back in index order under the run's header, which is the file one unsharded
//!   run writes, byte for byte.
//! - **search values** (`tsuru label --shard K/N`): shard K searches a contiguous range of
//!   the positions ([`value_range`]), cut at game boundaries; [`merge_search_values`]
//!   concatenates the ranges under the job's description, which is the cache `tsuru train
//!   --search-cache` writes for the same positions and depth, byte for byte.
//!
//! Labels are cut in ranges, not dealt out, because their unit (a game's positions, searched
//! from a cleared table) varies in size and the whole job is known in advance: ranges balanced
//! by position count merge by concatenation and resume by appending. Self-play games are all
//! alike and a run's length is set by the user, so they are dealt out in turn.
//!
//! A merge refuses shards that are not one job's: other settings, weights, positions, depth or
//! shard count, a shard missing or given twice, or a shard that is not finished.

use std::collections::BTreeMap;
use std::ops::Range;

use anyhow::{bail, ensure, Context, Result};

use super::Labelled;
use tsuru_core::formats::search_values::{self, ValueShard};
use tsuru_core::formats::selfplay::{read_file, RunShard, SelfPlayConfig};
use tsuru_core::formats::Shard;

/// Whether a game's positions start at `index` of `positions` (as [`super::search_values`]
/// sees them: the first position, or one marked as a game's start), or `index` is the end.
pub fn is_game_boundary(positions: &[Labelled], index: usize) -> bool {
    index == 0 || index >= positions.len() || positions[index].game_start
}

/// The positions that shard `shard` of a labelling job over `positions` searches: from the
/// first game boundary at or after `K * len / N` to the first at or after `(K + 1) * len / N`.
/// The N ranges are contiguous, disjoint and cover every position, and each starts at a game
/// boundary, so that each game is searched whole by one shard from a cleared table.
pub fn value_range(positions: &[Labelled], shard: Shard) -> Range<usize> {
    let len = positions.len();
    let cut = |k: u64| -> usize {
        let target = (u128::from(k) * len as u128 / u128::from(shard.count)) as usize;
        (target..=len)
            .find(|&i| is_game_boundary(positions, i))
            .unwrap_or(len)
    };
    cut(shard.index)..cut(shard.index + 1)
}

/// Fails naming the shards of `count` that `shards` (keyed by shard number) lacks.
fn ensure_every_shard<T>(shards: &BTreeMap<u64, T>, count: u64) -> Result<()> {
    let missing: Vec<String> = (0..count)
        .filter(|k| !shards.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    ensure!(
        missing.is_empty(),
        "shards missing: {} (each of the {count} shards must be given once)",
        missing.join(", ")
    );
    Ok(())
}

/// The file one unsharded `tsuru datagen` run writes, from the texts of its shards' files
/// (`inputs`: a name for messages and the text, in any order). Every shard of the run must be
/// given once and hold all its games.
pub fn merge_selfplay(inputs: &[(String, String)]) -> Result<String> {
    let mut shards: BTreeMap<u64, (&str, RunShard, Vec<String>)> = BTreeMap::new();
    let mut run: Option<(SelfPlayConfig, &str)> = None;
    for (name, text) in inputs {
        let (config, games) = read_file(text).with_context(|| {
            format!("in {name} (an unfinished shard: run its tsuru datagen command again)")
        })?;
        let Some(part) = config.shard else {
            bail!("{name} is not a shard (its header names no shard): nothing to merge");
        };
        match run {
            None => run = Some((config, name)),
            Some((first, first_name)) => ensure!(
                config.whole_run() == first.whole_run()
                    && first.shard.is_some_and(|other| {
                        (other.shard.count, other.first, other.games)
                            == (part.shard.count, part.first, part.games)
                    }),
                "{name} and {first_name} are not shards of one run:\n  {}\n  {}",
                config.header(),
                first.header()
            ),
        }
        ensure!(
            games.len() as u64 <= part.len()
                && games
                    .iter()
                    .zip(part.indices())
                    .all(|(game, index)| game.index == index),
            "{name} holds games that are not its shard's ({}) in order",
            part.shard
        );
        ensure!(
            games.len() as u64 == part.len(),
            "{name} holds {} of the {} games of shard {}: finish it first (run its tsuru \
             datagen command again)",
            games.len(),
            part.len(),
            part.shard
        );
        let lines = games.iter().map(|game| config.line(game)).collect();
        if let Some((other, ..)) = shards.insert(part.shard.index, (name, part, lines)) {
            bail!("{name} and {other} are both shard {}", part.shard);
        }
    }
    let Some((config, _)) = run else {
        bail!("no shards to merge");
    };
    let count = config.shard.map_or(0, |part| part.shard.count);
    ensure_every_shard(&shards, count)?;
    // The shards deal the run's indices out in turn: take them back in index order.
    let mut games: Vec<(u64, String)> = Vec::new();
    for (_, part, lines) in shards.into_values() {
        games.extend(part.indices().zip(lines));
    }
    games.sort_unstable_by_key(|&(index, _)| index);
    let mut out = format!("{}\n", config.whole_run().header());
    for (_, line) in games {
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// The search-value cache of a whole labelling job, from its shards' caches (`inputs`: a name
/// for messages and the bytes, in any order). Every shard must be given once and be finished.
pub fn merge_search_values(inputs: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let mut shards: BTreeMap<u64, (&str, ValueShard, &[u8])> = BTreeMap::new();
    let mut job: Option<(&str, &str, ValueShard)> = None;
    for (name, bytes) in inputs {
        let (description, values) = search_values::split(bytes)
            .with_context(|| format!("{name} is not a search-value file"))?;
        let (description, part) = search_values::parse_shard_description(description)
            .with_context(|| {
                format!("{name} is not a shard (it names no shard): nothing to merge")
            })?;
        match job {
            None => job = Some((description, name, part)),
            Some((first, first_name, first_part)) => ensure!(
                description == first
                    && part.shard.count == first_part.shard.count
                    && part.total == first_part.total,
                "{name} and {first_name} are not shards of one job:\n  {}\n  {}",
                search_values::shard_description(description, &part),
                search_values::shard_description(first, &first_part)
            ),
        }
        let wanted = part.end - part.start;
        ensure!(
            values.len() as u64 <= wanted,
            "{name} holds more values than its positions {}-{}",
            part.start,
            part.end
        );
        ensure!(
            values.len() as u64 == wanted,
            "{name} holds {} of the {wanted} values of shard {}: finish it first (run its \
             tsuru label command again)",
            values.len(),
            part.shard
        );
        if let Some((other, ..)) = shards.insert(part.shard.index, (name, part, values)) {
            bail!("{name} and {other} are both shard {}", part.shard);
        }
    }
    let Some((description, _, first_part)) = job else {
        bail!("no shards to merge");
    };
    let count = first_part.shard.count;
    ensure_every_shard(&shards, count)?;
    let mut out = search_values::header(description);
    let mut next = 0;
    for (name, part, values) in shards.into_values() {
        ensure!(
            part.start == next,
            "{name} starts at position {} where {next} was expected: the shards do not \
             cover the positions once each",
            part.start
        );
        out.extend_from_slice(values);
        next = part.end;
    }
    ensure!(
        next == first_part.total,
        "the shards end at position {next} of {}",
        first_part.total
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsuru_core::board::Color;
    use tsuru_core::formats::positions::LabelKind;

    /// Positions of games of the given lengths, one after another.
    fn positions(games: &[usize]) -> Vec<Labelled> {
        games
            .iter()
            .flat_map(|&length| {
                (0..length).map(move |i| Labelled {
                    black: 1 << i,
                    white: 0,
                    side: Color::Black,
                    label: 0,
                    kind: LabelKind::Result,
                    game_start: i == 0,
                })
            })
            .collect()
    }

    #[test]
    fn value_ranges_cover_the_positions_once_and_start_at_games() {
        // Games of 5, 3, 4 and 8 positions: starts at 0, 5, 8, 12; 20 positions.
        let set = positions(&[5, 3, 4, 8]);
        let ranges = |count| -> Vec<Range<usize>> {
            (0..count)
                .map(|index| value_range(&set, Shard { index, count }))
                .collect()
        };
        assert_eq!(ranges(1).len(), 1);
        assert_eq!(ranges(1)[0], 0..20);
        // Cuts at 10 -> the next game start, 12.
        assert_eq!(ranges(2), [0..12, 12..20]);
        // Cuts at 6 and 13 -> 8 and 20.
        assert_eq!(ranges(3), [0..8, 8..20, 20..20]);
        assert_eq!(ranges(20).iter().map(|r| r.len()).sum::<usize>(), 20);
        assert!(ranges(20)
            .iter()
            .all(|r| is_game_boundary(&set, r.start) && is_game_boundary(&set, r.end)));
        assert_eq!(
            value_range(&[], Shard { index: 0, count: 2 }),
            0..0,
            "no positions"
        );
    }

    /// A search-value shard image of `values` for positions `start..end` of `total`.
    fn value_shard(job: &str, shard: &str, start: u64, values: &[i8], total: u64) -> Vec<u8> {
        let part = ValueShard {
            shard: Shard::parse(shard).unwrap(),
            start,
            end: start + values.len() as u64,
            total,
        };
        search_values::to_bytes(&search_values::shard_description(job, &part), values)
    }

    #[test]
    fn value_shards_merge_into_the_whole_cache_or_are_refused() {
        let job = "set | search depth 2 with weights 563a71f1 | 5 training positions";
        let a = value_shard(job, "0/2", 0, &[1, -2, 3], 5);
        let b = value_shard(job, "1/2", 3, &[4, -5], 5);
        let named = |list: &[&Vec<u8>]| -> Vec<(String, Vec<u8>)> {
            list.iter()
                .enumerate()
                .map(|(i, bytes)| (format!("shard-{i}"), bytes.to_vec()))
                .collect()
        };
        let whole = search_values::to_bytes(job, &[1, -2, 3, 4, -5]);
        assert_eq!(merge_search_values(&named(&[&a, &b])).unwrap(), whole);
        assert_eq!(merge_search_values(&named(&[&b, &a])).unwrap(), whole);

        let unfinished = a[..a.len() - 1].to_vec();
        let other_job = value_shard(
            "set | search depth 3 with weights 563a71f1 | 5 training positions",
            "1/2",
            3,
            &[4, -5],
            5,
        );
        let gap = value_shard(job, "1/2", 4, &[-5], 5);
        let three = value_shard(job, "1/3", 3, &[4, -5], 5);
        for (list, error) in [
            (named(&[&a]), "shards missing: 1/2"),
            (named(&[&a, &a]), "are both shard 0/2"),
            (named(&[&unfinished, &b]), "holds 2 of the 3 values"),
            (named(&[&a, &other_job]), "not shards of one job"),
            (named(&[&a, &three]), "not shards of one job"),
            (named(&[&a, &gap]), "starts at position 4 where 3"),
            (named(&[&a, &whole]), "is not a shard"),
            (
                vec![("x".to_string(), b"# tsuru".to_vec())],
                "not a search-value file",
            ),
            (Vec::new(), "no shards"),
        ] {
            let message = format!("{:#}", merge_search_values(&list).unwrap_err());
            assert!(message.contains(error), "{message} (expected {error})");
        }
    }
}
