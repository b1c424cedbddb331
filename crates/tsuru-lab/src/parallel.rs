//! The lab's one parallel map: a slice cut into one contiguous chunk per thread, each chunk
//! handled on its own scoped thread, the results returned in chunk order.
//!
//! The chunks depend only on the slice's length and the thread count, never on timing, so a
//! job whose result depends on how the work is cut (a sum of floats, a progress line from the
//! first chunk) gives the same result on every run with the same thread count.

/// `job(chunk_index, chunk)` for each of at most `threads` contiguous chunks of `items` (of
/// `items.len().div_ceil(threads)` items each, the last one shorter), each on its own thread;
/// the results in chunk order. No chunks (and no threads) when `items` is empty.
pub fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    job: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(index, part)| {
                let job = &job;
                scope.spawn(move || job(index, part))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a parallel worker panicked"))
            .collect()
    })
}

/// `job` applied to every item, in order, over [`map_chunks`]' chunks; each chunk's thread
/// keeps its own state from `start` (a search, a solver) for all its items.
pub fn map_with_state<T: Sync, S, R: Send>(
    items: &[T],
    threads: usize,
    start: impl Fn() -> S + Sync,
    job: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    map_chunks(items, threads, |_, part| {
        let mut state = start();
        part.iter()
            .map(|item| job(&mut state, item))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_contiguous_and_in_order() {
        let items: Vec<u32> = (0..10).collect();
        let chunks = map_chunks(&items, 3, |index, part| (index, part.to_vec()));
        assert_eq!(
            chunks,
            [
                (0, vec![0, 1, 2, 3]),
                (1, vec![4, 5, 6, 7]),
                (2, vec![8, 9])
            ]
        );
        assert!(map_chunks(&[] as &[u32], 4, |_, part| part.len()).is_empty());
        assert_eq!(map_chunks(&items, 0, |_, part| part.len()), [10]);
    }

    #[test]
    fn state_is_kept_per_chunk_and_results_stay_in_item_order() {
        let items: Vec<u32> = (0..7).collect();
        let seen = map_with_state(
            &items,
            2,
            || 0u32,
            |count, &item| {
                *count += 1;
                (item, *count)
            },
        );
        assert_eq!(
            seen,
            [(0, 1), (1, 2), (2, 3), (3, 4), (4, 1), (5, 2), (6, 3)]
        );
    }
}
