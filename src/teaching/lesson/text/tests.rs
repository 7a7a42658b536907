//! Tests of placeholders and number formatting.
use super::*;
use crate::settings::view::NormalPrecision;

#[test]
fn numbers_are_written_by_kind() {
    assert_eq!(number_text(1234.4, Kind::Ms), "1,234");
    assert_eq!(number_text(58.25, Kind::Ms), "58.2");
    assert_eq!(number_text(3.14659, Kind::Ms), "3.15");
    assert_eq!(number_text(0.4123, Kind::Ms), "0.41");
    assert_eq!(number_text(0.0123, Kind::Degrees), "0.012");
    assert_eq!(number_text(9999.0, Kind::Mean), "9,999");
    assert_eq!(number_text(45.26, Kind::Mean), "45.3");
    assert_eq!(number_text(1_590_364.0, Kind::Count), "1,590,364");
    assert_eq!(number_text(1.0, Kind::Fixed2), "1.00");
    assert_eq!(number_text(32.0 * 1024.0 * 1024.0, Kind::Bytes), "32 MiB");
    assert_eq!(ratio_text(58.4), "58");
    assert_eq!(ratio_text(3.44), "3.4");
    assert_eq!(ratio_text(0.523), "0.52");
    assert_eq!(ratio_text(f64::INFINITY), NOT_RUN);
}

#[test]
fn ratios_are_pending_until_both_sides_exist() {
    assert_eq!(
        ratio(Value::Number(6.0), Value::Number(2.0)),
        Value::Number(3.0)
    );
    assert_eq!(ratio(Value::Number(6.0), Value::Pending), Value::Pending);
    assert_eq!(ratio(Value::NotRun, Value::Pending), Value::Pending);
    assert_eq!(ratio(Value::NotRun, Value::Number(1.0)), Value::NotRun);
    assert_eq!(ratio(Value::Number(1.0), Value::Number(0.0)), Value::NotRun);
}

#[test]
fn braces_escape_and_unbalanced_ones_are_errors_on_their_line() {
    let known: HashSet<&str> = ["a"].into_iter().collect();
    let parse = |body: &str| {
        let text = format!("x = 1\ntext = \"\"\"\n{body}\"\"\"\n");
        let start = text.find("\"\"\"").unwrap();
        let end = text.rfind("\"\"\"").unwrap() + 3;
        let v = Spanned::new(start..end, body.to_string());
        Template::parse(&v, &text, "f.toml", &known, Some("a"))
    };
    let t = parse("{{literal}} {query_ms}").unwrap();
    assert_eq!(t.parts.len(), 2);
    assert_eq!(t.parts[0], Part::Text("{literal} ".into()));
    let e = parse("one\ntwo {query_ms").unwrap_err().to_string();
    assert!(
        e.starts_with("f.toml:4: text: a '{' without its '}'"),
        "{e}"
    );
    let e = parse("one }").unwrap_err().to_string();
    assert!(
        e.starts_with("f.toml:3: text: a '}' without its '{'"),
        "{e}"
    );
    let e = parse("{strategy / query_ms}").unwrap_err().to_string();
    assert!(e.contains("a ratio needs two numbers"), "{e}");
    let e = parse("{machine.gpu}").unwrap_err().to_string();
    assert!(e.contains("not one of machine.cpu"), "{e}");
}

#[test]
fn the_metrics_table_lists_every_metric_once() {
    let md = metrics_markdown();
    for (name, _, _) in METRICS {
        assert_eq!(md.matches(&format!("`{name}`")).count(), 1, "{name}");
    }
    let mut names: Vec<&str> = METRICS.iter().map(|m| m.0).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), METRICS.len());
}

#[test]
fn the_sphere_error_of_8_bits_is_far_above_16_bits() {
    let (max16, mean16) = NormalPrecision::Oct16.sphere_error_deg(NORMAL_DIRECTIONS);
    let (max8, mean8) = NormalPrecision::Oct8.sphere_error_deg(NORMAL_DIRECTIONS);
    // SNORM16 steps are 1/32767 of the octahedron's half-edge: about 0.005
    // degrees at most; SNORM8 steps 1/127: about 1 degree at most.
    assert!(max16 > 0.0 && max16 < 0.01, "{max16}");
    assert!(max8 > 0.3 && max8 < 1.5, "{max8}");
    assert!(mean16 < max16 && mean8 < max8);
    assert_eq!(NormalPrecision::Oct8.sphere_error_deg(0), (0.0, 0.0));
}

#[test]
fn the_readme_lists_every_metric() {
    let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/files.md"));
    assert!(
        readme.contains(&metrics_markdown()),
        "docs/files.md's table of lesson metrics differs from METRICS; paste metrics_markdown():\n{}",
        metrics_markdown()
    );
}

/// A problem is reported on the line where it was written, also after
/// `\` line continuations (which join lines, so the parsed text has fewer
/// line breaks than the file).
#[test]
fn errors_name_the_line_written_also_after_line_continuations() {
    let known: HashSet<&str> = ["a"].into_iter().collect();
    let text =
        "x = 1\ntext = \"\"\"\none \\\ntwo \\\nthree {if a.query_ms < a.total_ms} four\"\"\"\n";
    let start = text.find("\"\"\"").unwrap();
    let end = text.rfind("\"\"\"").unwrap() + 3;
    let body = "one two three {if a.query_ms < a.total_ms} four".to_string();
    let v = Spanned::new(start..end, body);
    let e = Template::parse(&v, text, "f.toml", &known, Some("a"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("f.toml:5: text: {if a.query_ms < a.total_ms} without its {end}"),
        "{e}"
    );
    let v = Spanned::new(start..end, "{if a.query_ms <}".to_string());
    let e = Template::parse(&v, text, "f.toml", &known, Some("a"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("a reference is missing: write STEP.METRIC"),
        "{e}"
    );
}
