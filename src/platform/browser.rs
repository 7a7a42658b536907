//! The page around the browser build (`wasm32-unknown-unknown`): the
//! functions `web/sql.js` gives the module, and the one the module exports
//! so miniquad's loader (gl.js) can check that the page's plugin matches.
//!
//! On every other target these are no-ops (`download` says it is not
//! available), so callers need no `cfg`.

/// The version of `web/sql.js`'s plugin this module expects
/// (`SQL_PLUGIN_VERSION` there); gl.js logs an error when they differ.
pub const PLUGIN_VERSION: u32 = 1;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod page {
    extern "C" {
        fn sql_download(
            name: *const u8,
            name_len: usize,
            data: *const u8,
            data_len: usize,
            mime: *const u8,
            mime_len: usize,
        );
        fn sql_page_ready();
        fn sql_copy_text(text: *const u8, len: usize);
        fn sql_page_notice(text: *const u8, len: usize, failed: u32);
        fn sql_page_text(text: *const u8, len: usize);
        fn sql_page_failed(text: *const u8, len: usize);
        fn sql_page_message(text: *const u8, len: usize);
        fn sql_presenter_state(text: *const u8, len: usize);
        fn sql_presenter_open();
        fn sql_presenter_poll() -> i32;
    }

    /// gl.js calls this to compare with the plugin's version.
    #[no_mangle]
    extern "C" fn sql_crate_version() -> u32 {
        super::PLUGIN_VERSION
    }

    pub fn download(name: &str, bytes: &[u8], mime: &str) {
        // SAFETY: each (pointer, length) pair is a live slice of this
        // module's memory for the whole call; sql.js copies the bytes out
        // before returning and keeps no reference.
        unsafe {
            sql_download(
                name.as_ptr(),
                name.len(),
                bytes.as_ptr(),
                bytes.len(),
                mime.as_ptr(),
                mime.len(),
            )
        }
    }

    pub fn copy_text(text: &str) {
        // SAFETY: a live slice of this module's memory for the call; sql.js
        // decodes it before returning.
        unsafe { sql_copy_text(text.as_ptr(), text.len()) }
    }

    pub fn notice(text: &str, failed: bool) {
        // SAFETY: as in `copy_text`.
        unsafe { sql_page_notice(text.as_ptr(), text.len(), u32::from(failed)) }
    }

    pub fn text(text: &str) {
        // SAFETY: as in `copy_text`.
        unsafe { sql_page_text(text.as_ptr(), text.len()) }
    }

    pub fn ready() {
        // SAFETY: no arguments; sql.js only changes the page's elements.
        unsafe { sql_page_ready() }
    }

    pub fn message(text: &str) {
        // SAFETY: as in `copy_text`.
        unsafe { sql_page_message(text.as_ptr(), text.len()) }
    }

    pub fn presenter_state(json: &str) {
        // SAFETY: as in `copy_text`.
        unsafe { sql_presenter_state(json.as_ptr(), json.len()) }
    }

    pub fn presenter_open() {
        // SAFETY: no arguments; sql.js opens a window and keeps no pointer.
        unsafe { sql_presenter_open() }
    }

    pub fn presenter_poll() -> i32 {
        // SAFETY: no arguments; returns a plain number.
        unsafe { sql_presenter_poll() }
    }

    pub fn failed(text: &str) {
        // SAFETY: a live slice of this module's memory for the call; sql.js
        // decodes it before returning.
        unsafe { sql_page_failed(text.as_ptr(), text.len()) }
    }
}

/// Whether this build runs in a browser page (and files the user saves
/// become downloads).
pub const IN_BROWSER: bool = cfg!(all(target_arch = "wasm32", target_os = "unknown"));

/// Offers `bytes` as a download named `name` of MIME type `mime` (the
/// browser saves it where the user's downloads go). Returns `false` outside
/// the browser, where nothing happens: write a file there.
pub fn download(name: &str, bytes: &[u8], mime: &str) -> bool {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    {
        page::download(name, bytes, mime);
        true
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    {
        let _ = (name, bytes, mime);
        false
    }
}

/// Puts `text` on the page's clipboard (`navigator.clipboard.writeText`;
/// the page shows a notice when the browser refuses). Returns `false`
/// outside the browser, where nothing happens: use the window's clipboard.
pub fn copy_text(text: &str) -> bool {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    {
        page::copy_text(text);
        true
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    {
        let _ = text;
        false
    }
}

/// Shows `text` in a small box at the page's top right, above the canvas
/// (red when `failed`), until the reader closes it: a result that belongs
/// on the page, not only on the console (`?self-check`'s verdict). Nothing
/// outside the browser.
pub fn page_notice(text: &str, failed: bool) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    page::notice(text, failed);
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let _ = (text, failed);
}

/// Mirrors `text`, what the lesson panel shows now (step, text, reason,
/// measuring state), into a visually hidden live region of the page
/// (`#sql-lesson-text`, `aria-live`), so a screen reader reads the lesson
/// the canvas draws. Nothing outside the browser.
pub fn page_text(text: &str) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    page::text(text);
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let _ = text;
}

/// Tells the page the first frame is drawn: it removes the loading
/// indicator and gives the canvas the keyboard. Nothing outside the browser.
pub fn page_ready() {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    page::ready();
}

/// Shows `text` on the page where the loading indicator was, for an error
/// that stops the program before its window (a bad URL parameter). Nothing
/// outside the browser, where the caller prints it.
pub fn page_failed(text: &str) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    page::failed(text);
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let _ = text;
}

/// Shows `text` (preformatted) in place of the loading indicator, for a
/// start that ends with one message and no window (`?help`). Nothing
/// outside the browser, where the caller prints it.
pub fn page_message(text: &str) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    page::message(text);
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let _ = text;
}

/// Hands the presenter view (`presenter.html`, a second browser window
/// opened by [`presenter_open`]) the lesson's state as JSON: the step, its
/// notes, the next step's title (sql.js posts it on a `BroadcastChannel`
/// and keeps the last one for a presenter view opened later). Nothing
/// outside the browser, where the notes are printed instead.
pub fn presenter_state(json: &str) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    page::presenter_state(json);
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let _ = json;
}

/// Opens the presenter view in a second browser window (the page shows a
/// notice when the browser blocks it). Returns `false` outside the browser.
pub fn presenter_open() -> bool {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    {
        page::presenter_open();
        true
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    false
}

/// What the presenter view asked since the last call: 1 next step, -1 the
/// previous one, 0 nothing. Always 0 outside the browser.
pub fn presenter_poll() -> i32 {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    {
        page::presenter_poll()
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    0
}
