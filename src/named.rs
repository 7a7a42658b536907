//! Closed sets of named values (strategies, kernels, layouts, orders,
//! passes, workloads, view choices), their names written once: the
//! [`named!`](crate::named!) macro gives an enum its list `ALL`, its `key`
//! (command line, files, JSON, URLs), its display `name`, a forgiving
//! `from_key`, `Display` (the name), serde's `Serialize` (the key), and the
//! [`Named`] trait through which the command line, scenario and lesson
//! files, and the overlay spell their choices and their error messages.

/// A closed set of values with a key and a display name, each written once
/// (by [`named!`](crate::named!)).
pub trait Named: Copy + PartialEq + Sized + 'static {
    /// Every value, in the order the choices are listed.
    fn all() -> &'static [Self];
    /// Lower-case key (`sorted-grid`): the command line's, the files', JSON's.
    fn key(self) -> &'static str;
    /// Display name (`SortedGrid`).
    fn name(self) -> &'static str;
    /// Other spellings [`Named::parse`] accepts (`csr`).
    fn aliases(self) -> &'static [&'static str];

    /// The value whose key, name or alias is `s`, ignoring case, surrounding
    /// white space, and `_` or a space for `-`; `None` otherwise.
    fn parse(s: &str) -> Option<Self> {
        let norm = |t: &str| t.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let s = norm(s);
        Self::all().iter().copied().find(|&v| {
            norm(v.key()) == s || norm(v.name()) == s || v.aliases().iter().any(|a| norm(a) == s)
        })
    }

    /// The keys as a list for a message: `a, b or c` (`or` as the last
    /// separator; with `more`, that text ends the list: `a, b, c or best`).
    fn keys_text(more: Option<&str>) -> String {
        let mut keys: Vec<&str> = Self::all().iter().map(|v| v.key()).collect();
        keys.extend(more);
        match keys.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            Some((last, _)) => last.to_string(),
            None => String::new(),
        }
    }

    /// The keys as `one of a, b, c` (a file's message).
    fn one_of(more: Option<&str>) -> String {
        let mut keys: Vec<&str> = Self::all().iter().map(|v| v.key()).collect();
        keys.extend(more);
        format!("one of {}", keys.join(", "))
    }
}

/// The number of identifiers given (for the length of `ALL`).
#[doc(hidden)]
#[macro_export]
macro_rules! count_idents {
    () => { 0usize };
    ($head:ident $($tail:ident)*) => { 1usize + $crate::count_idents!($($tail)*) };
}

/// Names the variants of an enum once:
///
/// ```ignore
/// named! { Strategy {
///     Naive => "naive", "Naive";
///     SortedGrid => "sorted-grid", "SortedGrid", ["csr"];
/// } }
/// ```
///
/// gives `Strategy::ALL` (an array, in this order), `key`, `name`,
/// `from_key` ([`Named::parse`]), `Display` (the name; the key with
/// `named! { Layout, display = key, { ... } }`), serde's `Serialize` (the
/// key, as a string) and [`Named`].
#[macro_export]
macro_rules! named {
    ($ty:ident { $($body:tt)+ }) => {
        $crate::named!(@impl $ty, name, { $($body)+ });
    };
    ($ty:ident, display = key, { $($body:tt)+ }) => {
        $crate::named!(@impl $ty, key, { $($body)+ });
    };
    (@impl $ty:ident, $display:ident, { $($v:ident => $key:literal, $name:literal $(, [$($alias:literal),*])?;)+ }) => {
        impl $ty {
            /// Every value, in the order the choices are listed.
            pub const ALL: [$ty; $crate::count_idents!($($v)+)] = [$($ty::$v),+];

            /// Lower-case key: the command line's, the files', JSON's.
            pub const fn key(self) -> &'static str {
                match self { $($ty::$v => $key),+ }
            }

            /// Display name.
            pub const fn name(self) -> &'static str {
                match self { $($ty::$v => $name),+ }
            }

            /// The value whose key, name or alias is `s`
            /// ([`Named::parse`](crate::named::Named::parse)).
            pub fn from_key(s: &str) -> Option<$ty> {
                <$ty as $crate::named::Named>::parse(s)
            }
        }

        impl $crate::named::Named for $ty {
            fn all() -> &'static [Self] {
                &$ty::ALL
            }
            fn key(self) -> &'static str {
                $ty::key(self)
            }
            fn name(self) -> &'static str {
                $ty::name(self)
            }
            fn aliases(self) -> &'static [&'static str] {
                match self { $($ty::$v => &[$($($alias),*)?]),+ }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.$display())
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.key())
            }
        }
    };
}
