//! Keyboard and mouse that the overlay does not own: key actions through
//! the binding table ([`super::keys`]), the camera, and clicks for picking
//! ([`super::picking`]).

use glam::Vec2;
use macroquad::prelude::{
    get_frame_time, is_key_down, is_mouse_button_down, is_mouse_button_pressed,
    is_mouse_button_released, mouse_position, screen_height, screen_width, MouseButton,
};

use super::exports::Export;
use super::keys::{self, Action};
use super::pointer::PointerFrame;
use super::{aspect, App};
use crate::engine::sim::{Layout, Pass};
use crate::engine::spatial::Kernel;
use crate::window::render::{CameraInput, OrbitCamera, PassInput};
use crate::window::ui::compare::CompareAction;
use crate::window::ui::lesson::LessonAction;
use crate::window::ui::overlay::{cell_max, radius_range, radius_top};
use crate::window::ui::sweep::SweepAction;

impl App {
    /// Keys (unless a text field has focus) and the mouse (what the overlay
    /// does not own): shortcuts, the camera, picking. `pass` is what this
    /// frame's overlay pass claimed and the wheel of the events it delivered
    /// (not macroquad's `mouse_wheel()`, which keeps only a frame's last
    /// event, unscaled; see [`crate::window::render::egui_host`]).
    pub(super) fn input(&mut self, pass: PassInput) {
        let claims = pass.claims;
        if !claims.keyboard {
            let pressed = |k| keys::pressed_plain(&pass.keys, k);
            for action in keys::pressed_actions(pressed, is_key_down) {
                self.apply(action);
            }
        }
        // The presenter view's buttons (the browser; 0 elsewhere).
        match crate::platform::browser::presenter_poll() {
            1 => self.lesson_action(LessonAction::Next),
            -1 => self.lesson_action(LessonAction::Back),
            _ => {}
        }
        let button = |f: fn(MouseButton) -> bool| {
            [
                f(MouseButton::Left),
                f(MouseButton::Right),
                f(MouseButton::Middle),
            ]
        };
        let frame = PointerFrame {
            pos: Vec2::from(mouse_position()),
            pressed: button(is_mouse_button_pressed),
            released: button(is_mouse_button_released),
            down: button(is_mouse_button_down),
            wheel: pass.wheel.y,
        };
        let scene = self.picking.pointer.route(&frame, claims.pointer);
        let held = |a: Action| (!claims.keyboard && keys::is_held(a, is_key_down)) as i32 as f32;
        let input = CameraInput {
            orbit_drag: scene.orbit_drag,
            pan_drag: scene.pan_drag,
            wheel: scene.wheel,
            pan_keys: Vec2::new(
                held(Action::PanRight) - held(Action::PanLeft),
                held(Action::PanForward) - held(Action::PanBack),
            ),
            orbit_keys: held(Action::OrbitRight) - held(Action::OrbitLeft),
            zoom_keys: held(Action::ZoomIn) - held(Action::ZoomOut),
            dt: get_frame_time(),
        };
        if input.pan_drag != Vec2::ZERO || input.pan_keys != Vec2::ZERO {
            // Panning away from a followed unit means: stop following it.
            self.picking.selection.set_follow(false);
        }
        self.camera.apply_input(&input, screen_height());
        if let Some(at) = scene.click {
            // The ground point under the click, with this refresh's camera;
            // picked now, or once a worker gives the simulation back.
            let ndc = OrbitCamera::screen_to_ndc(at, Vec2::new(screen_width(), screen_height()));
            self.picking.click(self.camera.ground_point(aspect(), ndc));
            self.pick_clicked();
        }
    }

    /// Carries out one key action.
    pub(super) fn apply(&mut self, action: Action) {
        let s = &mut self.settings;
        match action {
            Action::Strategy(st) => s.strategy = st,
            Action::NextKernel => {
                let avail: Vec<Kernel> = Kernel::available().collect();
                let i = avail.iter().position(|k| *k == s.kernel).unwrap_or(0);
                s.kernel = avail[(i + 1) % avail.len()];
            }
            Action::NextLayout => {
                let all = Layout::ALL;
                let i = all.iter().position(|l| *l == s.layout).unwrap_or(0);
                s.layout = all[(i + 1) % all.len()];
            }
            Action::ToggleVertexLayout => {
                self.view.settings.vertex_layout = self.view.settings.vertex_layout.next()
            }
            Action::SaveScreenshot => self.exports.request(Export::Window),
            Action::NextUnitMesh => self.view.settings.mesh = self.view.settings.mesh.next(),
            Action::ToggleNormalPrecision => {
                self.view.settings.normal_bits = self.view.settings.normal_bits.next()
            }
            Action::TogglePass => {
                let i = Pass::ALL.iter().position(|p| *p == s.pass).unwrap_or(0);
                s.pass = Pass::ALL[(i + 1) % Pass::ALL.len()];
            }
            Action::NextThreads => s.threads = s.threads % self.stats.cores.max(1) + 1,
            Action::TogglePause => s.paused = !s.paused,
            Action::CellSmaller | Action::CellLarger => {
                s.cell_follows_radius = false;
                s.cell_size = if action == Action::CellSmaller {
                    (s.cell_size / 1.25).max(self.stats.cell_min)
                } else {
                    (s.cell_size * 1.25).min(cell_max().max(s.cell_size))
                };
            }
            Action::RadiusSmaller => {
                s.radius = (s.radius / 1.25).max(radius_range().0.min(s.radius))
            }
            Action::RadiusLarger => {
                s.radius = (s.radius * 1.25)
                    .min(radius_top(self.stats.radius_max))
                    .max(s.radius);
            }
            Action::CellSweep if self.sweep.is_open() => self.sweep_action(SweepAction::Close),
            Action::CellSweep => self.sweep_action(SweepAction::Start),
            Action::ToggleGrid => self.view.show_grid = !self.view.show_grid,
            Action::NextColorMode => self.view.settings.color = self.view.settings.color.next(),
            Action::ToggleOccupancy => self.view.settings.heatmap = !self.view.settings.heatmap,
            Action::Respawn => self.stepping.respawn = true,
            Action::ResetCamera => self.frame_world(),
            Action::ToggleFollow => {
                let selection = &mut self.picking.selection;
                selection.set_follow(!selection.follows());
            }
            Action::ToggleOverlay => self.view.show_overlay = !self.view.show_overlay,
            Action::ToggleHelp => self.view.show_help = !self.view.show_help,
            Action::ToggleFullscreen => self.view.fullscreen = !self.view.fullscreen,
            Action::ToggleMemory => self.view.show_memory = !self.view.show_memory,
            Action::Measure => self.start_measuring(),
            Action::ToggleLessons => self.view.show_lessons = !self.view.show_lessons,
            Action::LessonNext => self.lesson_action(LessonAction::Next),
            Action::LessonBack => self.lesson_action(LessonAction::Back),
            Action::CopyLink => self.copy_link(),
            Action::Presenter => self.open_presenter(),
            Action::Export(e) => self.export(e),
            Action::Deselect => self.picking.selection.clear(),
            Action::PanForward
            | Action::PanBack
            | Action::PanLeft
            | Action::PanRight
            | Action::OrbitLeft
            | Action::OrbitRight
            | Action::ZoomIn
            | Action::ZoomOut => {}
        }
    }

    /// Carries out the export key `e` ([`super::keys::Export`]) for the lesson
    /// panel when a lesson is open and shown, else for the compare panel.
    pub(super) fn export(&mut self, e: keys::Export) {
        use keys::Export;
        if self.view.show_lessons && self.lessons.session.is_some() {
            let act = match e {
                Export::Markdown => LessonAction::CopyMarkdown,
                Export::Csv => LessonAction::SaveCsv,
                Export::Json => LessonAction::SaveJson,
                Export::Chart => LessonAction::SaveChart,
            };
            self.lesson_action(act);
        } else {
            let act = match e {
                Export::Markdown => CompareAction::CopyMarkdown,
                Export::Csv => CompareAction::SaveCsv,
                Export::Json => CompareAction::SaveJson,
                Export::Chart => CompareAction::SaveChart,
            };
            self.compare_action(act);
        }
    }
}
