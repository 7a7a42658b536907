//! The one-line messages for a window that cannot open, against the exact
//! panic messages and locations of miniquad 0.4.11 (the version in
//! Cargo.lock; file and line of each quoted below).

use super::*;

/// Where the registry keeps miniquad's source (the panic location's prefix).
const MQ: &str = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/miniquad-0.4.11/src";

/// Every message is one line, an error, and says what to do.
fn assert_one_line(line: &str) {
    assert!(line.starts_with("error: "), "{line}");
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(!line.contains('\n'), "{line}");
    assert!(
        line.contains("xvfb-run -a -s \"-screen 0 1280x800x24\"") || line.contains("apt-get"),
        "{line}"
    );
}

fn failure(msg: &str, file: &str, display: Option<&str>) -> String {
    let line = window_failure(msg, &format!("{MQ}/{file}"), display, None)
        .unwrap_or_else(|| panic!("{msg:?} at {file} not recognized"));
    assert_one_line(&line);
    line
}

#[test]
fn xopendisplay_failing_names_the_display_and_the_way_to_run_headless() {
    // linux_x11.rs:659: `panic!("XOpenDisplay() failed!")`.
    let line = failure(
        "XOpenDisplay() failed!",
        "native/linux_x11.rs:659",
        Some(":77"),
    );
    assert!(line.contains("DISPLAY=:77"), "{line}");
    assert!(line.contains("cannot connect to the X server"), "{line}");
    assert!(line.contains("xvfb-run"), "{line}");
}

#[test]
fn xopendisplay_failing_in_a_wayland_session_says_the_window_needs_xwayland() {
    let at = format!("{MQ}/native/linux_x11.rs:659");
    for display in [None, Some("")] {
        let line = window_failure("XOpenDisplay() failed!", &at, display, Some("wayland-9"))
            .expect("recognized");
        assert_one_line(&line);
        assert!(line.contains("WAYLAND_DISPLAY=wayland-9"), "{line}");
        assert!(line.contains("XWayland"), "{line}");
        assert!(line.contains("DISPLAY is unset"), "{line}");
    }
    let line = window_failure("XOpenDisplay() failed!", &at, None, None).expect("recognized");
    assert_one_line(&line);
    assert!(line.contains("no display"), "{line}");
}

#[test]
fn a_missing_library_is_named_with_the_packages_to_install() {
    // lib.rs:471: `.expect("X11 backend failed")` on
    // `X11Error::LibraryNotFound(module::Error::DlOpenError(<last name tried>))`.
    for lib in ["libX11.so.6", "libxkbcommon.so.0", "libXi.so.6"] {
        let msg = format!("X11 backend failed: LibraryNotFound(DlOpenError(\"{lib}\"))");
        let line = failure(&msg, "lib.rs:471:55", Some(":0"));
        assert!(
            line.contains(&format!("the library {lib} is missing")),
            "{line}"
        );
        assert!(line.contains(LIBRARIES), "{line}");
    }
    // module.rs:130: a library without a function the backend needs.
    let msg =
        "called `Result::unwrap()` on an `Err` value: DlSymError(\"XkbSetDetectableAutoRepeat\")";
    let line = failure(msg, "native/module.rs:130:25", Some(":0"));
    assert!(
        line.contains("no function XkbSetDetectableAutoRepeat"),
        "{line}"
    );
}

#[test]
fn every_glx_failure_says_opengl_is_missing_and_names_the_step() {
    // glx.rs: `assert!`/`panic!` messages of `Glx::init`, `create_context`
    // and `choose_fbconfig`.
    let glx = [
        ("No GLXFBConfigs returned", "native/linux_x11/glx.rs:420"),
        (
            "Failed to find a suitable GLXFBConfig",
            "native/linux_x11/glx.rs:267",
        ),
        (
            "Failed to retrieve Visual for GLXFBConfig",
            "native/linux_x11/glx.rs:273",
        ),
        (
            "ARB_create_context and ARB_create_context_profile required",
            "native/linux_x11/glx.rs:322",
        ),
        ("failed to create GL context", "native/linux_x11/glx.rs:343"),
        ("failed to create window", "native/linux_x11/glx.rs:348"),
    ];
    for (what, file) in glx {
        let line = failure(&format!("GLX: {what}"), file, Some(":99"));
        assert!(line.contains(&format!("({what})")), "{line}");
        assert!(line.contains("no usable OpenGL"), "{line}");
        assert!(line.contains("DISPLAY=:99"), "{line}");
        assert!(line.contains(MESA) && line.contains("xvfb-run"), "{line}");
    }
}

#[test]
fn glx_and_egl_both_failing_is_named_as_no_opengl() {
    // linux_x11.rs:709: GLX did not start and libEGL is missing:
    // `egl_main_loop(..).ok().unwrap()`.
    let none = "called `Option::unwrap()` on a `None` value";
    let line = failure(none, "native/linux_x11.rs:709:59", Some(":0"));
    assert!(line.contains("neither GLX"), "{line}");
    assert!(line.contains("EGL"), "{line}");
    // linux_x11.rs:563 `create_egl_context(..).unwrap()` (EglError, Debug),
    // :570 and :573 the surface and make-current panics.
    for e in ["NoDisplay", "InitializeFailed", "CreateContextFailed"] {
        let msg = format!("called `Result::unwrap()` on an `Err` value: {e}");
        let line = failure(&msg, "native/linux_x11.rs:563:6", Some(":0"));
        assert!(line.contains(&format!("EGL failed ({e})")), "{line}");
    }
    for (msg, file) in [
        ("surface creation failed", "native/linux_x11.rs:570:9"),
        ("eglMakeCurrent failed", "native/linux_x11.rs:573:9"),
    ] {
        let line = failure(msg, file, Some(":0"));
        assert!(line.contains(&format!("EGL failed ({msg})")), "{line}");
    }
}

#[test]
fn other_panics_of_the_windowing_library_become_one_line_with_where() {
    let shader_log = "called `Result::unwrap()` on an `Err` value: CompilationError {\n    shader_type: Fragment,\n    error_message: \"0:1(10): error: GLSL 1.30 is not supported\" }";
    let at = "/home/u/.cargo/registry/src/x/macroquad-0.4.16/src/quad_gl.rs:812:10";
    let line = window_failure(shader_log, at, Some(":0"), None).expect("from macroquad");
    assert_one_line(&line);
    assert!(line.contains("GLSL 1.30 is not supported"), "{line}");
    assert!(
        line.contains("(in macroquad-0.4.16/src/quad_gl.rs:812:10)"),
        "{line}"
    );
    let long = "x ".repeat(1000);
    let line = failure(&long, "graphics/gl.rs:649:9", Some(":0"));
    assert!(line.contains("x..."), "long messages are cut: {line}");
    assert!(line.len() < 700, "{line}");
    // The same `unwrap` text from elsewhere in miniquad is not "no OpenGL".
    let none = "called `Option::unwrap()` on a `None` value";
    let line = failure(none, "native/gl.rs:40:5", Some(":0"));
    assert!(!line.contains("GLX"), "{line}");
    assert!(
        line.contains("miniquad-0.4.11/src/native/gl.rs:40:5"),
        "{line}"
    );
}

#[test]
fn panics_outside_the_windowing_library_keep_the_default_report() {
    for msg in [
        "XOpenDisplay() failed!",
        "called `Option::unwrap()` on a `None` value",
        "index out of bounds: the len is 3 but the index is 7",
    ] {
        assert_eq!(
            window_failure(msg, "src/window/app/mod.rs:10:5", Some(":0"), None),
            None
        );
    }
}

#[test]
fn display_values_name_the_socket_or_port_xlib_would_use() {
    let local = [
        (":0", 0, true),
        (":77", 77, true),
        (":77.0", 77, true),
        ("unix:3", 3, false),
        (":10.2", 10, true),
    ];
    for (d, n, tcp) in local {
        assert_eq!(x_server(d), Some(XServer::Local(n, tcp)), "{d}");
    }
    assert_eq!(
        x_server("localhost:10.0"),
        Some(XServer::Tcp("localhost".into(), 6010))
    );
    assert_eq!(
        x_server("10.0.0.5:1"),
        Some(XServer::Tcp("10.0.0.5".into(), 6001))
    );
    // Forms left to Xlib: no number, a protocol or path, DECnet, IPv6,
    // a port beyond 65535.
    for d in [
        "",
        ":",
        "x",
        ":x",
        ":-1",
        ":1x",
        "tcp/host:0",
        "/tmp/launch-1/org.xquartz:0",
        "host::0",
        "[::1]:0",
        "::1:0",
        "host:59536",
    ] {
        assert_eq!(x_server(d), None, "{d:?}");
    }
    assert_eq!(XServer::Local(77, true).describe(), "/tmp/.X11-unix/X77");
}

#[test]
fn the_check_before_opening_names_each_cause() {
    let unreachable = |_: &XServer| Err("no socket /tmp/.X11-unix/X77".to_string());
    let never = |s: &XServer| -> Result<(), String> { panic!("tried {s:?}") };
    // DISPLAY set but nobody there.
    let line = display_problem(Some(":77"), None, unreachable).expect("a problem");
    assert_one_line(&line);
    assert!(
        line.contains("no X server answers at DISPLAY=:77"),
        "{line}"
    );
    assert!(line.contains("(no socket /tmp/.X11-unix/X77)"), "{line}");
    // A Wayland session without XWayland: no X server to try.
    let line = display_problem(None, Some("wayland-9"), never).expect("a problem");
    assert_one_line(&line);
    assert!(line.contains("WAYLAND_DISPLAY=wayland-9") && line.contains("XWayland"));
    // Nothing at all (an empty value is unset).
    for d in [None, Some("")] {
        let line = display_problem(d, Some(""), never).expect("a problem");
        assert_one_line(&line);
        assert!(line.contains("no display"), "{line}");
    }
    // A server that answers, and a form the check cannot read, pass.
    assert_eq!(
        display_problem(Some(":0"), Some("wayland-0"), |_| Ok(())),
        None
    );
    assert_eq!(display_problem(Some("host::0"), None, never), None);
}

/// A display number with no X server on this machine (neither the socket
/// file nor the abstract socket), from 77 up.
#[cfg(target_os = "linux")]
fn free_display() -> u32 {
    let sockets = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    (77..1000)
        .find(|n| {
            let path = format!("/tmp/.X11-unix/X{n}");
            !std::path::Path::new(&path).exists()
                && !sockets.lines().any(|l| l.ends_with(&format!(" @{path}")))
        })
        .expect("a free display number")
}

#[cfg(target_os = "linux")]
#[test]
fn reach_connects_to_the_abstract_socket_and_reports_its_absence() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};

    let n = free_display();
    let server = XServer::Local(n, false);
    let err = reach(&server).expect_err("nothing there");
    assert_eq!(err, format!("no socket /tmp/.X11-unix/X{n}"));
    let name = SocketAddr::from_abstract_name(server.describe().as_bytes()).expect("name");
    let listener = UnixListener::bind_addr(&name).expect("bind the abstract socket");
    assert_eq!(reach(&server), Ok(()));
    drop(listener);
}

#[cfg(target_os = "linux")]
#[test]
fn reach_over_tcp_tells_a_listening_port_from_a_closed_one() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let server = XServer::Tcp("127.0.0.1".into(), port);
    assert_eq!(reach(&server), Ok(()));
    drop(listener);
    let err = reach(&server).expect_err("closed now");
    assert!(
        err.starts_with(&format!("127.0.0.1, TCP port {port}: ")),
        "{err}"
    );
    let err = reach(&XServer::Tcp("no-such-host.invalid".into(), 6000)).expect_err("no host");
    assert!(
        err.starts_with("cannot resolve no-such-host.invalid"),
        "{err}"
    );
}

/// `:N` with an X server on TCP `localhost:6000+N` only (VcXsrv under WSL,
/// some containers): libxcb falls back to TCP there, so the check must too,
/// and `unix:N` must not.
#[cfg(target_os = "linux")]
#[test]
fn a_display_with_an_empty_host_is_also_tried_on_localhost_tcp() {
    // A free display number whose TCP port can be taken.
    let (n, listener) = (77..1000)
        .filter(|n| {
            let path = format!("/tmp/.X11-unix/X{n}");
            !std::path::Path::new(&path).exists()
        })
        .find_map(|n| {
            std::net::TcpListener::bind(("127.0.0.1", 6000 + n as u16))
                .ok()
                .map(|l| (n, l))
        })
        .expect("a free display number and port");
    let sockets = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    if sockets.contains(&format!("@/tmp/.X11-unix/X{n}")) {
        return;
    }
    assert_eq!(reach(&XServer::Local(n, true)), Ok(()));
    let err = reach(&XServer::Local(n, false)).expect_err("unix:N is not tried on TCP");
    assert_eq!(err, format!("no socket /tmp/.X11-unix/X{n}"));
    drop(listener);
    let err = reach(&XServer::Local(n, true)).expect_err("nothing there now");
    assert!(
        err.ends_with(&format!(", nor on localhost TCP port {}", 6000 + n)),
        "{err}"
    );
}
