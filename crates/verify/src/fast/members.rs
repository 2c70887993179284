//! Finding a member's schema by its name, once per member of every object the fast path reads:
//! a guess learned from the objects read before, then a short search, then a hash table.

use super::{Member, Rules};
use std::sync::atomic::Ordering::Relaxed;

impl Rules {
    /// The member of that name and its index in `members`, if `properties` or `required` names
    /// it, `after` being the index of the member read before it in the same object
    /// (`members.len()` for the first).
    ///
    /// Looked up once per member of every object read, so the common case is made cheap: a
    /// server writes the members of an object in the same order every time (its own field
    /// order, or sorted), so the member that followed `after` the last time is compared first,
    /// one length and two wide comparisons, and only when that guess fails is the name hashed
    /// (and the guess learned for the next object).
    // Always: called from one place, once per member read, and too long for the inliner's
    // estimate, where a call costs as much as the guess itself.
    #[inline(always)]
    pub(crate) fn member_after(&self, after: usize, name: &str) -> Option<(usize, &Member)> {
        if self.members.is_empty() {
            return None;
        }
        if let Some(guesses) = self.followers.get(after) {
            let guesses = guesses.load(Relaxed);
            for guess in [guesses & 0xFFFF, guesses >> 16] {
                let guess = guess as usize;
                if let Some(member) = self.members.get(guess)
                    && same_short_name(member.name.as_bytes(), name.as_bytes())
                {
                    return Some((guess, member));
                }
            }
        }
        self.learn_follower(after, name)
    }

    /// The member of that name by hash, learned as the one that follows `after`.
    #[cold]
    #[inline(never)]
    fn learn_follower(&self, after: usize, name: &str) -> Option<(usize, &Member)> {
        // Members absent from this object make the guess fail; when the server writes them in
        // the contract's order (sorted), the member is a few places further on.
        let start = if after < self.members.len() {
            after + 1
        } else {
            0
        };
        let found = self
            .members
            .iter()
            .enumerate()
            .skip(start)
            .take(4)
            .find(|(_, member)| same_name(member.name.as_bytes(), name.as_bytes()))
            .or_else(|| self.member(name))?;
        if let (Some(followers), Ok(index)) = (self.followers.get(after), u16::try_from(found.0)) {
            // The newest follower first, the one before it second: objects of two shapes in
            // turn (an optional member present in one, absent in the other) keep hitting.
            // Relaxed: a guess, not a fact; a stale one costs a search, never a wrong answer.
            let before = followers.load(Relaxed) & 0xFFFF;
            followers.store(u32::from(index) | before << 16, Relaxed);
        }
        Some(found)
    }

    /// The member of that name and its index, by hash.
    #[inline(never)]
    pub(crate) fn member(&self, name: &str) -> Option<(usize, &Member)> {
        // A hash of a few bytes and, nearly always, one comparison, where a binary search
        // made several.
        let mask = self.slots.len().checked_sub(1)?;
        let mut slot = slot_hash(name.as_bytes()) & mask;
        loop {
            let index = usize::from(self.slots[slot]).checked_sub(1)?;
            let member = &self.members[index];
            if same_name(member.name.as_bytes(), name.as_bytes()) {
                return Some((index, member));
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// The open-addressing table of [`Rules::slots`] for `members`; `None` when there are more
/// members than a slot can name (left to the full validator).
pub(super) fn slots(members: &[Member]) -> Option<Vec<u16>> {
    if members.is_empty() {
        return Some(Vec::new());
    }
    let count = u16::try_from(members.len())
        .ok()
        .filter(|n| *n < u16::MAX)?;
    let size = (usize::from(count) * 2).next_power_of_two().max(4);
    let mut slots = vec![0; size];
    for (index, member) in members.iter().enumerate() {
        let mut slot = slot_hash(member.name.as_bytes()) & (size - 1);
        while slots[slot] != 0 {
            slot = (slot + 1) & (size - 1);
        }
        slots[slot] = index as u16 + 1;
    }
    Some(slots)
}

/// Whether two member names are equal. Names are short: two overlapping loads compare one of
/// 4 to 32 bytes without a call to `memcmp`, which costs more than the comparison.
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    match a.len() {
        4..=32 => same_short_name(a, b),
        _ => a == b,
    }
}

/// Whether two names of 4 to 32 bytes are equal; `false` for any other length.
#[inline]
fn same_short_name(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let wide =
        |s: &[u8], at: usize| u128::from_le_bytes(s[at..at + 16].try_into().unwrap_or([0; 16]));
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or([0; 4]));
    match n {
        17..=32 => wide(a, 0) == wide(b, 0) && wide(a, n - 16) == wide(b, n - 16),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => false,
    }
}

/// The hash of a member name for [`Rules::slots`]: its length and three of its bytes, which
/// tell apart the names of a schema's members almost always; a clash costs one more probe.
fn slot_hash(name: &[u8]) -> usize {
    let Some(&last) = name.last() else {
        return 0;
    };
    let mixed = (name.len() as u64)
        ^ (u64::from(name[0]) << 8)
        ^ (u64::from(name[name.len() / 2]) << 16)
        ^ (u64::from(last) << 24);
    (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
}
