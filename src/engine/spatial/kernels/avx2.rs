//! The AVX2 kernels: 8 lanes, masked loads for the last partial vector of a
//! range, matching ids packed with one `vpermd` driven by a 256-entry lookup
//! table. The steps are the generic ones of [`super::driver`].

use super::lanes::Avx2Lanes;

isa_kernels!("avx2,popcnt", Avx2Lanes, "AVX2");
