//! The GL context's size limits, and the sizes and messages derived from them.
//!
//! A texture, renderbuffer or viewport larger than the context allows is not
//! an error anyone reports: `glTexImage2D` sets `GL_INVALID_VALUE` and leaves
//! the texture incomplete, a framebuffer around it draws nothing, and sampling
//! it gives black. Under Mesa (limit 16,384) a window 16,385 px wide showed a
//! black world and saved a black screenshot. [`GlLimits`] is read once from
//! the context; [`GlLimits::target_size`] clamps the offscreen targets to it,
//! and [`GlLimits::viewport_note`] and [`GlLimits::capture_refusal`] are the
//! one-line messages about it.

use std::sync::OnceLock;

use macroquad::miniquad::gl;

/// `GL_MAX_RENDERBUFFER_SIZE` (OpenGL 3.0 / ARB_framebuffer_object, GLES 2.0;
/// not among miniquad's constants).
const GL_MAX_RENDERBUFFER_SIZE: u32 = 0x84E8;
/// `GL_MAX_VIEWPORT_DIMS` (OpenGL 1.0, GLES 2.0; two values, width and height).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
const GL_MAX_VIEWPORT_DIMS: u32 = 0x0D3A;

/// The context's size limits in pixels: the largest texture and renderbuffer
/// edge and the largest viewport. A limit the context did not report (a
/// failed query) is `u32::MAX`, i.e. not enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlLimits {
    /// `GL_MAX_TEXTURE_SIZE`: the largest width or height of a 2D texture.
    pub max_texture: u32,
    /// `GL_MAX_RENDERBUFFER_SIZE`: the largest width or height of a renderbuffer.
    pub max_renderbuffer: u32,
    /// `GL_MAX_VIEWPORT_DIMS`: the largest viewport (width, height); GL
    /// silently clamps larger viewports to it, so nothing is drawn beyond it.
    pub max_viewport: (u32, u32),
}

impl GlLimits {
    /// Limits from the raw values of `glGetIntegerv`; a value that is not
    /// positive (the query failed or was unsupported) means "not enforced".
    pub fn from_raw(max_texture: i32, max_renderbuffer: i32, max_viewport: [i32; 2]) -> GlLimits {
        let known = |v: i32| u32::try_from(v).ok().filter(|&v| v > 0).unwrap_or(u32::MAX);
        GlLimits {
            max_texture: known(max_texture),
            max_renderbuffer: known(max_renderbuffer),
            max_viewport: (known(max_viewport[0]), known(max_viewport[1])),
        }
    }

    /// The current context's limits, queried with `glGetIntegerv` on the
    /// first call and remembered (one window, one context per process).
    ///
    /// # Panics
    /// Outside a running macroquad window (checked before any GL call, as
    /// macroquad's `get_internal_gl` does). Call it on the window's thread.
    pub fn current() -> GlLimits {
        static LIMITS: OnceLock<GlLimits> = OnceLock::new();
        *LIMITS.get_or_init(|| {
            // SAFETY: only asserts that macroquad's context exists (it panics
            // otherwise, before any GL call below); the borrow ends here.
            let _ = unsafe { macroquad::window::get_internal_gl() };
            let mut texture = 0;
            let mut renderbuffer = 0;
            #[cfg_attr(target_arch = "wasm32", allow(unused_mut))]
            let mut viewport = [0; 2];
            // SAFETY: called on the window's thread while macroquad's GL
            // context is current (documented above); each pointer is to a
            // live local with room for what the enum returns (one GLint, two
            // for GL_MAX_VIEWPORT_DIMS). An unsupported enum only sets
            // GL_INVALID_ENUM and leaves the 0, which `from_raw` reads as
            // "not enforced"; the error is drained so no later check sees it.
            unsafe {
                gl::glGetIntegerv(gl::GL_MAX_TEXTURE_SIZE, &mut texture);
                gl::glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &mut renderbuffer);
                // gl.js (miniquad 0.4.11) cannot return an array from
                // glGetIntegerv: it calls `alert("unimplemented")`, which
                // stops the page. Browsers' viewports are at least their
                // texture limit, so the browser leaves it "not enforced".
                #[cfg(not(target_arch = "wasm32"))]
                gl::glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport.as_mut_ptr());
                drain_gl_errors();
            }
            GlLimits::from_raw(texture, renderbuffer, viewport)
        })
    }

    /// The largest (width, height) in pixels that a color texture, a depth
    /// texture or renderbuffer, and a viewport can all have.
    pub fn max_target(&self) -> (u32, u32) {
        let edge = self.max_texture.min(self.max_renderbuffer);
        (edge.min(self.max_viewport.0), edge.min(self.max_viewport.1))
    }

    /// The size of an offscreen target for a window of `window` (width,
    /// height) pixels: each edge at least 1 and at most [`max_target`](Self::max_target).
    /// The picture keeps the window's aspect through its projection; a
    /// clamped edge only has fewer pixels, stretched when presented.
    pub fn target_size(&self, window: (u32, u32)) -> (u32, u32) {
        let (mw, mh) = self.max_target();
        (window.0.clamp(1, mw.max(1)), window.1.clamp(1, mh.max(1)))
    }

    /// A one-line note when a window of `window` pixels is larger than the
    /// viewport limit (GL draws the frame into the limit's rectangle and
    /// nothing beyond it), else `None`.
    pub fn viewport_note(&self, window: (u32, u32)) -> Option<String> {
        let (vw, vh) = self.max_viewport;
        (window.0 > vw || window.1 > vh).then(|| {
            format!(
                "note: the window is {}x{} px but this GPU draws at most {vw}x{vh} (GL_MAX_VIEWPORT_DIMS); \
                 the frame is squeezed into {}x{} and the rest stays background",
                window.0,
                window.1,
                window.0.min(vw),
                window.1.min(vh)
            )
        })
    }

    /// A one-line note about the offscreen targets for a window of `window`
    /// pixels when they are not the window's size: `made` is the size that
    /// could be made (`None`: not even 1x1). `None` when the targets are the
    /// window's size.
    pub fn target_note(&self, window: (u32, u32), made: Option<(u32, u32)>) -> Option<String> {
        let (w, h) = window;
        let Some(made) = made else {
            return Some(format!(
                "warning: cannot make any offscreen target for the {w}x{h} px window; the units are not drawn"
            ));
        };
        let clamped = self.target_size(window);
        if made != clamped {
            return Some(format!(
                "note: this GPU cannot make {} offscreen targets for the {w}x{h} px window; \
                 the scene is drawn at {} and stretched",
                size_text(clamped),
                size_text(made)
            ));
        }
        if made == window {
            return None;
        }
        self.viewport_note(window).or_else(|| {
            Some(format!(
                "note: the window is {w}x{h} px but this GPU's textures are at most {} \
                 (texture {}, renderbuffer {}); the scene is drawn at {} and stretched",
                size_text(self.max_target()),
                edge_text(self.max_texture),
                edge_text(self.max_renderbuffer),
                size_text(made)
            ))
        })
    }

    /// Why a capture of `window` pixels whose pixels are all `color` (RGB)
    /// is not a picture: one line naming the size and the limits. Used when
    /// something that is never one color (the overlay) was drawn.
    pub fn capture_refusal(&self, window: (u32, u32), color: [u8; 3]) -> String {
        let (tw, th) = self.max_target();
        let [r, g, b] = color;
        let over = if window.0 > tw || window.1 > th {
            "it is larger than"
        } else {
            "it is within"
        };
        format!(
            "the {}x{} px frame came back one color (rgb {r},{g},{b}), so nothing was drawn; \
             {over} this GPU's limit of {} (texture {}, renderbuffer {}, viewport {})",
            window.0,
            window.1,
            size_text((tw, th)),
            edge_text(self.max_texture),
            edge_text(self.max_renderbuffer),
            size_text(self.max_viewport),
        )
    }
}

/// `n` px, or "unknown" for a limit the context did not report.
fn edge_text(n: u32) -> String {
    if n == u32::MAX {
        "unknown".to_string()
    } else {
        n.to_string()
    }
}

/// `WxH`, with unknown edges named.
fn size_text((w, h): (u32, u32)) -> String {
    format!("{}x{}", edge_text(w), edge_text(h))
}

/// Clears GL's error flags (a few at most: one per kind of error recorded),
/// so that a following `glGetError` reports only what came after.
///
/// # Safety
/// A GL context must be current on this thread.
pub(crate) unsafe fn drain_gl_errors() {
    // GL keeps one flag per error kind (six in GL 2.1); 16 rounds end even a
    // context that keeps reporting, e.g. a lost one.
    for _ in 0..16 {
        // SAFETY: the caller guarantees a current context.
        if unsafe { gl::glGetError() } == gl::GL_NO_ERROR {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What llvmpipe (Mesa) reports: 16,384 for all three.
    const MESA: GlLimits = GlLimits {
        max_texture: 16_384,
        max_renderbuffer: 16_384,
        max_viewport: (16_384, 16_384),
    };

    #[test]
    fn a_window_one_pixel_wider_than_the_limit_gets_a_target_at_the_limit() {
        // Hard case W5: the target is clamped to Mesa's limit, never the
        // window's 16,385 px, which Mesa cannot make.
        assert_eq!(MESA.target_size((16_385, 600)), (16_384, 600));
        assert_eq!(MESA.target_size((600, 16_385)), (600, 16_384));
        assert_eq!(MESA.target_size((40_000, 30_000)), (16_384, 16_384));
    }

    #[test]
    fn windows_within_the_limits_keep_their_size() {
        assert_eq!(MESA.target_size((1280, 800)), (1280, 800));
        assert_eq!(MESA.target_size((16_384, 16_384)), (16_384, 16_384));
        // A minimized window (0x0) still gets a valid 1x1 target.
        assert_eq!(MESA.target_size((0, 0)), (1, 1));
    }

    #[test]
    fn the_smallest_of_the_three_limits_binds_each_edge() {
        let l = GlLimits::from_raw(8192, 4096, [16_384, 2048]);
        assert_eq!(l.max_target(), (4096, 2048));
        assert_eq!(l.target_size((5000, 5000)), (4096, 2048));
        assert_eq!(l.target_size((3000, 1000)), (3000, 1000));
    }

    #[test]
    fn limits_the_context_did_not_report_are_not_enforced() {
        let l = GlLimits::from_raw(0, -1, [0, 0]);
        assert_eq!(l.max_texture, u32::MAX);
        assert_eq!(l.target_size((20_000, 9_000)), (20_000, 9_000));
        assert_eq!(l.viewport_note((20_000, 9_000)), None);
        let only_texture = GlLimits::from_raw(4096, 0, [0, 0]);
        assert_eq!(only_texture.target_size((5000, 100)), (4096, 100));
        assert!(only_texture
            .capture_refusal((5000, 100), [0, 0, 0])
            .contains("renderbuffer unknown"));
    }

    #[test]
    fn the_viewport_note_names_the_window_and_the_limit_only_when_exceeded() {
        assert_eq!(MESA.viewport_note((16_384, 600)), None);
        let note = MESA.viewport_note((16_385, 600)).expect("exceeds");
        assert!(!note.contains('\n'), "{note}");
        assert!(note.contains("16385x600"), "{note}");
        assert!(note.contains("16384x16384"), "{note}");
        assert!(note.contains("GL_MAX_VIEWPORT_DIMS"), "{note}");
    }

    #[test]
    fn the_target_note_says_what_was_made_and_why() {
        assert_eq!(MESA.target_note((1280, 800), Some((1280, 800))), None);
        // Over the viewport limit: the viewport note (the frame is squeezed).
        let over = MESA
            .target_note((16_385, 600), Some((16_384, 600)))
            .unwrap();
        assert_eq!(Some(over), MESA.viewport_note((16_385, 600)));
        // Over the texture limit only: named with the size drawn.
        let tex = GlLimits::from_raw(4096, 8192, [16_384, 16_384]);
        let m = tex.target_note((5000, 600), Some((4096, 600))).unwrap();
        assert!(
            m.contains("5000x600") && m.contains("texture 4096") && m.contains("at 4096x600"),
            "{m}"
        );
        assert!(!m.contains('\n'), "{m}");
        // The clamped size failed; a halved one was made.
        let m = MESA
            .target_note((16_385, 16_385), Some((8192, 8192)))
            .unwrap();
        assert!(
            m.contains("cannot make 16384x16384") && m.contains("at 8192x8192"),
            "{m}"
        );
        let m = MESA.target_note((800, 600), None).unwrap();
        assert!(m.starts_with("warning:") && m.contains("800x600"), "{m}");
    }

    #[test]
    fn the_capture_refusal_is_one_line_naming_the_size_color_and_limit() {
        let m = MESA.capture_refusal((16_385, 600), [0, 0, 0]);
        assert!(!m.contains('\n'), "{m}");
        assert!(m.contains("16385x600"), "{m}");
        assert!(m.contains("rgb 0,0,0"), "{m}");
        assert!(
            m.contains("larger than this GPU's limit of 16384x16384"),
            "{m}"
        );
        let within = MESA.capture_refusal((1280, 800), [18, 20, 26]);
        assert!(within.contains("within"), "{within}");
    }
}
