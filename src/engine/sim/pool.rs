//! The frame's thread pool: built for the thread count the settings ask
//! for, or refused with the reason ([`super::Simulation::pool_error`]).
//!
//! Under an address-space limit (`ulimit -v`) too small for the threads'
//! stacks, rayon would spawn threads until the OS refuses one, then end
//! them; while they wind down the process has no address space left, and a
//! small allocation in any thread aborts it ("memory allocation of 41 bytes
//! failed", seen in about 1 run in 25 of `ulimit -v 400000` with 256
//! threads on the development VM). So where the limit is known (Linux)
//! and the stacks alone exceed what it leaves, the pool is refused before
//! any thread is spawned. Counts just under that (each thread maps more
//! than its stack: 165 to 185 threads of 2 MiB under `ulimit -v 400000`)
//! still spawn until the OS refuses one, and can still abort that way: a
//! margin for the other mappings would be a guess.

use crate::format::bytes;

/// Stack of a thread `std` spawns without `RUST_MIN_STACK`, bytes (its
/// `DEFAULT_MIN_STACK_SIZE` on Unix).
const STD_STACK: usize = 2 << 20;

/// A rayon pool of `threads` threads whose stacks are `stack` bytes each
/// (`None`: `RUST_MIN_STACK` when it is set, else 2 MiB, as `std` does).
///
/// # Errors
/// The OS error when a thread cannot be spawned, or, on Linux, that the
/// address-space limit cannot hold `threads` stacks (checked before any
/// thread is spawned; only refuses what would certainly fail).
pub(super) fn build(threads: usize, stack: Option<usize>) -> Result<rayon::ThreadPool, String> {
    // Set explicitly, so the check below and the spawn agree.
    let stack = stack.unwrap_or_else(|| {
        std::env::var("RUST_MIN_STACK")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(STD_STACK)
    });
    let need = threads.saturating_mul(stack);
    if let Some(left) = address_space_left().filter(|&left| need > left) {
        return Err(format!(
            "{threads} thread stacks of {} need {}; the address-space limit (ulimit -v) leaves {}",
            bytes(stack),
            bytes(need),
            bytes(left)
        ));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(stack)
        .build()
        .map_err(|e| e.to_string())
}

/// Bytes of address space the process may still map: its soft
/// `RLIMIT_AS` minus its current size. `None` without a limit, or where it
/// cannot be read (not Linux).
fn address_space_left() -> Option<usize> {
    let read = |p| std::fs::read_to_string(p).ok();
    let limit = address_limit(&read("/proc/self/limits")?)?;
    let size = vm_size(&read("/proc/self/status")?)?;
    Some(limit.saturating_sub(size))
}

/// The soft address-space limit in the text of `/proc/<pid>/limits`,
/// bytes; `None` when unlimited or absent.
fn address_limit(limits: &str) -> Option<usize> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `VmSize` in the text of `/proc/<pid>/status`, bytes.
fn vm_size(status: &str) -> Option<usize> {
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: usize = line["VmSize:".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_soft_address_limit_and_the_size() {
        let limits =
            "Limit                     Soft Limit           Hard Limit           Units     \n\
            Max stack size            8388608              unlimited            bytes     \n\
            Max address space         409600000            409600000            bytes     \n";
        assert_eq!(address_limit(limits), Some(409_600_000));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes     \n";
        assert_eq!(address_limit(unlimited), None);
        assert_eq!(address_limit(""), None);
        let status = "Name:\tspatial-query-lab\nVmPeak:\t  100 kB\nVmSize:\t   40960 kB\n";
        assert_eq!(vm_size(status), Some(40_960 * 1024));
        assert_eq!(vm_size("Name:\tx\n"), None);
    }

    /// The size of this process can be read where the check runs.
    #[cfg(target_os = "linux")]
    #[test]
    fn reads_this_process() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(vm_size(&status).is_some_and(|s| s > 0), "{status}");
    }
}
