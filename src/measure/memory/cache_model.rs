//! A set-associative LRU cache simulator: the levels of a cache hierarchy
//! (L1d, L2, last level), each with its size, ways and line size, fed one
//! read at a time. It counts, per level, the lines looked up and the lines
//! missed, so the same reads give the same counts on every machine: a
//! cache lesson's numbers that do not depend on hardware counters.
//!
//! The model is the textbook one (Hennessy & Patterson, *Computer
//! Architecture*, 6th ed., appendix B.1; Drepper, "What Every Programmer
//! Should Know About Memory", 2007, section 3.3): a line's set is its line
//! number modulo the level's set count, each set keeps its lines in
//! least-recently-used order, a miss brings the line into every level it
//! missed in (evicting each set's least recently used line). A level is
//! looked up only when the level above it missed. No prefetching, no
//! write-back traffic, no inclusion or exclusion enforced between levels.

/// One level of the modeled hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CacheLevel {
    /// Capacity, bytes.
    pub bytes: usize,
    /// Lines per set (associativity); `bytes / line` makes it fully
    /// associative.
    pub ways: usize,
    /// Line size, bytes (a power of two).
    pub line: usize,
}

impl CacheLevel {
    /// Sets of this level: `bytes / (ways * line)`, at least 1.
    pub fn sets(&self) -> usize {
        (self.bytes / (self.ways.max(1) * self.line.max(1))).max(1)
    }

    /// Why this level cannot be modeled, or `None` when it can: every
    /// value at least 1, the line a power of two, the size a whole number
    /// of sets.
    pub fn problem(&self) -> Option<String> {
        if self.bytes == 0 || self.ways == 0 || self.line == 0 {
            return Some("size, ways and line must each be at least 1".to_string());
        }
        if !self.line.is_power_of_two() {
            return Some(format!("line must be a power of two, got {}", self.line));
        }
        if !self.bytes.is_multiple_of(self.ways * self.line) {
            return Some(format!(
                "size {} is not a whole number of sets of {} ways x {} bytes",
                self.bytes, self.ways, self.line
            ));
        }
        None
    }
}

/// The "classroom" geometry: a typical laptop core's L1d (32 KiB, 8
/// ways), L2 (512 KiB, 8 ways) and last-level cache (8 MiB, 16 ways), 64-byte
/// lines. With it every machine models the same numbers.
pub const CLASSROOM: [CacheLevel; 3] = [
    CacheLevel {
        bytes: 32 << 10,
        ways: 8,
        line: 64,
    },
    CacheLevel {
        bytes: 512 << 10,
        ways: 8,
        line: 64,
    },
    CacheLevel {
        bytes: 8 << 20,
        ways: 16,
        line: 64,
    },
];

pub use crate::settings::view::Geometry;

impl Geometry {
    /// The levels this geometry models, nearest first: for `Machine`, the
    /// classroom's when the machine reports no cache at all (the browser).
    /// Allocates the list.
    pub fn levels(self) -> Vec<CacheLevel> {
        let machine = match self {
            Geometry::Machine => machine_levels(crate::measure::machine::Machine::current()),
            Geometry::Classroom => Vec::new(),
        };
        if machine.is_empty() {
            CLASSROOM.to_vec()
        } else {
            machine
        }
    }

    /// True when the levels modeled are not the ones this geometry names:
    /// `Machine` on a machine that reports no cache (the browser), which
    /// models the classroom's ([`Geometry::levels`]). What shows the
    /// geometry says so.
    pub fn falls_back(self) -> bool {
        self == Geometry::Machine
            && machine_levels(crate::measure::machine::Machine::current()).is_empty()
    }
}

/// This machine's L1d, L2 and L3 as model levels: each level's size, ways
/// and line as the system reports them, the classroom level's where it
/// reports none (or a geometry the model cannot take), a level the machine
/// lacks left out. Allocates the list.
pub fn machine_levels(m: &crate::measure::machine::Machine) -> Vec<CacheLevel> {
    use crate::measure::machine::CacheKind;
    (1u8..=3)
        .zip(CLASSROOM)
        .filter_map(|(level, fallback)| {
            let c = m
                .caches
                .iter()
                .find(|c| c.level == level && c.kind != CacheKind::Instruction)?;
            let pick = |v: usize, d: usize| if v == 0 { d } else { v };
            let l = CacheLevel {
                bytes: usize::try_from(c.bytes).unwrap_or(fallback.bytes),
                ways: pick(c.ways, fallback.ways),
                line: pick(c.line, fallback.line),
            };
            Some(if l.problem().is_none() { l } else { fallback })
        })
        .collect()
}

/// The lookups and misses of one level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LevelCounts {
    /// Lines looked up in this level: the misses of the level above; for
    /// the first level, each line of each read (a read within one line is
    /// one lookup).
    pub lookups: u64,
    /// Lines not found, brought in.
    pub misses: u64,
}

/// One level's state: per set, its lines' tags most recently used first.
#[derive(Clone, Debug)]
struct Level {
    geometry: CacheLevel,
    sets: usize,
    line_shift: u32,
    /// `sets * ways` line numbers, set by set, each set MRU first;
    /// `u64::MAX` is an empty way.
    tags: Vec<u64>,
    counts: LevelCounts,
}

impl Level {
    fn new(geometry: CacheLevel) -> Level {
        let sets = geometry.sets();
        Level {
            geometry,
            sets,
            line_shift: geometry.line.trailing_zeros(),
            tags: vec![u64::MAX; sets * geometry.ways],
            counts: LevelCounts::default(),
        }
    }

    /// Looks up the line holding byte `address`, making it the set's most
    /// recently used; true on a hit.
    fn access(&mut self, address: u64) -> bool {
        let line = address >> self.line_shift;
        let set = (line % self.sets as u64) as usize;
        let ways = self.geometry.ways;
        let tags = &mut self.tags[set * ways..(set + 1) * ways];
        self.counts.lookups += 1;
        let (hit, at) = match tags.iter().position(|&t| t == line) {
            Some(p) => (true, p),
            None => {
                self.counts.misses += 1;
                (false, ways - 1)
            }
        };
        tags[..=at].rotate_right(1);
        tags[0] = line;
        hit
    }
}

/// A cache hierarchy being fed reads.
#[derive(Clone, Debug)]
pub struct CacheModel {
    levels: Vec<Level>,
}

impl CacheModel {
    /// An empty (cold) hierarchy of `levels`, nearest first. Allocates
    /// 8 bytes per modeled line of every level.
    ///
    /// # Errors
    /// The first level's [`CacheLevel::problem`], naming the level (1 is
    /// the nearest).
    pub fn new(levels: &[CacheLevel]) -> Result<CacheModel, String> {
        for (k, l) in levels.iter().enumerate() {
            if let Some(p) = l.problem() {
                return Err(format!("cache level {}: {p}", k + 1));
            }
        }
        Ok(CacheModel {
            levels: levels.iter().copied().map(Level::new).collect(),
        })
    }

    /// Reads `bytes` bytes from `address` (at least one): each line they
    /// cover is looked up in the first level, and in each next level while
    /// it misses. Allocates nothing.
    pub fn read(&mut self, address: u64, bytes: usize) {
        let Some(first) = self.levels.first() else {
            return;
        };
        let shift = first.line_shift;
        let end = address + bytes.max(1) as u64 - 1;
        for line in (address >> shift)..=(end >> shift) {
            let a = line << shift;
            for level in &mut self.levels {
                if level.access(a) {
                    break;
                }
            }
        }
    }

    /// Each level's counts since the start or the last
    /// [`CacheModel::reset_counts`], nearest first.
    pub fn counts(&self) -> Vec<LevelCounts> {
        self.levels.iter().map(|l| l.counts).collect()
    }

    /// Sets every level's counts to zero, keeping what the levels hold (to
    /// count a phase after a warm-up).
    pub fn reset_counts(&mut self) {
        for l in &mut self.levels {
            l.counts = LevelCounts::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L1: CacheLevel = CacheLevel {
        bytes: 32 * 1024,
        ways: 8,
        line: 64,
    };
    const L2: CacheLevel = CacheLevel {
        bytes: 512 * 1024,
        ways: 8,
        line: 64,
    };

    fn misses(m: &CacheModel) -> Vec<u64> {
        m.counts().iter().map(|c| c.misses).collect()
    }

    #[test]
    fn a_sequential_scan_misses_each_line_once() {
        let mut m = CacheModel::new(&[L1, L2]).unwrap();
        let n = 1 << 20;
        for a in (0..n).step_by(4) {
            m.read(a, 4);
        }
        assert_eq!(m.counts()[0].lookups, n / 4, "one lookup per read");
        assert_eq!(misses(&m), vec![n / 64, n / 64], "each line missed once");
    }

    #[test]
    fn a_line_stride_misses_every_time_once_the_array_exceeds_the_cache() {
        for (bytes, want_misses) in [(16 * 1024u64, 0), (64 * 1024, 1024)] {
            let mut m = CacheModel::new(&[L1]).unwrap();
            let pass = |m: &mut CacheModel| {
                for a in (0..bytes).step_by(64) {
                    m.read(a, 8);
                }
            };
            pass(&mut m);
            m.reset_counts();
            pass(&mut m);
            // Fits: the second pass hits. Twice the cache under LRU: every
            // line was evicted before it comes round again.
            assert_eq!(m.counts()[0].misses, want_misses, "{bytes} bytes");
        }
    }

    #[test]
    fn lines_of_one_set_beyond_its_ways_evict_the_least_recently_used() {
        let mut m = CacheModel::new(&[L1]).unwrap();
        let set_stride = L1.bytes as u64 / L1.ways as u64; // same set each time
        for k in 0..8 {
            m.read(k * set_stride, 1);
        }
        m.read(0, 1); // line 0 becomes the most recent
        m.read(8 * set_stride, 1); // evicts line 1, the least recent
        m.reset_counts();
        m.read(0, 1);
        assert_eq!(misses(&m), vec![0], "line 0 stayed");
        m.read(set_stride, 1);
        assert_eq!(misses(&m), vec![1], "line 1 was evicted");
    }

    #[test]
    fn a_read_across_a_line_boundary_looks_up_both_lines() {
        let mut m = CacheModel::new(&[L1]).unwrap();
        m.read(60, 8);
        assert_eq!(
            m.counts()[0],
            LevelCounts {
                lookups: 2,
                misses: 2
            }
        );
    }

    #[test]
    fn a_level_is_looked_up_only_after_the_level_above_missed() {
        let mut m = CacheModel::new(&[L1, L2]).unwrap();
        m.read(0, 4);
        m.read(0, 4);
        let c = m.counts();
        assert_eq!((c[0].lookups, c[0].misses), (2, 1));
        assert_eq!((c[1].lookups, c[1].misses), (1, 1));
    }

    #[test]
    fn the_machines_levels_fill_unknown_ways_and_lines_from_the_classroom() {
        use crate::measure::machine::{Cache, CacheKind, Machine};
        let cache = |level, kind, bytes, ways, line| Cache {
            level,
            kind,
            bytes,
            shared_by: 0,
            ways,
            line,
        };
        let m = Machine {
            cpu: "test".to_string(),
            cores: 2,
            caches: vec![
                cache(1, CacheKind::Instruction, 64 << 10, 4, 64),
                cache(1, CacheKind::Data, 48 << 10, 12, 64),
                cache(2, CacheKind::Unified, 2 << 20, 0, 0),
            ],
        };
        let l = machine_levels(&m);
        assert_eq!(l.len(), 2, "no L3 reported: none modeled");
        assert_eq!(
            l[0],
            CacheLevel {
                bytes: 48 << 10,
                ways: 12,
                line: 64
            }
        );
        assert_eq!(
            l[1],
            CacheLevel {
                bytes: 2 << 20,
                ways: 8,
                line: 64
            }
        );
        assert!(CLASSROOM.iter().all(|c| c.problem().is_none()));
    }

    #[test]
    fn a_geometry_that_is_not_whole_sets_is_refused_with_its_level() {
        let bad = CacheLevel {
            bytes: 1000,
            ways: 8,
            line: 64,
        };
        let e = CacheModel::new(&[L1, bad]).unwrap_err();
        assert!(e.starts_with("cache level 2: size 1000"), "{e}");
        let odd_line = CacheLevel { line: 48, ..L1 };
        assert!(odd_line.problem().unwrap().contains("power of two"));
        assert!(CacheLevel { ways: 0, ..L1 }.problem().is_some());
    }
}
