//! The four data layouts hold the same units and answer the same queries:
//! identical neighbor sets on seeded worlds, through churn (swap-and-pop
//! removal, spawning, generational handles), and consistent arrays after any
//! sequence of removals and pushes.

use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use spatial_query_lab::engine::sim::layout::{Aos, AosPointers, Cold, HotCold, UnitLayout};
use spatial_query_lab::engine::sim::{
    spawn, Hot, Layout, Pass, Reorder, Settings, Simulation, Units, Workload, STANDARD_RADIUS,
};
use spatial_query_lab::engine::spatial::{Query, Strategy};

/// Sorted neighbor list of every unit of the last step.
fn neighbor_sets(sim: &Simulation) -> Vec<Vec<u32>> {
    (0..sim.len())
        .map(|i| {
            let mut v = sim.results().neighbors(i).to_vec();
            v.sort_unstable();
            v
        })
        .collect()
}

/// Bit patterns of every hot field, so NaN and -0.0 compare exactly.
fn hot_bits(sim: &Simulation) -> Vec<[u32; 8]> {
    (0..sim.len())
        .map(|i| {
            let h = sim.store().hot(i);
            [
                h.x.to_bits(),
                h.z.to_bits(),
                h.vx.to_bits(),
                h.vz.to_bits(),
                h.danger.to_bits(),
                h.id,
                h.enemies as u32,
                h.team as u32,
            ]
        })
        .collect()
}

/// Neighbor sets and unit state of one simulation after a step.
type Snapshot = (Vec<Vec<u32>>, Vec<[u32; 8]>);

/// The brute-force definition over a SoA copy of the positions
/// ([`crate::common::equivalence::brute`]): the reference, sorted ids.
fn reference_sets(sim: &Simulation, r: f32) -> Vec<Vec<u32>> {
    let u = sim.store().to_units();
    (0..u.len())
        .map(|i| {
            let q = Query {
                exclude: i as u32,
                ..Query::new(u.x[i], u.z[i], r)
            };
            crate::common::equivalence::brute(&u.x, &u.z, &q)
        })
        .collect()
}

#[test]
fn every_layout_returns_the_neighbor_sets_of_soa_on_seeded_worlds() {
    for workload in Workload::ALL {
        for strategy in Strategy::ALL {
            for threads in [1, 2] {
                let base = Settings {
                    units: 2_500,
                    workload,
                    strategy,
                    threads,
                    seed: 7,
                    // The lists of the collect pass are compared across layouts.
                    pass: Pass::Collect,
                    // Compared in storage order, so every layout must order
                    // its units alike (`resident` applies to SoA alone).
                    reorder: Reorder::Cells,
                    ..Settings::default()
                };
                let mut want: Option<Snapshot> = None;
                for layout in Layout::ALL {
                    let s = Settings {
                        layout,
                        ..base.clone()
                    };
                    let mut sim = Simulation::new(&s);
                    for _ in 0..3 {
                        sim.step(1.0 / 60.0, &s);
                    }
                    let ctx = format!("{workload}/{strategy}/{layout}/{threads} threads");
                    assert_eq!(sim.store().layout(), layout, "{ctx}");
                    let got = (neighbor_sets(&sim), hot_bits(&sim));
                    assert!(got.0.iter().any(|v| !v.is_empty()), "{ctx}: no neighbors");
                    match &want {
                        None => {
                            assert_eq!(got.0, reference_sets(&sim, s.radius), "{ctx} vs naive");
                            want = Some(got);
                        }
                        Some(w) => {
                            assert!(
                                got.0 == w.0,
                                "{ctx}: neighbor sets differ from aos-pointers"
                            );
                            assert!(got.1 == w.1, "{ctx}: unit state not bit-identical");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn layouts_agree_through_a_thousand_frames_of_random_deaths_and_spawns() {
    const FRAMES: usize = 1_000;
    let settings = |layout| Settings {
        units: 1_200,
        workload: Workload::Battle,
        strategy: Strategy::Grid,
        layout,
        speed: 1.0,
        seed: 11,
        pass: Pass::Collect,
        ..Settings::default()
    };
    let mut sims: Vec<(Settings, Simulation)> = Layout::ALL
        .into_iter()
        .map(|l| (settings(l), Simulation::new(&settings(l))))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (mut deaths, mut spawns) = (0u64, 0u64);
    for frame in 0..FRAMES {
        let kills: Vec<usize> = (0..rng.gen_range(0..6))
            .map(|_| rng.gen_range(0..sims[0].1.len()))
            .collect();
        let mut stats = Vec::new();
        for (s, sim) in &mut sims {
            for &i in &kills {
                sim.kill(i);
            }
            stats.push(sim.step(1.0 / 60.0, s));
        }
        assert!(stats
            .windows(2)
            .all(|w| w[0].deaths == w[1].deaths && w[0].spawns == w[1].spawns));
        deaths += stats[0].deaths as u64;
        spawns += stats[0].spawns as u64;
        if frame % 100 == 99 || frame == FRAMES - 1 {
            let want = (neighbor_sets(&sims[0].1), hot_bits(&sims[0].1));
            assert_eq!(
                want.0,
                reference_sets(&sims[0].1, STANDARD_RADIUS),
                "frame {frame} vs naive"
            );
            for (s, sim) in &sims[1..] {
                assert!(
                    neighbor_sets(sim) == want.0,
                    "frame {frame}: {} neighbor sets",
                    s.layout
                );
                assert!(
                    hot_bits(sim) == want.1,
                    "frame {frame}: {} unit state",
                    s.layout
                );
            }
            for (_, sim) in &sims {
                // Every stored unit's handle resolves to where it is stored.
                for i in 0..sim.len() {
                    assert_eq!(sim.resolve(sim.handle_of(i)), Some(i));
                }
                assert_eq!(sim.handles().live(), sim.len());
            }
        }
    }
    assert_eq!(deaths, spawns, "every death is replaced");
    assert!(deaths > 1_000, "churn happened: {deaths} deaths");
    assert_eq!(sims[0].1.len(), 1_200);
}

#[test]
fn a_stale_handle_is_rejected_after_its_unit_dies_and_its_slot_is_reused() {
    let s = Settings {
        units: 300,
        layout: Layout::Aos,
        ..Settings::default()
    };
    let mut sim = Simulation::new(&s);
    sim.step(1.0 / 60.0, &s);
    let h = sim.handle_of(17);
    sim.kill(17);
    sim.step(1.0 / 60.0, &s);
    assert_eq!(sim.resolve(h), None, "dead unit's handle");
    let reused = (0..sim.len())
        .map(|i| sim.handle_of(i))
        .find(|n| n.slot == h.slot)
        .expect("the reinforcement reuses the freed slot");
    assert_ne!(reused.generation, h.generation);
    assert_eq!(
        sim.resolve(h),
        None,
        "a stale handle never shows another unit"
    );
}

#[derive(Clone, Debug)]
enum Op {
    Remove(usize),
    Push(u8),
}

fn ops() -> impl proptest::strategy::Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            (0usize..1000).prop_map(Op::Remove),
            (0u8..2).prop_map(Op::Push)
        ],
        1..120,
    )
}

/// Every array of every layout still describes the same units as a model
/// `Vec<Hot>` driven by `Vec::swap_remove` and `push`, and each layout's cold
/// record still belongs to the unit next to it.
fn check(model: &[Hot], layouts: &[&dyn Fn() -> (Units, Vec<Cold>)]) -> Result<(), TestCaseError> {
    for get in layouts {
        let (u, cold) = get();
        prop_assert_eq!(u.len(), model.len());
        prop_assert_eq!(u.x.len(), u.danger.len());
        prop_assert_eq!(u.x.len(), u.team.len());
        for (i, h) in model.iter().enumerate() {
            prop_assert_eq!(u.get(i), *h);
            if let Some(c) = cold.get(i) {
                prop_assert_eq!(c, &Cold::for_unit(h.id));
            }
        }
        prop_assert!(cold.is_empty() || cold.len() == model.len());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn swap_and_pop_keeps_every_array_of_every_layout_consistent(ops in ops()) {
        let world = 200.0;
        let units = spawn(40, world, STANDARD_RADIUS, Workload::Uniform, 3);
        let mut model: Vec<Hot> = (0..units.len()).map(|i| units.get(i)).collect();
        let mut soa = units.clone();
        let mut aos = Aos::from_units(&units);
        let mut ptrs = AosPointers::from_units(&units, 9);
        let mut hc = HotCold::from_units(units.clone());
        let mut next_id = 1_000;
        for op in ops {
            match op {
                Op::Remove(k) if !model.is_empty() => {
                    let i = k % model.len();
                    let want = model.swap_remove(i);
                    prop_assert_eq!(soa.swap_remove(i), want);
                    prop_assert_eq!(aos.swap_remove(i), want);
                    prop_assert_eq!(ptrs.swap_remove(i), want);
                    prop_assert_eq!(hc.swap_remove(i), want);
                }
                Op::Remove(_) => {}
                Op::Push(team) => {
                    let h = Hot { x: 1.0, z: 2.0, vx: 0.5, vz: -0.5, id: next_id, team, ..Hot::default() };
                    next_id += 1;
                    model.push(h);
                    soa.push(h);
                    aos.push(h);
                    ptrs.push(h);
                    hc.push(h);
                }
            }
            check(&model, &[
                &|| (soa.to_units(), Vec::new()),
                &|| (aos.to_units(), aos.units.iter().map(|o| o.cold).collect()),
                &|| (ptrs.to_units(), ptrs.units.iter().map(|o| o.cold).collect()),
                &|| (hc.to_units(), hc.cold.clone()),
            ])?;
        }
    }
}

#[test]
fn permute_rejects_a_non_permutation_instead_of_duplicating_a_unit() {
    use spatial_query_lab::engine::sim::layout::PermuteScratch;
    let mut u = Units::default();
    for i in 0..3u32 {
        u.push(Hot {
            x: i as f32,
            id: i,
            ..Hot::default()
        });
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        u.permute(&[0, 0, 1], &mut PermuteScratch::default());
    }));
    assert!(r.is_err(), "no panic; ids are now {:?}", u.id);
}

#[test]
fn units_living_in_cell_order_match_the_periodic_reorder_through_battle_churn() {
    // `resident` permutes the SoA units every frame inside SortedGrid's
    // rebuild and leaves the handle table's indices as hints; `cells`
    // reorders every 16 frames and keeps the table exact. The same units
    // (by id) must be in the same state, and every handle must resolve.
    const FRAMES: usize = 600;
    let settings = |reorder| Settings {
        units: 1_500,
        workload: Workload::Battle,
        strategy: Strategy::SortedGrid,
        layout: Layout::Soa,
        reorder,
        threads: 2,
        speed: 1.0,
        seed: 5,
        ..Settings::default()
    };
    let (a, b) = (settings(Reorder::Resident), settings(Reorder::Cells));
    let (mut sa, mut sb) = (Simulation::new(&a), Simulation::new(&b));
    let by_id = |sim: &Simulation| {
        let u = sim.store().to_units();
        let mut v: Vec<(u32, [u32; 5], u16)> = (0..u.len())
            .map(|i| {
                let f = [u.x[i], u.z[i], u.vx[i], u.vz[i], u.danger[i]].map(f32::to_bits);
                (u.id[i], f, u.enemies[i])
            })
            .collect();
        v.sort_unstable_by_key(|e| e.0);
        v
    };
    let (mut deaths, mut stale) = (0u64, 0usize);
    for frame in 0..FRAMES {
        let (ta, tb) = (sa.step(1.0 / 60.0, &a), sb.step(1.0 / 60.0, &b));
        assert!(ta.reordered, "frame {frame}: resident reorders every frame");
        assert_eq!(ta.query.neighbors, tb.query.neighbors, "frame {frame}");
        assert_eq!(
            (ta.deaths, ta.spawns),
            (tb.deaths, tb.spawns),
            "frame {frame}"
        );
        deaths += ta.deaths as u64;
        if frame % 50 == 49 {
            assert!(by_id(&sa) == by_id(&sb), "frame {frame}: unit states by id");
            for i in 0..sa.len() {
                let h = sa.handle_of(i);
                assert_eq!(sa.resolve(h), Some(i), "frame {frame}: handle of unit {i}");
                stale += (sa.handles().resolve(h) != Some(i)) as usize;
            }
        }
    }
    assert!(deaths > 100, "churn happened: {deaths} deaths");
    assert!(
        stale > 0,
        "the resident order moved units away from their hints"
    );
}

#[test]
fn switching_the_order_to_off_puts_the_units_back_in_spawn_order_at_once() {
    // Choosing order `off` puts the units back in spawn order (memory-order
    // colors as noise) at once, not at the next respawn.
    let ids = |sim: &Simulation| {
        (0..sim.len())
            .map(|i| sim.store().hot(i).id)
            .collect::<Vec<u32>>()
    };
    for layout in Layout::ALL {
        for (reorder, strategy) in [
            (Reorder::Cells, Strategy::Grid),
            (Reorder::Morton, Strategy::Grid),
            (Reorder::Resident, Strategy::SortedGrid),
        ] {
            let what = format!("{layout:?}, {reorder:?}");
            let mut s = Settings {
                units: 3_000,
                layout,
                reorder,
                strategy,
                reorder_every: 1,
                ..Settings::default()
            };
            let mut sim = Simulation::new(&s);
            let spawned: Vec<u32> = ids(&sim);
            assert!(
                spawned.windows(2).all(|w| w[0] < w[1]),
                "{what}: spawn order is id order"
            );
            for _ in 0..3 {
                sim.step(1.0 / 60.0, &s);
            }
            assert_ne!(ids(&sim), spawned, "{what}: the order moved the units");
            let h = sim.handle_of(1234);
            let pos = sim.store().pos(1234);
            s.reorder = Reorder::Off;
            let st = sim.step(0.0, &s);
            assert!(st.reordered, "{what}: the step says it reordered");
            assert_eq!(
                ids(&sim),
                spawned,
                "{what}: back in spawn order after one step"
            );
            let i = sim.resolve(h).expect("the unit is alive");
            assert_eq!(
                sim.store().pos(i),
                pos,
                "{what}: the handle follows its unit"
            );
            // Later steps leave the order alone.
            let st = sim.step(1.0 / 60.0, &s);
            assert!(!st.reordered, "{what}");
            assert_eq!(ids(&sim), spawned, "{what}");
        }
    }
}
