//! Tests of policies: the shipped ones, reading policy files and refusing bad ones, playing
//! through another observation, the action-features link, and the errors' messages. (The
//! safetensors reader's own test is in `safetensors.rs`.)

use ::safetensors::Dtype;
use ::safetensors::tensor::TensorView;

use super::*;
use crate::bots::BotSpec;
use crate::registry::{entries, make_game, make_game_from_string};

/// Each error says what it said when these errors were strings (the Python package's tests
/// and its users read the messages).
#[test]
fn policy_errors_say_what_they_said_as_strings() {
    let trained_on = || PolicyError::TrainedOn {
        trained: "a()".to_string(),
        game: "b()".to_string(),
    };
    let cases: Vec<(PolicyError, &str)> = vec![
        (
            PolicyError::Format { found: None },
            r#"not a checkraise policy: metadata format is None, expected "checkraise-policy-v1""#,
        ),
        (
            PolicyError::Format {
                found: Some("x".to_string()),
            },
            r#"not a checkraise policy: metadata format is Some("x"), expected "checkraise-policy-v1""#,
        ),
        (
            PolicyError::MissingTensor {
                name: "policy.bias".to_string(),
            },
            r#"the file has no tensor "policy.bias""#,
        ),
        (
            PolicyError::NotFloat32 {
                name: "w".to_string(),
            },
            "w is not float32; policies are float32",
        ),
        (
            PolicyError::NotMatrix {
                name: "w".to_string(),
                shape: vec![3],
            },
            "w has shape [3]; a weight is 2-D",
        ),
        (
            PolicyError::Bias {
                name: "layer0".to_string(),
                entries: 2,
                outputs: 3,
            },
            "layer0: bias of 2 entries for a weight of 3 outputs",
        ),
        (
            PolicyError::Chain {
                inputs: 2,
                outputs: 3,
            },
            "layer sizes do not chain: 2 inputs after 3 outputs",
        ),
        (
            PolicyError::ActionFeaturesShape { shape: vec![2] },
            "policy.action_features has shape [2]; it is one weight",
        ),
        (
            PolicyError::ActionFeaturesOffset {
                offset: "9".to_string(),
                actions: 4,
                inputs: 10,
            },
            r#"metadata action_features_offset is "9"; a block of 4 entries inside the 10 observation entries"#,
        ),
        (
            PolicyError::MissingActionFeaturesOffset,
            "the file has policy.action_features but no metadata action_features_offset",
        ),
        (
            PolicyError::MissingActionFeatures,
            "the metadata has action_features_offset but the file no tensor policy.action_features",
        ),
        (
            trained_on(),
            r#"it was trained on "a()", not "b()"; train one for these parameters (python -m checkraise.train)"#,
        ),
        (
            PolicyError::Sizes {
                inputs: 1,
                logits: 2,
                game: "g()".to_string(),
                observation_size: 3,
                num_actions: 4,
            },
            "it reads 1 observation entries and writes 2 logits; g() has 3 and 4",
        ),
        (
            PolicyError::ActionFeaturesAt {
                offset: 0,
                game: "g()".to_string(),
                found: None,
            },
            "it reads per-action features at observation entry 0; g() has none",
        ),
        (
            PolicyError::ActionFeaturesAt {
                offset: 0,
                game: "g()".to_string(),
                found: Some(5),
            },
            "it reads per-action features at observation entry 0; g() has them at 5",
        ),
        (
            PolicyError::Observation {
                strict: Box::new(trained_on()),
                error: GameError::UnknownGame {
                    name: "x".to_string(),
                    known: "y".to_string(),
                },
            },
            r#"it was trained on "a()", not "b()"; train one for these parameters (python -m checkraise.train); its observation does not make a game here: unknown game 'x'; registered games: y"#,
        ),
        (
            PolicyError::File(SafetensorsError::TooShort),
            "not a safetensors file: shorter than its 8-byte header length",
        ),
        (
            PolicyError::File(SafetensorsError::HeaderLength { length: 9 }),
            "not a safetensors file: header length 9 out of range",
        ),
        (
            PolicyError::File(SafetensorsError::Dtype {
                name: "t".to_string(),
                dtype: Dtype::BF16,
            }),
            r#"tensor "t" is BF16; only float32, float64 and int64 are read"#,
        ),
        (
            PolicyError::File(SafetensorsError::Shape {
                name: "t".to_string(),
                values: 1,
                shape: vec![3],
            }),
            r#"tensor "t": 1 values do not fit shape [3]"#,
        ),
    ];
    for (error, says) in cases {
        assert_eq!(error.to_string(), says);
    }
}

/// A policy file with one hidden layer, from row-major weights.
fn file(game: &str, tensors: &[(&str, Vec<usize>, Vec<f32>)]) -> Vec<u8> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(n, s, v)| {
            let b = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            (n.to_string(), s.clone(), b)
        })
        .collect();
    let views: Vec<(String, TensorView<'_>)> = bytes
        .iter()
        .map(|(n, s, b)| {
            (
                n.clone(),
                TensorView::new(Dtype::F32, s.clone(), b).unwrap(),
            )
        })
        .collect();
    let metadata = HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("game".to_string(), game.to_string()),
    ]);
    ::safetensors::serialize(views, Some(metadata)).unwrap()
}

#[test]
fn every_published_game_ships_a_policy_that_fits_its_default_parameters() {
    for entry in entries() {
        let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
        let Some(net) = shipped(game.as_ref()) else {
            // Only a game behind a feature may ship none; its `policy` bot is refused.
            assert!(
                entry.feature.is_some(),
                "{} ships no policy",
                entry.info.name
            );
            let Err(err) = BotSpec::parse::<&str, &str>("policy", [])
                .unwrap()
                .build(game.as_ref())
            else {
                panic!("{}: a policy bot without a policy", entry.info.name);
            };
            assert!(err.to_string().contains("no policy is shipped"), "{err}");
            continue;
        };
        // Trained on the default rules; it may observe a variant (`observer`).
        let observer = net.observer(game.as_ref()).unwrap();
        let observed = observer.as_deref().unwrap_or(game.as_ref());
        net.check_game(observed).unwrap();
        assert_eq!(net.game(), game_string(observed));
        assert_eq!(
            playing_string(net.game()),
            playing_string(&game_string(game.as_ref()))
        );
        // A few MB: Poker Chess's, the largest, is 4.7 MiB (a first layer reading its
        // 4,207-entry scores block, 4,207 logits).
        assert!(entry.policy.unwrap().len() < 5 << 20);
    }
}

/// A net of 2 inputs and 4 actions: an identity hidden layer (ReLU keeps the positive
/// entries), then logits = h · W, so observation `[1, -1]` gives logits 1, 2, 2, 0.
fn two_input_net() -> PolicyNet {
    let bytes = file(
        "test",
        &[
            ("layer0.weight", vec![2, 2], vec![1.0, 0.0, 0.0, 1.0]),
            ("layer0.bias", vec![2], vec![0.0, 0.0]),
            (
                "policy.weight",
                vec![2, 4],
                vec![1.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 5.0],
            ),
            ("policy.bias", vec![4], vec![0.0; 4]),
        ],
    );
    PolicyNet::from_bytes(&bytes).unwrap()
}

#[test]
fn the_bot_plays_the_best_legal_logit_with_ties_to_the_lowest_action() {
    let net = two_input_net();
    assert_eq!((net.observation_size(), net.num_actions()), (2, 4));
    assert_eq!(net.logits(&[1.0, -1.0]).to_vec(), vec![1.0, 2.0, 2.0, 0.0]);
    // Actions 1 and 2 tie: the lower wins; action 3 is best where the second entry counts.
    assert_eq!(net.best(&[1.0, -1.0], &[true; 4]), Some(1));
    assert_eq!(net.best(&[1.0, 1.0], &[true; 4]), Some(3));
    assert_eq!(net.best(&[1.0, 1.0], &[true, false, true, false]), Some(2));
    assert_eq!(net.best(&[1.0, 1.0], &[false; 4]), None);
}

#[test]
fn the_distribution_is_the_softmax_of_the_legal_logits() {
    let net = two_input_net();
    // Logits 1, 2, 2, 0; among actions 0, 2 and 3 only.
    let d = net.distribution(&[1.0, -1.0], &[0, 2, 3]);
    let z = 1f64.exp() + 2f64.exp() + 1.0;
    let want = [(0, 1f64.exp() / z), (2, 2f64.exp() / z), (3, 1.0 / z)];
    for ((a, p), (wa, wp)) in d.iter().zip(want) {
        assert_eq!(*a, wa);
        assert!((p - wp).abs() < 1e-12, "{p} against {wp}");
    }
    assert!((d.iter().map(|w| w.1).sum::<f64>() - 1.0).abs() < 1e-12);
    // The likelihood ratio is the distribution times the number of legal actions.
    let r = net.likelihood_ratio(&[1.0, -1.0], &[0, 2, 3], 2);
    assert!((r - 3.0 * want[1].1).abs() < 1e-12);
}

/// `play=sample` draws from the network's distribution over the legal actions with the
/// caller's generator: every draw legal, the same draws from the same seed, and frequencies
/// within five standard errors of the distribution; `play=greedy` is its mode.
/// A decision of a Prediction Chess game (both seats playing random legal moves from a fixed
/// seed) at which `net`'s most likely action has probability below 0.9: the state and the seat.
fn mixing_decision(game: &dyn Game, net: &PolicyNet) -> (Box<dyn State>, usize) {
    let mut rng = GameRng::new(3);
    let mut state = game.new_initial_state();
    let mut observation = vec![0.0; net.observation_size()];
    while !state.is_terminal() {
        for seat in 0..2 {
            let legal = state.legal_actions_for(Player::Seat(seat));
            state.observation_tensor(seat, &mut observation);
            let top = net
                .distribution(&observation, &legal)
                .iter()
                .map(|w| w.1)
                .fold(0.0, f64::max);
            if top < 0.9 {
                return (state, seat);
            }
        }
        let joint: Vec<Action> = (0..2)
            .map(|seat| rng.choose(&state.legal_actions_for(Player::Seat(seat))))
            .collect();
        state.apply_actions(&joint).unwrap();
    }
    panic!("the test needs a position where the policy mixes, and this game had none");
}

#[test]
fn a_sampling_policy_bot_draws_its_actions_from_the_networks_distribution() {
    let game = make_game::<&str, &str>("prediction_chess", []).unwrap();
    let spec = BotSpec::parse::<&str, &str>("policy(play=sample)", []).unwrap();
    assert_eq!(spec.to_string(), "policy(play=sample)");
    let sampler = spec.build(game.as_ref()).unwrap();
    let greedy = BotSpec::parse::<&str, &str>("policy(play=greedy)", [])
        .unwrap()
        .build(game.as_ref())
        .unwrap();
    // The spec names only a play that is not the file's own (the shipped file samples).
    let net = shipped(game.as_ref()).unwrap();
    assert_eq!(net.play(), Play::Sample);
    assert_eq!(sampler.spec(), "policy");
    assert_eq!(greedy.spec(), "policy(play=greedy)");
    let (state, seat) = mixing_decision(game.as_ref(), &net);
    let legal = state.legal_actions_for(Player::Seat(seat));
    let mut observation = vec![0.0; net.observation_size()];
    state.observation_tensor(seat, &mut observation);
    let distribution = net.distribution(&observation, &legal);
    let (mode, top) = distribution
        .iter()
        .copied()
        .fold((0, f64::NEG_INFINITY), |b, w| if w.1 > b.1 { w } else { b });
    assert!(
        top < 0.999,
        "the test needs a position where the policy mixes: {top}"
    );
    let mut rng = GameRng::new(17);
    assert_eq!(greedy.act(state.as_ref(), seat, &mut rng), mode);
    let draws = 4000;
    let mut counts = std::collections::HashMap::new();
    let mut first = Vec::new();
    for i in 0..draws {
        let a = sampler.act(state.as_ref(), seat, &mut rng);
        assert!(legal.contains(&a), "{a} is not legal");
        *counts.entry(a).or_insert(0usize) += 1;
        if i < 50 {
            first.push(a);
        }
    }
    let mut again = GameRng::new(17);
    greedy.act(state.as_ref(), seat, &mut again);
    let replay: Vec<Action> = (0..50)
        .map(|_| sampler.act(state.as_ref(), seat, &mut again))
        .collect();
    assert_eq!(replay, first, "the same generator draws the same actions");
    for (a, p) in distribution {
        let seen = *counts.get(&a).unwrap_or(&0) as f64 / draws as f64;
        let se = (p * (1.0 - p) / draws as f64).sqrt();
        assert!(
            (seen - p).abs() <= 5.0 * se + 1e-9,
            "action {a}: drawn {seen}, probability {p}"
        );
    }
    let e = BotSpec::parse::<&str, &str>("policy(play=mixed)", [])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "setting 'play' of bot 'policy' cannot be 'mixed': one of: greedy, sample"
    );
    let both = BotSpec::parse::<&str, &str>("policy(play=sample,path=p.safetensors)", []).unwrap();
    assert_eq!(both.to_string(), "policy(path=p.safetensors,play=sample)");
    assert_eq!(
        BotSpec::parse::<&str, &str>(&both.to_string(), []).unwrap(),
        both
    );
}

/// A file's metadata `play` is how its bot plays unless the spec says: the shipped Prediction
/// Chess policy, which says `play=sample`, samples as `policy(play=sample)` does, its spec
/// leaves out what the file implies, `play=greedy` overrides it, the same weights without the
/// entry play greedily, and a bad value is refused.
#[test]
fn a_policy_files_play_metadata_is_its_bots_default() {
    let game = make_game::<&str, &str>("prediction_chess", []).unwrap();
    let shipped_bytes = crate::registry::shipped_policy_bytes("prediction_chess").unwrap();
    let sampling_file = shipped_bytes.to_vec();
    let net = PolicyNet::from_bytes(&sampling_file).unwrap();
    assert_eq!(net.play(), Play::Sample);
    let mut file = SafetensorsFile::read(shipped_bytes).unwrap();
    file.metadata.remove(PLAY);
    let silent = PolicyNet::from_bytes(&file.to_bytes().unwrap()).unwrap();
    assert_eq!(silent.play(), Play::Greedy);
    let by_file = PolicyBot::from_bytes(&sampling_file, game.as_ref(), "s").unwrap();
    assert_eq!(by_file.spec(), "policy(bytes=s)");
    let overridden = by_file.clone().with_play(Play::Greedy);
    assert_eq!(overridden.spec(), "policy(bytes=s,play=greedy)");
    let by_spec = BotSpec::parse::<&str, &str>("policy(play=sample)", [])
        .unwrap()
        .build(game.as_ref())
        .unwrap();
    // The same weights in a file without the entry: greedy, its spec silent about it.
    let greedy = PolicyBot::from_bytes(&file.to_bytes().unwrap(), game.as_ref(), "g").unwrap();
    assert_eq!(greedy.spec(), "policy(bytes=g)");
    let (state, seat) = mixing_decision(game.as_ref(), &net);
    let (mut a, mut b, mut c) = (GameRng::new(8), GameRng::new(8), GameRng::new(8));
    let from_file: Vec<Action> = (0..40)
        .map(|_| by_file.act(state.as_ref(), seat, &mut a))
        .collect();
    let from_spec: Vec<Action> = (0..40)
        .map(|_| by_spec.act(state.as_ref(), seat, &mut b))
        .collect();
    assert_eq!(from_file, from_spec);
    let mode = greedy.act(state.as_ref(), seat, &mut c);
    assert!(from_file.iter().any(|&x| x != mode), "it mixes here");
    assert!(
        (0..40).all(|_| overridden.act(state.as_ref(), seat, &mut c) == mode),
        "play=greedy overrides the file"
    );
    file.metadata.insert(PLAY.to_string(), "mixed".to_string());
    let e = PolicyNet::from_bytes(&file.to_bytes().unwrap())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "metadata play is \"mixed\"; one of \"greedy\", \"sample\""
    );
}

#[test]
fn bad_files_and_other_games_are_refused_with_the_reason() {
    assert!(PolicyNet::from_bytes(b"nonsense").is_err());
    let unchained = file(
        "test",
        &[
            ("layer0.weight", vec![2, 3], vec![0.0; 6]),
            ("layer0.bias", vec![3], vec![0.0; 3]),
            ("policy.weight", vec![2, 4], vec![0.0; 8]),
            ("policy.bias", vec![4], vec![0.0; 4]),
        ],
    );
    let e = PolicyNet::from_bytes(&unchained).unwrap_err().to_string();
    assert!(e.contains("do not chain"), "{e}");
    let no_head = file("test", &[("layer0.weight", vec![1, 1], vec![0.0])]);
    assert!(
        PolicyNet::from_bytes(&no_head)
            .unwrap_err()
            .to_string()
            .contains("layer0.bias")
    );
    let game = make_game_from_string("holdem_chess(players=3)").unwrap();
    let spec = BotSpec::parse::<&str, &str>("policy", []).unwrap();
    let e = spec.build(game.as_ref()).err().unwrap().to_string();
    assert!(e.contains("trained on"), "{e}");
    let spec = BotSpec::parse::<&str, &str>("policy(path=/nonexistent/p.safetensors)", []).unwrap();
    assert_eq!(spec.to_string(), "policy(path=/nonexistent/p.safetensors)");
    let e = spec.build(game.as_ref()).err().unwrap().to_string();
    assert!(e.starts_with("setting 'path' of bot 'policy'"), "{e}");
    assert!(BotSpec::parse::<&str, &str>("policy(path=)", []).is_err());
}

/// A policy trained with `observation=placements` plays `pokeros` through that
/// observation: move for move as it plays the same states of the game it was trained on.
#[test]
fn a_policy_trained_with_another_observation_plays_through_it() {
    let plain = make_game_from_string("pokeros(board_size=5)").unwrap();
    let observed = make_game_from_string("pokeros(board_size=5,observation=placements)").unwrap();
    let base = plain.observation_size();
    let (size, actions) = (observed.observation_size(), plain.num_distinct_actions());
    assert_eq!(size, base + actions);
    // Logit of action a = the points its placement scores (the placements block's entry a).
    let mut first = vec![0.0; size * actions];
    let mut head = vec![0.0; actions * actions];
    for a in 0..actions {
        first[(base + a) * actions + a] = 1.0;
        head[a * actions + a] = 1.0;
    }
    let bytes = file(
        &game_string(observed.as_ref()),
        &[
            ("layer0.weight", vec![size, actions], first),
            ("layer0.bias", vec![actions], vec![0.0; actions]),
            ("policy.weight", vec![actions, actions], head),
            ("policy.bias", vec![actions], vec![0.0; actions]),
        ],
    );
    let net = PolicyNet::from_bytes(&bytes).unwrap();
    let e = net.check_game(plain.as_ref()).unwrap_err().to_string();
    assert!(e.contains("trained on"), "{e}");
    assert!(net.observer(observed.as_ref()).unwrap().is_none());
    let through = net.observer(plain.as_ref()).unwrap().unwrap();
    assert_eq!(
        game_string(through.as_ref()),
        game_string(observed.as_ref())
    );
    // A file written before `observation` existed names only some parameters: the
    // missing ones are the game's defaults, so it reads plain Pokeros.
    let plain_size = plain.observation_size();
    let old = file(
        "pokeros(board_size=5,players=2)",
        &[
            ("layer0.weight", vec![plain_size, 1], vec![0.0; plain_size]),
            ("layer0.bias", vec![1], vec![0.0]),
            ("policy.weight", vec![1, actions], vec![0.0; actions]),
            ("policy.bias", vec![actions], vec![0.0; actions]),
        ],
    );
    let old = PolicyNet::from_bytes(&old).unwrap();
    old.check_game(plain.as_ref()).unwrap();
    assert!(old.observer(plain.as_ref()).unwrap().is_none());
    assert!(old.check_game(observed.as_ref()).is_err());
    // Another rule (the board's size) is still another game.
    let other = make_game_from_string("pokeros(board_size=7)").unwrap();
    let e = net.observer(other.as_ref()).unwrap_err().to_string();
    assert!(e.contains("trained on"), "{e}");

    let on_plain = PolicyBot::from_bytes(&bytes, plain.as_ref(), "greedy").unwrap();
    let on_observed = PolicyBot::from_bytes(&bytes, observed.as_ref(), "greedy").unwrap();
    let (mut a, mut b) = (plain.new_initial_state(), observed.new_initial_state());
    let mut rng = GameRng::new(5);
    let (mut decisions, mut scoring) = (0, 0);
    while !a.is_terminal() {
        let action = match a.current_player().seat() {
            None => rng.choose_weighted(&a.chance_outcomes()),
            Some(seat) => {
                let mine = on_plain.act(a.as_ref(), seat, &mut rng);
                assert_eq!(mine, on_observed.act(b.as_ref(), seat, &mut rng));
                let mut row = vec![0.0; size];
                b.observation_tensor(seat, &mut row);
                decisions += 1;
                scoring += usize::from(row[base + mine as usize] > 0.0);
                mine
            }
        };
        a.apply_action(action).unwrap();
        b.apply_action(action).unwrap();
    }
    assert_eq!(a.returns(), b.returns());
    assert!(decisions > 5 && scoring > 0, "{decisions} {scoring}");
}

/// A policy file with the action-features link: one zero hidden unit, zero logits, and
/// `weight × observation[offset + a]` added to action `a`'s logit.
fn linked(game: &dyn Game, weight: f32, offset: Option<&str>) -> Vec<u8> {
    let (size, actions) = (game.observation_size(), game.num_distinct_actions());
    let mut bytes = file(
        &game_string(game),
        &[
            ("layer0.weight", vec![size, 1], vec![0.0; size]),
            ("layer0.bias", vec![1], vec![0.0]),
            ("policy.weight", vec![1, actions], vec![0.0; actions]),
            ("policy.bias", vec![actions], vec![0.0; actions]),
            (ACTION_FEATURES, vec![1], vec![weight]),
        ],
    );
    if let Some(offset) = offset {
        let mut read = SafetensorsFile::read(&bytes).unwrap();
        read.metadata
            .insert(ACTION_FEATURES_OFFSET.to_string(), offset.to_string());
        bytes = read.to_bytes().unwrap();
    }
    bytes
}

#[test]
fn the_action_features_link_adds_each_actions_entry_to_its_logit() {
    let game = make_game_from_string("pokeros(board_size=5,observation=placements)").unwrap();
    let offset = game.action_features().unwrap();
    assert_eq!(
        offset + game.num_distinct_actions(),
        game.observation_size()
    );
    let net =
        PolicyNet::from_bytes(&linked(game.as_ref(), 2.0, Some(&offset.to_string()))).unwrap();
    assert_eq!(net.action_features(), Some((offset, 2.0)));
    net.check_game(game.as_ref()).unwrap();
    let mut observation = vec![0.0; game.observation_size()];
    observation[offset + 7] = 0.25;
    observation[offset + 9] = 0.5;
    let logits = net.logits(&observation);
    assert_eq!((logits[7], logits[9], logits[8]), (0.5, 1.0, 0.0));
    let mut mask = vec![false; game.num_distinct_actions()];
    mask[7] = true;
    mask[8] = true;
    assert_eq!(net.best(&observation, &mask), Some(7));
    mask[9] = true;
    assert_eq!(net.best(&observation, &mask), Some(9));
    // Played on plain Pokeros it observes through the placements variant.
    let plain = make_game_from_string("pokeros(board_size=5)").unwrap();
    assert_eq!(plain.action_features(), None);
    assert!(net.observer(plain.as_ref()).unwrap().is_some());

    // Refused: a link without its offset, an offset past the observation, a game whose
    // block is elsewhere.
    let e = PolicyNet::from_bytes(&linked(game.as_ref(), 1.0, None))
        .unwrap_err()
        .to_string();
    assert!(e.contains(ACTION_FEATURES_OFFSET), "{e}");
    let e = PolicyNet::from_bytes(&linked(game.as_ref(), 1.0, Some("5000")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("inside the"), "{e}");
    let e = PolicyNet::from_bytes(&linked(game.as_ref(), 1.0, Some("0")))
        .unwrap()
        .check_game(game.as_ref())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("per-action features at observation entry 0"),
        "{e}"
    );
}

#[test]
fn policies_read_from_bytes_in_memory_play_as_from_their_file() {
    let game = make_game::<&str, &str>("pokeros", []).unwrap();
    let bytes = crate::registry::shipped_policy_bytes("pokeros").unwrap();
    let bot = PolicyBot::from_bytes(bytes, game.as_ref(), "snapshot 3").unwrap();
    assert_eq!(bot.spec(), "policy(bytes=snapshot 3)");
    let shipped_bot = BotSpec::Policy {
        path: None,
        play: None,
    }
    .build(game.as_ref())
    .unwrap();
    let mut state = game.new_initial_state();
    let mut rng = GameRng::new(4);
    crate::env::resolve_chance(state.as_mut(), &mut rng);
    let seat = state.current_player().seat().unwrap();
    assert_eq!(
        bot.act(state.as_ref(), seat, &mut rng),
        shipped_bot.act(state.as_ref(), seat, &mut rng)
    );
    let e = PolicyBot::from_bytes(b"nonsense", game.as_ref(), "junk")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("setting 'bytes' of bot 'policy' cannot be 'junk (8 bytes)'"),
        "{e}"
    );
    let other = make_game::<&str, &str>("detective_poker", []).unwrap();
    let e = PolicyBot::from_bytes(bytes, other.as_ref(), "s")
        .unwrap_err()
        .to_string();
    assert!(e.contains("trained on"), "{e}");
    // The reward only says how returns are paid: the policy plays `pokeros(reward=points)`
    // as it plays `pokeros`, but not another board.
    let points = make_game_from_string("pokeros(reward=points)").unwrap();
    PolicyBot::from_bytes(bytes, points.as_ref(), "s").unwrap();
    let other = make_game_from_string("pokeros(reward=points,players=3)").unwrap();
    assert!(PolicyBot::from_bytes(bytes, other.as_ref(), "s").is_err());
    assert_eq!(
        playing_string("pokeros(players=2,reward=rank,rows=5)"),
        "pokeros(players=2,rows=5)"
    );
}
