//! Number formatting shared by the overlay, the guards' messages and `bench`.

/// `v` with a comma between groups of three digits: `1234567` -> `"1,234,567"`.
/// Allocates the returned string.
pub fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and `noun`, with the noun's plural "s" unless `n` is 1: `counted(1,
/// "round")` is `"1 round"`, `counted(8, "counted frame")` `"8 counted
/// frames"`. Only for nouns whose plural adds "s". Allocates the string.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A length in world units as the overlay and the messages show it: two
/// decimals (`10.00`, `0.43`), or three significant digits in scientific
/// notation where two decimals would mislead (`1.000e-3`, `1.000e30`).
/// Rust's `f32` parser reads both forms back.
pub fn length(v: f32) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(0.01..1e7).contains(&a) {
        format!("{v:.3e}")
    } else {
        format!("{v:.2}")
    }
}

/// A byte count with a binary unit: `512 B`, `1.5 KiB`, `32.0 MiB`, `2.00 GiB`.
pub fn bytes(n: usize) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut k = 0;
    while v >= 1024.0 && k + 1 < UNITS.len() {
        v /= 1024.0;
        k += 1;
    }
    match k {
        0 => format!("{n} B"),
        3 => format!("{v:.2} {}", UNITS[k]),
        _ => format!("{v:.1} {}", UNITS[k]),
    }
}

/// A size with a binary unit and about two significant digits, as cache
/// sizes and working sets are quoted: `512 B`, `32 KiB`, `1.5 KiB`,
/// `3.1 MiB`, `300 MiB`, `2 GiB`. Below 10 of a unit one decimal (dropped
/// when it is `.0`), from 10 up a whole number; a value that would round to
/// 1024 of a unit is shown in the next (`1 MiB`, not `1024 KiB`). Units stop
/// at TiB. Allocates the returned string.
pub fn size(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut k = 0;
    while v >= 1023.5 && k + 1 < UNITS.len() {
        v /= 1024.0;
        k += 1;
    }
    let shown = if v < 9.95 {
        let t = format!("{v:.1}");
        t.strip_suffix(".0").map_or(t.clone(), str::to_string)
    } else {
        format!("{v:.0}")
    };
    format!("{shown} {}", UNITS[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_nouns_are_plural_except_for_one() {
        assert_eq!(counted(1, "interleaved round"), "1 interleaved round");
        assert_eq!(counted(0, "round"), "0 rounds");
        assert_eq!(counted(8, "counted frame"), "8 counted frames");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(32 << 20), "32.0 MiB");
        assert_eq!(bytes(3 << 30), "3.00 GiB");
    }

    #[test]
    fn sizes_keep_two_digits() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(1024), "1 KiB");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(32 << 10), "32 KiB");
        assert_eq!(size(512 << 10), "512 KiB");
        assert_eq!(size(3_250_586), "3.1 MiB");
        assert_eq!(size(9_999 << 10), "9.8 MiB");
        assert_eq!(size(10_200 << 10), "10 MiB");
        assert_eq!(size(300 << 20), "300 MiB");
        assert_eq!(size((1 << 20) - 100), "1 MiB", "not 1024 KiB");
        assert_eq!(size(2 << 30), "2 GiB");
        assert_eq!(size(u64::MAX), "16777216 TiB");
    }

    #[test]
    fn groups_of_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(1_048_576), "1,048,576");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn lengths_keep_their_magnitude() {
        assert_eq!(length(10.0), "10.00");
        assert_eq!(length(0.4335), "0.43");
        assert_eq!(length(0.0), "0.00");
        assert_eq!(length(0.001), "1.000e-3");
        assert_eq!(length(1e30), "1.000e30");
        assert_eq!(length(f32::INFINITY), "inf");
        for v in [0.001f32, 1e30, 12.5] {
            let back: f32 = length(v).parse().unwrap();
            assert!((back - v).abs() <= v * 1e-3, "{v}");
        }
    }
}
