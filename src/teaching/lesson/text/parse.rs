//! The parser of lesson texts: the body as text and tags, then the tags
//! as values, verdicts and conditional blocks, each checked against the
//! metrics and step ids, with errors naming the file, line and field.

use std::collections::HashSet;

use super::metrics::{self, Ref};
use super::{Cond, Kind, Op, Part, Template, Test};
use crate::settings::scenario::{line_of, one_line_error, ScenarioError};

/// A tag of a template's text: `{…}` with its byte offset in the body.
pub(super) enum Token {
    Text(String),
    Tag(String, usize),
}

/// What parsing a body needs to say where it failed.
pub(super) struct Source<'a> {
    pub(super) body: &'a str,
    pub(super) text: &'a str,
    pub(super) file: &'a str,
    pub(super) field: &'static str,
    /// Line of the body's first character in the file.
    pub(super) first_line: usize,
    /// The body as written in the file (escapes and line continuations
    /// unresolved) and its byte offset in `text`.
    pub(super) raw: (&'a str, usize),
    pub(super) known: &'a HashSet<&'a str>,
    pub(super) this: Option<&'a str>,
}

impl Source<'_> {
    /// The line of the file where byte `at` of the body was written: the
    /// same piece of text (up to the line's end, 40 bytes at most) found in
    /// the body as written, its n-th occurrence for the n-th before `at`
    /// (a `\` line continuation joins lines, so the body's own line breaks
    /// do not count them); the body's line breaks where that piece is not
    /// found as written (an escape inside it).
    fn line_at(&self, at: usize) -> usize {
        let at = at.min(self.body.len());
        let rest = &self.body[at..];
        let mut end = rest.find('\n').unwrap_or(rest.len()).min(40);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let piece = &rest[..end];
        let (raw, raw_at) = self.raw;
        if !piece.is_empty() {
            let n = self.body[..at].matches(piece).count();
            if let Some((k, _)) = raw.match_indices(piece).nth(n) {
                return line_of(self.text, raw_at + k);
            }
        }
        self.first_line + self.body[..at].matches('\n').count()
    }

    fn fail(&self, at: usize, message: String) -> ScenarioError {
        let line = self.line_at(at);
        let mut e = one_line_error(
            self.text,
            self.file,
            None,
            Some(self.field.to_string()),
            message,
        );
        e.line = Some(line);
        e
    }

    /// The body as text and tags (`{{` and `}}` are literal braces).
    pub(super) fn tokens(&self) -> Result<Vec<Token>, ScenarioError> {
        let body = self.body;
        let b = body.as_bytes();
        let mut out = Vec::new();
        let mut lit = String::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'{' if b.get(i + 1) == Some(&b'{') => {
                    lit.push('{');
                    i += 2;
                }
                b'}' if b.get(i + 1) == Some(&b'}') => {
                    lit.push('}');
                    i += 2;
                }
                b'}' => {
                    return Err(self.fail(i, "a '}' without its '{' (write }} for a brace)".into()))
                }
                b'{' => {
                    let end = body[i..].find('}').map(|e| i + e).ok_or_else(|| {
                        self.fail(i, "a '{' without its '}' (write {{ for a brace)".into())
                    })?;
                    if !lit.is_empty() {
                        out.push(Token::Text(std::mem::take(&mut lit)));
                    }
                    out.push(Token::Tag(body[i + 1..end].trim().to_string(), i));
                    i = end + 1;
                }
                _ => {
                    let ch = body[i..].chars().next().expect("inside the text");
                    lit.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
        if !lit.is_empty() {
            out.push(Token::Text(lit));
        }
        Ok(out)
    }

    fn reference(&self, r: &str, expr: &str, at: usize) -> Result<Ref, ScenarioError> {
        metrics::parse_ref(r, self.known, self.this)
            .map_err(|m| self.fail(at, format!("{{{expr}}}: {m}")))
    }

    /// Two numeric references, for a verdict or a condition.
    fn pair(&self, a: &str, b: &str, expr: &str, at: usize) -> Result<(Ref, Ref), ScenarioError> {
        let (ra, rb) = (self.reference(a, expr, at)?, self.reference(b, expr, at)?);
        if ra.kind() == Kind::Words || rb.kind() == Kind::Words {
            return Err(self.fail(at, format!("{{{expr}}}: a comparison needs two numbers")));
        }
        Ok((ra, rb))
    }

    fn cond(&self, c: &str, expr: &str, at: usize) -> Result<Cond, ScenarioError> {
        if let Some(step) = c
            .trim()
            .strip_prefix("ran(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let step = step.trim();
            if !self.known.contains(step) {
                return Err(self.fail(
                    at,
                    format!(
                        "{{{expr}}}: no step has the id '{step}' (ran(STEP) names a step's id)"
                    ),
                ));
            }
            return Ok(Cond {
                expr: c.trim().to_string(),
                test: Test::Ran(step.to_string()),
            });
        }
        let Some(k) = c.find(['<', '>', '~']) else {
            return Err(self.fail(
                at,
                format!("{{{expr}}}: a condition is STEP.METRIC < STEP.METRIC (or > for higher, ~ for within noise), or ran(STEP)"),
            ));
        };
        let op = match c.as_bytes()[k] {
            b'<' => Op::Lower,
            b'>' => Op::Higher,
            _ => Op::Same,
        };
        let (left, factor) = match c[..k].split_once('*') {
            Some((r, f)) => match f.trim().parse::<f64>() {
                Ok(f) if f.is_finite() && f > 0.0 => (r, f),
                _ => {
                    return Err(self.fail(
                        at,
                        format!("{{{expr}}}: the factor after * must be a number > 0"),
                    ))
                }
            },
            None => (&c[..k], 1.0),
        };
        let (a, b) = self.pair(left, &c[k + 1..], expr, at)?;
        Ok(Cond {
            expr: c.trim().to_string(),
            test: Test::Compare { a, factor, op, b },
        })
    }

    /// Parses tokens from `*i` up to an `elif`, `else` or `end` tag (left
    /// at `*i` for the caller) or the end.
    pub(super) fn parts(
        &self,
        toks: &[Token],
        i: &mut usize,
        depth: usize,
    ) -> Result<Template, ScenarioError> {
        let mut parts = Vec::new();
        while let Some(t) = toks.get(*i) {
            let (expr, at) = match t {
                Token::Text(s) => {
                    parts.push(Part::Text(s.clone()));
                    *i += 1;
                    continue;
                }
                Token::Tag(e, at) => (e.as_str(), *at),
            };
            let word = expr.split_whitespace().next().unwrap_or("");
            match word {
                "elif" | "else" | "end" => {
                    if depth == 0 {
                        return Err(self.fail(at, format!("{{{expr}}} without its {{if …}}")));
                    }
                    return Ok(Template { parts });
                }
                "if" => {
                    *i += 1;
                    parts.push(self.block(toks, i, expr, at, depth)?);
                }
                _ => {
                    *i += 1;
                    parts.push(self.value(expr, at)?);
                }
            }
        }
        Ok(Template { parts })
    }

    /// The rest of a conditional block opened by `{if …}` (`open`, at `at`).
    fn block(
        &self,
        toks: &[Token],
        i: &mut usize,
        open: &str,
        at: usize,
        depth: usize,
    ) -> Result<Part, ScenarioError> {
        let mut branches = vec![(
            self.cond(&open[2..], open, at)?,
            self.parts(toks, i, depth + 1)?,
        )];
        let mut otherwise = None;
        loop {
            let Some(Token::Tag(expr, tag_at)) = toks.get(*i) else {
                return Err(self.fail(at, format!("{{{open}}} without its {{end}}")));
            };
            *i += 1;
            let word = expr.split_whitespace().next().unwrap_or("");
            match word {
                "end" => break,
                "elif" if otherwise.is_none() => {
                    let c = self.cond(&expr[4..], expr, *tag_at)?;
                    branches.push((c, self.parts(toks, i, depth + 1)?));
                }
                "else" if otherwise.is_none() && expr == "else" => {
                    otherwise = Some(self.parts(toks, i, depth + 1)?);
                }
                _ => {
                    return Err(
                        self.fail(*tag_at, format!("{{{expr}}} after {{else}}: write {{end}}"))
                    )
                }
            }
        }
        Ok(Part::If {
            branches,
            otherwise,
        })
    }

    /// `{a}`, `{a / b}` or `{verdict(a, b)}`.
    fn value(&self, expr: &str, at: usize) -> Result<Part, ScenarioError> {
        if let Some(args) = expr
            .strip_prefix("verdict(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let Some((a, b)) = args.split_once(',') else {
                return Err(self.fail(
                    at,
                    format!("{{{expr}}}: write verdict(STEP.METRIC, STEP.METRIC)"),
                ));
            };
            let (ra, rb) = self.pair(a, b, expr, at)?;
            return Ok(Part::Verdict(expr.to_string(), ra, rb));
        }
        let (a, b2) = match expr.split_once('/') {
            Some((a, b2)) => (a, Some(b2)),
            None => (expr, None),
        };
        let ra = self.reference(a, expr, at)?;
        let rb = match b2 {
            Some(b2) => Some(self.reference(b2, expr, at)?),
            None => None,
        };
        if rb.is_some()
            && (ra.kind() == Kind::Words || rb.as_ref().map(Ref::kind) == Some(Kind::Words))
        {
            return Err(self.fail(at, format!("{{{expr}}}: a ratio needs two numbers")));
        }
        Ok(Part::Value(expr.to_string(), ra, rb))
    }
}
