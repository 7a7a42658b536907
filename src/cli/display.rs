//! Whether a window can open: the checks before opening one, and one line
//! (exit code 2) instead of the windowing library's panic when it cannot.
//!
//! The window is miniquad's X11 backend (macroquad's default configuration:
//! X11 only, GLX with an EGL fallback). Its start-up (miniquad 0.4.11,
//! `src/lib.rs` `start`, `src/native/linux_x11.rs` `run`, `glx.rs`, `egl.rs`)
//! fails in these ways, all of them panics:
//!
//! - libX11, libxkbcommon or libXi cannot be loaded:
//!   `X11 backend failed: LibraryNotFound(DlOpenError("libXi.so.6"))`;
//!   one of them lacks a function: `` called `Result::unwrap()` on an `Err`
//!   value: DlSymError("XkbSetDetectableAutoRepeat") ``;
//! - no X server at `DISPLAY` (unset, stopped, refused, bad address):
//!   `XOpenDisplay() failed!`;
//! - GLX starts but has no usable configuration or context: `GLX: No
//!   GLXFBConfigs returned`, `GLX: Failed to find a suitable GLXFBConfig`,
//!   `GLX: Failed to retrieve Visual for GLXFBConfig`, `GLX: ARB_create_context
//!   and ARB_create_context_profile required`, `GLX: failed to create GL
//!   context`, `GLX: failed to create window`;
//! - GLX does not start (no libGL, no GLX extension, GLX older than 1.3) and
//!   then EGL does not either: libEGL missing gives `` called `Option::unwrap()`
//!   on a `None` value `` in `linux_x11.rs`; EGL failing gives `` called
//!   `Result::unwrap()` on an `Err` value: NoDisplay `` (or `InitializeFailed`,
//!   `CreateContextFailed`), `surface creation failed`, `eglMakeCurrent failed`.
//!
//! A Wayland-only session (no `DISPLAY`) is the `XOpenDisplay` case: the
//! window needs X11 (XWayland). [`require_display`] catches a missing or
//! unreachable X server before the window opens; [`one_line_window_errors`]
//! turns every panic above (and any other panic of miniquad or macroquad
//! before the window is open) into one line.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// How to run without a screen, appended to the messages.
const HEADLESS: &str =
    "run under a virtual X server: xvfb-run -a -s \"-screen 0 1280x800x24\" spatial-query-lab ...";

/// The Debian/Ubuntu packages of the libraries miniquad loads at run time.
const LIBRARIES: &str = "sudo apt-get install -y libgl1 libx11-6 libxi6 libxkbcommon0";

/// The Debian/Ubuntu packages of Mesa's OpenGL (software rendering included).
const MESA: &str = "sudo apt-get install -y libgl1-mesa-dri libglx-mesa0 libegl1";

/// Set once the window's future first runs: the window and its OpenGL
/// context exist, so later panics are the program's, not start-up failures.
static WINDOW_OPEN: AtomicBool = AtomicBool::new(false);

/// Marks the window as open; call first thing in the window's future.
/// From then on [`one_line_window_errors`] leaves panics to the default hook.
pub(crate) fn window_opened() {
    WINDOW_OPEN.store(true, Ordering::Relaxed);
}

/// Installs a panic hook that, while the window is not yet open, prints the
/// one line of [`window_failure`] for a start-up panic of the windowing
/// library and exits with code 2 (no backtrace). Other panics keep the
/// default report.
pub(crate) fn one_line_window_errors() {
    if cfg!(target_arch = "wasm32") {
        // The page shows panics (main.rs); there is no display to name.
        return;
    }
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !WINDOW_OPEN.load(Ordering::Relaxed) {
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied())
                .unwrap_or("");
            let (file, line) = info.location().map_or(("", 0), |l| (l.file(), l.line()));
            let (display, wayland) = (var("DISPLAY"), var("WAYLAND_DISPLAY"));
            let at = format!("{file}:{line}");
            if let Some(text) = window_failure(msg, &at, display.as_deref(), wayland.as_deref()) {
                eprintln!("{text}");
                std::process::exit(2);
            }
        }
        default(info);
    }));
}

/// One line for a panic with message `msg` at `location` (`file:line`)
/// raised while the window opens, given the environment's `DISPLAY` and
/// `WAYLAND_DISPLAY`: the cause and what to do (the module docs list the
/// panics). `None` when the panic is not from miniquad or macroquad (their
/// source paths contain the crate name), so not a window failure.
pub(crate) fn window_failure(
    msg: &str,
    location: &str,
    display: Option<&str>,
    wayland: Option<&str>,
) -> Option<String> {
    if !(location.contains("miniquad") || location.contains("macroquad")) {
        return None;
    }
    let display = display.filter(|d| !d.is_empty());
    let at = display.map_or_else(String::new, |d| format!(" at DISPLAY={d}"));
    let quoted = |prefix: &str| {
        let rest = msg.split_once(prefix)?.1;
        rest.split('"').next()
    };
    if msg == "XOpenDisplay() failed!" {
        return Some(match display {
            None => no_display(wayland),
            Some(d) => format!(
                "error: cannot connect to the X server at DISPLAY={d} (it is not running, or it refused this program: check DISPLAY and XAUTHORITY); or {HEADLESS}"
            ),
        });
    }
    if let Some(lib) = quoted("DlOpenError(\"") {
        return Some(format!(
            "error: the window could not open: the library {lib} is missing; on Debian or Ubuntu install the display libraries: {LIBRARIES}"
        ));
    }
    if let Some(sym) = quoted("DlSymError(\"") {
        return Some(format!(
            "error: the window could not open: a display library has no function {sym} (too old or broken); on Debian or Ubuntu reinstall them: {LIBRARIES} --reinstall"
        ));
    }
    if let Some(glx) = msg.strip_prefix("GLX: ") {
        return Some(format!(
            "error: the window could not open: the X server{at} offers no usable OpenGL 2.1 through GLX ({glx}); install Mesa ({MESA}), or {HEADLESS}"
        ));
    }
    let in_x11 = location.contains("linux_x11");
    let egl = ["NoDisplay", "InitializeFailed", "CreateContextFailed"]
        .into_iter()
        .find(|e| msg == format!("called `Result::unwrap()` on an `Err` value: {e}"));
    let egl = egl.or(["surface creation failed", "eglMakeCurrent failed"]
        .into_iter()
        .find(|&e| msg == e));
    if let (true, Some(e)) = (in_x11, egl) {
        return Some(format!(
            "error: the window could not open: no OpenGL{at}: GLX did not start and EGL failed ({e}); install Mesa ({MESA}), or {HEADLESS}"
        ));
    }
    if in_x11 && msg == "called `Option::unwrap()` on a `None` value" {
        return Some(format!(
            "error: the window could not open: no OpenGL{at}: neither GLX (libGL, and the X server's GLX extension 1.3 or newer) nor EGL (libEGL) could start; install Mesa ({MESA}), or {HEADLESS}"
        ));
    }
    let one_line = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = one_line.chars().take(300).collect();
    let short = short.trim_end();
    let cut = if short.len() < one_line.len() {
        "..."
    } else {
        ""
    };
    // From the crate's folder on: `miniquad-0.4.11/src/native/gl.rs:12`.
    let parts: Vec<&str> = location.split(['/', '\\']).collect();
    let crate_dir = parts
        .iter()
        .position(|p| p.contains("miniquad") || p.contains("macroquad"));
    let from = parts[crate_dir.unwrap_or(0)..].join("/");
    // Other systems have no X server to stand in for.
    let headless = if cfg!(target_os = "linux") {
        format!("; or {HEADLESS}")
    } else {
        String::new()
    };
    Some(format!(
        "error: the window could not open{at}: {short}{cut} (in {from}){headless}"
    ))
}

/// The environment variable `name`, lossily as text; `None` when unset.
fn var(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// The message for a missing `DISPLAY`: a Wayland session without XWayland
/// when `wayland` (the `WAYLAND_DISPLAY` value) is set, else no display.
fn no_display(wayland: Option<&str>) -> String {
    match wayland.filter(|w| !w.is_empty()) {
        Some(w) => format!(
            "error: no X display: this is a Wayland session (WAYLAND_DISPLAY={w}) but DISPLAY is unset, and the window needs X11; enable XWayland (it sets DISPLAY), or {HEADLESS}"
        ),
        None => format!(
            "error: no display (DISPLAY and WAYLAND_DISPLAY are unset); on a headless machine {HEADLESS}"
        ),
    }
}

/// Where an X client connects for a `DISPLAY` value.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum XServer {
    /// A local server, display `number`: the socket `/tmp/.X11-unix/X<number>`
    /// (on Linux also the abstract socket of that name); `true` when the host
    /// was empty (`:N`), where libxcb also tries TCP `localhost:6000+N`
    /// (X servers listening only on TCP: VcXsrv or Xming under WSL, some
    /// containers), `false` for `unix:N`.
    Local(u32, bool),
    /// A server over TCP: `host`, port 6000 + the display number.
    Tcp(String, u16),
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl XServer {
    /// Where it is, as a user would look for it.
    pub(crate) fn describe(&self) -> String {
        match self {
            XServer::Local(n, _) => format!("/tmp/.X11-unix/X{n}"),
            XServer::Tcp(host, port) => format!("{host}, TCP port {port}"),
        }
    }
}

/// The X server that `display` (a `DISPLAY` value, `[host]:number[.screen]`)
/// names, or `None` when the form is one this check leaves to Xlib
/// (a protocol prefix or path, DECnet `host::n`, IPv6 literals, a
/// non-numeric display). An empty host or `unix` is local, any other host
/// is TCP port 6000 + number (X11R7 `XOpenDisplay(3)`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn x_server(display: &str) -> Option<XServer> {
    let (host, rest) = display.rsplit_once(':')?;
    let number = rest.split_once('.').map_or(rest, |(n, _)| n);
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number: u32 = number.parse().ok()?;
    if host.contains(['/', ':', '[']) {
        return None;
    }
    if host.is_empty() || host == "unix" {
        return Some(XServer::Local(number, host.is_empty()));
    }
    let port = u16::try_from(6000 + u64::from(number)).ok()?;
    Some(XServer::Tcp(host.to_string(), port))
}

/// The one line saying why no window can open, judged from the `DISPLAY`
/// and `WAYLAND_DISPLAY` values before opening one; `reach` tries the X
/// server and returns why it cannot be reached (`Ok` when it answers or
/// when that cannot be told). `None` when nothing is known to be wrong.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn display_problem(
    display: Option<&str>,
    wayland: Option<&str>,
    reach: impl FnOnce(&XServer) -> Result<(), String>,
) -> Option<String> {
    let Some(d) = display.filter(|d| !d.is_empty()) else {
        return Some(no_display(wayland));
    };
    let server = x_server(d)?;
    let why = reach(&server).err()?;
    Some(format!(
        "error: no X server answers at DISPLAY={d} ({why}); it may have stopped (an Xvfb that exited, an ssh session that ended) or DISPLAY is wrong: point DISPLAY at a running X server, or {HEADLESS}"
    ))
}

/// Tries to connect to `server` (and closes at once, sending nothing): `Err`
/// with the reason when every way Xlib would try fails, `Ok` when one
/// connects or a TCP connection only timed out (undecided: Xlib may still
/// get through).
#[cfg(target_os = "linux")]
fn reach(server: &XServer) -> Result<(), String> {
    use std::io::ErrorKind;
    use std::net::{TcpStream, ToSocketAddrs};
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixStream};
    use std::time::Duration;

    match server {
        XServer::Local(n, tcp) => {
            let path = server.describe();
            // libxcb tries the abstract socket first, then the file, then
            // (for `:N`) TCP on localhost.
            let abstract_ok = SocketAddr::from_abstract_name(path.as_bytes())
                .and_then(|a| UnixStream::connect_addr(&a))
                .is_ok();
            if abstract_ok {
                return Ok(());
            }
            let why = match UnixStream::connect(&path) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == ErrorKind::NotFound => format!("no socket {path}"),
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                    format!("nothing listens on {path}")
                }
                Err(e) => format!("{path}: {e}"),
            };
            match u16::try_from(6000 + u64::from(*n)) {
                Ok(port) if *tcp => reach(&XServer::Tcp("localhost".into(), port))
                    .map_err(|_| format!("{why}, nor on localhost TCP port {port}")),
                _ => Err(why),
            }
        }
        XServer::Tcp(host, port) => {
            let addrs = match (host.as_str(), *port).to_socket_addrs() {
                Ok(a) => a.collect::<Vec<_>>(),
                Err(e) => return Err(format!("cannot resolve {host}: {e}")),
            };
            let mut last = None;
            for a in &addrs {
                match TcpStream::connect_timeout(a, Duration::from_secs(3)) {
                    Ok(_) => return Ok(()),
                    Err(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
                        return Ok(())
                    }
                    Err(e) => last = Some(e),
                }
            }
            match last {
                Some(e) => Err(format!("{}: {e}", server.describe())),
                None => Err(format!("{host} has no address")),
            }
        }
    }
}

/// Before opening the window: on Linux, when `DISPLAY` is unset (whether or
/// not this is a Wayland session: the window needs X11) or names an X server
/// that does not answer, prints one line saying so and what to do, and
/// returns exit code 2; `None` when the window may open.
pub(crate) fn require_display() -> Option<ExitCode> {
    #[cfg(target_os = "linux")]
    {
        let display = var("DISPLAY");
        let wayland = var("WAYLAND_DISPLAY");
        if let Some(line) = display_problem(display.as_deref(), wayland.as_deref(), reach) {
            eprintln!("{line}");
            return Some(ExitCode::from(2));
        }
    }
    None
}

#[cfg(test)]
mod tests;
