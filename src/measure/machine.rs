//! This machine: the CPU's name, how many logical CPUs the process may use,
//! and the sizes of its caches, so a measured working set can be put next to
//! them ("fits in L2 (512 KiB)", "11% of L3 (300 MiB)").
//!
//! Linux reads `/sys/devices/system/cpu/cpu0/cache/index*/` and
//! `/proc/cpuinfo`; macOS asks `sysctl`; elsewhere (Windows, wasm32, where
//! there is no file system) the CPU is `"unknown CPU"` and the caches are
//! unknown. Nothing here panics on what the system reports: an unreadable
//! or malformed entry is left out.

use std::path::Path;
use std::sync::OnceLock;

use crate::format::size;

/// What a cache holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheKind {
    /// Data only (an L1d).
    Data,
    /// Instructions only (an L1i).
    Instruction,
    /// Data and instructions (L2, L3 on most CPUs).
    Unified,
}

impl CacheKind {
    /// The kind named by a sysfs `type` file (`Data`, `Instruction`,
    /// `Unified`, any case), or `None`.
    fn parse(s: &str) -> Option<CacheKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "data" => Some(CacheKind::Data),
            "instruction" => Some(CacheKind::Instruction),
            "unified" => Some(CacheKind::Unified),
            _ => None,
        }
    }
}

/// One cache of the CPU, as seen from logical CPU 0.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Cache {
    /// 1 for L1, 2 for L2, ...
    pub level: u8,
    /// What it holds.
    pub kind: CacheKind,
    /// Capacity, bytes.
    pub bytes: u64,
    /// Logical CPUs sharing it (CPU 0 included); 0 if unknown.
    pub shared_by: usize,
    /// Lines per set (associativity); 0 if unknown.
    pub ways: usize,
    /// Line size, bytes; 0 if unknown.
    pub line: usize,
}

/// This machine's CPU and caches: what `bench` names on its first line and
/// in its JSON, and what a working set is compared against ([`Machine::fit`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Machine {
    /// The CPU's model name, or `"unknown CPU"`.
    pub cpu: String,
    /// Logical CPUs this process may run on
    /// ([`std::thread::available_parallelism`], 1 when unknown).
    pub cores: usize,
    /// The caches of CPU 0, ascending level (within a level, as the system
    /// lists them); empty when unknown.
    pub caches: Vec<Cache>,
}

const UNKNOWN_CPU: &str = "unknown CPU";

impl Machine {
    /// The machine's last-level cache as text: "L3 (32 MiB)", or "an
    /// unknown last-level cache".
    pub fn llc_text(&self) -> String {
        let caches = [("L3", self.l3()), ("L2", self.l2()), ("L1d", self.l1d())];
        match caches.iter().find(|c| c.1.is_some()) {
            Some((name, Some(b))) => format!("{name} ({})", size(*b)),
            _ => "an unknown last-level cache".to_string(),
        }
    }

    /// This machine, read once (later calls return the same value). Linux:
    /// sysfs and `/proc/cpuinfo`; macOS: `sysctl`; elsewhere an unknown CPU
    /// without caches. Never panics.
    pub fn current() -> &'static Machine {
        static CURRENT: OnceLock<Machine> = OnceLock::new();
        CURRENT.get_or_init(Machine::detect)
    }

    fn detect() -> Machine {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        #[cfg(target_os = "linux")]
        {
            let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            Machine::read_from(
                Path::new("/sys/devices/system/cpu/cpu0/cache"),
                &cpuinfo,
                cores,
            )
        }
        #[cfg(target_os = "macos")]
        {
            let get = |key: &str| {
                std::process::Command::new("sysctl")
                    .args(["-n", key])
                    .stderr(std::process::Stdio::null())
                    .output()
                    .ok()
                    .filter(|o| o.status.success())
                    .and_then(|o| String::from_utf8(o.stdout).ok())
            };
            Machine::from_sysctl(
                get("machdep.cpu.brand_string").as_deref(),
                [
                    get("hw.l1dcachesize").as_deref(),
                    get("hw.l2cachesize").as_deref(),
                    get("hw.l3cachesize").as_deref(),
                ],
                cores,
            )
        }
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        {
            Machine {
                cpu: UNKNOWN_CPU.to_string(),
                cores,
                caches: Vec::new(),
            }
        }
    }

    /// The machine described by a Linux sysfs cache directory
    /// (`/sys/devices/system/cpu/cpu0/cache`: one `index<N>` directory per
    /// cache with `level`, `type`, `size` such as `32K`,
    /// `shared_cpu_list` such as `0-1`, `ways_of_associativity` and
    /// `coherency_line_size`), the text of `/proc/cpuinfo` and a core
    /// count. A missing directory gives no caches; an index whose level,
    /// type or size is missing or malformed is left out (a malformed
    /// `shared_cpu_list`, ways or line size gives 0 for it). Reads the files; allocates
    /// the result. Never panics.
    pub fn read_from(sysfs_cpu0_cache: &Path, cpuinfo: &str, cores: usize) -> Machine {
        let mut dirs: Vec<(u32, std::path::PathBuf)> = std::fs::read_dir(sysfs_cpu0_cache)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let e = e.ok()?;
                let n = e
                    .file_name()
                    .to_str()?
                    .strip_prefix("index")?
                    .parse()
                    .ok()?;
                Some((n, e.path()))
            })
            .collect();
        dirs.sort();
        let read = |dir: &Path, f: &str| std::fs::read_to_string(dir.join(f)).ok();
        let mut caches: Vec<Cache> = dirs
            .iter()
            .filter_map(|(_, d)| {
                Some(Cache {
                    level: read(d, "level")?.trim().parse().ok().filter(|&l| l > 0)?,
                    kind: CacheKind::parse(&read(d, "type")?)?,
                    bytes: parse_size(&read(d, "size")?)?,
                    shared_by: read(d, "shared_cpu_list").map_or(0, |t| count_cpu_list(&t)),
                    ways: read(d, "ways_of_associativity")
                        .and_then(|t| t.trim().parse().ok())
                        .unwrap_or(0),
                    line: read(d, "coherency_line_size")
                        .and_then(|t| t.trim().parse().ok())
                        .unwrap_or(0),
                })
            })
            .collect();
        caches.sort_by_key(|c| c.level);
        Machine {
            cpu: cpu_model(cpuinfo),
            cores,
            caches,
        }
    }

    /// The machine described by macOS `sysctl -n` outputs:
    /// `machdep.cpu.brand_string` and `hw.l1dcachesize`, `hw.l2cachesize`,
    /// `hw.l3cachesize` (bytes; `None` or a malformed or zero value leaves
    /// that level out; Apple silicon has no L3). The L1 is a data cache, L2
    /// and L3 unified; `shared_by` is unknown (0).
    pub fn from_sysctl(brand: Option<&str>, sizes: [Option<&str>; 3], cores: usize) -> Machine {
        let caches = sizes
            .into_iter()
            .zip(1u8..)
            .filter_map(|(s, level)| {
                let bytes = s?.trim().parse::<u64>().ok().filter(|&b| b > 0)?;
                Some(Cache {
                    level,
                    kind: if level == 1 {
                        CacheKind::Data
                    } else {
                        CacheKind::Unified
                    },
                    bytes,
                    shared_by: 0,
                    ways: 0,
                    line: 0,
                })
            })
            .collect();
        Machine {
            cpu: brand
                .map(str::trim)
                .filter(|b| !b.is_empty())
                .unwrap_or(UNKNOWN_CPU)
                .to_string(),
            cores,
            caches,
        }
    }

    /// Bytes of the first data or unified cache of `level`, if known.
    fn data_cache(&self, level: u8) -> Option<u64> {
        self.caches
            .iter()
            .find(|c| c.level == level && c.kind != CacheKind::Instruction)
            .map(|c| c.bytes)
    }

    /// L1 data cache, bytes (a unified L1 counts), if known.
    pub fn l1d(&self) -> Option<u64> {
        self.data_cache(1)
    }

    /// L2 (data or unified), bytes, if known.
    pub fn l2(&self) -> Option<u64> {
        self.data_cache(2)
    }

    /// L3 (data or unified), bytes, if known.
    pub fn l3(&self) -> Option<u64> {
        self.data_cache(3)
    }

    /// The known data caches as `(name, bytes)`: `L1d`, `L2`, `L3`, in that
    /// order, unknown ones left out.
    pub fn levels(&self) -> Vec<(&'static str, u64)> {
        [("L1d", self.l1d()), ("L2", self.l2()), ("L3", self.l3())]
            .into_iter()
            .filter_map(|(n, b)| Some((n, b?)))
            .collect()
    }

    /// One line naming the machine: `"AMD EPYC, 2 cores, L1d 32 KiB, L2 512
    /// KiB, L3 32 MiB"` (the levels that are known), or `"..., caches
    /// unknown"`. Allocates the string.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}, {}",
            self.cpu,
            crate::format::counted(self.cores, "core")
        );
        let levels = self.levels();
        if levels.is_empty() {
            s += ", caches unknown";
        }
        for (name, bytes) in levels {
            s += &format!(", {name} {}", size(bytes));
        }
        s
    }

    /// Where a working set of `bytes` sits among this machine's data caches
    /// (L1d, L2, L3, the unknown ones skipped; the last known one is the
    /// last-level cache, "LLC"):
    /// - `bytes <= ` a cache below the LLC (the first such):
    ///   `"fits in L1d (32 KiB)"`, `"fits in L2 (512 KiB)"`;
    /// - above those and `<=` the LLC: its share of the LLC, `"11% of L3
    ///   (300 MiB)"` (a whole percent from 10%, one decimal below; the LLC
    ///   is shared by every core and holds code and other data too, so "fits"
    ///   would promise too much);
    /// - above the LLC: the multiple, one decimal, `"3.1x L3 (32 MiB): from
    ///   memory"`;
    /// - `"caches unknown"` when no size is known.
    ///
    /// Allocates the string.
    pub fn fit(&self, bytes: u64) -> String {
        let levels = self.levels();
        let Some((&(llc, llc_bytes), below)) = levels.split_last() else {
            return "caches unknown".to_string();
        };
        if let Some((name, b)) = below.iter().find(|(_, b)| bytes <= *b) {
            return format!("fits in {name} ({})", size(*b));
        }
        let share = bytes as f64 / llc_bytes as f64;
        if bytes <= llc_bytes {
            let pct = 100.0 * share;
            let pct = if pct >= 9.95 {
                format!("{pct:.0}")
            } else {
                format!("{pct:.1}")
            };
            format!("{pct}% of {llc} ({})", size(llc_bytes))
        } else {
            format!("{share:.1}x {llc} ({}): from memory", size(llc_bytes))
        }
    }
}

/// A sysfs cache size: a whole number with an optional `K`, `M` or `G`
/// suffix (binary multiples: `32K` is 32,768 bytes), surrounding white space
/// ignored. `None` for anything else, zero, or an overflow.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits
        .parse::<u64>()
        .ok()?
        .checked_mul(mult)
        .filter(|&b| b > 0)
}

/// How many CPUs a sysfs CPU list names (`0`, `0-1`, `0,2,4-7`); 0 when it
/// is malformed or empty.
fn count_cpu_list(s: &str) -> usize {
    let mut n = 0usize;
    for part in s.trim().split(',') {
        let mut ends = part.trim().splitn(2, '-');
        let lo: Option<usize> = ends.next().and_then(|t| t.trim().parse().ok());
        let hi: Option<usize> = match ends.next() {
            Some(t) => t.trim().parse().ok(),
            None => lo,
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) if hi >= lo => n += hi - lo + 1,
            _ => return 0,
        }
    }
    n
}

/// The CPU's name from the text of `/proc/cpuinfo`: the first `model name`
/// (x86, some ARM kernels); else, on ARM, the first `CPU implementer` and
/// `CPU part` (`"ARM Neoverse-N1"` for the cores named below, else e.g.
/// `"CPU implementer 0x41, part 0xd99"`); else `"unknown CPU"`.
pub fn cpu_model(cpuinfo: &str) -> String {
    let field = |key: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim())
        })
    };
    if let Some(m) = field("model name") {
        return m.to_string();
    }
    let (Some(imp), Some(part)) = (field("CPU implementer"), field("CPU part")) else {
        return UNKNOWN_CPU.to_string();
    };
    let hex = |t: &str| u32::from_str_radix(t.trim_start_matches("0x"), 16).ok();
    // Arm's own cores (implementer 0x41), from the kernel's
    // arch/arm64/include/asm/cputype.h.
    let arm = match (hex(imp), hex(part)) {
        (Some(0x41), Some(p)) => match p {
            0xd03 => Some("Cortex-A53"),
            0xd05 => Some("Cortex-A55"),
            0xd07 => Some("Cortex-A57"),
            0xd08 => Some("Cortex-A72"),
            0xd0b => Some("Cortex-A76"),
            0xd0c => Some("Neoverse-N1"),
            0xd40 => Some("Neoverse-V1"),
            0xd49 => Some("Neoverse-N2"),
            0xd4f => Some("Neoverse-V2"),
            _ => None,
        },
        _ => None,
    };
    match arm {
        Some(name) => format!("ARM {name}"),
        None => format!("CPU implementer {imp}, part {part}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fake `cpu0/cache` tree under the temp dir: one `index<k>` per entry
    /// of `(level, type, size, shared_cpu_list)`; `None` leaves a file out.
    fn fake_tree(name: &str, entries: &[[Option<&str>; 4]]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sql-machine-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (k, e) in entries.iter().enumerate() {
            let d = dir.join(format!("index{k}"));
            std::fs::create_dir_all(&d).unwrap();
            for (file, v) in ["level", "type", "size", "shared_cpu_list"].iter().zip(e) {
                if let Some(v) = v {
                    std::fs::write(d.join(file), format!("{v}\n")).unwrap();
                }
            }
        }
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const EPYC_CPUINFO: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\n";

    fn epyc() -> Machine {
        let dir = fake_tree(
            "epyc",
            &[
                [Some("1"), Some("Data"), Some("32K"), Some("0")],
                [Some("1"), Some("Instruction"), Some("32K"), Some("0")],
                [Some("2"), Some("Unified"), Some("512K"), Some("0")],
                [Some("3"), Some("Unified"), Some("32768K"), Some("0-1")],
            ],
        );
        std::fs::write(dir.join("index3/ways_of_associativity"), "16\n").unwrap();
        std::fs::write(dir.join("index3/coherency_line_size"), "64\n").unwrap();
        let m = Machine::read_from(&dir, EPYC_CPUINFO, 2);
        let _ = std::fs::remove_dir_all(&dir);
        m
    }

    fn xeon() -> Machine {
        // A Sapphire Rapids-like layout (300 MiB of L3 as a 2-socket VM
        // reports it), listed out of level order.
        let dir = fake_tree(
            "xeon",
            &[
                [
                    Some("3"),
                    Some("Unified"),
                    Some("307200K"),
                    Some("0-55,112-167"),
                ],
                [Some("1"), Some("Data"), Some("48K"), Some("0,112")],
                [Some("1"), Some("Instruction"), Some("32K"), Some("0,112")],
                [Some("2"), Some("Unified"), Some("2048K"), Some("0,112")],
            ],
        );
        let cpuinfo = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n";
        let m = Machine::read_from(&dir, cpuinfo, 224);
        let _ = std::fs::remove_dir_all(&dir);
        m
    }

    #[test]
    #[cfg_attr(
        target_arch = "wasm32",
        ignore = "no temp dir or process id on wasm32-wasip1"
    )]
    fn reads_this_vms_layout() {
        let m = epyc();
        assert_eq!(m.cpu, "AMD EPYC");
        assert_eq!(m.cores, 2);
        assert_eq!(m.caches.len(), 4);
        assert_eq!(
            m.caches[3],
            Cache {
                level: 3,
                kind: CacheKind::Unified,
                bytes: 32 << 20,
                shared_by: 2,
                ways: 16,
                line: 64,
            }
        );
        assert_eq!(m.caches[1].kind, CacheKind::Instruction);
        assert_eq!(
            (m.l1d(), m.l2(), m.l3()),
            (Some(32 << 10), Some(512 << 10), Some(32 << 20))
        );
        assert_eq!(
            m.summary(),
            "AMD EPYC, 2 cores, L1d 32 KiB, L2 512 KiB, L3 32 MiB"
        );
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains(r#""kind":"instruction""#), "{json}");
        assert!(json.contains(r#""bytes":33554432,"shared_by":2"#), "{json}");
    }

    #[test]
    #[cfg_attr(
        target_arch = "wasm32",
        ignore = "no temp dir or process id on wasm32-wasip1"
    )]
    fn reads_a_xeon_listed_out_of_order() {
        let m = xeon();
        let levels: Vec<u8> = m.caches.iter().map(|c| c.level).collect();
        assert_eq!(levels, [1, 1, 2, 3]);
        assert_eq!(m.caches[0].kind, CacheKind::Data, "stable within a level");
        assert_eq!(m.caches[3].shared_by, 112);
        assert_eq!(m.caches[0].shared_by, 2);
        assert_eq!(
            m.summary(),
            "Intel(R) Xeon(R) Platinum 8480+, 224 cores, L1d 48 KiB, L2 2 MiB, L3 300 MiB"
        );
    }

    #[test]
    #[cfg_attr(
        target_arch = "wasm32",
        ignore = "no temp dir or process id on wasm32-wasip1"
    )]
    fn index_dirs_sort_numerically() {
        let mut entries = vec![[Some("1"), Some("Data"), Some("1K"), None]; 11];
        entries[10] = [Some("2"), Some("Unified"), Some("7K"), None];
        entries[2] = [Some("3"), Some("Unified"), Some("9K"), None];
        let dir = fake_tree("eleven", &entries);
        let m = Machine::read_from(&dir, "", 1);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(m.caches.len(), 11);
        assert_eq!((m.l2(), m.l3()), (Some(7 << 10), Some(9 << 10)));
        assert_eq!(m.caches[0].shared_by, 0, "no shared_cpu_list");
    }

    #[test]
    fn a_missing_tree_means_unknown_caches() {
        let m = Machine::read_from(Path::new("/nonexistent/sql-machine/cache"), "", 1);
        assert_eq!(m.cpu, "unknown CPU");
        assert!(m.caches.is_empty());
        assert_eq!(m.summary(), "unknown CPU, 1 core, caches unknown");
        assert_eq!(m.fit(1 << 20), "caches unknown");
        assert_eq!((m.l1d(), m.l2(), m.l3()), (None, None, None));
    }

    #[test]
    #[cfg_attr(
        target_arch = "wasm32",
        ignore = "no temp dir or process id on wasm32-wasip1"
    )]
    fn malformed_entries_are_left_out() {
        let dir = fake_tree(
            "malformed",
            &[
                [Some("1"), Some("Data"), Some("32K"), Some("0-")],
                [Some("1"), Some("Instruction"), Some("K"), Some("0")],
                [Some("2"), Some("Unified"), Some("-512K"), Some("0")],
                [Some("2"), Some("Unified"), Some("512X"), Some("0")],
                [Some("x"), Some("Unified"), Some("1M"), Some("0")],
                [Some("3"), Some("Trace"), Some("1M"), Some("0")],
                [Some("3"), Some("Unified"), None, Some("0")],
                [
                    Some("3"),
                    Some("Unified"),
                    Some("99999999999999999999G"),
                    None,
                ],
                [Some("3"), Some("Unified"), Some("0K"), None],
                [Some("0"), Some("Unified"), Some("1K"), None],
                [None, Some("Unified"), Some("1K"), None],
                [Some("3"), Some("Unified"), Some("\u{ff}1M"), None],
            ],
        );
        // A stray file and a directory that is not an index are ignored.
        std::fs::write(dir.join("uevent"), "x").unwrap();
        std::fs::create_dir_all(dir.join("indexfoo")).unwrap();
        let m = Machine::read_from(&dir, "model name\t:   \n", 2);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(m.cpu, "unknown CPU", "an empty model name");
        assert_eq!(
            m.caches,
            [Cache {
                level: 1,
                kind: CacheKind::Data,
                bytes: 32 << 10,
                shared_by: 0,
                ways: 0,
                line: 0,
            }]
        );
        assert_eq!(m.summary(), "unknown CPU, 2 cores, L1d 32 KiB");
        // The only level known is the last-level cache.
        assert_eq!(m.fit(16 << 10), "50% of L1d (32 KiB)");
    }

    #[test]
    fn sizes_and_cpu_lists_parse() {
        assert_eq!(parse_size("32K\n"), Some(32 << 10));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("65536"), Some(65536));
        for bad in ["", "K", "+1K", "1.5M", "1 K", "0", "18446744073709551615K"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
        assert_eq!(count_cpu_list("0"), 1);
        assert_eq!(count_cpu_list("0-1\n"), 2);
        assert_eq!(count_cpu_list("0,2,4-7"), 6);
        for bad in ["", "a", "3-1", "1,,2", "1-2-3"] {
            assert_eq!(count_cpu_list(bad), 0, "{bad:?}");
        }
    }

    #[test]
    #[cfg_attr(
        target_arch = "wasm32",
        ignore = "no temp dir or process id on wasm32-wasip1"
    )]
    fn fit_at_the_thresholds() {
        let m = epyc();
        let (l1, l2, l3) = (32u64 << 10, 512u64 << 10, 32u64 << 20);
        assert_eq!(m.fit(0), "fits in L1d (32 KiB)");
        assert_eq!(m.fit(l1), "fits in L1d (32 KiB)");
        assert_eq!(m.fit(l1 + 1), "fits in L2 (512 KiB)");
        assert_eq!(m.fit(l2), "fits in L2 (512 KiB)");
        assert_eq!(m.fit(l2 + 1), "1.6% of L3 (32 MiB)");
        assert_eq!(m.fit(l3 / 10), "10% of L3 (32 MiB)");
        assert_eq!(m.fit(l3), "100% of L3 (32 MiB)");
        assert_eq!(m.fit(l3 + 1), "1.0x L3 (32 MiB): from memory");
        assert_eq!(m.fit(100 << 20), "3.1x L3 (32 MiB): from memory");
        let x = xeon();
        assert_eq!(x.fit(33 << 20), "11% of L3 (300 MiB)");
        assert_eq!(x.fit(3 << 20), "1.0% of L3 (300 MiB)");
        assert_eq!(x.fit(2 << 20), "fits in L2 (2 MiB)");
    }

    #[test]
    fn fit_skips_unknown_levels() {
        // Apple silicon: no L3, so L2 is the last level.
        let m = Machine::from_sysctl(
            Some("Apple M1\n"),
            [Some("65536\n"), Some("4194304\n"), None],
            8,
        );
        assert_eq!(m.cpu, "Apple M1");
        assert_eq!(m.summary(), "Apple M1, 8 cores, L1d 64 KiB, L2 4 MiB");
        assert_eq!(m.fit(64 << 10), "fits in L1d (64 KiB)");
        assert_eq!(m.fit(1 << 20), "25% of L2 (4 MiB)");
        assert_eq!(m.fit(8 << 20), "2.0x L2 (4 MiB): from memory");
        let bad = Machine::from_sysctl(None, [Some("x"), Some("0"), Some("")], 1);
        assert_eq!(bad.summary(), "unknown CPU, 1 core, caches unknown");
        // No L2 known: L1d and L3.
        let gap = Machine::from_sysctl(Some("x"), [Some("32768"), None, Some("1048576")], 1);
        assert_eq!(gap.fit(40 << 10), "3.9% of L3 (1 MiB)");
    }

    #[test]
    fn cpu_names_from_cpuinfo() {
        assert_eq!(cpu_model(EPYC_CPUINFO), "AMD EPYC");
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n";
        assert_eq!(cpu_model(arm), "ARM Neoverse-N1");
        let other = "CPU implementer\t: 0x61\nCPU part\t: 0x022\n";
        assert_eq!(cpu_model(other), "CPU implementer 0x61, part 0x022");
        assert_eq!(cpu_model("CPU implementer\t: 0x41\n"), "unknown CPU");
        assert_eq!(cpu_model(""), "unknown CPU");
    }

    #[test]
    fn the_current_machine_is_read_once() {
        let m = Machine::current();
        assert!(std::ptr::eq(m, Machine::current()));
        assert!(m.cores >= 1);
        assert!(!m.cpu.is_empty());
        assert!(m.summary().starts_with(&m.cpu));
    }
}
