//! Loading the unit mesh: OBJ text to quantized vertex streams.
//!
//! The OBJ is parsed by [`tobj`] (triangulated, single index); an object
//! without normals is un-indexed with one face normal per triangle by
//! [`flat_normals`] (flat shading), one with a normal per vertex keeps its
//! shared vertices (smooth shading); then the mesh is quantized by
//! [`quantize_mesh`] into the SNORM16 position and octahedral normal streams
//! that [`crate::window::render::pipeline::UnitRenderer`] uploads.

use glam::Vec3;

use crate::engine::compress::mesh::{flat_normals, quantize_mesh, QuantizedMesh};

use super::instances::FloatVertex;
pub use crate::settings::view::UnitMeshKind;

/// The unit mesh in both vertex layouts of [`super::VertexLayout`]: the
/// quantized split streams and the exact `f32` vertices they were made
/// from (same vertex order, same `quantized.indices`).
#[derive(Clone, Debug, PartialEq)]
pub struct UnitMesh {
    /// SNORM16 positions, octahedral SNORM16 normals, 16-bit indices.
    pub quantized: QuantizedMesh,
    /// The un-quantized vertices, 32 bytes each ([`FloatVertex`]).
    pub exact: Vec<FloatVertex>,
}

/// The unit mesh shipped with the crate (`assets/unit.obj`), embedded at
/// compile time.
///
/// A low-poly tank: +X (model space) is its facing direction, +Y is up, base at
/// y = 0, about 1.6 x 0.8 x 1 units (x, y, z). Triangles are counter-clockwise
/// seen from outside.
pub const UNIT_OBJ: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/unit.obj"));

/// Loads and quantizes the embedded unit mesh ([`UNIT_OBJ`]).
///
/// Returns one vertex per triangle corner (flat shading): 108 vertices for
/// the shipped 36-triangle asset.
///
/// # Errors
/// The message of [`load_obj_mesh`], prefixed with the asset's name; with the
/// shipped asset this only fails if the OBJ or the quantizer were broken.
pub fn load_unit_mesh() -> Result<QuantizedMesh, String> {
    load_unit_streams().map(|m| m.quantized)
}

/// [`load_unit_mesh`] with the exact vertices too ([`UnitMesh`]).
///
/// # Errors
/// As [`load_unit_mesh`].
pub fn load_unit_streams() -> Result<UnitMesh, String> {
    load_obj_streams(UNIT_OBJ).map_err(|e| format!("assets/unit.obj: {e}"))
}

/// Parses OBJ text and returns its quantized vertex streams.
///
/// `bytes` is the content of a Wavefront OBJ file (UTF-8 text). Every object
/// and group of the file is merged into one mesh; polygons are triangulated.
/// An object with a normal for every vertex (`vn`, `f v//vn`) keeps its
/// normals and its indexed vertices, shared where the file shares them
/// (smooth shading); an object without normals is flat-shaded, with face
/// normals from the winding (counter-clockwise is the front) and 3
/// vertices per triangle. Texture coordinates and materials are ignored.
/// Allocates the streams.
///
/// # Errors
/// A message naming what was wrong: the OBJ parse error reported by `tobj`
/// (its kind, e.g. "face vertex out of bounds"; tobj gives no line), a file with no
/// triangles, a non-finite position, or the quantizer's error (for example more
/// vertices than 16-bit indices can address).
pub fn load_obj_mesh(bytes: &[u8]) -> Result<QuantizedMesh, String> {
    load_obj_streams(bytes).map(|m| m.quantized)
}

/// [`load_obj_mesh`] with the exact vertices too ([`UnitMesh`]).
///
/// # Errors
/// As [`load_obj_mesh`].
pub fn load_obj_streams(bytes: &[u8]) -> Result<UnitMesh, String> {
    let models = parse_obj(bytes)?;
    let mut parts = ObjParts::default();
    for model in &models {
        parts.add(model)?;
    }
    if parts.indices.len() + parts.smooth_idx.len() < 3 {
        return Err("OBJ has no triangles (no 'f' lines with 3 or more vertices)".to_string());
    }
    debug_assert_eq!(
        parts.indices.len() % 3,
        0,
        "triangulated output has whole triangles"
    );
    parts.into_streams()
}

/// The objects of the OBJ file `bytes`, triangulated with one index per
/// vertex; materials are not read.
///
/// # Errors
/// The OBJ parse error reported by `tobj`.
fn parse_obj(bytes: &[u8]) -> Result<Vec<tobj::Model>, String> {
    // Triangulated, one index for position/normal/texcoord, points and lines
    // ignored: exactly tobj's preset for GPU meshes.
    let options = tobj::GPU_LOAD_OPTIONS;
    let mut reader = std::io::Cursor::new(bytes);
    // Materials are not used; an `mtllib` line must not make loading fail.
    let (models, _materials) =
        tobj::load_obj_buf(&mut reader, &options, |_| Ok(Default::default()))
            .map_err(|e| format!("OBJ parse error: {e}"))?;
    Ok(models)
}

/// The vertices and triangles of an OBJ's objects so far, by shading:
/// objects with a normal per vertex keep their indexed, shared vertices
/// (smooth where the file shares them); the others are flat-shaded.
#[derive(Default)]
struct ObjParts {
    /// Positions of the smooth objects' vertices.
    smooth_pos: Vec<Vec3>,
    /// Unit normals of the smooth objects' vertices.
    smooth_nrm: Vec<Vec3>,
    /// Triangles of the smooth objects, into `smooth_pos`.
    smooth_idx: Vec<u32>,
    /// Positions of the flat objects' vertices.
    positions: Vec<Vec3>,
    /// Triangles of the flat objects, into `positions`.
    indices: Vec<u32>,
}

impl ObjParts {
    /// Adds `model`: smooth when it has a normal for every vertex, else flat.
    ///
    /// # Errors
    /// A message naming the object: a non-finite position, a position count
    /// that is not a multiple of 3, too many vertices or an index out of
    /// range.
    fn add(&mut self, model: &tobj::Model) -> Result<(), String> {
        let mesh = &model.mesh;
        let count = mesh.positions.len() / 3;
        if count > 0 && mesh.normals.len() == mesh.positions.len() {
            self.add_smooth(model)
        } else {
            self.add_flat(model)
        }
    }

    /// Adds the smooth `model`, its normals normalized.
    ///
    /// # Errors
    /// As [`ObjParts::add`].
    fn add_smooth(&mut self, model: &tobj::Model) -> Result<(), String> {
        let mesh = &model.mesh;
        let count = mesh.positions.len() / 3;
        let base = self.smooth_pos.len() as u32;
        for (p, n) in mesh
            .positions
            .chunks_exact(3)
            .zip(mesh.normals.chunks_exact(3))
        {
            let (p, n) = (Vec3::new(p[0], p[1], p[2]), Vec3::new(n[0], n[1], n[2]));
            if !p.is_finite() {
                return Err(format!(
                    "object '{}': non-finite vertex position {p}",
                    model.name
                ));
            }
            self.smooth_pos.push(p);
            // A zero or broken normal falls back like oct_encode does.
            self.smooth_nrm.push(n.try_normalize().unwrap_or(Vec3::Z));
        }
        append_indices(
            &model.name,
            &mesh.indices,
            count,
            base,
            &mut self.smooth_idx,
        )
    }

    /// Adds the flat-shaded `model`'s positions and triangles.
    ///
    /// # Errors
    /// As [`ObjParts::add`].
    fn add_flat(&mut self, model: &tobj::Model) -> Result<(), String> {
        let mesh = &model.mesh;
        let count = mesh.positions.len() / 3;
        if !mesh.positions.len().is_multiple_of(3) {
            return Err(format!(
                "object '{}': {} position floats is not a multiple of 3",
                model.name,
                mesh.positions.len()
            ));
        }
        let base = u32::try_from(self.positions.len())
            .map_err(|_| format!("object '{}': too many vertices", model.name))?;
        append_indices(&model.name, &mesh.indices, count, base, &mut self.indices)?;
        for p in mesh.positions.chunks_exact(3) {
            let v = Vec3::new(p[0], p[1], p[2]);
            if !v.is_finite() {
                return Err(format!(
                    "object '{}': non-finite vertex position {v}",
                    model.name
                ));
            }
            self.positions.push(v);
        }
        Ok(())
    }

    /// The mesh's streams: the flat objects with face normals (3 vertices
    /// per triangle), then the smooth ones, quantized and exact.
    ///
    /// # Errors
    /// The quantizer's error (for example more vertices than 16-bit indices
    /// can address).
    fn into_streams(self) -> Result<UnitMesh, String> {
        let (mut flat_positions, mut normals, mut flat_indices) =
            flat_normals(&self.positions, &self.indices);
        let base = flat_positions.len() as u32;
        flat_positions.extend_from_slice(&self.smooth_pos);
        normals.extend_from_slice(&self.smooth_nrm);
        flat_indices.extend(self.smooth_idx.iter().map(|&i| base + i));
        let quantized = quantize_mesh(&flat_positions, &normals, &flat_indices)
            .map_err(|e| format!("quantizing the mesh failed: {e}"))?;
        let exact = flat_positions
            .iter()
            .zip(&normals)
            .map(|(p, n)| FloatVertex {
                position: p.to_array(),
                normal: n.to_array(),
                pad: [0.0; 2],
            })
            .collect();
        Ok(UnitMesh { quantized, exact })
    }
}

/// Appends `base + i` for every index `i` of object `name` to `out`.
///
/// # Errors
/// The first index at or past `count` (the object's vertices), named.
fn append_indices(
    name: &str,
    indices: &[u32],
    count: usize,
    base: u32,
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if let Some(&i) = indices.iter().find(|&&i| i as usize >= count) {
        return Err(format!(
            "object '{name}': index {i} out of range ({count} vertices)"
        ));
    }
    out.extend(indices.iter().map(|&i| base + i));
    Ok(())
}

/// Folders searched for `assets/`: the current folder's, then the one this
/// crate was built from (so `cargo run` works from any folder).
pub fn asset_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        dirs.push(cwd.join("assets"));
    }
    dirs.push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"));
    dirs
}

/// Loads the mesh `kind`: the embedded tank, or its file from the first of
/// `dirs` that has it ([`load_unit_file`]). Returns the mesh and, when the
/// file is missing or broken, the warning to show (the embedded tank is
/// returned instead). Never panics.
pub fn load_unit_kind(
    kind: UnitMeshKind,
    dirs: &[std::path::PathBuf],
) -> (UnitMesh, Option<String>) {
    let Some(file) = kind.file() else {
        return (builtin(), None);
    };
    match dirs.iter().map(|d| d.join(file)).find(|p| p.is_file()) {
        Some(path) => load_unit_file(&path),
        // The browser has no files: the copy compiled in.
        None if crate::platform::browser::IN_BROWSER => match embedded_obj(kind) {
            Some(bytes) => match load_obj_streams(bytes) {
                Ok(mesh) => (mesh, None),
                Err(e) => (
                    builtin(),
                    Some(format!("assets/{file}: {e}; drawing the built-in tank")),
                ),
            },
            None => (builtin(), None),
        },
        None => (
            builtin(),
            Some(format!(
                "assets/{file} not found (looked in {}); drawing the built-in tank",
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ),
    }
}

/// The OBJ of `kind` as compiled into the binary (for the browser, which
/// has no `assets/` folder); `None` for the built-in tank.
fn embedded_obj(kind: UnitMeshKind) -> Option<&'static [u8]> {
    match kind {
        UnitMeshKind::Tank => None,
        UnitMeshKind::Infantry => Some(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/infantry.obj"
        ))),
        UnitMeshKind::Vehicle => Some(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/vehicle.obj"
        ))),
    }
}

/// Reads and quantizes the OBJ at `path` ([`load_obj_streams`]); on any
/// error (unreadable, not UTF-8, not an OBJ, no triangles, too many
/// vertices) returns the embedded tank and a one-line warning naming the
/// file and the error.
pub fn load_unit_file(path: &std::path::Path) -> (UnitMesh, Option<String>) {
    let loaded = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| load_obj_streams(&bytes));
    match loaded {
        Ok(mesh) => (mesh, None),
        Err(e) => (
            builtin(),
            Some(format!(
                "{}: {e}; drawing the built-in tank",
                path.display()
            )),
        ),
    }
}

/// The embedded tank ([`UNIT_OBJ`]), which the tests check loads.
fn builtin() -> UnitMesh {
    load_unit_streams().unwrap_or_else(|e| panic!("the embedded unit mesh is broken: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::compress::octahedral::oct_decode_snorm16;

    #[test]
    fn the_embedded_meshes_load() {
        for kind in [UnitMeshKind::Infantry, UnitMeshKind::Vehicle] {
            let bytes = embedded_obj(kind).unwrap();
            let mesh = load_obj_streams(bytes).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
            assert!(mesh.exact.len() >= 3, "{kind:?}");
        }
        assert!(embedded_obj(UnitMeshKind::Tank).is_none());
    }

    #[test]
    fn unit_mesh_has_expected_shape() {
        let mesh = load_unit_mesh().expect("embedded unit mesh loads");
        assert_eq!(mesh.indices.len(), 36 * 3);
        assert_eq!(mesh.positions.len(), 36 * 3);
        assert_eq!(mesh.normals.len(), 36 * 3);
        let decoded: Vec<Vec3> = mesh
            .positions
            .iter()
            .map(|&p| mesh.quantization.decode(p))
            .collect();
        let lo = decoded.iter().copied().fold(Vec3::INFINITY, Vec3::min);
        let hi = decoded.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
        assert!(lo.abs_diff_eq(Vec3::new(-0.8, 0.0, -0.5), 1e-4), "{lo}");
        assert!(hi.abs_diff_eq(Vec3::new(0.8, 0.8, 0.5), 1e-4), "{hi}");
    }

    #[test]
    fn unit_mesh_faces_point_outward() {
        // Every face of the asset faces away from the vertical axis through
        // its part, or up/down; a reversed triangle would point inward.
        let mesh = load_unit_mesh().unwrap();
        for tri in mesh.indices.chunks_exact(3) {
            let p: Vec<Vec3> = tri
                .iter()
                .map(|&i| mesh.quantization.decode(mesh.positions[i as usize]))
                .collect();
            let n = oct_decode_snorm16(mesh.normals[tri[0] as usize]);
            let centroid = (p[0] + p[1] + p[2]) / 3.0;
            let winding = (p[1] - p[0]).cross(p[2] - p[0]).normalize();
            assert!(n.dot(winding) > 0.99, "normal {n} vs winding {winding}");
            if n.y.abs() < 0.9 {
                // Side faces: outward from the unit's center line (hull,
                // turret) or the barrel's axis.
                let axis = if centroid.y > 0.5 && centroid.x > 0.0 && n.y.abs() < 0.1 {
                    Vec3::new(centroid.x.min(0.7), 0.61, 0.0)
                } else {
                    Vec3::new(-0.2, centroid.y, 0.0)
                };
                assert!(n.dot(centroid - axis) > 0.0, "inward face at {centroid}");
            }
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let err = load_obj_mesh(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n").unwrap_err();
        assert!(err.contains("OBJ parse error"), "{err}");
        let err = load_obj_mesh(b"v 0 0 0\nv 1 0 0\n").unwrap_err();
        assert!(err.contains("no triangles"), "{err}");
        let err = load_obj_mesh(b"v 0 0 x\n").unwrap_err();
        assert!(err.contains("OBJ parse error"), "{err}");
    }

    #[test]
    fn exact_vertices_match_the_quantized_ones_within_quantization() {
        let m = load_unit_streams().unwrap();
        let q = &m.quantized;
        assert_eq!(m.exact.len(), q.positions.len());
        // SNORM16 over the box: half a step of the half extent per axis.
        let step = q.quantization.half_extent / 32_767.0;
        for (k, v) in m.exact.iter().enumerate() {
            let p = Vec3::from_array(v.position);
            let d = (q.quantization.decode(q.positions[k]) - p).abs();
            assert!(d.cmple(step * 0.5 + 1e-6).all(), "vertex {k}: {d}");
            let n = Vec3::from_array(v.normal);
            assert!((n.length() - 1.0).abs() < 1e-5, "vertex {k} normal {n}");
            let angle = n
                .dot(oct_decode_snorm16(q.normals[k]))
                .clamp(-1.0, 1.0)
                .acos();
            assert!(angle < 1e-3, "vertex {k}: normal off by {angle} rad");
        }
    }

    #[test]
    fn the_unit_mesh_normal_errors_the_overlay_prints_are_within_the_bounds() {
        use crate::window::render::instances::{normal_errors, NormalPrecision};
        let m = load_unit_streams().unwrap();
        let normals: Vec<Vec3> = m.exact.iter().map(|v| Vec3::from_array(v.normal)).collect();
        let e16 = normal_errors(&normals, NormalPrecision::Oct16);
        let e8 = normal_errors(&normals, NormalPrecision::Oct8);
        assert!(e16.max < 0.01 && e8.max < 1.0, "{} / {}", e16.max, e8.max);
        // The mesh's axis-aligned faces decode exactly; its slanted ones do not.
        assert!(
            e8.max > 0.05,
            "8-bit shows an error on this mesh: {}",
            e8.max
        );
        assert!(e16.per_vertex.contains(&0.0));
    }

    #[test]
    fn every_mesh_in_assets_loads_with_unit_normals_and_outward_faces() {
        let dirs = [std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")];
        for kind in UnitMeshKind::ALL {
            let (m, warning) = load_unit_kind(kind, &dirs);
            assert_eq!(warning, None, "{kind:?}");
            let q = &m.quantized;
            let triangles = q.indices.len() / 3;
            match kind {
                UnitMeshKind::Tank => assert_eq!(triangles, 36),
                _ => assert!((150..=400).contains(&triangles), "{kind:?}: {triangles}"),
            }
            for v in &m.exact {
                let n = Vec3::from_array(v.normal);
                assert!((n.length() - 1.0).abs() < 1e-4, "{kind:?}: normal {n}");
            }
            // Each triangle's winding agrees with its vertices' normals.
            for t in q.indices.chunks_exact(3) {
                let p: Vec<Vec3> = t
                    .iter()
                    .map(|&i| Vec3::from_array(m.exact[i as usize].position))
                    .collect();
                let w = (p[1] - p[0]).cross(p[2] - p[0]);
                let n: Vec3 = t
                    .iter()
                    .map(|&i| Vec3::from_array(m.exact[i as usize].normal))
                    .sum();
                assert!(
                    w.dot(n) > 0.0,
                    "{kind:?}: triangle {t:?} winds against its normals"
                );
            }
            // The smooth meshes share vertices: fewer vertices than corners.
            if kind != UnitMeshKind::Tank {
                assert!(m.exact.len() < q.indices.len(), "{kind:?} is indexed");
            }
            assert_eq!(UnitMeshKind::from_key(kind.key()), Some(kind));
        }
    }

    #[test]
    fn a_missing_or_broken_mesh_file_falls_back_to_the_tank_with_a_warning() {
        let dir = std::env::temp_dir().join(format!("sql-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tank = load_unit_streams().unwrap();
        let (m, warning) = load_unit_kind(UnitMeshKind::Infantry, std::slice::from_ref(&dir));
        assert_eq!(m, tank);
        assert!(
            warning
                .as_deref()
                .is_some_and(|w| w.contains("infantry.obj not found")),
            "{warning:?}"
        );
        for (content, why) in [
            (&b"v 0 0 0\nf 1 2 3\n"[..], "OBJ parse error"),
            (&b"just text\n"[..], "no triangles"),
            (&[0xff, 0xfe, 0x00][..], ""),
        ] {
            std::fs::write(dir.join("infantry.obj"), content).unwrap();
            let (m, warning) = load_unit_kind(UnitMeshKind::Infantry, std::slice::from_ref(&dir));
            assert_eq!(m, tank);
            let w = warning.expect("a warning");
            assert!(
                w.contains("infantry.obj") && w.contains(why) && w.contains("built-in tank"),
                "{w}"
            );
            assert_eq!(w.lines().count(), 1, "{w}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn quad_is_triangulated() {
        let mesh = load_obj_mesh(b"v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 4 3 2\n").unwrap();
        assert_eq!(mesh.indices.len(), 6);
    }
}
