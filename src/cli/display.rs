//! Whether a window can open: the checks before opening one, and one line
//! instead of the windowing library's panic when it cannot.

use std::process::ExitCode;

/// The windowing library panics when the display's client libraries are
/// missing (`X11 backend failed: LibraryNotFound(...)`); say that in one line,
/// with the packages to install, instead of a backtrace. Other panics keep the
/// default report.
pub(crate) fn one_line_window_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("backend failed") || msg.contains("LibraryNotFound") {
            eprintln!(
                "error: the window could not open: {msg}; on Debian or Ubuntu install the display libraries: sudo apt-get install -y libgl1 libx11-6 libxi6 libxkbcommon0"
            );
            std::process::exit(1);
        }
        default(info);
    }));
}

/// Without a display the windowing library panics: says what to do instead
/// and returns the exit code, or `None` when a display is there.
pub(crate) fn require_display() -> Option<ExitCode> {
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty())
        && std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty())
    {
        eprintln!(
            "error: no display (DISPLAY and WAYLAND_DISPLAY are unset); on a headless machine run under a virtual X server: xvfb-run -a -s \"-screen 0 1280x800x24\" spatial-query-lab ..."
        );
        return Some(ExitCode::from(2));
    }
    None
}
