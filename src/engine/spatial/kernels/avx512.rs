//! The AVX-512 kernels: 16 lanes, mask compares into `__mmask16`, masked
//! loads for the last partial vector of a range, `vpcompressd` for the
//! matching ids. The steps are the generic ones of [`super::driver`].

use super::lanes::Avx512Lanes;

isa_kernels!("avx512f,popcnt", Avx512Lanes, "AVX-512F");
