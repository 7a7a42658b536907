//! The SSE2 kernels: 4 lanes. SSE2 has no masked load or compress: the
//! last partial vector of a range is copied into a zeroed buffer, and matching
//! ids are written branch-free (every lane stored, the cursor advanced by its
//! mask bit). The steps are the generic ones of [`super::driver`].

use super::lanes::SseLanes;

isa_kernels!("sse2", SseLanes, "SSE2 (always present on x86_64)");
