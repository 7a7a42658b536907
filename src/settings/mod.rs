//! What a user can set, and the surfaces that carry it: the one settings
//! table ([`table`]: a row per setting) and its rows as values ([`rows`]);
//! the kinds of value (`kind`); scenario and lesson files
//! ([`scenario`]); the window's and `bench`'s flags ([`flags`]); the state
//! as a link or a command line ([`link`]); typed access to a setting by its
//! row ([`values`]); the window's look ([`view`]); and the budget rules that
//! keep the settings within what this machine can run interactively
//! ([`budget`]).

pub mod budget;
pub mod field_table;
pub mod file_error;
pub mod flags;
pub(crate) mod kind;
pub mod link;
pub mod rows;
pub mod scenario;
pub mod table;
pub mod values;
pub mod view;
