//! The churn of the `battle` workload: the dead removed by swap-and-pop,
//! reinforcements spawned at their team's edge.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{Hot, Simulation, UnitLayout, STANDARD_SPEED};
use crate::engine::spatial::Positions;
use crate::with_layout;

/// Simulated seconds a unit of the `battle` workload survives with more
/// enemies than friends in range.
pub const DEATH_AFTER_S: f32 = 0.5;
/// Width of the strip at each team's edge of the world where `battle`
/// reinforcements spawn, as a fraction of the world edge.
pub const REINFORCEMENT_STRIP: f32 = 0.05;

impl Simulation {
    /// Removes the units that died in the last step (swap-and-pop over every
    /// array of the layout, highest index first, so each removal moves a live
    /// unit) and spawns as many reinforcements per team at its edge of the
    /// world. Returns (deaths, spawns). Only the `battle` workload has deaths.
    pub(super) fn churn(&mut self) -> (u32, u32) {
        if self.dead.is_empty() {
            return (0, 0);
        }
        let mut lost = [0u32; 2];
        let Simulation {
            store,
            handles,
            dead,
            rng,
            world,
            ..
        } = self;
        with_layout!(&mut *store, l => {
            for &i in dead.iter().rev() {
                let gone = l.swap_remove(i);
                handles.remove(gone.id);
                lost[(gone.team & 1) as usize] += 1;
                if i < l.len() {
                    handles.moved(l.hot(i).id, i);
                }
            }
            handles.order_recent_free(dead.len());
            for team in 0..2u8 {
                for _ in 0..lost[team as usize] {
                    let hot = reinforcement(team, *world, rng);
                    let id = handles.insert(l.len());
                    l.push(Hot { id, ..hot });
                }
            }
        });
        let deaths = dead.len() as u32;
        dead.clear();
        (deaths, lost[0] + lost[1])
    }
}

/// A `battle` reinforcement of `team`: uniform in the strip of width
/// [`REINFORCEMENT_STRIP`] at its team's edge (team 0 at x = 0, team 1 at
/// x = L), heading toward the enemy within ±60°, at [`STANDARD_SPEED`].
fn reinforcement(team: u8, world: f32, rng: &mut ChaCha8Rng) -> Hot {
    let strip = world * REINFORCEMENT_STRIP;
    let max = world * (1.0 - f32::EPSILON);
    let off = rng.gen_range(0.0..strip.max(f32::MIN_POSITIVE));
    let x = if team == 0 {
        off
    } else {
        (world - off).min(max)
    };
    let z = rng.gen_range(0.0..world.max(f32::MIN_POSITIVE)).min(max);
    let spread = std::f32::consts::FRAC_PI_3;
    let a = rng.gen_range(-spread..spread) + if team == 0 { 0.0 } else { std::f32::consts::PI };
    Hot {
        x,
        z,
        vx: STANDARD_SPEED * a.cos(),
        vz: STANDARD_SPEED * a.sin(),
        danger: 0.0,
        id: 0,
        enemies: 0,
        team,
    }
}
