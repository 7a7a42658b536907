//! Saving the window's framebuffer as a PNG.
//!
//! The pixels are read from the window's own framebuffer with `glReadPixels`,
//! not through macroquad's `get_screen_data`, which first copies the screen
//! into a texture of the screen's size: past `GL_MAX_TEXTURE_SIZE` (16,384
//! px under Mesa) that texture cannot be made and the "screenshot" was all
//! zeros, saved and reported as saved. A frame that comes back one color
//! although the overlay (or other detail) was drawn on it is refused, never saved.

use std::path::Path;

use macroquad::miniquad::{gl, PassAction};
use macroquad::window::get_internal_gl;

use super::gl_limits::{drain_gl_errors, GlLimits};

/// `GL_PACK_ALIGNMENT` (row alignment of `glReadPixels`; not among miniquad's constants).
const GL_PACK_ALIGNMENT: u32 = 0x0D05;

/// Frames smaller than this on either edge (pixels) may be covered by one
/// color even with the overlay drawn, so they are never refused as one color.
const MIN_CHECKED_EDGE: u32 = 64;

/// Saves the current framebuffer to `path` as an 8-bit RGBA PNG.
///
/// Call after everything of the frame (the overlay included) has been drawn
/// and before `next_frame().await`. Flushes macroquad's queued drawing, reads
/// the window's framebuffer (physical pixels) with `glReadPixels`, flips the
/// rows (OpenGL's first row is the bottom one), forces alpha to 255, and
/// encodes with the `png` crate. `detail_drawn` says something that is
/// never one color is on this frame (the overlay's panel, a caption): such a
/// frame that reads back as one color (at least 64 px on each edge) means
/// nothing was drawn, and is refused. Allocates one copy of the frame (4 bytes per pixel), flipped in
/// place.
///
/// # Errors
/// A one-line message naming `path` if the frame cannot be read (GL error,
/// not enough memory), if it is one color although `detail_drawn`
/// (naming the frame's size, its color and the GPU's size limits), or if the
/// file cannot be created or written; nothing is written then, and nothing
/// panics.
///
/// # Panics
/// If called outside a running macroquad window.
pub fn save_screenshot(path: &Path, detail_drawn: bool) -> Result<(), String> {
    let fail = |e: String| format!("cannot save screenshot {}: {e}", path.display());
    let png = screenshot_png(detail_drawn).map_err(fail)?;
    write_file(path, &png)
}

/// The current framebuffer as the bytes of an 8-bit RGBA PNG file: what
/// [`save_screenshot`] writes (same checks), for the browser, which offers
/// it as a download instead of writing a file.
///
/// # Errors
/// As [`save_screenshot`], without the file's; the message names no file.
///
/// # Panics
/// If called outside a running macroquad window.
pub fn screenshot_png(detail_drawn: bool) -> Result<Vec<u8>, String> {
    let (width, height, mut pixels) = read_frame()?;
    if detail_drawn && width >= MIN_CHECKED_EDGE && height >= MIN_CHECKED_EDGE {
        if let Some(color) = one_color(&pixels) {
            return Err(GlLimits::current().capture_refusal((width, height), color));
        }
    }
    let row = width as usize * 4;
    // Flip in place: swap row i with row height-1-i.
    let half = pixels.len() / row / 2;
    let (top, bottom) = pixels.split_at_mut(half * row);
    let bottom_rows = bottom.len() / row;
    for (i, upper) in top.chunks_exact_mut(row).enumerate() {
        let lower = &mut bottom[(bottom_rows - 1 - i) * row..][..row];
        upper.swap_with_slice(lower);
    }
    for alpha in pixels.iter_mut().skip(3).step_by(4) {
        *alpha = 255;
    }
    encode_png(width, height, &pixels)
}

/// The part of the window at `[x, y, width, height]` (pixels from the
/// top-left corner, clipped to the window) as PNG file bytes: a chart
/// saved alone ("save chart"), written to a file or offered as a download
/// by `app::files`. Call after everything of the frame is drawn.
///
/// # Errors
/// If the frame cannot be read or the region is empty once clipped.
///
/// # Panics
/// If called outside a running macroquad window.
pub fn region_png([x, y, w, h]: [u32; 4]) -> Result<Vec<u8>, String> {
    let (width, height, pixels) = read_frame()?;
    let (x1, y1) = (
        x.saturating_add(w).min(width),
        y.saturating_add(h).min(height),
    );
    if x >= x1 || y >= y1 {
        return Err(format!(
            "the region {w}x{h} at ({x}, {y}) is outside the {width}x{height} window"
        ));
    }
    let (cw, ch) = (x1 - x, y1 - y);
    let row = width as usize * 4;
    let mut out = Vec::with_capacity(cw as usize * ch as usize * 4);
    for top in y..y1 {
        // Rows are stored bottom-up.
        let src = &pixels[(height - 1 - top) as usize * row..][..row];
        out.extend_from_slice(&src[x as usize * 4..x1 as usize * 4]);
    }
    for alpha in out.iter_mut().skip(3).step_by(4) {
        *alpha = 255;
    }
    encode_png(cw, ch, &out)
}

/// The window's framebuffer as (width, height, bottom-up RGBA8 rows).
fn read_frame() -> Result<(u32, u32, Vec<u8>), String> {
    // SAFETY: macroquad main thread, inside the window (the caller's
    // documented precondition); the borrow ends at the end of this function
    // and no other macroquad call is made meanwhile.
    let mut internal = unsafe { get_internal_gl() };
    internal.flush();
    let (w, h) = macroquad::miniquad::window::screen_size();
    let (width, height) = (w.max(0.0) as u32, h.max(0.0) as u32);
    let len = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(4))
        .filter(|&n| n > 0 && i32::try_from(width.max(height)).is_ok())
        .ok_or_else(|| format!("the window is {width}x{height} px"))?;
    let mut pixels = Vec::new();
    pixels
        .try_reserve_exact(len)
        .map_err(|_| format!("not enough memory for a {width}x{height} px frame"))?;
    pixels.resize(len, 0);
    // Binds the window's framebuffer (whichever id miniquad found for it).
    internal
        .quad_context
        .begin_default_pass(PassAction::Nothing);
    // SAFETY: the context is current (above). `pixels` holds width * height
    // * 4 bytes, exactly what GL_RGBA/GL_UNSIGNED_BYTE writes with a pack
    // alignment of 4 (set here; 4-byte pixels need no row padding), and no
    // pixel-pack buffer is bound (miniquad never binds one), so GL writes
    // through the pointer into `pixels` and nowhere else. width and height
    // fit an i32 (checked above).
    let error = unsafe {
        drain_gl_errors();
        gl::glPixelStorei(GL_PACK_ALIGNMENT, 4);
        gl::glReadPixels(
            0,
            0,
            width as i32,
            height as i32,
            gl::GL_RGBA,
            gl::GL_UNSIGNED_BYTE,
            pixels.as_mut_ptr().cast(),
        );
        gl::glGetError()
    };
    internal.quad_context.end_render_pass();
    if error != gl::GL_NO_ERROR {
        return Err(format!(
            "reading the {width}x{height} px frame failed (GL error 0x{error:04X})"
        ));
    }
    Ok((width, height, pixels))
}

/// The RGB color of every pixel of `rgba` (RGBA8, alpha ignored) when they
/// are all the same, else `None` (also for no pixels). Stops at the first
/// pixel that differs, so a real picture costs a few comparisons.
pub fn one_color(rgba: &[u8]) -> Option<[u8; 3]> {
    let first = rgba.get(..3)?;
    rgba.chunks_exact(4)
        .all(|p| &p[..3] == first)
        .then(|| [first[0], first[1], first[2]])
}

/// Top-down RGBA8 `pixels` (`width * height * 4` bytes) as the bytes of a
/// PNG file. Allocates the file's bytes.
fn encode_png(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let encode_error = |e: png::EncodingError| format!("cannot encode the PNG: {e}");
    let mut writer = encoder.write_header().map_err(encode_error)?;
    writer.write_image_data(pixels).map_err(encode_error)?;
    writer.finish().map_err(encode_error)?;
    Ok(bytes)
}

/// Writes `bytes` to `path`, naming the file in the error.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::platform::output_file::write(path, bytes)
        .map_err(|e| format!("cannot write screenshot file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_directory_is_an_error_naming_the_path() {
        let path = Path::new("/nonexistent-dir-for-screenshot-test/shot.png");
        let png = encode_png(1, 1, &[0, 0, 0, 255]).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
        let err = write_file(path, &png).unwrap_err();
        assert!(
            err.contains("/nonexistent-dir-for-screenshot-test/shot.png"),
            "{err}"
        );
    }

    #[test]
    fn a_frame_of_one_color_is_found_and_alpha_is_ignored() {
        // What the 16,385 px window gave: every pixel zero.
        assert_eq!(one_color(&[0; 4 * 1000]), Some([0, 0, 0]));
        let mut frame = [18, 20, 26, 255].repeat(500);
        frame[7] = 0; // alpha of the second pixel
        assert_eq!(one_color(&frame), Some([18, 20, 26]));
        // One channel of the last pixel differs.
        let n = frame.len();
        frame[n - 2] = 27;
        assert_eq!(one_color(&frame), None);
        assert_eq!(one_color(&[]), None);
    }
}
