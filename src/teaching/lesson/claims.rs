//! Claims of direction in lesson texts: the words that say one thing is
//! faster, slower, fewer or more than another ([`DIRECTION_WORDS`]) may
//! appear only where a verdict backs them: inside a `{verdict(…)}`
//! placeholder's phrase or a conditional branch whose condition held
//! ([`super::text`]). Plain text with such a word states a direction
//! whatever the numbers beside it say; [`static_claims`] finds it.
//!
//! The test `tests/engine/lesson_claims.rs` renders every bundled lesson from
//! fabricated rounds (each compared pair clearly one way, clearly the other
//! way, and overlapping) and fails on any static claim, and on any verdict
//! that disagrees with the rounds it was made from.

use super::text::Piece;

/// Words and phrases that claim a direction between measured values
/// (matched case-insensitively, as whole words).
pub const DIRECTION_WORDS: [&str; 58] = [
    "faster",
    "slower",
    "quicker",
    "speedup",
    "speed-up",
    "speeds up",
    "sped up",
    "slows",
    "slowed",
    "less time",
    "more time",
    "less query time",
    "fewer",
    "more candidates",
    "more tests",
    "more work",
    "less work",
    "matter little",
    "matters little",
    "barely",
    "pay off",
    "pays off",
    "paid off",
    "no faster",
    "no slower",
    "wins",
    "beats",
    "gain",
    "gains",
    "gained",
    "cheaper",
    "costlier",
    "outperform",
    "outperforms",
    "improve",
    "improves",
    "improved",
    "worse",
    "better",
    "cuts",
    "cut the",
    "helps",
    "hurts",
    "scaled",
    "scales",
    "grow faster",
    "grows faster",
    "grow no faster",
    "as fast as",
    "twice as",
    "halves",
    "doubles",
    "rises",
    "climbs",
    "flattens",
    "flatter",
    "steps up",
    "steeper",
];

/// The direction words of `text`, in order of [`DIRECTION_WORDS`].
pub fn direction_words(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    let b = lower.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
    DIRECTION_WORDS
        .iter()
        .copied()
        .filter(|w| {
            lower.match_indices(w).any(|(i, _)| {
                let before = i == 0 || !is_word(b[i - 1]);
                let end = i + w.len();
                let after = end >= b.len() || !is_word(b[end]);
                before && after
            })
        })
        .collect()
}

/// Every direction word in the plain (static) pieces of `pieces`, with the
/// piece's text: what a text claims whatever was measured.
pub fn static_claims(pieces: &[Piece]) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for p in pieces {
        if let Piece::Text(t) = p {
            for w in direction_words(t) {
                out.push((w, t.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only_and_any_case() {
        assert_eq!(direction_words("SoA was Faster here"), ["faster"]);
        assert_eq!(
            direction_words("the contiguous runs matter little"),
            ["matter little"]
        );
        assert!(direction_words("breakfast, gainsay, bettered").is_empty());
        assert!(direction_words("move, rebuild, query, apply").is_empty());
        assert_eq!(
            direction_words("a speed-up; fewer tests"),
            ["speed-up", "fewer"]
        );
    }

    #[test]
    fn only_plain_pieces_are_claims() {
        let pieces = vec![
            Piece::Text("The grid was ".into()),
            Piece::Backed {
                text: "faster".into(),
                by: "grid.query_ms < naive.query_ms".into(),
            },
            Piece::Text(": it pays off.".into()),
        ];
        let claims = static_claims(&pieces);
        assert_eq!(claims.len(), 1);
        assert_eq!(claims[0].0, "pays off");
    }
}
