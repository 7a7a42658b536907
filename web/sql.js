// Spatial Query Lab's side of the page: the functions the module imports
// (registered with miniquad's loader, gl.js), the loading indicator, and the
// start. Served next to gl.js by scripts/web-build.sh.
"use strict";

// The module's name for this plugin and the version its `sql_crate_version`
// export returns (src/app/browser.rs); gl.js compares them.
const SQL_PLUGIN_VERSION = 1;

// Shows `text` where the loading indicator is (put back over the canvas if
// the program had started: a panic). `failed`: red, no spinner; "done": a
// message that ends the start (the help text), no spinner.
function sql_status(text, failed) {
    let box = document.getElementById("loading");
    if (!box) {
        box = document.createElement("div");
        box.id = "loading";
        const status = document.createElement("div");
        status.id = "status";
        box.appendChild(status);
        document.body.appendChild(box);
    }
    document.getElementById("status").textContent = text;
    if (failed === "done") box.classList.add("done");
    else if (failed) box.classList.add("failed");
}

// A small box at the top right, above the canvas, with a close button: a
// result that belongs on the page (the self-check's verdict, a clipboard
// the browser refused).
function sql_notice(text, failed) {
    const box = document.createElement("div");
    box.className = "sql-notice" + (failed ? " failed" : "");
    box.setAttribute("role", failed ? "alert" : "status");
    const words = document.createElement("span");
    words.textContent = text;
    const close = document.createElement("button");
    close.textContent = "\u00d7";
    close.title = "Close";
    close.onclick = function () {
        box.remove();
        document.getElementById("glcanvas").focus();
    };
    box.appendChild(words);
    box.appendChild(close);
    let list = document.getElementById("sql-notices");
    if (!list) {
        list = document.createElement("div");
        list.id = "sql-notices";
        document.body.appendChild(list);
    }
    list.appendChild(box);
}

// The presenter view's link: the last state sent, the steps it asked for.
const sql_presenter = { state: null, asked: [], channel: null };
if (typeof BroadcastChannel === "function") {
    sql_presenter.channel = new BroadcastChannel("spatial-query-lab-presenter");
    sql_presenter.channel.onmessage = function (e) {
        const m = e.data || {};
        if (m.kind === "hello" && sql_presenter.state) sql_presenter.channel.postMessage({ kind: "state", state: sql_presenter.state });
        if (m.kind === "go" && (m.by === 1 || m.by === -1)) sql_presenter.asked.push(m.by);
    };
}

function sql_bytes(ptr, len) {
    return new Uint8Array(wasm_memory.buffer, ptr, len);
}

function sql_string(ptr, len) {
    return new TextDecoder("utf-8").decode(sql_bytes(ptr, len));
}

miniquad_add_plugin({
    name: "sql",
    version: SQL_PLUGIN_VERSION,
    register_plugin: function (importObject) {
        // The clock (src/clock.rs): milliseconds, monotonic, coarsened by
        // the browser (0.1 ms in Chromium).
        importObject.env.sql_now_ms = function () {
            return performance.now();
        };
        // A file the user asked for (screenshot, exports), offered as a
        // browser download.
        importObject.env.sql_download = function (name_ptr, name_len, data_ptr, data_len, mime_ptr, mime_len) {
            const name = sql_string(name_ptr, name_len);
            const mime = sql_string(mime_ptr, mime_len);
            const blob = new Blob([sql_bytes(data_ptr, data_len).slice()], { type: mime });
            const url = URL.createObjectURL(blob);
            const a = document.createElement("a");
            a.href = url;
            a.download = name;
            document.body.appendChild(a);
            a.click();
            a.remove();
            setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
        };
        // gl.js 0.4.11 has no glGetError; the screenshot and the GPU
        // limits (src/render/gl_limits.rs) ask for it.
        importObject.env.glGetError = function () {
            return gl.getError();
        };
        // miniquad 0.4.11 makes depth textures (the offscreen targets'
        // depth, src/render/progressive.rs) with the unsized internal format
        // GL_DEPTH_COMPONENT, which WebGL 1 takes (WEBGL_depth_texture) but
        // WebGL 2 refuses (INVALID_VALUE: no texture, no picture). Give
        // WebGL 2 the sized format of the same type (OpenGL ES 3.0 table 3.2).
        const tex_image_2d = importObject.env.glTexImage2D;
        importObject.env.glTexImage2D = function (target, level, internal, width, height, border, format, type, pixels) {
            if (internal === 0x1902 /* DEPTH_COMPONENT */ && typeof WebGL2RenderingContext !== "undefined"
                && gl instanceof WebGL2RenderingContext) {
                if (type === 0x1403 /* UNSIGNED_SHORT */) internal = 0x81A5; /* DEPTH_COMPONENT16 */
                else if (type === 0x1405 /* UNSIGNED_INT */) internal = 0x81A6; /* DEPTH_COMPONENT24 */
                else if (type === 0x1406 /* FLOAT */) internal = 0x8CAC; /* DEPTH_COMPONENT32F */
            }
            return tex_image_2d(target, level, internal, width, height, border, format, type, pixels);
        };
        // The first frame is on screen: drop the loading indicator.
        importObject.env.sql_page_ready = function () {
            const box = document.getElementById("loading");
            if (box) box.remove();
            document.getElementById("glcanvas").focus();
        };
        // The program cannot start (a bad URL parameter): say why on the
        // page; or it ends after its one message (?help).
        importObject.env.sql_page_failed = function (ptr, len) {
            sql_status(sql_string(ptr, len), true);
        };
        importObject.env.sql_page_message = function (ptr, len) {
            sql_status(sql_string(ptr, len), "done");
        };
        importObject.env.sql_page_notice = function (ptr, len, failed) {
            sql_notice(sql_string(ptr, len), failed !== 0);
        };
        // The presenter view (presenter.html in a second window): the
        // lesson's state on a BroadcastChannel, the last one kept for a
        // view that opens later (it says "hello"); its buttons come back as
        // steps the module polls once per frame.
        importObject.env.sql_presenter_state = function (ptr, len) {
            sql_presenter.state = sql_string(ptr, len);
            if (sql_presenter.channel) sql_presenter.channel.postMessage({ kind: "state", state: sql_presenter.state });
        };
        importObject.env.sql_presenter_open = function () {
            const view = window.open("presenter.html", "spatial-query-lab-presenter", "width=720,height=560");
            if (!view) sql_notice("The browser blocked the presenter window: allow pop-ups for this page, or open presenter.html (beside this page) in a second window yourself.", true);
        };
        importObject.env.sql_presenter_poll = function () {
            return sql_presenter.asked.shift() || 0;
        };
        // The lesson panel's text, mirrored for screen readers.
        importObject.env.sql_page_text = function (ptr, len) {
            const region = document.getElementById("sql-lesson-text");
            if (region) region.textContent = sql_string(ptr, len);
        };
        // Copy Markdown: the page's clipboard. The click that asked for it
        // was a moment ago (the module handles input once per frame), well
        // within the browser's transient user activation.
        importObject.env.sql_copy_text = function (ptr, len) {
            const text = sql_string(ptr, len);
            const refused = function (why) {
                sql_notice("The browser did not let the page use the clipboard (" + why + "): press Ctrl+C (Cmd+C) now to copy the text, or use Save CSV / Save JSON.", true);
            };
            // egui's own clipboard answers the next Ctrl+C either way.
            if (!navigator.clipboard || !window.isSecureContext) {
                refused("it offers the clipboard only to https:// and localhost pages");
                return;
            }
            navigator.clipboard.writeText(text).catch(function (e) { refused(e.message); });
        };
    },
});

// Downloads the module with a progress bar (gl.js's own `load` fetches
// without one), then hands it to gl.js as a blob URL of type
// application/wasm, so any static host works whatever MIME type it serves.
function sql_start(wasm_path, expected_bytes) {
    if (typeof WebAssembly !== "object") {
        sql_status("This browser has no WebAssembly: Spatial Query Lab needs a browser from 2021 or later.", true);
        return;
    }
    // A page opened from the disk cannot fetch its module (browsers block
    // file:// requests).
    if (location.protocol === "file:") {
        sql_status("Spatial Query Lab must be served, not opened as a file: the browser does not let a page from file:// load its WebAssembly module. "
            + "In this folder run: python3 -m http.server 8000, then open http://localhost:8000/ (any static web host works too).", true);
        return;
    }
    // miniquad asks for WebGL 2 (src/cli/window.rs); without it gl.js shows
    // an alert() and stops with the spinner turning. Ask first, on a canvas
    // of our own.
    const probe = document.createElement("canvas");
    let webgl2 = null;
    try { webgl2 = probe.getContext("webgl2"); } catch (e) { webgl2 = null; }
    if (!webgl2) {
        const webgl1 = (function () { try { return probe.getContext("webgl"); } catch (e) { return null; } })();
        sql_status("This browser gives the page no WebGL 2, which Spatial Query Lab draws with"
            + (webgl1 ? " (it offers only WebGL 1)" : " (nor any WebGL)") + ". Try: turn on hardware acceleration in the browser's settings, "
            + "update the browser or the graphics driver, or use another browser (Chrome, Edge, Firefox or Safari from 2021 on). "
            + "On a locked-down lab PC, the desktop build (cargo run --release) needs only OpenGL 3.", true);
        return;
    }
    const lose = webgl2.getExtension("WEBGL_lose_context");
    if (lose) lose.loseContext();
    const mb = function (n) { return (n / 1048576).toFixed(1) + " MB"; };
    const bar = document.querySelector("#bar > div");
    fetch(wasm_path).then(function (response) {
        if (!response.ok) throw new Error(wasm_path + ": HTTP " + response.status);
        // The body arrives decompressed, so a gzip host's Content-Length
        // (the compressed size) is not the total: the build wrote the
        // module's own size into the page.
        const total = expected_bytes || Number(response.headers.get("Content-Length"));
        const reader = response.body.getReader();
        const parts = [];
        let got = 0;
        function pump() {
            return reader.read().then(function (chunk) {
                if (chunk.done) return parts;
                parts.push(chunk.value);
                got += chunk.value.length;
                sql_status("Downloading Spatial Query Lab: " + mb(got) + " of " + mb(Math.max(total, got)));
                bar.style.width = Math.min(100, 100 * got / total) + "%";
                return pump();
            });
        }
        return pump();
    }).then(function (parts) {
        sql_status("Compiling the WebAssembly module…");
        bar.style.width = "100%";
        const blob = new Blob(parts, { type: "application/wasm" });
        load(URL.createObjectURL(blob));
    }).catch(function (err) {
        sql_status("Could not load Spatial Query Lab: " + err.message + " (is the folder served whole? it needs index.html, the .wasm and the four .js files beside it)", true);
        console.error(err);
    });
}
