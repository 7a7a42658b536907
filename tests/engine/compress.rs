//! Integration tests for `spatial_query_lab::engine::compress`: the C1-C5 cases of
//! `docs/cases.md`, round-trip error bounds, exhaustive/sampled decode checks,
//! mesh validation errors, and a property test for position quantization.

use glam::{DVec3, Vec2, Vec3};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spatial_query_lab::engine::compress::*;

/// Angle in degrees between two vectors, in f64 (accurate for tiny angles).
fn angle_deg(a: Vec3, b: Vec3) -> f64 {
    let a: DVec3 = a.as_dvec3();
    let b: DVec3 = b.as_dvec3();
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

fn assert_unit(v: Vec3, what: &str) {
    assert!(v.is_finite(), "{what}: not finite: {v:?}");
    let len = v.as_dvec3().length();
    assert!((len - 1.0).abs() < 1e-6, "{what}: length {len} ({v:?})");
}

/// Seeded unit vectors, uniform on the sphere (z uniform in [-1, 1], angle uniform).
fn random_unit_vectors(count: usize) -> Vec<Vec3> {
    let mut rng = StdRng::seed_from_u64(42);
    (0..count)
        .map(|_| {
            let z: f64 = rng.gen_range(-1.0..=1.0);
            let phi: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
            let r = (1.0 - z * z).max(0.0).sqrt();
            DVec3::new(r * phi.cos(), r * phi.sin(), z).as_vec3()
        })
        .collect()
}

const MAX_ERR_16_DEG: f64 = 0.01;
const MAX_ERR_8_DEG: f64 = 1.0;

// ---------------------------------------------------------------- C1

#[test]
fn c1_most_negative_code_clamps_to_minus_one() {
    assert_eq!(decode_snorm16(-32768), -1.0);
    assert_eq!(decode_snorm16(-32767), -1.0);
    assert_eq!(decode_snorm16(0), 0.0);
    assert_eq!(decode_snorm16(32767), 1.0);
    assert_eq!(decode_snorm8(-128), -1.0);
    assert_eq!(decode_snorm8(-127), -1.0);
    assert_eq!(decode_snorm8(0), 0.0);
    assert_eq!(decode_snorm8(127), 1.0);

    // A position axis with range [-2, 6]: code -32768 decodes to exactly -2.0.
    let q =
        PositionQuantization::from_points(&[Vec3::new(-2.0, 0.0, 0.0), Vec3::new(6.0, 1.0, 1.0)]);
    assert_eq!(q.decode([-32768, 0, 0, 0]).x, -2.0);
    assert_eq!(q.decode([-32767, 0, 0, 0]).x, -2.0);
    assert_eq!(q.decode([32767, 0, 0, 0]).x, 6.0);
}

#[test]
fn c1_encoders_never_emit_most_negative_code() {
    for v in [-1.0, -1.0001, -2.0, -1e30, f32::MIN, f32::NEG_INFINITY] {
        assert_eq!(encode_snorm16(v), -32767, "v = {v}");
        assert_eq!(encode_snorm8(v), -127, "v = {v}");
    }
    // Sweep: nothing in a wide range produces the most negative code.
    for i in -40_000..=40_000 {
        let v = i as f32 / 20_000.0;
        assert_ne!(encode_snorm16(v), i16::MIN, "v = {v}");
        assert_ne!(encode_snorm8(v), i8::MIN, "v = {v}");
    }
    let q = PositionQuantization::from_points(&[Vec3::splat(-2.0), Vec3::splat(6.0)]);
    for p in [
        Vec3::splat(-2.0),
        Vec3::splat(-100.0),
        Vec3::splat(f32::NEG_INFINITY),
    ] {
        let c = q.encode(p);
        assert_eq!(c, [-32767, -32767, -32767, 0], "p = {p:?}");
    }
    // Octahedral encoders: the corners are ±max, never the most negative code.
    for n in random_unit_vectors(20_000) {
        let c16 = oct_encode_snorm16(n);
        let c8 = oct_encode_snorm8(n);
        assert!(c16.iter().all(|&c| c != i16::MIN), "{n:?} -> {c16:?}");
        assert!(c8.iter().all(|&c| c != i8::MIN), "{n:?} -> {c8:?}");
    }
}

// ---------------------------------------------------------------- C2

#[test]
fn c2_out_of_range_input_clamps_not_wraps() {
    let q =
        PositionQuantization::from_points(&[Vec3::new(0.0, 0.0, 0.0), Vec3::new(10.0, 0.0, 0.0)]);
    let hi = q.encode(Vec3::new(10.001, 0.0, 0.0));
    assert_eq!(hi[0], 32767);
    assert_eq!(q.decode(hi).x, 10.0);
    let lo = q.encode(Vec3::new(-0.001, 0.0, 0.0));
    assert_eq!(lo[0], -32767);
    assert_eq!(q.decode(lo).x, 0.0);
    // Far outside, and infinite, still the near face.
    assert_eq!(q.encode(Vec3::new(1e30, 0.0, 0.0))[0], 32767);
    assert_eq!(q.encode(Vec3::new(f32::INFINITY, 0.0, 0.0))[0], 32767);
    assert_eq!(q.encode(Vec3::new(-1e30, 0.0, 0.0))[0], -32767);

    // A normal component of 1.3.
    assert_eq!(encode_snorm16(1.3), 32767);
    assert_eq!(decode_snorm16(encode_snorm16(1.3)), 1.0);
    assert_eq!(encode_snorm8(1.3), 127);
    assert_eq!(decode_snorm8(encode_snorm8(1.3)), 1.0);
    assert_eq!(encode_snorm16(-1.3), -32767);
    assert_eq!(encode_snorm8(-1.3), -127);
    assert_eq!(encode_snorm16(f32::INFINITY), 32767);
    assert_eq!(encode_snorm16(f32::MAX), 32767);
    // NaN is documented to encode to 0.
    assert_eq!(encode_snorm16(f32::NAN), 0);
    assert_eq!(encode_snorm8(f32::NAN), 0);
}

// ---------------------------------------------------------------- C3

#[test]
fn c3_zero_extent_bounding_box() {
    let tri = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    let q = PositionQuantization::from_points(&tri);
    assert!(q.center.is_finite() && q.half_extent.is_finite());
    assert_eq!(q.half_extent.y, 1.0, "flat axis gets half_extent 1");
    let lsb = q.half_extent / SNORM16_MAX;
    for p in tri {
        let c = q.encode(p);
        let d = q.decode(c);
        assert!(d.is_finite(), "{p:?} -> {c:?} -> {d:?}");
        assert_eq!(d.y, 0.0, "flat axis decodes exactly");
        let err = (d - p).abs();
        assert!(
            err.cmple(lsb).all(),
            "{p:?} -> {d:?}, err {err:?} > lsb {lsb:?}"
        );
    }
    let d = q.decode(q.encode(Vec3::new(1.0, 0.0, 0.0)));
    assert!((d.x - 1.0).abs() <= lsb.x, "(1,0,0) -> {d:?}");

    // The whole mesh through quantize_mesh.
    let normals = [Vec3::Y; 3];
    let m = quantize_mesh(&tri, &normals, &[0, 1, 2]).unwrap();
    for (i, &c) in m.positions.iter().enumerate() {
        let d = m.quantization.decode(c);
        assert!(d.is_finite());
        assert_eq!(d.y, 0.0);
        assert!((d - tri[i]).abs().cmple(lsb).all(), "{:?} -> {d:?}", tri[i]);
    }

    // One-vertex mesh: every axis is flat and decodes exactly.
    let one = [Vec3::new(3.0, -2.0, 5.0)];
    let q = PositionQuantization::from_points(&one);
    assert_eq!(q.half_extent, Vec3::ONE);
    assert_eq!(q.center, one[0]);
    assert_eq!(q.encode(one[0]), [0, 0, 0, 0]);
    assert_eq!(q.decode(q.encode(one[0])), one[0]);
    let m = quantize_mesh(&one, &[Vec3::Z], &[0, 0, 0]).unwrap();
    assert_eq!(m.quantization.decode(m.positions[0]), one[0]);

    // Empty slice and only non-finite points: a usable default, no NaN.
    for pts in [
        &[][..],
        &[Vec3::NAN, Vec3::new(f32::INFINITY, 0.0, 0.0)][..],
    ] {
        let q = PositionQuantization::from_points(pts);
        assert_eq!(q.center, Vec3::ZERO);
        assert_eq!(q.half_extent, Vec3::ONE);
    }
    // Non-finite points are ignored for the box.
    let q = PositionQuantization::from_points(&[
        Vec3::NAN,
        Vec3::ONE,
        Vec3::splat(3.0),
        Vec3::INFINITY,
    ]);
    assert_eq!(q.center, Vec3::splat(2.0));
    assert_eq!(q.half_extent, Vec3::ONE);
    // Huge boxes do not overflow.
    let q = PositionQuantization::from_points(&[Vec3::splat(f32::MIN), Vec3::splat(f32::MAX)]);
    assert!(q.center.is_finite() && q.half_extent.is_finite());
    assert_eq!(
        q.decode(q.encode(Vec3::splat(f32::MAX))),
        Vec3::splat(f32::MAX)
    );
    assert!(q.decode(q.encode(Vec3::NAN)).is_finite());
}

// ---------------------------------------------------------------- C4

#[test]
fn c4_zero_length_and_tiny_normals() {
    assert_eq!(oct_encode(Vec3::ZERO), Vec2::ZERO, "documented fallback +Z");
    assert_eq!(oct_encode_snorm16(Vec3::ZERO), [0, 0]);
    assert_eq!(oct_encode_snorm8(Vec3::ZERO), [0, 0]);
    assert_eq!(oct_decode_snorm16([0, 0]), Vec3::Z);
    for bad in [
        Vec3::NAN,
        Vec3::new(f32::NAN, 0.0, 1.0),
        Vec3::new(f32::INFINITY, 0.0, 0.0),
        Vec3::new(0.0, f32::NEG_INFINITY, 1.0),
        Vec3::new(-0.0, -0.0, -0.0),
    ] {
        assert_eq!(oct_encode(bad), Vec2::ZERO, "{bad:?}");
        assert_eq!(oct_encode_snorm16(bad), [0, 0], "{bad:?}");
        assert_eq!(oct_encode_snorm8(bad), [0, 0], "{bad:?}");
    }

    let tiny = Vec3::new(1e-40, 0.0, 0.0);
    assert_eq!(oct_encode(tiny), oct_encode(Vec3::X));
    assert_eq!(oct_encode(tiny), Vec2::new(1.0, 0.0));
    assert_eq!(oct_encode_snorm16(tiny), oct_encode_snorm16(Vec3::X));
    assert_eq!(oct_encode_snorm16(tiny), [32767, 0]);
    assert_eq!(oct_encode_snorm8(tiny), oct_encode_snorm8(Vec3::X));
    assert_eq!(oct_encode_snorm8(tiny), [127, 0]);
    assert_eq!(oct_decode_snorm16(oct_encode_snorm16(tiny)), Vec3::X);
    // Other denormal and huge inputs keep their direction.
    for (n, expect) in [
        (Vec3::new(0.0, -1e-45, 0.0), Vec3::NEG_Y),
        (Vec3::new(0.0, 0.0, -1e-42), Vec3::NEG_Z),
        (
            Vec3::new(f32::MAX, f32::MAX, 0.0),
            Vec3::new(1.0, 1.0, 0.0).normalize(),
        ),
        (Vec3::new(1e-40, 1e-40, 1e-40), Vec3::ONE.normalize()),
    ] {
        let d16 = oct_decode_snorm16(oct_encode_snorm16(n));
        let d8 = oct_decode_snorm8(oct_encode_snorm8(n));
        assert!(angle_deg(d16, expect) < MAX_ERR_16_DEG, "{n:?} -> {d16:?}");
        assert!(angle_deg(d8, expect) < MAX_ERR_8_DEG, "{n:?} -> {d8:?}");
    }

    // Decoding any float point gives a unit vector, even far outside the square or NaN.
    for e in [
        Vec2::ZERO,
        Vec2::ONE,
        Vec2::NEG_ONE,
        Vec2::new(1.0, -1.0),
        Vec2::new(-1.0, 1.0),
        Vec2::new(0.5, 0.5),
        Vec2::new(1.0, 0.0),
        Vec2::new(-0.0, -0.0),
        Vec2::new(5.0, -7.0),
        Vec2::splat(f32::MAX),
        Vec2::splat(f32::MIN),
        Vec2::new(f32::INFINITY, 0.0),
        Vec2::new(f32::NAN, 0.25),
        Vec2::NAN,
    ] {
        assert_unit(oct_decode(e), &format!("oct_decode({e:?})"));
    }
    // Documented: a NaN component is treated as 0.
    assert_eq!(oct_decode(Vec2::NAN), Vec3::Z);
}

// ---------------------------------------------------------------- C5

#[test]
fn c5_fold_with_sign_not_zero() {
    assert_eq!(sign_not_zero(0.0), 1.0);
    assert_eq!(sign_not_zero(-0.0), 1.0);
    assert_eq!(sign_not_zero(1e-45), 1.0);
    assert_eq!(sign_not_zero(-1e-45), -1.0);
    assert_eq!(sign_not_zero(-3.0), -1.0);

    for n in [
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(-0.0, 0.0, -1.0),
        Vec3::new(0.0, -0.0, -1.0),
        Vec3::new(-0.0, -0.0, -1.0),
    ] {
        let e = oct_encode(n);
        assert_eq!(e.abs(), Vec2::ONE, "{n:?} -> {e:?} is not a corner");
        assert_eq!(oct_decode(e), Vec3::NEG_Z, "{n:?} -> {e:?}");

        let c16 = oct_encode_snorm16(n);
        assert_eq!(
            [c16[0].abs(), c16[1].abs()],
            [32767, 32767],
            "{n:?} -> {c16:?}"
        );
        assert_eq!(oct_decode_snorm16(c16), Vec3::NEG_Z, "{n:?} -> {c16:?}");

        let c8 = oct_encode_snorm8(n);
        assert_eq!([c8[0].abs(), c8[1].abs()], [127, 127], "{n:?} -> {c8:?}");
        assert_eq!(oct_decode_snorm8(c8), Vec3::NEG_Z, "{n:?} -> {c8:?}");
    }
    // Every corner, including the -32768 / -128 codes, decodes to -Z.
    for c in [
        [32767, 32767],
        [-32767, 32767],
        [32767, -32767],
        [-32767, -32767],
        [-32768, -32768],
        [-32768, 32767],
    ] {
        assert_eq!(oct_decode_snorm16(c), Vec3::NEG_Z, "{c:?}");
    }
    for c in [
        [127, 127],
        [-127, 127],
        [127, -127],
        [-127, -127],
        [-128, -128],
        [-128, 127],
    ] {
        assert_eq!(oct_decode_snorm8(c), Vec3::NEG_Z, "{c:?}");
    }

    assert_eq!(oct_encode(Vec3::Z), Vec2::ZERO);
    assert_eq!(oct_encode_snorm16(Vec3::Z), [0, 0]);
    assert_eq!(oct_encode_snorm8(Vec3::Z), [0, 0]);
    assert_eq!(oct_decode(Vec2::ZERO), Vec3::Z);
    assert_eq!(oct_decode_snorm16([0, 0]), Vec3::Z);
    assert_eq!(oct_decode_snorm8([0, 0]), Vec3::Z);
}

// ---------------------------------------------------------------- SNORM round trips

#[test]
fn snorm16_round_trip_within_half_lsb() {
    let tol = 0.5 / SNORM16_MAX + 4.0 * f32::EPSILON;
    let steps = 1_000_003;
    let mut max_err = 0.0f32;
    for i in 0..=steps {
        let v = -1.0 + 2.0 * (i as f64 / steps as f64);
        let v = v as f32;
        let err = (decode_snorm16(encode_snorm16(v)) - v).abs();
        max_err = max_err.max(err);
        assert!(err <= tol, "v = {v}: err {err} > {tol}");
    }
    // Every code round-trips exactly (except -32768, which the encoder never emits).
    for c in -32767..=32767i16 {
        assert_eq!(encode_snorm16(decode_snorm16(c)), c);
    }
    println!(
        "SNORM16 max round-trip error {max_err:e} (half LSB {:e})",
        0.5 / SNORM16_MAX
    );
}

#[test]
fn snorm8_round_trip_within_half_lsb() {
    let tol = 0.5 / SNORM8_MAX + 4.0 * f32::EPSILON;
    let steps = 200_003;
    for i in 0..=steps {
        let v = (-1.0 + 2.0 * (i as f64 / steps as f64)) as f32;
        let err = (decode_snorm8(encode_snorm8(v)) - v).abs();
        assert!(err <= tol, "v = {v}: err {err} > {tol}");
    }
    for c in -127..=127i8 {
        assert_eq!(encode_snorm8(decode_snorm8(c)), c);
    }
}

/// Half an LSB of each axis of `q`, plus the unavoidable f32 rounding of `p` near the box.
fn position_tolerance(q: &PositionQuantization) -> Vec3 {
    0.5 * q.half_extent / SNORM16_MAX + 4.0 * f32::EPSILON * (q.center.abs() + q.half_extent)
}

#[test]
fn position_round_trip_within_half_lsb() {
    let mut rng = StdRng::seed_from_u64(42);
    let pts: Vec<Vec3> = (0..50_000)
        .map(|_| {
            Vec3::new(
                rng.gen_range(-3.0..7.0),
                rng.gen_range(100.0..164.0),
                // f32 spacing near 1000 (6e-5) is coarser than the LSB: decodes exactly.
                rng.gen_range(-1000.0..-999.0),
            )
        })
        .collect();
    let q = PositionQuantization::from_points(&pts);
    let tol = position_tolerance(&q);
    let lsb = q.half_extent / SNORM16_MAX;
    let mut max_err_lsb = Vec3::ZERO;
    for &p in &pts {
        let d = q.decode(q.encode(p));
        let err = (d - p).abs();
        max_err_lsb = max_err_lsb.max(err / lsb);
        assert!(
            err.cmple(tol).all(),
            "{p:?} -> {d:?}: err {err:?} > {tol:?}"
        );
    }
    println!("position max round-trip error in LSB per axis: {max_err_lsb:?}");
}

// ---------------------------------------------------------------- octahedral round trips

#[test]
fn octahedral_round_trip_random_unit_vectors() {
    let normals = random_unit_vectors(200_000);
    let mut max16 = 0.0f64;
    let mut max8 = 0.0f64;
    let mut max_float = 0.0f64;
    for &n in &normals {
        let d16 = oct_decode_snorm16(oct_encode_snorm16(n));
        let d8 = oct_decode_snorm8(oct_encode_snorm8(n));
        let df = oct_decode(oct_encode(n));
        max16 = max16.max(angle_deg(n, d16));
        max8 = max8.max(angle_deg(n, d8));
        max_float = max_float.max(angle_deg(n, df));
    }
    println!(
        "octahedral max angular error over {} vectors:",
        normals.len()
    );
    println!("  f32 (unquantized): {max_float:.3e} deg");
    println!("  SNORM16 precise:   {max16:.6} deg");
    println!("  SNORM8 precise:    {max8:.6} deg");
    assert!(max16 < MAX_ERR_16_DEG, "16-bit max error {max16} deg");
    assert!(max8 < MAX_ERR_8_DEG, "8-bit max error {max8} deg");
    assert!(max_float < 1e-4, "float max error {max_float} deg");
}

#[test]
fn octahedral_precise_is_never_worse_than_rounding() {
    // The precise encoder picks the best of the floor/ceil codes, so it is never worse
    // than plain rounding of oct_encode, and strictly better for some inputs.
    let mut better = [0usize; 2];
    let mut max_rounded = [0.0f64; 2];
    let mut max_precise = [0.0f64; 2];
    for n in random_unit_vectors(100_000) {
        let e = oct_encode(n);
        let a_r = angle_deg(
            n,
            oct_decode_snorm8([encode_snorm8(e.x), encode_snorm8(e.y)]),
        );
        let a_p = angle_deg(n, oct_decode_snorm8(oct_encode_snorm8(n)));
        assert!(a_p <= a_r + 1e-9, "{n:?}: precise {a_p} > rounded {a_r}");
        better[0] += usize::from(a_p < a_r - 1e-9);
        max_rounded[0] = max_rounded[0].max(a_r);
        max_precise[0] = max_precise[0].max(a_p);

        let a_r = angle_deg(
            n,
            oct_decode_snorm16([encode_snorm16(e.x), encode_snorm16(e.y)]),
        );
        let a_p = angle_deg(n, oct_decode_snorm16(oct_encode_snorm16(n)));
        assert!(a_p <= a_r + 1e-9, "{n:?}: precise {a_p} > rounded {a_r}");
        better[1] += usize::from(a_p < a_r - 1e-9);
        max_rounded[1] = max_rounded[1].max(a_r);
        max_precise[1] = max_precise[1].max(a_p);
    }
    println!(
        "8-bit: rounded max {:.4} deg, precise max {:.4} deg, improved {} of 100000",
        max_rounded[0], max_precise[0], better[0]
    );
    println!(
        "16-bit: rounded max {:.6} deg, precise max {:.6} deg, improved {} of 100000",
        max_rounded[1], max_precise[1], better[1]
    );
    assert!(
        better[0] > 0 && better[1] > 0,
        "precise never differs: {better:?}"
    );
    assert!(max_precise[0] < max_rounded[0], "8-bit max not improved");
}

#[test]
fn octahedral_special_normals() {
    let z = 0.0f32;
    let nz = -0.0f32;
    let specials = [
        (Vec3::new(z, z, 1.0), Vec3::Z),
        (Vec3::new(z, z, -1.0), Vec3::NEG_Z),
        (Vec3::new(1.0, z, z), Vec3::X),
        (Vec3::new(-1.0, z, z), Vec3::NEG_X),
        (Vec3::new(z, 1.0, z), Vec3::Y),
        (Vec3::new(z, -1.0, z), Vec3::NEG_Y),
        (Vec3::new(nz, nz, 1.0), Vec3::Z),
        (Vec3::new(nz, nz, -1.0), Vec3::NEG_Z),
        (Vec3::new(1.0, nz, nz), Vec3::X),
        (Vec3::new(-1.0, nz, nz), Vec3::NEG_X),
        (Vec3::new(nz, 1.0, nz), Vec3::Y),
        (Vec3::new(nz, -1.0, nz), Vec3::NEG_Y),
        (Vec3::new(1.0, nz, -0.0), Vec3::X),
    ];
    for (n, expect) in specials {
        let df = oct_decode(oct_encode(n));
        let d16 = oct_decode_snorm16(oct_encode_snorm16(n));
        let d8 = oct_decode_snorm8(oct_encode_snorm8(n));
        assert!(angle_deg(df, expect) < 1e-4, "{n:?} -> {df:?}");
        assert!(angle_deg(d16, expect) < MAX_ERR_16_DEG, "{n:?} -> {d16:?}");
        assert!(angle_deg(d8, expect) < MAX_ERR_8_DEG, "{n:?} -> {d8:?}");
        // Axis directions are exactly representable.
        assert_eq!(d16, expect, "{n:?} 16-bit");
        assert_eq!(d8, expect, "{n:?} 8-bit");
    }
}

#[test]
fn every_snorm8_code_decodes_to_unit_vector() {
    for x in i8::MIN..=i8::MAX {
        for y in i8::MIN..=i8::MAX {
            let d = oct_decode_snorm8([x, y]);
            assert_unit(d, &format!("[{x}, {y}]"));
        }
    }
}

#[test]
fn sampled_snorm16_codes_decode_to_unit_vectors() {
    let mut codes: Vec<i16> = (i16::MIN..=i16::MAX).step_by(97).collect();
    codes.extend_from_slice(&[i16::MIN, -32767, -1, 0, 1, 32766, 32767]);
    for &x in &codes {
        for &y in &codes {
            assert_unit(oct_decode_snorm16([x, y]), &format!("[{x}, {y}]"));
        }
    }
    let mut rng = StdRng::seed_from_u64(42);
    for _ in 0..200_000 {
        let c = [rng.gen::<i16>(), rng.gen::<i16>()];
        assert_unit(oct_decode_snorm16(c), &format!("{c:?}"));
    }
}

// ---------------------------------------------------------------- mesh

#[test]
fn quantize_mesh_errors() {
    let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
    let n = [Vec3::Z; 3];

    let err = quantize_mesh(&p, &n[..2], &[0, 1, 2]).unwrap_err();
    assert_eq!(
        err,
        MeshError::LengthMismatch {
            positions: 3,
            normals: 2
        }
    );
    assert!(err.to_string().contains("length mismatch"), "{err}");

    let err = quantize_mesh(&p, &n, &[0, 1, 3]).unwrap_err();
    assert_eq!(
        err,
        MeshError::IndexOutOfRange {
            index: 3,
            at: 2,
            vertices: 3
        }
    );
    let msg = err.to_string();
    assert!(
        msg.contains("index 3") && msg.contains("3 vertices"),
        "{msg}"
    );
    let err = quantize_mesh(&p, &n, &[0, 1, 2, u32::MAX, 0, 1]).unwrap_err();
    assert_eq!(
        err,
        MeshError::IndexOutOfRange {
            index: u32::MAX,
            at: 3,
            vertices: 3
        }
    );

    let err = quantize_mesh(&p, &n, &[0, 1, 2, 0]).unwrap_err();
    assert_eq!(err, MeshError::IndexCountNotMultipleOf3 { indices: 4 });
    assert!(err.to_string().contains("multiple of 3"), "{err}");

    let err = quantize_mesh(&[], &[], &[]).unwrap_err();
    assert_eq!(
        err,
        MeshError::Empty {
            vertices: 0,
            indices: 0
        }
    );
    assert!(err.to_string().contains("empty mesh"), "{err}");
    let err = quantize_mesh(&p, &n, &[]).unwrap_err();
    assert_eq!(
        err,
        MeshError::Empty {
            vertices: 3,
            indices: 0
        }
    );
    let err = quantize_mesh(&[], &[], &[0, 0, 0]).unwrap_err();
    assert_eq!(
        err,
        MeshError::Empty {
            vertices: 0,
            indices: 3
        }
    );

    let big = vec![Vec3::ZERO; 65_537];
    let err = quantize_mesh(&big, &big, &[0, 1, 2]).unwrap_err();
    assert_eq!(err, MeshError::TooManyVertices { vertices: 65_537 });
    assert!(err.to_string().contains("65,536"), "{err}");

    // Exactly 65,536 vertices is fine, and the last index fits in u16.
    let ok = vec![Vec3::ONE; 65_536];
    let m = quantize_mesh(&ok, &ok, &[0, 1, 65_535]).unwrap();
    assert_eq!(m.indices, vec![0, 1, 65_535]);

    // MeshError is a std error.
    let boxed: Box<dyn std::error::Error> = Box::new(MeshError::Empty {
        vertices: 0,
        indices: 0,
    });
    assert!(!boxed.to_string().is_empty());
}

#[test]
fn quantize_mesh_round_trip() {
    let normals = random_unit_vectors(300);
    let mut rng = StdRng::seed_from_u64(7);
    let positions: Vec<Vec3> = (0..300)
        .map(|_| {
            Vec3::new(
                rng.gen_range(-5.0..5.0),
                rng.gen_range(0.0..2.0),
                rng.gen_range(10.0..20.0),
            )
        })
        .collect();
    let indices: Vec<u32> = (0..300u32).collect();
    let m = quantize_mesh(&positions, &normals, &indices).unwrap();
    assert_eq!(m.positions.len(), 300);
    assert_eq!(m.normals.len(), 300);
    assert_eq!(m.indices, (0..300u16).collect::<Vec<_>>());
    let tol = position_tolerance(&m.quantization);
    for i in 0..300 {
        assert_eq!(m.positions[i][3], 0, "padding");
        let d = m.quantization.decode(m.positions[i]);
        assert!((d - positions[i]).abs().cmple(tol).all());
        let dn = oct_decode_snorm16(m.normals[i]);
        assert!(angle_deg(dn, normals[i]) < MAX_ERR_16_DEG);
        assert_eq!(m.normals[i], oct_encode_snorm16(normals[i]));
    }
    assert_eq!(bytes_per_vertex_f32(), 24);
    assert_eq!(bytes_per_vertex_quantized(), 12);
    assert_eq!(
        std::mem::size_of_val(&m.positions[0]) + std::mem::size_of_val(&m.normals[0]),
        bytes_per_vertex_quantized()
    );
}

#[test]
fn flat_normals_faceted() {
    // Two triangles of a unit quad in the XZ plane, counter-clockwise seen from +Y,
    // plus a degenerate one.
    let positions = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(2.0, 2.0, 2.0),
    ];
    let indices = [0, 1, 2, 0, 2, 3, 4, 4, 4, 0, 3, 1];
    let (p, n, i) = flat_normals(&positions, &indices);
    assert_eq!(p.len(), 12);
    assert_eq!(n.len(), 12);
    assert_eq!(i, (0..12u32).collect::<Vec<_>>());
    for (k, &idx) in indices.iter().enumerate() {
        assert_eq!(p[k], positions[idx as usize]);
    }
    for (k, &normal) in n[0..6].iter().enumerate() {
        assert!(
            angle_deg(normal, Vec3::Y) < 1e-5,
            "front face {k}: {normal:?}"
        );
    }
    for &normal in &n[6..9] {
        assert_eq!(normal, Vec3::Z, "degenerate triangle gets the +Z fallback");
    }
    // Clockwise from +Y: (0,0,0), (1,0,0), (0,0,1) faces -Y.
    for &normal in &n[9..12] {
        assert!(angle_deg(normal, Vec3::NEG_Y) < 1e-5, "{normal:?}");
    }
    // The result goes straight into quantize_mesh.
    let m = quantize_mesh(&p, &n, &i).unwrap();
    assert_eq!(oct_decode_snorm16(m.normals[0]), Vec3::Y);

    // Tiny, huge, NaN corners and bad indices: no NaN, no panic.
    let odd = [
        Vec3::ZERO,
        Vec3::new(1e-30, 0.0, 0.0),
        Vec3::new(0.0, 1e-30, 0.0),
        Vec3::splat(f32::MAX),
        Vec3::splat(f32::MIN),
        Vec3::NAN,
    ];
    let (p, n, i) = flat_normals(&odd, &[0, 1, 2, 3, 4, 0, 5, 0, 1, 0, 1, 99, 0, 1]);
    assert_eq!(
        p.len(),
        9,
        "out-of-range triangle and trailing indices skipped"
    );
    assert_eq!(i.len(), 9);
    assert!(
        angle_deg(n[0], Vec3::Z) < 1e-5,
        "tiny triangle keeps its normal: {:?}",
        n[0]
    );
    for v in &n {
        assert_unit(*v, "flat normal");
    }
}

// ---------------------------------------------------------------- property test

proptest! {
    // No regression files: other engineers share this checkout.
    #![proptest_config(ProptestConfig {
        cases: 4096,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn position_decode_encode_within_half_lsb(
        lo in prop::array::uniform3(-1.0e4f32..1.0e4),
        size in prop::array::uniform3(prop_oneof![Just(0.0f32), 1.0e-3f32..1.0e4]),
        t in prop::array::uniform3(0.0f32..=1.0),
    ) {
        let lo = Vec3::from(lo);
        let hi = lo + Vec3::from(size);
        let p = (lo + Vec3::from(t) * (hi - lo)).clamp(lo, hi);
        let q = PositionQuantization::from_points(&[lo, hi, p]);
        let tol = position_tolerance(&q);
        let c = q.encode(p);
        let d = q.decode(c);
        prop_assert!(d.is_finite());
        prop_assert!(c.iter().all(|&x| x != i16::MIN));
        let err = (d - p).abs();
        prop_assert!(err.cmple(tol).all(), "p {:?} box {:?} -> {:?} -> {:?}: err {:?} > {:?}", p, q, c, d, err, tol);
    }
}
