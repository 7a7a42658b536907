//! Teaching with the lab: lessons that measure each step on this machine
//! and quote verdicts ([`lesson`]), the slide-ready charts of their results
//! ([`chart`]), and the source excerpts a step's Code tab shows ([`code`]).

pub mod chart;
pub mod code;
pub mod lesson;
