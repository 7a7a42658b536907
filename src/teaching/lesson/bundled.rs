//! The lessons that ship with the lab: the files of `assets/lessons/`,
//! compiled into the binary (so the browser build, which has no file
//! system, has them too), in teaching order.

use super::{Lesson, LessonError};

/// (name, file text), in teaching order.
pub const LESSONS: [(&str, &str); 10] = [
    (
        "algorithms",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/algorithms.toml"
        )),
    ),
    (
        "simd",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/simd.toml"
        )),
    ),
    (
        "layouts",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/layouts.toml"
        )),
    ),
    (
        "memory-order",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/memory-order.toml"
        )),
    ),
    (
        "caches",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/caches.toml"
        )),
    ),
    (
        "cell-size",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/cell-size.toml"
        )),
    ),
    (
        "results",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/results.toml"
        )),
    ),
    (
        "threads",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/threads.toml"
        )),
    ),
    (
        "vertex-data",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/vertex-data.toml"
        )),
    ),
    (
        "churn",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/lessons/churn.toml"
        )),
    ),
];

/// The names of the bundled lessons, in teaching order.
pub fn names() -> impl Iterator<Item = &'static str> {
    LESSONS.iter().map(|l| l.0)
}

/// The bundled lesson `name`, parsed (named `assets/lessons/NAME.toml` in
/// messages).
///
/// # Errors
/// `None` when no bundled lesson has that name; a [`LessonError`] if the
/// file does not validate (the tests parse every one).
pub fn get(name: &str) -> Option<Result<Lesson, LessonError>> {
    let (n, text) = LESSONS.iter().find(|l| l.0 == name)?;
    Some(Lesson::parse(text, &format!("assets/lessons/{n}.toml"), n))
}

/// True when `lesson` is the bundled lesson of its name, not a lesson file
/// that has the same name.
pub fn is_bundled(lesson: &Lesson) -> bool {
    LESSONS
        .iter()
        .any(|(n, _)| *n == lesson.name && lesson.file == format!("assets/lessons/{n}.toml"))
}

/// Every bundled lesson, parsed, in teaching order.
///
/// # Errors
/// The first lesson that does not validate.
pub fn all() -> Result<Vec<Lesson>, LessonError> {
    names().map(|n| get(n).expect("listed")).collect()
}

/// The lesson `which` names: a lesson file ([`Lesson::load`]) when it
/// ends in `.toml`, holds a path separator, or names an existing file
/// whose name is no bundled lesson's (a bare bundled name is the bundled
/// lesson; `./NAME` is the file); else the bundled lesson of that name.
///
/// # Errors
/// One line: the file's error, or that no bundled lesson has that name
/// (listing the names).
pub fn resolve(which: &str) -> Result<Lesson, String> {
    let names = || names().collect::<Vec<&str>>().join(", ");
    let path = std::path::Path::new(which);
    let looks_like_file = which.ends_with(".toml") || which.contains(['/', '\\']);
    if crate::platform::browser::IN_BROWSER {
        // No file system: name the bundled lessons instead of the OS error.
        return match get(which) {
            Some(r) => r.map_err(|e| e.to_string()),
            None if looks_like_file => Err(format!(
                "\"{which}\": the browser build reads no files, so a lesson is one of the bundled ones: {} (a lesson file of your own runs in the desktop build)",
                names()
            )),
            None => Err(format!("no bundled lesson \"{which}\"; one of {}", names())),
        };
    }
    if looks_like_file || (path.is_file() && !LESSONS.iter().any(|l| l.0 == which)) {
        return Lesson::load(path).map_err(|e| e.to_string());
    }
    match get(which) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => Err(format!(
            "no bundled lesson \"{which}\"; one of {}, or a FILE.toml",
            names()
        )),
    }
}
