//! Scratch harness for the render pipeline: draws the world and 10,000
//! instanced units for 30 frames, saves a screenshot and exits.
//!
//! ```text
//! render_check OUT.png [HEADINGS] [ZOOM]
//! ```
//! - `HEADINGS`: `random` (default) or a angle in degrees that every unit
//!   faces (0 = world +X, 90 = world +Z), to check the facing convention.
//! - `ZOOM`: camera distance factor relative to the framed world (default 1;
//!   0.15 shows a close-up of the world's center).
//!
//! Run headless with
//! `xvfb-run -a -s "-screen 0 1280x800x24" target/release/examples/render_check shot.png`.

use std::path::PathBuf;

use macroquad::camera::{set_camera, set_default_camera};
use macroquad::color::{Color, WHITE};
use macroquad::models::draw_line_3d;
use macroquad::text::draw_text;
use macroquad::window::{clear_background, next_frame, screen_height, screen_width, Conf};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use spatial_query_lab::window::render::{
    draw_world, load_unit_streams, save_screenshot, OrbitCamera, UnitInstance, UnitRenderer,
};

const WORLD: f32 = 443.0;
const UNITS: usize = 10_000;
const FRAMES: usize = 30;
const BLUE: [u8; 4] = [70, 140, 255, 255];
const ORANGE: [u8; 4] = [255, 145, 40, 255];

fn conf() -> Conf {
    Conf {
        window_title: "render_check".to_owned(),
        window_width: 1280,
        window_height: 800,
        high_dpi: false,
        window_resizable: false,
        ..Default::default()
    }
}

fn fail(message: &str) -> ! {
    eprintln!("render_check: {message}");
    std::process::exit(1)
}

#[macroquad::main(conf)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = PathBuf::from(args.get(1).map_or("render_check.png", String::as_str));
    let fixed_heading: Option<f32> = match args.get(2).map(String::as_str) {
        None | Some("random") => None,
        Some(deg) => match deg.parse::<f32>() {
            Ok(d) if d.is_finite() => Some(d.to_radians()),
            _ => fail(&format!(
                "HEADINGS must be 'random' or degrees, got '{deg}'"
            )),
        },
    };
    let zoom: f32 = match args.get(3) {
        None => 1.0,
        Some(z) => match z.parse::<f32>() {
            Ok(z) if z.is_finite() && z > 0.0 => z,
            _ => fail(&format!("ZOOM must be a positive number, got '{z}'")),
        },
    };

    let mesh = load_unit_streams().unwrap_or_else(|e| fail(&e));
    let mut renderer = UnitRenderer::new(&mesh, 1024).unwrap_or_else(|e| fail(&e));

    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    let instances: Vec<UnitInstance> = (0..UNITS)
        .map(|i| UnitInstance {
            x: rng.gen_range(0.0..WORLD),
            z: rng.gen_range(0.0..WORLD),
            heading: fixed_heading
                .unwrap_or_else(|| rng.gen_range(-std::f32::consts::PI..std::f32::consts::PI)),
            scale: 2.5,
            color: if i % 2 == 0 { BLUE } else { ORANGE },
        })
        .collect();

    let mut camera = OrbitCamera::looking_at_world(WORLD);
    camera.frame_world_for_aspect(WORLD, screen_width() / screen_height());
    camera.distance *= zoom;
    {
        // Our matrix must be macroquad's, or lines and units would not line up.
        use macroquad::camera::Camera;
        let aspect = screen_width() / screen_height();
        let ours = camera.view_proj(aspect);
        let theirs = camera.macroquad_camera(aspect).matrix();
        if !ours.abs_diff_eq(theirs, 1e-6) {
            fail(&format!("view_proj {ours} differs from Camera3D {theirs}"));
        }
    }

    for frame in 0..FRAMES {
        let aspect = screen_width() / screen_height();
        clear_background(Color::new(0.05, 0.06, 0.08, 1.0));
        set_camera(&camera.macroquad_camera(aspect));
        draw_world(WORLD, Some(WORLD / 16.0));
        // World axes at the origin: +X red, +Z blue (for checking headings).
        draw_line_3d(
            macroquad::math::Vec3::new(0.0, 1.0, 0.0),
            macroquad::math::Vec3::new(60.0, 1.0, 0.0),
            Color::new(1.0, 0.2, 0.2, 1.0),
        );
        draw_line_3d(
            macroquad::math::Vec3::new(0.0, 1.0, 0.0),
            macroquad::math::Vec3::new(0.0, 1.0, 60.0),
            Color::new(0.3, 0.5, 1.0, 1.0),
        );
        renderer.set_instance_codec(WORLD, 2.5);
        renderer.draw(camera.view_proj(aspect), &instances);

        set_default_camera();
        let layout = renderer.layout();
        draw_text(
            format!(
                "{UNITS} units, {} vertices x {} B, {} B/instance ({layout}), frame {frame}",
                renderer.vertex_count(),
                layout.vertex_bytes(),
                layout.instance_bytes()
            ),
            12.0,
            24.0,
            22.0,
            WHITE,
        );

        if frame + 1 == FRAMES {
            // The caption is on the frame: one color would mean nothing was drawn.
            match save_screenshot(&out, true) {
                Ok(()) => {
                    println!("saved {}", out.display());
                    std::process::exit(0);
                }
                Err(e) => fail(&e),
            }
        }
        next_frame().await;
    }
}
