//! Saving the window's framebuffer as a PNG.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Saves the current framebuffer to `path` as an 8-bit RGBA PNG.
///
/// Call after everything of the frame (the overlay included) has been drawn
/// and before `next_frame().await`. Reads the pixels with macroquad's
/// `get_screen_data()` (which flushes queued drawing first), flips the rows
/// (OpenGL's first row is the bottom one), forces alpha to 255, and encodes
/// with the `png` crate. Allocates two copies of the frame (4 bytes per pixel).
///
/// # Errors
/// A message naming `path` if the file cannot be created (missing directory,
/// no permission) or the PNG cannot be written; file errors never panic.
///
/// # Panics
/// If called outside a running macroquad window (macroquad's context asserts
/// it exists).
pub fn save_screenshot(path: &Path) -> Result<(), String> {
    let image = macroquad::texture::get_screen_data();
    let (width, height) = (usize::from(image.width), usize::from(image.height));
    let row = width * 4;
    if width == 0 || height == 0 || image.bytes.len() != row * height {
        return Err(format!(
            "cannot save screenshot {}: framebuffer is {width}x{height} with {} bytes",
            path.display(),
            image.bytes.len()
        ));
    }
    let mut pixels = Vec::with_capacity(image.bytes.len());
    for src in image.bytes.chunks_exact(row).rev() {
        pixels.extend_from_slice(src);
    }
    for alpha in pixels.iter_mut().skip(3).step_by(4) {
        *alpha = 255;
    }
    write_png(path, width as u32, height as u32, &pixels)
}

/// Writes top-down RGBA8 `pixels` (`width * height * 4` bytes) to `path`.
fn write_png(path: &Path, width: u32, height: u32, pixels: &[u8]) -> Result<(), String> {
    let file = File::create(path)
        .map_err(|e| format!("cannot create screenshot file {}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let write_error =
        |e: png::EncodingError| format!("cannot write screenshot file {}: {e}", path.display());
    let mut writer = encoder.write_header().map_err(write_error)?;
    writer.write_image_data(pixels).map_err(write_error)?;
    writer.finish().map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_directory_is_an_error_naming_the_path() {
        let path = Path::new("/nonexistent-dir-for-screenshot-test/shot.png");
        let err = write_png(path, 1, 1, &[0, 0, 0, 255]).unwrap_err();
        assert!(
            err.contains("/nonexistent-dir-for-screenshot-test/shot.png"),
            "{err}"
        );
    }
}
