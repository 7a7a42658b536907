//! Fuzzes the scenario parser: any bytes are either a scenario whose every
//! value is within its documented range, or one error line that names the
//! file; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spatial_query_lab::settings::scenario::{Scenario, MAX_UNITS};
use spatial_query_lab::engine::sim::Settings;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::parse(text, "fuzz.toml", "fuzz") {
        Ok(sc) => {
            let mut s = Settings::default();
            sc.apply(&mut s);
            assert!((1..=MAX_UNITS).contains(&s.units));
            assert!(s.radius.is_finite() && s.radius > 0.0);
            assert!(s.cell_size.is_finite() && s.cell_size > 0.0);
            assert!(s.world_edge().is_finite() && s.world_edge() > 0.0);
            assert!(s.speed.is_finite() && s.speed >= 0.0);
            assert!(s.separation.is_finite() && s.separation >= 0.0);
            assert!((1..=256).contains(&s.threads));
            assert!((1..=10_000).contains(&s.reorder_every));
            assert!(s.kernel.is_available());
        }
        Err(e) => {
            let line = e.to_string();
            assert!(line.starts_with("fuzz.toml"), "{line}");
            assert!(!line.contains('\n'), "not one line: {line}");
        }
    }
});
