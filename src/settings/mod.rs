//! What a user can set, and the surfaces that carry it: the numeric
//! settings' ranges ([`schema`]), scenario and lesson files
//! ([`scenario`]), the state as a link or a command line ([`link`]), the
//! window's view values ([`view`]), and the budget rules that keep the
//! settings within what this machine can run interactively ([`budget`]).

pub mod budget;
pub mod link;
pub mod scenario;
pub mod schema;
pub mod view;
