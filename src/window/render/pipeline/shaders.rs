//! The GLSL `#version 100` sources of the unit pipelines (`shaders/`),
//! compiled into the binary.

/// GLSL `#version 100` vertex shader of the compressed layout (`shaders/unit.vert`).
pub const UNIT_VERTEX_SHADER: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/unit.vert"));
/// GLSL `#version 100` vertex shader of the uncompressed layout (`shaders/unit_f32.vert`).
pub const UNIT_F32_VERTEX_SHADER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/unit_f32.vert"
));
/// GLSL `#version 100` fragment shader source of both layouts (`shaders/unit.frag`).
pub const UNIT_FRAGMENT_SHADER: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/unit.frag"));
