//! The members of a generated enum class by value.
//!
//! Every enum field the typed coders write or read looks its value up here
//! (to check it on encode, to return the member on decode). A `HashMap`
//! with the standard library's SipHash took about 180 instructions a
//! lookup, a third of the encode of records holding two enum fields; enums
//! are small and their values mostly dense, so a table indexed by value
//! (or, for sparse values, a binary search) does the same in a few.

use pyo3::prelude::*;

/// Enums whose values span at most this many integers are kept as a table
/// indexed by value (gaps are empty entries).
const DENSE_SPAN: u64 = 1024;

/// An enum's members by value.
pub(super) enum EnumMembers {
    /// Values from `min` on, at `value - min` (`None` for a gap).
    Dense {
        min: i64,
        table: Vec<Option<Py<PyAny>>>,
    },
    /// Every member, sorted by value.
    Sparse(Vec<(i64, Py<PyAny>)>),
}

impl EnumMembers {
    /// The members `(value, member)`; a value given twice (an alias) keeps
    /// its last member, as inserting into a map would.
    pub(super) fn new(members: Vec<(i64, Py<PyAny>)>) -> EnumMembers {
        let mut sorted = members;
        // Stable: the entries of one value stay in their order, and the
        // last of each run is the one kept.
        sorted.sort_by_key(|(v, _)| *v);
        let mut unique: Vec<(i64, Py<PyAny>)> = Vec::with_capacity(sorted.len());
        for (v, m) in sorted {
            match unique.last_mut() {
                Some(last) if last.0 == v => last.1 = m,
                _ => unique.push((v, m)),
            }
        }
        let (Some(first), Some(last)) = (unique.first(), unique.last()) else {
            return EnumMembers::Sparse(unique);
        };
        let span = (i128::from(last.0) - i128::from(first.0)) as u128;
        if span >= u128::from(DENSE_SPAN) {
            return EnumMembers::Sparse(unique);
        }
        let min = first.0;
        let mut table: Vec<Option<Py<PyAny>>> = (0..=span).map(|_| None).collect();
        for (v, m) in unique {
            // In range: min <= v <= min + span, span < DENSE_SPAN.
            table[(i128::from(v) - i128::from(min)) as usize] = Some(m);
        }
        EnumMembers::Dense { min, table }
    }

    /// The member of value `v`.
    #[inline]
    pub(super) fn get(&self, v: i64) -> Option<&Py<PyAny>> {
        match self {
            EnumMembers::Dense { min, table } => {
                let at = usize::try_from(v.checked_sub(*min)?).ok()?;
                table.get(at)?.as_ref()
            }
            EnumMembers::Sparse(sorted) => sorted
                .binary_search_by_key(&v, |(value, _)| *value)
                .ok()
                .map(|i| &sorted[i].1),
        }
    }

    /// Whether `v` is the value of a member.
    #[inline]
    pub(super) fn contains(&self, v: i64) -> bool {
        self.get(v).is_some()
    }
}
