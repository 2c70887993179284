//! List pages kept ready: the bytes of a DLQ list answer, kept after the store read them and
//! sent again for the same query while nothing could have changed them
//! (`docs/decisions.md#d21-kept-list-pages`).
//!
//! A list of 100 entries reads 101 rows; most of its time went there and to the trip through
//! the blocking pool, not to sending the bytes (BENCHMARKS.md, "Findings"). A kept page costs a
//! lock and a hash. It is never served past a write: the store says which generation of its
//! data a page was read from ([`KeepWhile`]), every committed write moves the generation on,
//! and a page is served only while the generation is the same and the retention floor has not
//! reached the oldest stored entry. A store other processes write to keeps nothing.

use crate::store::{DlqFilter, KeepWhile};
use axum::body::Bytes;
use hashlink::LruCache;
use std::sync::{Mutex, MutexGuard};

/// What identifies a list page: the same filter, position and size give the same page.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PageKey {
    pub filter: DlqFilter,
    pub after: Option<String>,
    pub limit: usize,
}

/// Pages kept, least recently served first out, bounded in number and in bytes.
pub struct KeptPages {
    state: Mutex<State>,
    max_pages: usize,
    max_bytes: usize,
}

struct State {
    /// The store generation every kept page was read at; a newer one drops them all.
    generation: u64,
    pages: LruCache<PageKey, Kept>,
    bytes: usize,
}

struct Kept {
    body: Bytes,
    floor_up_to: i64,
}

impl Default for KeptPages {
    /// 64 pages and 8 MiB at most: a few dozen queries asked over and over (a console, a
    /// dashboard, a test suite's polling) fit, and the memory stays small beside SQLite's.
    fn default() -> Self {
        KeptPages::bounded(64, 8 << 20)
    }
}

impl KeptPages {
    /// At most `max_pages` pages and `max_bytes` bytes of them; a page larger than an eighth of
    /// `max_bytes` is not kept, so one huge page cannot push out every other.
    pub fn bounded(max_pages: usize, max_bytes: usize) -> KeptPages {
        KeptPages {
            state: Mutex::new(State {
                generation: 0,
                pages: LruCache::new_unbounded(),
                bytes: 0,
            }),
            max_pages,
            max_bytes,
        }
    }

    /// The kept page for `key`, if it is still what the store would answer: the store is at
    /// the `generation` the page was read at (`None`: the store keeps nothing) and the
    /// retention floor is still at most the oldest stored entry.
    pub fn get(&self, key: &PageKey, generation: Option<u64>, floor: i64) -> Option<Bytes> {
        let generation = generation?;
        let mut state = self.lock();
        if state.generation != generation {
            return None;
        }
        let kept = state.pages.get(key)?;
        (floor <= kept.floor_up_to).then(|| kept.body.clone())
    }

    /// Keeps `body`, the page for `key` that the store read under `keep`. A page read before
    /// the newest kept generation is not kept (a write came between); one read after it drops
    /// every older page.
    pub fn put(&self, key: PageKey, body: &Bytes, keep: KeepWhile) {
        if body.len() > self.max_bytes / 8 {
            return;
        }
        let mut state = self.lock();
        if keep.generation < state.generation {
            return;
        }
        if keep.generation > state.generation {
            state.pages.clear();
            state.bytes = 0;
            state.generation = keep.generation;
        }
        let kept = Kept {
            body: body.clone(),
            floor_up_to: keep.floor_up_to,
        };
        if let Some(replaced) = state.pages.insert(key, kept) {
            state.bytes -= replaced.body.len();
        }
        state.bytes += body.len();
        while state.pages.len() > self.max_pages || state.bytes > self.max_bytes {
            let Some((_, dropped)) = state.pages.remove_lru() else {
                break;
            };
            state.bytes -= dropped.body.len();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change to the state is whole before the lock is let go; a panic elsewhere
        // cannot leave it half-made.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(label: &str) -> PageKey {
        PageKey {
            filter: DlqFilter::new().label(label),
            after: None,
            limit: 100,
        }
    }

    fn keep(generation: u64, floor_up_to: i64) -> KeepWhile {
        KeepWhile {
            generation,
            floor_up_to,
        }
    }

    #[test]
    fn a_page_is_served_only_at_its_generation_and_below_its_floor() {
        let pages = KeptPages::default();
        let body = Bytes::from_static(b"{\"messages\":[]}");
        pages.put(key("a"), &body, keep(7, 1_000));
        assert_eq!(pages.get(&key("a"), Some(7), 999), Some(body.clone()));
        assert_eq!(pages.get(&key("a"), Some(7), 1_000), Some(body));
        assert_eq!(
            pages.get(&key("a"), Some(7), 1_001),
            None,
            "the floor passed an entry"
        );
        assert_eq!(pages.get(&key("a"), Some(8), 0), None, "a write came since");
        assert_eq!(
            pages.get(&key("a"), None, 0),
            None,
            "a shared store keeps nothing"
        );
        assert_eq!(pages.get(&key("b"), Some(7), 0), None, "another query");
    }

    #[test]
    fn a_page_read_before_a_newer_one_is_not_kept_and_a_newer_one_drops_the_old() {
        let pages = KeptPages::default();
        let (old, new) = (Bytes::from_static(b"old"), Bytes::from_static(b"new"));
        pages.put(key("a"), &new, keep(5, i64::MAX));
        pages.put(key("b"), &old, keep(4, i64::MAX));
        assert_eq!(pages.get(&key("b"), Some(4), 0), None);
        assert_eq!(pages.get(&key("b"), Some(5), 0), None);
        pages.put(key("b"), &new, keep(6, i64::MAX));
        assert_eq!(
            pages.get(&key("a"), Some(6), 0),
            None,
            "read at 5, store at 6"
        );
        assert_eq!(pages.get(&key("b"), Some(6), 0), Some(new));
    }

    #[test]
    fn the_least_recently_served_page_goes_first_and_the_bytes_stay_bounded() {
        let pages = KeptPages::bounded(2, 800);
        let body = |n: usize| Bytes::from(vec![b' '; n]);
        pages.put(key("a"), &body(100), keep(1, 0));
        pages.put(key("b"), &body(100), keep(1, 0));
        assert!(pages.get(&key("a"), Some(1), 0).is_some());
        pages.put(key("c"), &body(100), keep(1, 0));
        assert!(
            pages.get(&key("b"), Some(1), 0).is_none(),
            "b was served least recently"
        );
        assert!(pages.get(&key("a"), Some(1), 0).is_some());
        assert!(pages.get(&key("c"), Some(1), 0).is_some());
        pages.put(key("d"), &body(101), keep(1, 0));
        assert!(
            pages.get(&key("d"), Some(1), 0).is_none(),
            "over an eighth of the bytes"
        );
        let pages = KeptPages::bounded(10, 800);
        for name in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] {
            pages.put(key(name), &body(100), keep(1, 0));
        }
        assert!(
            pages.get(&key("a"), Some(1), 0).is_none(),
            "900 bytes over 800"
        );
        assert!(pages.get(&key("i"), Some(1), 0).is_some());
        assert_eq!(pages.lock().bytes, 800);
    }
}
