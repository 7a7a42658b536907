//! Uniform grid with one SoA `Vec` triple per cell: the seed design, kept as the
//! baseline the CSR grid ([`super::SortedGrid`]) is measured against.

use super::{GridGeometry, Kernel, Points, Query, QueryStats, Span, SpatialIndex};

/// The entries of one cell, SoA: `x[k]`, `z[k]`, `id[k]` describe one unit.
#[derive(Clone, Debug, Default)]
struct CellSoA {
    x: Vec<f32>,
    z: Vec<f32>,
    id: Vec<u32>,
}

/// Uniform grid rebuilt every frame; each cell keeps its own x, z and id `Vec`s.
///
/// Cells are cleared, not freed, on rebuild, and new cells reserve twice the
/// average occupancy (nothing when there are more cells than half the units,
/// so a tiny cell size costs 72 bytes per empty cell, not three allocations),
/// so steady-state frames of a dense grid do not allocate; a cell allocates
/// when it first holds more units than it reserved. A query calls the kernel
/// once per cell of its block.
#[derive(Clone, Debug, Default)]
pub struct UniformGrid {
    geo: GridGeometry,
    cells: Vec<CellSoA>,
}

impl SpatialIndex for UniformGrid {
    fn rebuild(&mut self, points: Points<'_>, cell_size: f32) {
        self.geo = GridGeometry::fit(points, cell_size);
        let cells = self.geo.cells();
        if self.cells.len() < cells {
            let reserve = 2 * points.len() / cells.max(1);
            self.cells.resize_with(cells, || CellSoA {
                x: Vec::with_capacity(reserve),
                z: Vec::with_capacity(reserve),
                id: Vec::with_capacity(reserve),
            });
        }
        // Cells beyond this grid's count are stale but never read.
        for c in &mut self.cells[..cells] {
            c.x.clear();
            c.z.clear();
            c.id.clear();
        }
        for (i, (&x, &z)) in points.x.iter().zip(points.z).enumerate() {
            if let Some(k) = self.geo.cell_of(x, z) {
                let c = &mut self.cells[k];
                c.x.push(x);
                c.z.push(z);
                c.id.push(i as u32);
            }
        }
    }

    fn query(
        &self,
        _points: Points<'_>,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        let Some((kq, (x0, x1, z0, z1))) = self.geo.search(q) else {
            return QueryStats::default();
        };
        let before = out.len();
        let mut candidates = 0u64;
        for row in z0..=z1 {
            let base = row * self.geo.nx;
            for c in &self.cells[base + x0..=base + x1] {
                candidates += c.x.len() as u64;
                kernel.run(Span::new(&c.x, &c.z, &c.id), &kq, out);
            }
        }
        QueryStats {
            candidates,
            neighbors: (out.len() - before) as u64,
        }
    }

    fn geometry(&self) -> Option<&GridGeometry> {
        Some(&self.geo)
    }
}
