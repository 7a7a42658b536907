//! The selected unit: which one, and whether the camera follows it.

/// The selected unit, by stable id (its index changes whenever the units are
/// reordered), with its index as of the last [`Selection::resolve`], and
/// whether the camera follows it. One value, so selecting, deselecting and
/// respawning cannot leave half of it behind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    id: Option<u32>,
    index: Option<usize>,
    follow: bool,
}

impl Selection {
    /// Selects the unit with stable `id`; the camera follows it when `follow`.
    /// Its index is found by the next [`Selection::resolve`].
    pub fn select(&mut self, id: u32, follow: bool) {
        *self = Selection {
            id: Some(id),
            index: None,
            follow,
        };
    }

    /// Selects the unit at `index` of `ids` (the units' stable ids), without
    /// following it; deselects when `index` is `None` or out of range.
    pub fn select_index(&mut self, index: Option<usize>, ids: &[u32]) {
        match index.and_then(|i| ids.get(i).map(|&id| (i, id))) {
            Some((i, id)) => {
                *self = Selection {
                    id: Some(id),
                    index: Some(i),
                    follow: false,
                }
            }
            None => self.clear(),
        }
    }

    /// Deselects (and stops following).
    pub fn clear(&mut self) {
        *self = Selection::default();
    }

    /// Starts or stops the camera following the selected unit (nothing to
    /// follow without a selection).
    pub fn set_follow(&mut self, follow: bool) {
        self.follow = follow && self.id.is_some();
    }

    /// Finds the selected unit's index in `ids` (the units' stable ids after
    /// the last step): the previous index if it still holds the id, else a
    /// linear search. Deselects when the id is gone. Returns the index.
    pub fn resolve(&mut self, ids: &[u32]) -> Option<usize> {
        let id = self.id?;
        self.index = match self.index {
            Some(i) if ids.get(i) == Some(&id) => Some(i),
            _ => ids.iter().position(|&u| u == id),
        };
        if self.index.is_none() {
            self.clear();
        }
        self.index
    }

    /// Index of the selected unit as of the last [`Selection::resolve`].
    pub fn index(&self) -> Option<usize> {
        self.index
    }

    /// Stable id of the selected unit.
    pub fn id(&self) -> Option<u32> {
        self.id
    }

    /// Whether the camera follows the selected unit.
    pub fn follows(&self) -> bool {
        self.follow && self.id.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_its_unit_through_a_reorder() {
        let mut s = Selection::default();
        s.select_index(Some(1), &[10, 11, 12]);
        assert_eq!((s.id(), s.index(), s.follows()), (Some(11), Some(1), false));
        // Reordered: unit 11 moved to index 2.
        assert_eq!(s.resolve(&[12, 10, 11]), Some(2));
        assert_eq!(s.id(), Some(11));
    }

    #[test]
    fn a_unit_that_is_gone_clears_everything() {
        let mut s = Selection::default();
        s.select(7, true);
        assert!(s.follows());
        assert_eq!(s.resolve(&[0, 1, 2]), None);
        assert_eq!(s, Selection::default());
        assert!(!s.follows());
    }

    #[test]
    fn clear_and_out_of_range_deselect_and_stop_following() {
        let mut s = Selection::default();
        s.select(1, true);
        s.resolve(&[0, 1]);
        s.clear();
        assert_eq!(s, Selection::default());
        s.select(1, true);
        s.select_index(Some(5), &[0, 1]);
        assert_eq!(s, Selection::default());
        s.set_follow(true);
        assert!(!s.follows(), "nothing selected, nothing to follow");
    }
}
