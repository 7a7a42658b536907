//! The engine: the point of the lab. Fixed-radius neighbor queries
//! ([`spatial`]: the naive scan, the uniform grid, the counting-sorted CSR
//! grid and the SIMD kernels), the simulation whose frame runs them
//! ([`sim`]: units in four data layouts, move, rebuild, query, apply, the
//! battle's churn), and vertex compression ([`compress`]: SNORM16 and
//! octahedral normals). It never imports the window's crates; tests and
//! benchmarks run it headless.

pub mod compress;
pub mod sim;
pub mod spatial;
