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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(1_048_576), "1,048,576");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }
}
