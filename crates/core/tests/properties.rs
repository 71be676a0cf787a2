//! Property tests: the conformance gate's invariants (`checkraise_core::conformance`) on
//! random parameter sets drawn from each game's parameter schema, with random seeds.
//!
//! For every registered game, proptest draws a value for each parameter (an integer near the
//! bottom of its range or at its top when the range is small, any boolean, any choice, the
//! default text or a variant the conformance tests name), makes the game (a combination the
//! game refuses is skipped) and plays a random game with every invariant checked at each
//! state: legal actions sorted and non-empty until the end, each applies and an illegal one is
//! refused, mask equals list, clone and serialization round trips, action strings round trip
//! and are unique, chance probabilities sum to 1, observations finite, within bounds and of the
//! declared shape, returns within bounds and zero-sum where declared, the same seed plays the
//! same game, and information hiding by resampling.

use checkraise_core::conformance::random_simulation;
use checkraise_core::registry::{self, GameEntry, ParamKind, ParamSpec};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Integer parameters are drawn from this many values above their minimum (and the maximum
/// when the range is at most `SMALL_RANGE` wide), so that a random game stays short.
const LOW_VALUES: i64 = 16;
const SMALL_RANGE: i64 = 64;

/// Text parameters' values besides their defaults: the variants the conformance tests use.
const TEXT_VARIANTS: &[(&str, &str)] = &[
    ("grid", "-1..5:-1..1"),
    ("piece_values", "k=50 q=10 p=2"),
    ("fen", "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1"),
];

/// A strategy for one parameter's value, as text.
fn value(spec: &ParamSpec) -> BoxedStrategy<String> {
    match &spec.kind {
        ParamKind::Int { min, max } => {
            let (min, max) = (*min, *max);
            let low = (min..=max.min(min + LOW_VALUES - 1)).prop_map(|v| v.to_string());
            if max - min <= SMALL_RANGE {
                prop_oneof![4 => low, 1 => Just(max.to_string())].boxed()
            } else {
                low.boxed()
            }
        }
        ParamKind::Bool => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        ParamKind::Choice { options } => proptest::sample::select(options.to_vec())
            .prop_map(str::to_string)
            .boxed(),
        ParamKind::Text => {
            let mut values = vec![spec.default.to_string()];
            values.extend(
                TEXT_VARIANTS
                    .iter()
                    .filter(|(name, _)| *name == spec.name)
                    .map(|(_, v)| v.to_string()),
            );
            proptest::sample::select(values).boxed()
        }
    }
}

/// A strategy for a game string `name(k=v,...)` with every parameter drawn from its schema.
fn game_string(entry: &'static GameEntry) -> impl Strategy<Value = String> {
    let values: Vec<BoxedStrategy<String>> = entry.params.iter().map(value).collect();
    values.prop_map(move |values| {
        let pairs: Vec<String> = entry
            .params
            .iter()
            .zip(values)
            .map(|(spec, v)| format!("{}={v}", spec.name))
            .collect();
        format!("{}({})", entry.info.name, pairs.join(","))
    })
}

/// A strategy for a game string of any registered game (a game added later, or compiled in
/// behind a feature, included), each game about equally likely.
fn any_game_string() -> impl Strategy<Value = String> {
    let entries = registry::entries();
    (0..entries.len()).prop_flat_map(move |i| game_string(&entries[i]))
}

/// The conformance gate on one random game of `spec` from `seed`; a parameter combination
/// the game refuses is skipped.
fn conforms(spec: &str, seed: u64) -> Result<(), TestCaseError> {
    prop_assume!(registry::make_game_from_string(spec).is_ok());
    random_simulation(spec, 1, seed);
    Ok(())
}

/// A random game string of one of the registry's games in `first..end` (of its entries).
fn game_string_among(first: usize, end: usize) -> impl Strategy<Value = String> {
    let entries = registry::entries();
    (first..end).prop_flat_map(move |i| game_string(&entries[i]))
}

/// Half the registry's entries: the games are split in two tests so both cores run them.
fn half() -> usize {
    registry::entries().len() / 2
}

proptest! {
    // About six random parameter sets of each game, the first half of the registry here and
    // the second in the next test (one proptest runs its cases on one thread).
    #![proptest_config(Config {
        cases: 6 * half() as u32,
        failure_persistence: None,
        ..Config::default()
    })]

    /// Every game of the registry's first half conforms on random parameters and seeds.
    #[test]
    fn every_game_conforms(spec in game_string_among(0, half()), seed in any::<u64>()) {
        conforms(&spec, seed)?;
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 6 * (registry::entries().len() - half()) as u32,
        failure_persistence: None,
        ..Config::default()
    })]

    /// Every game of the registry's second half conforms on random parameters and seeds.
    #[test]
    fn every_game_conforms_second_half(
        spec in game_string_among(half(), registry::entries().len()),
        seed in any::<u64>()
    ) {
        conforms(&spec, seed)?;
    }
}

proptest! {
    #![proptest_config(Config { cases: 64, failure_persistence: None, ..Config::default() })]

    /// A game's parameters written as text make the same game again.
    #[test]
    fn parameters_round_trip(
        spec in any_game_string()
    ) {
        let Ok(game) = registry::make_game_from_string(&spec) else {
            return Ok(());
        };
        let text = format!("{}({})", game.info().name, game.params().to_text());
        let again = registry::make_game_from_string(&text).expect("a game's own parameters");
        prop_assert_eq!(again.params(), game.params());
        prop_assert_eq!(again.num_players(), game.num_players());
        prop_assert_eq!(again.observation_shape(), game.observation_shape());
    }
}
