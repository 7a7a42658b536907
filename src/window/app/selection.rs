//! The selected unit: which one, and whether the camera follows it.

use crate::engine::sim::{Handle, Handles};

/// The selected unit, held by generational handle (its storage index changes
/// whenever the units are reordered or one is removed), with its index as of
/// the last [`Selection::resolve`], and whether the camera follows it. One
/// value, so selecting, deselecting, respawning and the unit's death cannot
/// leave half of it behind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    target: Option<Target>,
    index: Option<usize>,
    follow: bool,
    lost: Option<Handle>,
}

/// What is selected: a handle, or a unit id from the command line that the
/// next [`Selection::resolve`] turns into the handle of the live unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Id(u32),
    Handle(Handle),
}

impl Selection {
    /// Selects the live unit with stable `id` (its slot); the camera follows
    /// it when `follow`. Its handle and index are found by the next
    /// [`Selection::resolve`].
    pub fn select(&mut self, id: u32, follow: bool) {
        *self = Selection {
            target: Some(Target::Id(id)),
            index: None,
            follow,
            lost: None,
        };
    }

    /// Selects the unit `picked` names (its storage index and handle, from
    /// picking), without following it; deselects when `picked` is `None`.
    pub fn select_at(&mut self, picked: Option<(usize, Handle)>) {
        match picked {
            Some((i, h)) => {
                *self = Selection {
                    target: Some(Target::Handle(h)),
                    index: Some(i),
                    follow: false,
                    lost: None,
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
        self.follow = follow && self.target.is_some();
    }

    /// Finds the selected unit's storage index after the last step: its
    /// handle from `handles`, its index from `locate` (normally
    /// [`crate::engine::sim::Simulation::resolve`], which also finds units whose
    /// handle entry is out of date). When the unit died (its handle no
    /// longer resolves) the selection clears and [`Selection::take_lost`]
    /// returns the handle once. Returns the index.
    pub fn resolve(
        &mut self,
        handles: &Handles,
        locate: impl Fn(Handle) -> Option<usize>,
    ) -> Option<usize> {
        let target = self.target?;
        let handle = match target {
            Target::Handle(h) => Some(h),
            Target::Id(id) => handles.handle(id),
        };
        self.index = handle.and_then(locate);
        match (handle, self.index) {
            (Some(h), Some(_)) => self.target = Some(Target::Handle(h)),
            (Some(h), None) => {
                *self = Selection {
                    lost: Some(h),
                    ..Selection::default()
                }
            }
            (None, _) => self.clear(),
        }
        self.index
    }

    /// The handle of a selected unit that died, once (then `None`).
    pub fn take_lost(&mut self) -> Option<Handle> {
        self.lost.take()
    }

    /// Index of the selected unit as of the last [`Selection::resolve`].
    pub fn index(&self) -> Option<usize> {
        self.index
    }

    /// The selected unit's handle, once resolved.
    pub fn handle(&self) -> Option<Handle> {
        match self.target {
            Some(Target::Handle(h)) => Some(h),
            _ => None,
        }
    }

    /// Whether the camera follows the selected unit.
    pub fn follows(&self) -> bool {
        self.follow && self.target.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_its_unit_through_a_move_in_storage() {
        let mut handles = Handles::identity(3);
        let mut s = Selection::default();
        let h = handles.handle(1).unwrap();
        s.select_at(Some((1, h)));
        assert_eq!(
            (s.handle(), s.index(), s.follows()),
            (Some(h), Some(1), false)
        );
        // Reordered: unit 1 moved to index 2.
        handles.moved(1, 2);
        assert_eq!(s.resolve(&handles, |h| handles.resolve(h)), Some(2));
        assert_eq!(s.handle(), Some(h));
    }

    #[test]
    fn a_unit_that_died_clears_everything_and_reports_once() {
        let mut handles = Handles::identity(3);
        let mut s = Selection::default();
        s.select(2, true);
        assert_eq!(s.resolve(&handles, |h| handles.resolve(h)), Some(2));
        assert!(s.follows());
        let h = s.handle().unwrap();
        handles.remove(2);
        // The slot is reused by a new unit: the stale handle must not show it.
        assert_eq!(handles.insert(0), 2);
        assert_eq!(s.resolve(&handles, |h| handles.resolve(h)), None);
        assert!(!s.follows());
        assert_eq!(s.take_lost(), Some(h));
        assert_eq!(s.take_lost(), None);
        assert_eq!(s, Selection::default());
    }

    #[test]
    fn clear_and_unknown_ids_deselect_and_stop_following() {
        let handles = Handles::identity(2);
        let mut s = Selection::default();
        s.select(1, true);
        s.resolve(&handles, |h| handles.resolve(h));
        s.clear();
        assert_eq!(s, Selection::default());
        s.select(5, true);
        assert_eq!(s.resolve(&handles, |h| handles.resolve(h)), None);
        assert_eq!(s, Selection::default());
        s.set_follow(true);
        assert!(!s.follows(), "nothing selected, nothing to follow");
        s.select_at(None);
        assert_eq!(s, Selection::default());
    }
}
