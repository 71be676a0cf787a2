//! Trained policies as bots: `policy` (the policy shipped for the game) and
//! `policy(path=FILE)`.
//!
//! A policy file is a safetensors file holding a small multi-layer perceptron from one seat's
//! observation (`State::observation_tensor`) to a logit per action, written by the Python
//! package's trainer (`python -m checkraise.train`). Tensors, all float32 with weights stored
//! `[inputs, outputs]`: `layer0.weight`, `layer0.bias`, ..., `layer{k-1}.*` (ReLU after each),
//! `policy.weight`, `policy.bias` (the logits); `value.*` (the value head) is ignored here. The
//! header's metadata names the `format` (`checkraise-policy-v1`) and the `game` string it was
//! trained on, parameters included; a policy plays only that game.
//!
//! The bot plays the legal action of highest logit (ties: the lowest action number), so it is
//! deterministic, and the Python package's numpy inference (`checkraise.policy`) picks the
//! same action. Inference runs on `ndarray`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use ndarray::{Array1, Array2, ArrayView1};
use safetensors::{Dtype, SafeTensors};

use crate::bots::Bot;
use crate::env::GameRng;
use crate::game::{Action, Game, GameError, Player, State};

/// The `format` a policy file's metadata names.
pub const FORMAT: &str = "checkraise-policy-v1";

/// The policies the engine ships, one per game, each trained on the game's default
/// parameters (`docs/training.md` says how, and how well each plays).
pub static SHIPPED: &[(&str, &[u8])] = &[
    (
        "pokeros",
        include_bytes!("../../policies/pokeros.safetensors"),
    ),
    (
        "prediction_chess",
        include_bytes!("../../policies/prediction_chess.safetensors"),
    ),
    (
        "poker_chess",
        include_bytes!("../../policies/poker_chess.safetensors"),
    ),
    (
        "holdem_chess",
        include_bytes!("../../policies/holdem_chess.safetensors"),
    ),
    (
        "detective_poker",
        include_bytes!("../../policies/detective_poker.safetensors"),
    ),
];

/// A game as the string `make_game_from_string` reads back: `name(key=value,...)`.
pub fn game_string(game: &dyn Game) -> String {
    format!("{}({})", game.info().name, game.params().to_text())
}

/// A policy network read from a policy file.
#[derive(Debug)]
pub struct PolicyNet {
    game: String,
    metadata: HashMap<String, String>,
    layers: Vec<(Array2<f32>, Array1<f32>)>,
    head: (Array2<f32>, Array1<f32>),
    /// The head's weights transposed (actions × hidden, row-major): one action's logit is
    /// one contiguous dot product, so `best` computes the legal actions' logits only.
    head_by_action: Vec<f32>,
}

impl PolicyNet {
    /// Reads a policy file's bytes; `Err` names what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<PolicyNet, String> {
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| e.to_string())?;
        let metadata: HashMap<String, String> = header
            .metadata()
            .as_ref()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        match metadata.get("format") {
            Some(f) if f == FORMAT => {}
            other => {
                return Err(format!(
                    "not a checkraise policy: metadata format is {other:?}, expected \
                     {FORMAT:?}"
                ));
            }
        }
        let game = metadata.get("game").cloned().unwrap_or_default();
        let tensors = SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
        let matrix = |name: &str| -> Result<Array2<f32>, String> {
            let values = floats(&tensors, name)?;
            let shape = tensors
                .tensor(name)
                .map_err(|e| e.to_string())?
                .shape()
                .to_vec();
            match shape[..] {
                [rows, cols] => {
                    Array2::from_shape_vec((rows, cols), values).map_err(|e| format!("{name}: {e}"))
                }
                _ => Err(format!("{name} has shape {shape:?}; a weight is 2-D")),
            }
        };
        let pair = |name: &str| -> Result<(Array2<f32>, Array1<f32>), String> {
            let w = matrix(&format!("{name}.weight"))?;
            let b = Array1::from_vec(floats(&tensors, &format!("{name}.bias"))?);
            if b.len() != w.ncols() {
                return Err(format!(
                    "{name}: bias of {} entries for a weight of {} outputs",
                    b.len(),
                    w.ncols()
                ));
            }
            Ok((w, b))
        };
        let mut layers = Vec::new();
        while tensors
            .tensor(&format!("layer{}.weight", layers.len()))
            .is_ok()
        {
            layers.push(pair(&format!("layer{}", layers.len()))?);
        }
        let head = pair("policy")?;
        let mut width = layers.first().unwrap_or(&head).0.nrows();
        for (w, _) in layers.iter().chain([&head]) {
            if w.nrows() != width {
                return Err(format!(
                    "layer sizes do not chain: {} inputs after {width} outputs",
                    w.nrows()
                ));
            }
            width = w.ncols();
        }
        let head_by_action = head.0.t().iter().copied().collect();
        Ok(PolicyNet {
            game,
            metadata,
            layers,
            head,
            head_by_action,
        })
    }

    /// The game string the policy was trained on.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &HashMap<String, String> {
        &self.metadata
    }

    /// Entries of the observation it reads.
    pub fn observation_size(&self) -> usize {
        self.layers.first().unwrap_or(&self.head).0.nrows()
    }

    /// Logits it writes (the game's distinct actions).
    pub fn num_actions(&self) -> usize {
        self.head.0.ncols()
    }

    /// Whether it was trained on `game` (the same game string) and fits its observation
    /// and action sizes; `Err` says what differs.
    pub fn check_game(&self, game: &dyn Game) -> Result<(), String> {
        let text = game_string(game);
        if text != self.game {
            return Err(format!(
                "it was trained on {:?}, not {text:?}; train one for these parameters \
                 (python -m checkraise.train)",
                self.game
            ));
        }
        if game.observation_size() != self.observation_size()
            || game.num_distinct_actions() != self.num_actions()
        {
            return Err(format!(
                "it reads {} observation entries and writes {} logits; {text} has {} and {}",
                self.observation_size(),
                self.num_actions(),
                game.observation_size(),
                game.num_distinct_actions()
            ));
        }
        Ok(())
    }

    /// The logits for one observation (`observation_size` entries).
    ///
    /// Each layer adds input `i` times weight row `i` (contiguous: weights are stored
    /// inputs × outputs, row-major) to the bias, skipping inputs that are 0. Observations are
    /// mostly zeros (one-hot planes), so the first and largest layer costs a few rows, not the
    /// whole matrix; this made policy opponents in `VectorEnv` over 50 times faster than a
    /// general vector-matrix product (docs/benchmarks.md).
    pub fn logits(&self, observation: &[f32]) -> Array1<f32> {
        let hidden = self.hidden(observation);
        (0..self.num_actions())
            .map(|a| self.logit(&hidden, a))
            .collect()
    }

    /// The last hidden layer's activations for `observation`.
    fn hidden(&self, observation: &[f32]) -> Vec<f32> {
        let mut h: Vec<f32> = observation.to_vec();
        for (w, b) in &self.layers {
            h = affine(&h, w, b);
            for v in &mut h {
                *v = v.max(0.0);
            }
        }
        h
    }

    /// Action `a`'s logit from the last hidden layer's activations.
    fn logit(&self, hidden: &[f32], a: usize) -> f32 {
        let width = hidden.len();
        let row = &self.head_by_action[a * width..(a + 1) * width];
        self.head.1[a] + hidden.iter().zip(row).map(|(h, w)| h * w).sum::<f32>()
    }

    /// The legal action (`mask[a]`) of highest logit, ties to the lowest; `None` when no
    /// action is legal.
    ///
    /// Only the legal actions' logits are computed (most of a chess game's thousands of
    /// action ids are illegal at any one position).
    pub fn best(&self, observation: &[f32], mask: &[bool]) -> Option<Action> {
        let hidden = self.hidden(observation);
        let mut best: Option<(usize, f32)> = None;
        for (a, _) in mask
            .iter()
            .take(self.num_actions())
            .enumerate()
            .filter(|(_, legal)| **legal)
        {
            let logit = self.logit(&hidden, a);
            if best.is_none_or(|(_, top)| logit > top) {
                best = Some((a, logit));
            }
        }
        best.map(|(a, _)| a as Action)
    }
}

/// `x · w + b` for weights `w` of inputs × outputs, summed row by row over the non-zero inputs.
fn affine(x: &[f32], w: &Array2<f32>, b: &Array1<f32>) -> Vec<f32> {
    let mut out = b.to_vec();
    let outputs = w.ncols();
    match w.as_slice() {
        Some(rows) if outputs > 0 => {
            for (&xi, row) in x.iter().zip(rows.chunks_exact(outputs)) {
                if xi != 0.0 {
                    for (o, &wi) in out.iter_mut().zip(row) {
                        *o += xi * wi;
                    }
                }
            }
        }
        // Not row-major (never for weights read from a file): the general product.
        _ => {
            let product = ArrayView1::from(x).dot(w);
            for (o, p) in out.iter_mut().zip(product.iter()) {
                *o += p;
            }
        }
    }
    out
}

fn floats(tensors: &SafeTensors<'_>, name: &str) -> Result<Vec<f32>, String> {
    let view = tensors
        .tensor(name)
        .map_err(|_| format!("the file has no tensor {name:?}"))?;
    if view.dtype() != Dtype::F32 {
        return Err(format!(
            "{name} is {:?}; policies are float32",
            view.dtype()
        ));
    }
    Ok(view
        .data()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The policy shipped for game `name` (a registered name), read once.
pub fn shipped(name: &str) -> Option<Arc<PolicyNet>> {
    static NETS: OnceLock<Vec<Arc<PolicyNet>>> = OnceLock::new();
    let nets =
        NETS.get_or_init(|| {
            SHIPPED
                .iter()
                .map(|(game, bytes)| {
                    Arc::new(PolicyNet::from_bytes(bytes).unwrap_or_else(|e| {
                        panic!("the shipped policy for {game} does not read: {e}")
                    }))
                })
                .collect()
        });
    SHIPPED
        .iter()
        .position(|(game, _)| *game == name)
        .map(|i| nets[i].clone())
}

/// The bytes of the policy file shipped for game `name`.
pub fn shipped_bytes(name: &str) -> Option<&'static [u8]> {
    SHIPPED.iter().find(|(g, _)| *g == name).map(|(_, b)| *b)
}

/// Plays a policy network: the legal action of highest logit on its seat's observation.
/// Built for one game (`BotSpec::build` checks the policy fits it); precondition, as for every
/// bot: `act` gets states of that game (every face checks).
#[derive(Debug, Clone)]
pub struct PolicyBot {
    net: Arc<PolicyNet>,
    path: Option<String>,
    /// The label of a policy read from bytes in memory (`PolicyBot::from_bytes`).
    label: Option<String>,
}

impl PolicyBot {
    /// A bot playing `net`, read from `path` (`None`: the shipped policy).
    pub fn new(net: Arc<PolicyNet>, path: Option<String>) -> Self {
        PolicyBot {
            net,
            path,
            label: None,
        }
    }

    /// A bot playing the policy file whose bytes are `bytes` (safetensors, as
    /// `python -m checkraise.train` writes them), held in memory: a trainer passes snapshots
    /// of its network without writing files. `label` names it in errors and in `spec`. The
    /// policy must have been trained on `game` and fit its sizes; else the error
    /// (`InvalidBotParameter` for setting `bytes`) says why.
    pub fn from_bytes(bytes: &[u8], game: &dyn Game, label: &str) -> Result<Self, GameError> {
        let refuse = |why: String| GameError::InvalidBotParameter {
            bot: "policy".to_string(),
            name: "bytes".to_string(),
            value: format!("{label} ({} bytes)", bytes.len()),
            allowed: why,
        };
        let net = PolicyNet::from_bytes(bytes)
            .map_err(|e| refuse(format!("a checkraise policy file ({e})")))?;
        net.check_game(game).map_err(|e| {
            refuse(format!(
                "a policy trained on this game, and this one is not: {e}"
            ))
        })?;
        Ok(PolicyBot {
            net: Arc::new(net),
            path: None,
            label: Some(label.to_string()),
        })
    }

    /// The network.
    pub fn net(&self) -> &PolicyNet {
        &self.net
    }
}

impl Bot for PolicyBot {
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        let mut observation = vec![0.0; self.net.observation_size()];
        state.observation_tensor(seat, &mut observation);
        let mut mask = vec![false; self.net.num_actions()];
        state.action_mask(Player::Seat(seat), &mut mask);
        // `try_act` has checked the seat has a legal action; fall back to a random one
        // rather than panic if a caller skipped it.
        self.net
            .best(&observation, &mask)
            .unwrap_or_else(|| rng.choose(&state.legal_actions_for(Player::Seat(seat))))
    }
    fn name(&self) -> &'static str {
        "policy"
    }
    /// It reads its seat's observation and legal actions only.
    fn reads_only_its_view(&self) -> bool {
        true
    }
    /// `policy`, `policy(path=FILE)`, or for a policy read from memory `policy(bytes=LABEL)`
    /// (which no face reads back: the bytes are not in the spec).
    fn spec(&self) -> String {
        match (&self.path, &self.label) {
            (Some(path), _) => format!("policy(path={path})"),
            (None, Some(label)) => format!("policy(bytes={label})"),
            (None, None) => "policy".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::BotSpec;
    use crate::registry::{entries, make_game, make_game_from_string};
    use safetensors::tensor::TensorView;

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
        safetensors::serialize(views, Some(metadata)).unwrap()
    }

    #[test]
    fn every_game_ships_a_policy_that_fits_its_default_parameters() {
        for entry in entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            let net = shipped(entry.info.name).expect("a shipped policy");
            net.check_game(game.as_ref()).unwrap();
            assert_eq!(net.game(), game_string(game.as_ref()));
            assert!(shipped_bytes(entry.info.name).unwrap().len() < 4 << 20);
        }
        assert!(shipped("chess").is_none());
    }

    #[test]
    fn the_bot_plays_the_best_legal_logit_with_ties_to_the_lowest_action() {
        // Identity hidden layer (ReLU keeps the positive entries), then logits = h · W.
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
        )
        .to_vec();
        let net = PolicyNet::from_bytes(&bytes).unwrap();
        assert_eq!((net.observation_size(), net.num_actions()), (2, 4));
        assert_eq!(net.logits(&[1.0, -1.0]).to_vec(), vec![1.0, 2.0, 2.0, 0.0]);
        // Actions 1 and 2 tie: the lower wins; action 3 is best where the second entry counts.
        assert_eq!(net.best(&[1.0, -1.0], &[true; 4]), Some(1));
        assert_eq!(net.best(&[1.0, 1.0], &[true; 4]), Some(3));
        assert_eq!(net.best(&[1.0, 1.0], &[true, false, true, false]), Some(2));
        assert_eq!(net.best(&[1.0, 1.0], &[false; 4]), None);
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
        let e = PolicyNet::from_bytes(&unchained).unwrap_err();
        assert!(e.contains("do not chain"), "{e}");
        let no_head = file("test", &[("layer0.weight", vec![1, 1], vec![0.0])]);
        assert!(
            PolicyNet::from_bytes(&no_head)
                .unwrap_err()
                .contains("layer0.bias")
        );
        let game = make_game_from_string("holdem_chess(players=3)").unwrap();
        let spec = BotSpec::parse::<&str, &str>("policy", []).unwrap();
        let e = spec.build(game.as_ref()).err().unwrap().to_string();
        assert!(e.contains("trained on"), "{e}");
        let spec =
            BotSpec::parse::<&str, &str>("policy(path=/nonexistent/p.safetensors)", []).unwrap();
        assert_eq!(spec.to_string(), "policy(path=/nonexistent/p.safetensors)");
        let e = spec.build(game.as_ref()).err().unwrap().to_string();
        assert!(e.starts_with("setting 'path' of bot 'policy'"), "{e}");
        assert!(BotSpec::parse::<&str, &str>("policy(path=)", []).is_err());
    }

    #[test]
    fn policies_read_from_bytes_in_memory_play_as_from_their_file() {
        let game = make_game::<&str, &str>("pokeros", []).unwrap();
        let bytes = shipped_bytes("pokeros").unwrap();
        let bot = PolicyBot::from_bytes(bytes, game.as_ref(), "snapshot 3").unwrap();
        assert_eq!(bot.spec(), "policy(bytes=snapshot 3)");
        let shipped_bot = BotSpec::Policy { path: None }.build(game.as_ref()).unwrap();
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
    }
}
