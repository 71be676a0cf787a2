//! Trained policies as bots: `policy` (the policy shipped for the game) and
//! `policy(path=FILE)`.
//!
//! A policy file is a safetensors file holding a small multi-layer perceptron from one seat's
//! observation (`State::observation_tensor`) to a logit per action, written by the Python
//! package's trainer (`python -m checkraise.train`). Tensors, all float32 with weights stored
//! `[inputs, outputs]`: `layer0.weight`, `layer0.bias`, ..., `layer{k-1}.*` (ReLU after each),
//! `policy.weight`, `policy.bias` (the logits); `value.*` (the value head) is ignored here. The
//! header's metadata names the `format` (`checkraise-policy-v1`) and the `game` string it was
//! trained on, parameters included; a policy plays only that game (whatever its `reward`, and
//! through its own `observation` where that differs: `PolicyNet::observer`).
//!
//! Optionally, for a game whose observation has a block of one entry per action
//! (`Game::action_features`, such as Pokeros's `observation=placements`), the action-features
//! link: one weight `policy.action_features` (shape `[1]`) and the metadata
//! `action_features_offset` (the block's first index); `weight × observation[offset + a]` is
//! added to action `a`'s logit. A network of a few hundred hidden units cannot carry one input
//! per action through to the right logit; this link does.
//!
//! The bot plays the legal action of highest logit (ties: the lowest action number), so it is
//! deterministic, or with `Play::Sample` draws from the softmax of the legal actions' logits:
//! the bot spec's `play` setting, else the file's metadata `play` (`greedy`, the default, or
//! `sample`), so a file can say it is meant to be played as a mixed strategy. Inference runs on `ndarray`. This module is the project's only reader and
//! writer of safetensors files (`SafetensorsFile`, in `policy/safetensors.rs`) and its only
//! forward pass of a policy network: the Python package's `checkraise.policy` calls both, so
//! Python and the bot cannot disagree.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use ndarray::{Array1, Array2, ArrayView1};

use crate::bots::Bot;
use crate::env::GameRng;
use crate::game::{Action, Game, GameError, Player, State};

// The files of this module: this one holds policy networks (`PolicyNet`, `PolicyError`) and
// the `policy` bot (`PolicyBot`); `safetensors.rs` the safetensors reader and writer
// (`SafetensorsFile`, `SafetensorsError`); `tests.rs` the tests of policies.
mod safetensors;

pub use self::safetensors::{SafetensorsError, SafetensorsFile, Tensor, TensorValues};

/// The optional tensor (one float32) weighting the observation's per-action block
/// (`Game::action_features`) into each action's logit.
pub const ACTION_FEATURES: &str = "policy.action_features";
/// The metadata key giving that block's first index in the observation.
pub const ACTION_FEATURES_OFFSET: &str = "action_features_offset";

/// The `format` a policy file's metadata names.
pub const FORMAT: &str = "checkraise-policy-v1";
/// The metadata key saying how the file's policy plays by default (`Play::name`).
pub const PLAY: &str = "play";

/// Why a policy file does not read as a policy, or a policy cannot play a game. The messages
/// name the tensor, metadata or size that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The bytes are not a safetensors file, or a tensor in it does not read.
    #[error(transparent)]
    File(#[from] SafetensorsError),
    /// The metadata names another `format` than `FORMAT`, or none.
    #[error(
        "not a checkraise policy: metadata format is {found:?}, expected {expected:?}",
        expected = FORMAT
    )]
    Format {
        /// The `format` it names.
        found: Option<String>,
    },
    /// A tensor the policy needs is missing.
    #[error("the file has no tensor {name:?}")]
    MissingTensor {
        /// The tensor.
        name: String,
    },
    /// A tensor is not float32.
    #[error("{name} is not float32; policies are float32")]
    NotFloat32 {
        /// The tensor.
        name: String,
    },
    /// A weight's values do not make a matrix of its shape.
    #[error("{name}: {error}")]
    Matrix {
        /// The weight.
        name: String,
        /// What `ndarray` says.
        error: ndarray::ShapeError,
    },
    /// A weight that is not 2-D.
    #[error("{name} has shape {shape:?}; a weight is 2-D")]
    NotMatrix {
        /// The weight.
        name: String,
        /// Its shape.
        shape: Vec<usize>,
    },
    /// A bias whose length is not its weight's outputs.
    #[error("{name}: bias of {entries} entries for a weight of {outputs} outputs")]
    Bias {
        /// The layer.
        name: String,
        /// The bias's entries.
        entries: usize,
        /// The weight's outputs.
        outputs: usize,
    },
    /// A layer whose inputs are not the previous layer's outputs.
    #[error("layer sizes do not chain: {inputs} inputs after {outputs} outputs")]
    Chain {
        /// The layer's inputs.
        inputs: usize,
        /// The previous layer's outputs.
        outputs: usize,
    },
    /// An action-features link (`ACTION_FEATURES`) that is not one weight.
    #[error("{tensor} has shape {shape:?}; it is one weight", tensor = ACTION_FEATURES)]
    ActionFeaturesShape {
        /// Its shape.
        shape: Vec<usize>,
    },
    /// An `ACTION_FEATURES_OFFSET` that does not place a block of one entry per action
    /// inside the observation.
    #[error(
        "metadata {key} is {offset:?}; a block of {actions} entries inside the {inputs} \
         observation entries",
        key = ACTION_FEATURES_OFFSET
    )]
    ActionFeaturesOffset {
        /// The metadata's value.
        offset: String,
        /// The policy's actions.
        actions: usize,
        /// The policy's observation entries.
        inputs: usize,
    },
    /// A metadata `PLAY` that names no way of playing.
    #[error("metadata {key} is {found:?}; one of \"greedy\", \"sample\"", key = PLAY)]
    Play {
        /// The metadata's value.
        found: String,
    },
    /// The tensor `ACTION_FEATURES` without the metadata `ACTION_FEATURES_OFFSET`.
    #[error(
        "the file has {tensor} but no metadata {key}",
        tensor = ACTION_FEATURES,
        key = ACTION_FEATURES_OFFSET
    )]
    MissingActionFeaturesOffset,
    /// The metadata `ACTION_FEATURES_OFFSET` without the tensor `ACTION_FEATURES`.
    #[error(
        "the metadata has {key} but the file no tensor {tensor}",
        tensor = ACTION_FEATURES,
        key = ACTION_FEATURES_OFFSET
    )]
    MissingActionFeatures,
    /// It was trained on another game or other parameters.
    #[error(
        "it was trained on {trained:?}, not {game:?}; train one for these parameters \
         (python -m checkraise.train)"
    )]
    TrainedOn {
        /// The game string it was trained on.
        trained: String,
        /// The game string it was asked to play.
        game: String,
    },
    /// Its observation or action sizes are not the game's.
    #[error(
        "it reads {inputs} observation entries and writes {logits} logits; {game} has \
         {observation_size} and {num_actions}"
    )]
    Sizes {
        /// The observation entries it reads.
        inputs: usize,
        /// The logits it writes.
        logits: usize,
        /// The game string.
        game: String,
        /// The game's observation entries.
        observation_size: usize,
        /// The game's distinct actions.
        num_actions: usize,
    },
    /// It reads per-action features where the game has none, or has them elsewhere.
    #[error(
        "it reads per-action features at observation entry {offset}; {game} has {}",
        match .found {
            Some(at) => format!("them at {at}"),
            None => "none".to_string(),
        }
    )]
    ActionFeaturesAt {
        /// Where it reads them.
        offset: usize,
        /// The game string.
        game: String,
        /// Where the game has them (`Game::action_features`).
        found: Option<usize>,
    },
    /// It was trained with another `observation` parameter, and the game with that
    /// observation does not build.
    #[error("{strict}; its observation does not make a game here: {error}")]
    Observation {
        /// Why it does not play the game as it is.
        strict: Box<PolicyError>,
        /// Why the game with its observation does not build.
        error: GameError,
    },
}

/// A game as the string `make_game_from_string` reads back: `name(key=value,...)`.
pub fn game_string(game: &dyn Game) -> String {
    format!("{}({})", game.info().name, game.params().to_text())
}

/// Parameters that never change the rules: `reward` says how a game's returns are paid out
/// (at the end by rank, or as points are scored), `observation` what a seat's observation
/// tensor holds besides what the game's default holds (such as Pokeros's `placements`).
const NOT_RULES: [&str; 2] = ["reward=", "observation="];

/// A game string without the parameters that do not change the rules (`NOT_RULES`). A
/// policy trained with another reward plays the game as it is
/// (`python -m checkraise.train --train-reward points` trains on points and is evaluated on
/// the game's own reward); one trained with another observation plays it through that
/// observation (`PolicyNet::observer`).
fn playing_string(text: &str) -> String {
    match text.split_once('(') {
        Some((name, rest)) => {
            let inner = rest.strip_suffix(')').unwrap_or(rest);
            let kept: Vec<&str> = inner
                .split(',')
                .filter(|p| !NOT_RULES.iter().any(|skip| p.starts_with(skip)))
                .collect();
            format!("{name}({})", kept.join(","))
        }
        None => text.to_string(),
    }
}

/// The value of parameter `name` in a game string, if it is there.
fn param_in<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let inner = text.split_once('(')?.1;
    let inner = inner.strip_suffix(')').unwrap_or(inner);
    inner
        .split(',')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
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
    /// The action-features link: `(offset, weight)`, adding `weight × observation[offset + a]`
    /// to action `a`'s logit (`policy.action_features`, for games with
    /// `Game::action_features`).
    action_features: Option<(usize, f32)>,
    /// How a bot plays it unless its spec says (the metadata `PLAY`).
    play: Play,
}

impl PolicyNet {
    /// Reads a policy file's bytes; `Err` names what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<PolicyNet, PolicyError> {
        let file = SafetensorsFile::read(bytes)?;
        match file.metadata.get("format") {
            Some(f) if f == FORMAT => {}
            other => {
                return Err(PolicyError::Format {
                    found: other.cloned(),
                });
            }
        }
        let game = file.metadata.get("game").cloned().unwrap_or_default();
        let play = match file.metadata.get(PLAY) {
            None => Play::Greedy,
            Some(text) => Play::parse(text).ok_or_else(|| PolicyError::Play {
                found: text.clone(),
            })?,
        };
        let matrix = |name: &str| -> Result<Array2<f32>, PolicyError> {
            let tensor = file.f32(name)?;
            match tensor.shape[..] {
                [rows, cols] => Array2::from_shape_vec((rows, cols), tensor.values.clone())
                    .map_err(|error| PolicyError::Matrix {
                        name: name.to_string(),
                        error,
                    }),
                _ => Err(PolicyError::NotMatrix {
                    name: name.to_string(),
                    shape: tensor.shape,
                }),
            }
        };
        let pair = |name: &str| -> Result<(Array2<f32>, Array1<f32>), PolicyError> {
            let w = matrix(&format!("{name}.weight"))?;
            let b = Array1::from_vec(file.f32(&format!("{name}.bias"))?.values.clone());
            if b.len() != w.ncols() {
                return Err(PolicyError::Bias {
                    name: name.to_string(),
                    entries: b.len(),
                    outputs: w.ncols(),
                });
            }
            Ok((w, b))
        };
        let mut layers = Vec::new();
        while file.get(&format!("layer{}.weight", layers.len())).is_some() {
            layers.push(pair(&format!("layer{}", layers.len()))?);
        }
        let head = pair("policy")?;
        let mut width = layers.first().unwrap_or(&head).0.nrows();
        for (w, _) in layers.iter().chain([&head]) {
            if w.nrows() != width {
                return Err(PolicyError::Chain {
                    inputs: w.nrows(),
                    outputs: width,
                });
            }
            width = w.ncols();
        }
        let head_by_action = head.0.t().iter().copied().collect();
        let inputs = layers.first().unwrap_or(&head).0.nrows();
        let actions = head.0.ncols();
        let action_features = match (
            file.get(ACTION_FEATURES),
            file.metadata.get(ACTION_FEATURES_OFFSET),
        ) {
            (None, None) => None,
            (Some(_), Some(offset)) => {
                let weight = file.f32(ACTION_FEATURES)?;
                if weight.values.len() != 1 {
                    return Err(PolicyError::ActionFeaturesShape {
                        shape: weight.shape,
                    });
                }
                let offset: usize = offset
                    .parse()
                    .ok()
                    .filter(|o: &usize| o + actions <= inputs)
                    .ok_or_else(|| PolicyError::ActionFeaturesOffset {
                        offset: offset.clone(),
                        actions,
                        inputs,
                    })?;
                Some((offset, weight.values[0]))
            }
            (Some(_), None) => {
                return Err(PolicyError::MissingActionFeaturesOffset);
            }
            (None, Some(_)) => {
                return Err(PolicyError::MissingActionFeatures);
            }
        };
        Ok(PolicyNet {
            game,
            metadata: file.metadata,
            layers,
            head,
            head_by_action,
            action_features,
            play,
        })
    }

    /// How a bot plays it unless its spec says otherwise: the file's metadata `play`, greedy
    /// without one.
    pub fn play(&self) -> Play {
        self.play
    }

    /// The hidden layers' `(weight, bias)`, weights inputs × outputs, each followed by ReLU.
    pub fn layers(&self) -> &[(Array2<f32>, Array1<f32>)] {
        &self.layers
    }

    /// The logits layer's `(weight, bias)`.
    pub fn head(&self) -> &(Array2<f32>, Array1<f32>) {
        &self.head
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

    /// The game whose observations it reads when it plays `game`: `None` when that is `game`
    /// itself (`check_game` passes), else `game` with the `observation` parameter it was
    /// trained with, when that is all that differs (a Pokeros policy trained with
    /// `observation=placements` plays `pokeros`). `Err` says what differs.
    pub fn observer(&self, game: &dyn Game) -> Result<Option<Arc<dyn Game>>, PolicyError> {
        let strict = match self.check_game(game) {
            Ok(()) => return Ok(None),
            Err(why) => why,
        };
        let text = game_string(game);
        let trained_on = self.trained_on(game);
        let trained = param_in(&trained_on, "observation");
        if playing_string(&text) != playing_string(&trained_on)
            || trained.is_none()
            || trained == param_in(&text, "observation")
        {
            return Err(strict);
        }
        let params: Vec<(String, String)> = game
            .params()
            .values()
            .iter()
            .map(|(k, v)| match (k.as_str(), trained) {
                ("observation", Some(value)) => (k.clone(), value.to_string()),
                _ => (k.clone(), v.to_string()),
            })
            .collect();
        let observed = game
            .with_params(&params)
            .map_err(|error| PolicyError::Observation {
                strict: Box::new(strict),
                error,
            })?;
        self.check_game(observed.as_ref())?;
        Ok(Some(observed))
    }

    /// The game string it was trained on with every parameter, defaults included, when it
    /// names `game`'s game: a policy file written before a parameter existed (Pokeros's
    /// `observation`) names that parameter's default. Else its own string.
    fn trained_on(&self, game: &dyn Game) -> String {
        let Some((name, rest)) = self.game.split_once('(') else {
            return self.game.clone();
        };
        if name != game.info().name {
            return self.game.clone();
        }
        let inner = rest.strip_suffix(')').unwrap_or(rest);
        let pairs: Option<Vec<(String, String)>> = inner
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=')?;
                Some((k.trim().to_string(), v.trim().to_string()))
            })
            .collect();
        pairs
            .and_then(|pairs| game.with_params(&pairs).ok())
            .map_or_else(|| self.game.clone(), |g| game_string(g.as_ref()))
    }

    /// Whether it was trained on `game` (the same game string, but for the `reward`
    /// parameter: see `playing_string`), reads `game`'s observations and writes its actions'
    /// logits; `Err` says what differs.
    pub fn check_game(&self, game: &dyn Game) -> Result<(), PolicyError> {
        let text = game_string(game);
        let trained_on = self.trained_on(game);
        if playing_string(&text) != playing_string(&trained_on)
            || param_in(&text, "observation") != param_in(&trained_on, "observation")
        {
            return Err(PolicyError::TrainedOn {
                trained: self.game.clone(),
                game: text,
            });
        }
        if game.observation_size() != self.observation_size()
            || game.num_distinct_actions() != self.num_actions()
        {
            return Err(PolicyError::Sizes {
                inputs: self.observation_size(),
                logits: self.num_actions(),
                game: text,
                observation_size: game.observation_size(),
                num_actions: game.num_distinct_actions(),
            });
        }
        if let Some((offset, _)) = self.action_features
            && game.action_features() != Some(offset)
        {
            return Err(PolicyError::ActionFeaturesAt {
                offset,
                game: text,
                found: game.action_features(),
            });
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
            .map(|a| self.logit(&hidden, observation, a))
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

    /// Action `a`'s logit from the last hidden layer's activations (and the observation's
    /// entry for `a`, with the action-features link).
    fn logit(&self, hidden: &[f32], observation: &[f32], a: usize) -> f32 {
        let width = hidden.len();
        let row = &self.head_by_action[a * width..(a + 1) * width];
        let link = self
            .action_features
            .map_or(0.0, |(offset, weight)| weight * observation[offset + a]);
        self.head.1[a] + link + hidden.iter().zip(row).map(|(h, w)| h * w).sum::<f32>()
    }

    /// The action-features link, `(offset, weight)`: `weight × observation[offset + a]` is
    /// added to action `a`'s logit. `None` for a plain network.
    pub fn action_features(&self) -> Option<(usize, f32)> {
        self.action_features
    }

    /// The policy's distribution over the `legal` actions: each with the softmax of their
    /// logits, in `legal`'s order, summing to 1. Precondition: `legal` is not empty, all
    /// below `num_actions`.
    pub fn distribution(&self, observation: &[f32], legal: &[Action]) -> Vec<(Action, f64)> {
        let (mut weights, sum) = self.softmax_terms(observation, legal);
        for w in &mut weights {
            w.1 /= sum;
        }
        weights
    }

    /// The policy's probability of `action` among the `legal` actions (`distribution`) times
    /// their number: how much likelier the policy makes `action` than uniform play does.
    /// Exactly 1 when every legal action has the same logit. Precondition: `action` is one of
    /// `legal`, all below `num_actions`.
    pub fn likelihood_ratio(&self, observation: &[f32], legal: &[Action], action: Action) -> f64 {
        let (weights, sum) = self.softmax_terms(observation, legal);
        let own: f64 = weights.iter().filter(|w| w.0 == action).map(|w| w.1).sum();
        legal.len() as f64 * own / sum
    }

    /// Each legal action with `exp(logit - top logit)`, and their sum: the softmax before
    /// its division.
    fn softmax_terms(&self, observation: &[f32], legal: &[Action]) -> (Vec<(Action, f64)>, f64) {
        let hidden = self.hidden(observation);
        let mut terms: Vec<(Action, f64)> = legal
            .iter()
            .map(|&a| (a, self.logit(&hidden, observation, a as usize) as f64))
            .collect();
        let top = terms.iter().map(|t| t.1).fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        for t in &mut terms {
            t.1 = (t.1 - top).exp();
            sum += t.1;
        }
        (terms, sum)
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
            let logit = self.logit(&hidden, observation, a);
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

/// The policy the engine ships for `game` (`Game::shipped_policy`), read once per file;
/// `None` for a game that ships none.
pub fn shipped(game: &dyn Game) -> Option<Arc<PolicyNet>> {
    static NETS: Mutex<Vec<(usize, Arc<PolicyNet>)>> = Mutex::new(Vec::new());
    let bytes = game.shipped_policy()?;
    let key = bytes.as_ptr() as usize;
    let mut nets = NETS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, net)) = nets.iter().find(|(k, _)| *k == key) {
        return Some(net.clone());
    }
    let net = Arc::new(PolicyNet::from_bytes(bytes).unwrap_or_else(|err| {
        panic!(
            "the shipped policy for {} does not read: {err}",
            game.info().name
        )
    }));
    nets.push((key, net.clone()));
    Some(net)
}

/// The policy a bot spec names: the file at `path`, or the one shipped for `game` without one.
/// The error says what is wrong (no policy shipped, a file that cannot be read or is not a
/// policy file), for the caller to put in its own message; whether the policy fits `game` is
/// checked where it is played (`PolicyBot::for_game`, `PolicyNet::observer`).
pub fn shipped_or_file(game: &dyn Game, path: Option<&str>) -> Result<Arc<PolicyNet>, String> {
    match path {
        None => {
            shipped(game).ok_or_else(|| format!("no policy is shipped for {}", game.info().name))
        }
        Some(file) => {
            let bytes = std::fs::read(file).map_err(|e| format!("a readable policy file ({e})"))?;
            Ok(Arc::new(
                PolicyNet::from_bytes(&bytes)
                    .map_err(|e| format!("a checkraise policy file ({e})"))?,
            ))
        }
    }
}

/// Seat `seat`'s observation of `state` as a network observing through `observer`
/// (`PolicyNet::observer`) reads it: the state's own with `None`, else that of the same history
/// replayed in the observer's game (the rules are the same, so every action replays; O(history)).
pub fn observe_through(
    observer: Option<&dyn Game>,
    state: &dyn State,
    seat: usize,
    out: &mut [f32],
) {
    match observer {
        None => state.observation_tensor(seat, out),
        Some(game) => {
            let mut observed = game.new_initial_state();
            crate::game::replay(observed.as_mut(), state.history())
                .expect("a history replays in a game with the same rules");
            observed.observation_tensor(seat, out);
        }
    }
}

/// How a policy bot chooses among its seat's legal actions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Play {
    /// The action of highest logit, ties to the lowest: the same action every time the seat's
    /// view is the same.
    #[default]
    Greedy,
    /// An action drawn from the softmax of the legal actions' logits with the caller's
    /// generator: the mixed strategy the network was trained as. In a game whose equilibria
    /// mix (simultaneous moves, bluffs), greedy play is a pure strategy that a best response
    /// beats every time the same view comes back.
    Sample,
}

impl Play {
    /// The setting's value: `greedy` or `sample`.
    pub fn name(self) -> &'static str {
        match self {
            Play::Greedy => "greedy",
            Play::Sample => "sample",
        }
    }

    /// The play a setting's value names; `None` for any other text.
    pub fn parse(text: &str) -> Option<Play> {
        match text {
            "greedy" => Some(Play::Greedy),
            "sample" => Some(Play::Sample),
            _ => None,
        }
    }
}

/// Plays a policy network on its seat's observation: the legal action of highest logit, or
/// with `Play::Sample` one drawn from their softmax. Built for one game (`BotSpec::build` checks the policy fits it); precondition, as for every
/// bot: `act` gets states of that game (every face checks).
#[derive(Debug, Clone)]
pub struct PolicyBot {
    net: Arc<PolicyNet>,
    path: Option<String>,
    /// The label of a policy read from bytes in memory (`PolicyBot::from_bytes`).
    label: Option<String>,
    /// The game whose observations the network reads, when it is not the game played
    /// (`PolicyNet::observer`): the state is replayed there to observe it.
    observer: Option<Arc<dyn Game>>,
    play: Play,
}

impl PolicyBot {
    /// A bot playing `net`, read from `path` (`None`: the shipped policy), on states of a game
    /// whose observations it reads, as its file says (`PolicyNet::play`).
    pub fn new(net: Arc<PolicyNet>, path: Option<String>) -> Self {
        PolicyBot {
            play: net.play(),
            net,
            path,
            label: None,
            observer: None,
        }
    }

    /// The same bot choosing by `play`.
    pub fn with_play(self, play: Play) -> Self {
        PolicyBot { play, ..self }
    }

    /// A bot playing `net` on states of `game`: `new`, observing through the game
    /// `PolicyNet::observer` gives when `game`'s own observation is not the one the net reads.
    /// `Err` says why the net cannot play `game`.
    pub fn for_game(
        net: Arc<PolicyNet>,
        path: Option<String>,
        game: &dyn Game,
    ) -> Result<Self, PolicyError> {
        let observer = net.observer(game)?;
        Ok(PolicyBot {
            observer,
            ..PolicyBot::new(net, path)
        })
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
        let bot = PolicyBot::for_game(Arc::new(net), None, game).map_err(|e| {
            refuse(format!(
                "a policy trained on this game, and this one is not: {e}"
            ))
        })?;
        Ok(PolicyBot {
            label: Some(label.to_string()),
            ..bot
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
        observe_through(self.observer.as_deref(), state, seat, &mut observation);
        let mut mask = vec![false; self.net.num_actions()];
        state.action_mask(Player::Seat(seat), &mut mask);
        let chosen = match self.play {
            Play::Greedy => self.net.best(&observation, &mask),
            Play::Sample => {
                let legal: Vec<Action> = mask
                    .iter()
                    .enumerate()
                    .filter(|(_, legal)| **legal)
                    .map(|(a, _)| a as Action)
                    .collect();
                (!legal.is_empty())
                    .then(|| rng.choose_weighted(&self.net.distribution(&observation, &legal)))
            }
        };
        // `try_act` has checked the seat has a legal action; fall back to a random one
        // rather than panic if a caller skipped it.
        chosen.unwrap_or_else(|| rng.choose(&state.legal_actions_for(Player::Seat(seat))))
    }
    fn name(&self) -> &'static str {
        "policy"
    }
    /// It reads its seat's observation and legal actions only.
    fn reads_only_its_view(&self) -> bool {
        true
    }
    /// `policy`, `policy(path=FILE)`, or for a policy read from memory `policy(bytes=LABEL)`
    /// (which no face reads back: the bytes are not in the spec); `play=` is added when the
    /// bot plays otherwise than its file says.
    fn spec(&self) -> String {
        let mut settings: Vec<String> = Vec::new();
        // The file's own play is implied by the file; another one is stated.
        match (&self.path, &self.label) {
            (Some(path), _) => settings.push(format!("path={path}")),
            (None, Some(label)) => settings.push(format!("bytes={label}")),
            (None, None) => {}
        }
        if self.play != self.net.play() {
            settings.push(format!("play={}", self.play.name()));
        }
        if settings.is_empty() {
            "policy".to_string()
        } else {
            format!("policy({})", settings.join(","))
        }
    }
}

impl SafetensorsFile {
    /// The float32 tensor called `name`; `Err` when there is none or it is another type.
    fn f32(&self, name: &str) -> Result<Tensor<&Vec<f32>>, PolicyError> {
        match self.get(name) {
            None => Err(PolicyError::MissingTensor {
                name: name.to_string(),
            }),
            Some(Tensor {
                shape,
                values: TensorValues::F32(values),
            }) => Ok(Tensor {
                shape: shape.clone(),
                values,
            }),
            Some(_) => Err(PolicyError::NotFloat32 {
                name: name.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests;
