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
        fn sql_page_failed(text: *const u8, len: usize);
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

    pub fn ready() {
        // SAFETY: no arguments; sql.js only changes the page's elements.
        unsafe { sql_page_ready() }
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
