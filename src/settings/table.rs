//! The one settings table: a row per setting, written once, from which
//! every surface derives.
//!
//! The table is data: the [`settings_table!`](crate::settings_table) macro
//! holds the rows and hands them to a *consumer* macro, which writes what
//! its surface needs (an X-macro). The consumers:
//!
//! - `Settings` and its defaults (`crate::engine::sim::Settings`), the
//!   engine rows; [`ViewSettings`](crate::settings::view::ViewSettings), the
//!   view rows;
//! - [`TABLE`](crate::settings::rows::TABLE) and
//!   [`ROWS`](crate::settings::rows::ROWS): each row's key, flag, kind,
//!   range, unit, slider, help sentence and surfaces as values, read by the
//!   range checks, `--help`, the overlay's sliders and tooltips and the
//!   docs' field table;
//! - scenario and lesson files ([`crate::settings::scenario`]);
//! - the window's and `bench`'s flags ([`crate::settings::flags`]);
//! - links and command lines ([`crate::settings::link`]);
//! - `bench`'s lists and its rows' settings columns
//!   ([`crate::settings::values`]).
//!
//! A row:
//!
//! ```text
//! key: Type [optional]? = Kind {
//!     flag: "flag-name",                  // --flag-name; URL parameter flag-name=
//!     default: (EXPR) or (EXPR, "text"),  // the value when nothing sets it; "text" when it is derived
//!     range: [MIN, MAX] or none,          // numeric settings: one range on every surface
//!     unit: "unit",                       // for messages and the docs ("" for none)
//!     slider: [LO, HI, STEP] or [LO, HI, STEP, log] or none,  // the overlay's slider
//!     help: "One sentence.",              // --help, tooltips, the docs' field table
//!     on: [window, file, link, row, slider, overlay],  // the surfaces beyond Settings
//!     bench: none, one, (one EXPR) or (list "flag" (EXPR)),  // bench's flag: one value
//!                                         // (EXPR: bench's own default) or a list
//! }
//! ```
//!
//! `Kind` says how a value is read, checked and written: `Whole` (a whole
//! number within the range), `Real` (a finite number within the range),
//! `Name` (one of a [`Named`](crate::named::Named) set's keys), `KernelName`
//! (a kernel's key or `best`), `Bits` (16 or 8) and `Flag` (true or
//! false). `[optional]` stores the value as `Option<Type>` in `Settings`:
//! `None` is the derived default. The engine rows come first, the view rows
//! (the window's look: the engine never reads them) after; both in the order
//! of a scenario file, of `--help` and of a link's parameters.
//!
//! `on:` names the surfaces: `window` (a window flag and URL parameter),
//! `file` (a field of scenario and lesson files), `link` ("Copy link" and
//! "Copy command line"), `row` (a settings column of `bench`'s rows, JSON
//! and CSV), `slider` (a slider in the overlay's scene section, drawn from
//! the row alone), `overlay` (a control in the overlay's panel, its tooltip
//! starting with `help`; a test hovers every control to check it).

/// The rows of the settings table, handed to `$consumer!` (see the
/// module's documentation for the form of a row).
#[macro_export]
macro_rules! settings_table {
    ($consumer:path) => {
        $consumer! {
            engine {
                units: usize = Whole {
                    flag: "units",
                    default: (10_000),
                    range: [1, MAX_UNITS],
                    unit: "units",
                    slider: [1_000, 200_000, 1, log],
                    help: "Number of units; changing it respawns the world, which grows with the count to keep 16 neighbors per unit on average.",
                    on: [window, file, link, row, overlay],
                    bench: (list "units" (vec![1_000, 10_000, 100_000])),
                }
                workload: Workload = Name {
                    flag: "workload",
                    default: (Workload::Uniform),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "Initial positions: uniform, clustered (32 Gaussian blobs), hotspot (10% of the units in one small disk, the grid's worst case) or battle (two teams closing on each other: the outnumbered die and reinforcements spawn); changing it respawns.",
                    on: [window, file, link, row, overlay],
                    bench: one,
                }
                seed: u64 = Whole {
                    flag: "seed",
                    default: (42),
                    range: [0, i64::MAX],
                    unit: "",
                    slider: none,
                    help: "Seed of the spawn: the same seed gives the same positions on every machine; changing it respawns.",
                    on: [window, file, link, row],
                    bench: one,
                }
                world: f32 [optional] = Real {
                    flag: "world",
                    default: (None, "the standard density: 16 neighbors per unit"),
                    range: [1, 1_000_000],
                    unit: "world units",
                    slider: none,
                    help: "Edge of the square world; by default it grows with the unit count to keep 16 neighbors per unit on average.",
                    on: [window, file, link, row],
                    bench: one,
                }
                radius: f32 = Real {
                    flag: "radius",
                    default: (STANDARD_RADIUS),
                    range: [0.01, 10_000],
                    unit: "world units",
                    slider: [1, 100, 0.1],
                    help: "Query radius: every unit asks for all units within this distance, every frame.",
                    on: [window, file, link, row, overlay],
                    bench: one,
                }
                cell_size: f32 = Real {
                    flag: "cell-size",
                    default: (STANDARD_RADIUS, "equal to the radius, and following it"),
                    range: [0.01, 1_000_000],
                    unit: "world units",
                    slider: [0.01, 200, 0.01],
                    help: "Edge of a grid cell; by default equal to the query radius and following it (Naive has no grid).",
                    on: [window, file, link, overlay],
                    bench: (list "cell-sizes" (vec![STANDARD_RADIUS])),
                }
                speed: f32 = Real {
                    flag: "speed",
                    default: (4.0),
                    range: [0, 20],
                    unit: "simulated seconds per second",
                    slider: [0, 20, 0.1],
                    help: "Simulated seconds per real second; 0 freezes the motion.",
                    on: [window, file, link, slider, overlay],
                    bench: none,
                }
                separation: f32 = Real {
                    flag: "separation",
                    default: (1.0),
                    range: [0, 5],
                    unit: "",
                    slider: [0, 5, 0.05],
                    help: "How strongly units steer away from their neighbors; the query results drive it.",
                    on: [window, file, link, row, slider, overlay],
                    bench: (one 0.0),
                }
                strategy: Strategy = Name {
                    flag: "strategy",
                    default: (Strategy::Grid),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "How each unit finds the units within the query radius: naive (every pair), grid (a Vec per cell) or sorted-grid (one counting-sorted array, CSR).",
                    on: [window, file, link, row, overlay],
                    bench: (list "strategies" (Strategy::ALL.to_vec())),
                }
                threads: usize = Whole {
                    flag: "threads",
                    default: (1),
                    range: [1, 256],
                    unit: "threads",
                    slider: [1, 256, 1],
                    help: "Threads for the frame's move, rebuild, query and apply; the results are identical for every count.",
                    on: [window, file, link, row, overlay],
                    bench: (list "threads" (vec![1])),
                }
                kernel: Kernel = KernelName {
                    flag: "kernel",
                    default: (Kernel::best(), "best"),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "Distance-test kernel: scalar, sse, avx2, avx512 (x86_64), neon (ARM), simd128 (WebAssembly) or best (the widest this CPU runs); one this CPU or build lacks runs as scalar in the window and is skipped by bench.",
                    on: [window, file, link, row, overlay],
                    bench: (list "kernels" (Kernel::native().to_vec())),
                }
                layout: Layout = Name {
                    flag: "layout",
                    default: (Layout::Soa),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "How the units are stored: aos-pointers (a Box per unit), aos (an array of records), soa (an array per field) or hot-cold (the fields each pass reads, apart from the rest).",
                    on: [window, file, link, row, overlay],
                    bench: (list "layouts" (vec![Layout::Soa])),
                }
                reorder: Reorder = Name {
                    flag: "reorder",
                    default: (Reorder::Resident),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "Memory order of the units: off (spawn order), cells (row-major cell order), morton (Z-order of cells), both restored every reorder-every frames, or resident (kept in cell order by SortedGrid's rebuild every frame; SoA only, elsewhere it acts as cells).",
                    on: [window, file, link, row, overlay],
                    bench: (list "reorder" (vec![Reorder::Resident])),
                }
                reorder_every: u32 = Whole {
                    flag: "reorder-every",
                    default: (16),
                    range: [1, 10_000],
                    unit: "frames",
                    slider: [1, 240, 1],
                    help: "Frames between two reorders of the units in cells or morton order.",
                    on: [window, file, link, row, overlay],
                    bench: one,
                }
                pass: Pass = Name {
                    flag: "pass",
                    default: (Pass::Fused),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "How query results reach the steering: fused (the kernel sums what steering needs; no neighbor lists) or collect (neighbor id lists written for the whole frame, then read back).",
                    on: [window, file, link, row, overlay],
                    bench: (list "pass" (vec![Pass::Fused])),
                }
                paused: bool = Flag {
                    flag: "paused",
                    default: (false),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "The units stay where they are; the index and the queries still run every frame.",
                    on: [window, file, link, overlay],
                    bench: none,
                }
            }
            view {
                color: ColorMode = Name {
                    flag: "color",
                    default: (ColorMode::Team),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "How the units are colored: team, neighbor-heat (neighbors found), memory-order (the units' order in memory) or normal-error (the compressed normals' error).",
                    on: [window, file, link, overlay],
                    bench: none,
                }
                vertex_layout: VertexLayout = Name {
                    flag: "vertex-layout",
                    default: (VertexLayout::Compressed),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "Vertex layout of the units: compressed (SNORM16 positions, octahedral normals, 8-byte instances) or uncompressed (f32 vertex and instance streams).",
                    on: [window, file, link, overlay],
                    bench: none,
                }
                normal_bits: NormalPrecision = Bits {
                    flag: "normal-bits",
                    default: (NormalPrecision::Oct16),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "Bits per component of the compressed layout's octahedral normals: 16 or 8.",
                    on: [window, file, link, overlay],
                    bench: none,
                }
                mesh: UnitMeshKind = Name {
                    flag: "mesh",
                    default: (UnitMeshKind::Tank),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "Unit mesh: tank (built in), infantry or vehicle (assets/infantry.obj, assets/vehicle.obj; a missing or broken file draws the tank, with a warning).",
                    on: [window, file, link, overlay],
                    bench: none,
                }
                heatmap: bool = Flag {
                    flag: "heatmap",
                    default: (false),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "The cell occupancy heat map on the ground: units per grid cell, from the last step's index.",
                    on: [window, file, link, overlay],
                    bench: none,
                }
                cache_model: Geometry = Name {
                    flag: "cache-model",
                    default: (Geometry::Machine),
                    range: none,
                    unit: "",
                    slider: none,
                    help: "The caches the memory view's cache model simulates: machine (this machine's L1d, L2 and last level) or classroom (L1d 32 KiB, L2 512 KiB, last level 8 MiB on every machine, so a class sees the same counts).",
                    on: [window, file, link],
                    bench: none,
                }
            }
        }
    };
}
