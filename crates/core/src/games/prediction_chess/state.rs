//! The Prediction Chess state: the board, the two simultaneous nodes of a turn, the revealed
//! turn records, and the end of the game.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;

use super::rules::{Prediction, Promotion, Resolution, move_options, resolve};
use super::{
    Config, FIFTY_MOVE_TURNS, INFO, NUM_ACTIONS, NUM_SQUARE_PAIRS, PASS, PROMOTION_BASE,
    action_move, action_pair, move_action, pair_action, pair_row, seat_color,
};
use crate::chess::{Board, Color, Move, Piece, Rank, Square, piece_char};
use crate::game::{
    Action, DenseSink, EventLayout, GameError, ObservationEntries, ObservationSink, Player,
    PlayerAction, State, rank_rewards, write_information_state,
};
use crate::params::Params;
use crate::rng::GameRng;

/// Number of floats in an observation (see docs/games/prediction_chess.md).
pub const OBSERVATION_SIZE: usize = 12 * 64 + 2 * 64 + 4 + 4 * 64 + 2 + 2 + 2 + 2;

/// Which node of the turn the game is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Both seats choose their own move.
    Move,
    /// Both seats predict the other's move (each knows only its own move).
    Predict,
    /// The game is over.
    Over,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// One king died; the other seat wins.
    KingCaptured,
    /// Both kings died in the same turn: a draw.
    BothKings,
    /// `max_turns` turns were played: a draw.
    MaxTurns,
    /// `FIFTY_MOVE_TURNS` turns without a death or pawn move: a draw.
    FiftyMove,
}

/// A revealed turn: both moves, both predictions, and what happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnRecord {
    /// Each seat's move (`None`: pass).
    pub moves: [Option<Move>; 2],
    /// Each seat's prediction of the other's move (`None`: the pass was predicted).
    pub predictions: [Option<Prediction>; 2],
    /// Battles and deaths.
    pub resolution: Resolution,
}

/// Most pseudo-legal moves a colour of at most 16 pieces can have (16 × 27).
const MAX_IDS: usize = 432;

/// Both colours' pseudo-legal moves at the start of the turn, as the sorted action ids of the
/// move node and of the prediction node (promotions collapsed to their pair): computed once
/// a turn and shared by the masks, the checks and the legal lists of both nodes. Only the
/// lists are kept (not the per-piece targets they come from), so a step touches few lines.
#[derive(Clone, Debug)]
#[repr(C)]
struct TurnMoves {
    /// Per colour: the length of `pair_ids`.
    pair_len: [u16; 2],
    /// Per colour: the length of `move_ids`, or `u16::MAX` when no pawn can promote and the
    /// move node uses the pair list.
    move_len: [u16; 2],
    pair_ids: [[u16; MAX_IDS]; 2],
    move_ids: [[u16; MAX_IDS]; 2],
}

impl TurnMoves {
    fn new(board: &Board, rule: Promotion) -> TurnMoves {
        let mut out = TurnMoves {
            pair_len: [0; 2],
            move_len: [u16::MAX; 2],
            pair_ids: [[0; MAX_IDS]; 2],
            move_ids: [[0; MAX_IDS]; 2],
        };
        out.refresh(board, rule);
        out
    }

    /// Recomputes everything for `board`, in place.
    fn refresh(&mut self, board: &Board, rule: Promotion) {
        for color in Color::ALL {
            let c = color as usize;
            let opts = move_options(board, color, rule);
            // Targets by square: walking the squares in order gives the pair ids in order
            // (they grow with (from, to)), with no sort.
            let mut targets = [0u64; 64];
            let mut from_set = 0u64;
            board.for_each_piece_moves(color, &opts, |pm| {
                targets[pm.from as usize] = pm.to.0;
                from_set |= pm.from.bitboard().0;
            });
            // Each of at most 16 pieces adds at most 27 ids to each list (a queen; a pawn
            // adds at most 3 × 4 promotions), so MAX_IDS = 16 × 27 always suffices. The move
            // list differs from the pair list only when a pawn can promote (rare): otherwise
            // the move node uses the pair list.
            let last = Rank::Eighth.relative_to(color).bitboard().0;
            let pawns = board.colored(color, Piece::Pawn).0;
            let promoting_pawns = pawns & from_set & promoting_from(color);
            let mut pairs = 0;
            let pair_ids = &mut self.pair_ids[c];
            let mut squares = from_set;
            while squares != 0 {
                let from = squares.trailing_zeros() as usize;
                squares &= squares - 1;
                let row = pair_row(from);
                let mut to = targets[from];
                while to != 0 {
                    pair_ids[pairs] = row[to.trailing_zeros() as usize];
                    to &= to - 1;
                    pairs += 1;
                }
            }
            debug_assert!(pair_ids[..pairs].is_sorted());
            self.pair_len[c] = pairs as u16;
            let promotes =
                crate::rng::set_bits(&[promoting_pawns]).any(|from| targets[from] & last != 0);
            if !promotes {
                self.move_len[c] = u16::MAX;
                continue;
            }
            let mut moves = 0;
            let move_ids = &mut self.move_ids[c];
            for from in crate::rng::set_bits(&[from_set]) {
                let to_all = targets[from];
                let promoting = if pawns >> from & 1 == 1 {
                    to_all & last
                } else {
                    0
                };
                let row = pair_row(from);
                for to in crate::rng::set_bits(&[to_all & !promoting]) {
                    move_ids[moves] = row[to];
                    moves += 1;
                }
                for to in crate::rng::set_bits(&[promoting]) {
                    let dir = (to % 8) as u32 + 1 - (from % 8) as u32;
                    let base = PROMOTION_BASE + ((from % 8) as u32 * 3 + dir) * 4;
                    for piece in opts.promotions.iter() {
                        move_ids[moves] = (base + piece as u32 - 1) as u16;
                        moves += 1;
                    }
                }
            }
            move_ids[..moves].sort_unstable();
            self.move_len[c] = moves as u16;
        }
    }

    /// The action ids of `color`'s moves (`predict`: its (from, to) pairs), sorted.
    #[inline]
    fn ids(&self, color: Color, predict: bool) -> &[u16] {
        let c = color as usize;
        if predict || self.move_len[c] == u16::MAX {
            &self.pair_ids[c][..self.pair_len[c] as usize]
        } else {
            &self.move_ids[c][..self.move_len[c] as usize]
        }
    }
}

/// The squares a pawn of `color` promotes from (its seventh rank).
#[inline]
fn promoting_from(color: Color) -> u64 {
    Rank::Seventh.relative_to(color).bitboard().0
}

/// A Prediction Chess state.
///
/// The fields every step reads come first, in declaration order (`repr(C)`), so a step
/// touches a few adjacent cache lines of the state; the move lists' rarely used tail is last.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct PredictionChessState {
    phase: Phase,
    end: Option<EndReason>,
    pending: [Action; 2],
    turn: u32,
    quiet_turns: u32,
    winner: Option<usize>,
    rewards: [f64; 2],
    history: Vec<PlayerAction>,
    turns: Vec<TurnRecord>,
    config: Arc<Config>,
    params: Arc<Params>,
    board: Board,
    moves: TurnMoves,
}

fn uci(mv: Option<Move>) -> String {
    mv.map_or_else(|| "pass".to_string(), |m| m.to_string())
}

fn prediction_text(p: Option<Prediction>) -> String {
    p.map_or_else(|| "pass".to_string(), |p| format!("{}{}", p.from, p.to))
}

/// The history rows of an information-state tensor. Codes: an action seen is its id; the
/// other seat's move of the turn in progress (pending until the predictions) is
/// `NUM_ACTIONS`.
pub fn event_layout(config: &Config) -> EventLayout {
    EventLayout::new(2, NUM_ACTIONS + 1, config.max_game_length())
}

impl PredictionChessState {
    /// What seat `viewer` saw of each history entry (codes of `event_layout`).
    fn event_codes(&self, viewer: usize) -> Vec<u32> {
        // At the prediction node the last two entries are this turn's moves, still hidden.
        let pending_from = match self.phase {
            Phase::Predict => self.history.len() - 2,
            _ => self.history.len(),
        };
        self.history
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                if i >= pending_from && entry.player != Player::Seat(viewer.min(1)) {
                    NUM_ACTIONS as u32
                } else {
                    entry.action
                }
            })
            .collect()
    }

    /// Seat `player`'s observation, entry by entry (the layout is in
    /// `docs/games/prediction_chess.md`).
    fn write_observation(&self, player: usize, out: &mut impl ObservationSink) {
        for color in Color::ALL {
            for piece in Piece::ALL {
                let plane = color as usize * 6 + piece as usize;
                out.set_word(plane, self.board.colored(color, piece).0);
            }
        }
        let mut at = 12 * 64;
        if let Some(mv) = self.pending_move(player) {
            out.set(at + mv.from as usize, 1.0);
            out.set(at + 64 + mv.to as usize, 1.0);
            if let Some(p) = mv.promotion {
                out.set(at + 128 + p as usize - 1, 1.0);
            }
        }
        at += 2 * 64 + 4;
        if let Some(last) = self.turns.last() {
            for (s, mv) in last.moves.iter().enumerate() {
                if let Some(mv) = mv {
                    out.set(at + s * 128 + mv.from as usize, 1.0);
                    out.set(at + s * 128 + 64 + mv.to as usize, 1.0);
                }
            }
            at += 4 * 64;
            out.set(at, last.resolution.predicted[0] as u8 as f32);
            out.set(at + 1, last.resolution.predicted[1] as u8 as f32);
            at += 2;
        } else {
            at += 4 * 64 + 2;
        }
        out.set(at + player.min(1), 1.0);
        at += 2;
        match self.phase {
            Phase::Move => out.set(at, 1.0),
            Phase::Predict => out.set(at + 1, 1.0),
            Phase::Over => {}
        }
        at += 2;
        out.set(at, self.turn as f32 / self.config.max_turns as f32);
        out.set(at + 1, self.quiet_turns as f32 / FIFTY_MOVE_TURNS as f32);
    }

    /// The state at the start of the game.
    pub fn new(config: Arc<Config>, params: Arc<Params>) -> Self {
        PredictionChessState {
            board: config.start,
            moves: TurnMoves::new(&config.start, config.promotion),
            config,
            params,
            phase: Phase::Move,
            pending: [PASS; 2],
            turn: 0,
            quiet_turns: 0,
            end: None,
            winner: None,
            history: Vec::new(),
            turns: Vec::new(),
            rewards: [0.0; 2],
        }
    }

    /// The typed parameters.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The board (at the start of the current turn).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The node of the turn.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Turns completed.
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// Turns in a row without a death or a pawn move.
    pub fn quiet_turns(&self) -> u32 {
        self.quiet_turns
    }

    /// The revealed turns.
    pub fn turns(&self) -> &[TurnRecord] {
        &self.turns
    }

    /// Why the game ended, once it has.
    pub fn end_reason(&self) -> Option<EndReason> {
        self.end
    }

    /// The winning seat, if the game ended with one.
    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    /// Seat `seat`'s own move chosen this turn, during the prediction node (what that seat
    /// knows; the other seat's pending move is not exposed here).
    pub fn pending_move(&self, seat: usize) -> Option<Move> {
        if self.phase != Phase::Predict || seat > 1 {
            return None;
        }
        action_move(seat_color(seat), self.pending[seat])
    }

    /// The legal action ids of `seat` at the current node (empty: only pass is legal; also
    /// empty at the end, where nothing is).
    #[inline]
    fn legal_ids(&self, seat: usize) -> &[u16] {
        match self.phase {
            Phase::Move => self.moves.ids(seat_color(seat), false),
            Phase::Predict => self.moves.ids(!seat_color(seat), true),
            Phase::Over => &[],
        }
    }

    /// Calls `f` with every legal action of `seat` at the current node, in increasing order
    /// (the id lists are sorted when a turn's moves are generated; a pass is alone).
    #[inline]
    fn for_each_legal(&self, seat: usize, mut f: impl FnMut(Action)) {
        if self.phase == Phase::Over {
            return;
        }
        let ids = self.legal_ids(seat);
        if ids.is_empty() {
            f(PASS);
        }
        for &a in ids {
            f(a as Action);
        }
    }

    /// Whether `action` is legal for `seat` at the current node (the fast check): a pass when
    /// the seat's list is empty, otherwise an id in the list. The move list holds promotions
    /// as promotion ids only, so a pawn reaching its last rank must name a piece.
    #[inline]
    fn is_legal(&self, seat: usize, action: Action) -> bool {
        if self.phase == Phase::Over {
            return false;
        }
        let ids = self.legal_ids(seat);
        if action == PASS {
            return ids.is_empty();
        }
        u16::try_from(action).is_ok_and(|a| ids.binary_search(&a).is_ok())
    }

    fn describe_action(&self, seat: usize, action: Action) -> String {
        self.action_to_string(Player::Seat(seat), action)
    }

    /// Why `action` is not legal for `seat` at the current node, if it is not.
    fn check_action(&self, seat: usize, action: Action) -> Result<(), GameError> {
        let refuse = |reason: String| GameError::IllegalAction {
            action,
            desc: self.describe_action(seat, action),
            player: Player::Seat(seat),
            state: self.describe(),
            reason,
        };
        if action as usize >= NUM_ACTIONS {
            return Err(refuse(format!(
                "actions are 0..{NUM_ACTIONS} (0..{NUM_SQUARE_PAIRS} (from, to) pairs, \
                 {PROMOTION_BASE}.. promotions, {PASS} pass)"
            )));
        }
        if self.is_legal(seat, action) {
            return Ok(());
        }
        match self.explain_illegal(seat, action) {
            Err(e) => Err(e),
            Ok(()) => Err(refuse("not a legal action at this node".to_string())),
        }
    }

    /// The detailed reason an action the fast check refused is illegal.
    fn explain_illegal(&self, seat: usize, action: Action) -> Result<(), GameError> {
        let refuse = |reason: String| GameError::IllegalAction {
            action,
            desc: self.describe_action(seat, action),
            player: Player::Seat(seat),
            state: self.describe(),
            reason,
        };
        let mover = match self.phase {
            Phase::Move => seat_color(seat),
            _ => !seat_color(seat),
        };
        let opts = move_options(&self.board, mover, self.config.promotion);
        let whose = if self.phase == Phase::Move {
            "you have"
        } else {
            "the opponent has"
        };
        if action == PASS {
            return if self.board.has_moves(mover, &opts) {
                Err(refuse(format!(
                    "pass is only legal when {whose} no pseudo-legal move"
                )))
            } else {
                Ok(())
            };
        }
        let checked = self.check_move_or_prediction(seat, action, mover, &opts);
        if checked.is_err() && !self.board.has_moves(mover, &opts) {
            return Err(refuse(format!(
                "{whose} no pseudo-legal move; the only legal action is pass ({PASS})"
            )));
        }
        checked
    }

    /// The check of a non-pass action against the mover's pseudo-legal moves.
    fn check_move_or_prediction(
        &self,
        seat: usize,
        action: Action,
        mover: Color,
        opts: &crate::chess::MoveGenOptions,
    ) -> Result<(), GameError> {
        let refuse = |reason: String| GameError::IllegalAction {
            action,
            desc: self.describe_action(seat, action),
            player: Player::Seat(seat),
            state: self.describe(),
            reason,
        };
        if self.phase == Phase::Move {
            let Some(mv) = action_move(mover, action) else {
                return Err(refuse("no such promotion move".to_string()));
            };
            // A plain (from, to) onto the last rank by a pawn must name its promotion piece.
            let promotes = self.board.colored(mover, Piece::Pawn).has(mv.from)
                && mv.to.rank() == Rank::Eighth.relative_to(mover);
            if promotes && mv.promotion.is_none() {
                return Err(refuse(format!(
                    "a pawn reaching the last rank promotes; choose one of {:?} \
                     (e.g. {}{}q)",
                    opts.promotions.iter().collect::<Vec<_>>(),
                    mv.from,
                    mv.to
                )));
            }
            if promotes && opts.promotions.is_empty() {
                return Err(refuse(
                    "no piece type has been lost, so a pawn may not move onto the last rank"
                        .to_string(),
                ));
            }
            self.board
                .check_move(mover, mv, opts)
                .map_err(|e| refuse(e.to_string()))
        } else {
            if action >= NUM_SQUARE_PAIRS {
                return Err(refuse(
                    "a prediction is a (from, to) pair action, without promotion piece".to_string(),
                ));
            }
            let (from, to) = action_pair(action);
            if self.board.color_on(from) != Some(mover) {
                return Err(refuse(format!(
                    "the opponent has no piece on {from} to predict a move of"
                )));
            }
            if !self.board.targets(from, opts).has(to) {
                return Err(refuse(format!(
                    "the opponent's piece on {from} cannot move to {to}"
                )));
            }
            Ok(())
        }
    }

    fn finish(&mut self, reason: EndReason, winner: Option<usize>) {
        self.phase = Phase::Over;
        self.end = Some(reason);
        self.winner = winner;
        self.rewards = self.final_returns();
    }

    fn final_returns(&self) -> [f64; 2] {
        match self.winner {
            Some(w) => {
                let r = rank_rewards(&[(w == 0) as u8 as f64, (w == 1) as u8 as f64]);
                [r[0], r[1]]
            }
            None => [0.0; 2],
        }
    }

    /// Resolves the turn after both predictions.
    fn resolve_turn(&mut self, predictions: [Action; 2]) {
        let moves = [
            action_move(Color::White, self.pending[0]),
            action_move(Color::Black, self.pending[1]),
        ];
        let predictions = predictions.map(|a| {
            (a < NUM_SQUARE_PAIRS).then(|| {
                let (from, to) = action_pair(a);
                Prediction { from, to }
            })
        });
        let resolution = resolve(&mut self.board, moves, predictions);
        self.turns.push(TurnRecord {
            moves,
            predictions,
            resolution,
        });
        self.turn += 1;
        if resolution.pawn_moved || resolution.deaths[0].is_some() {
            self.quiet_turns = 0;
        } else {
            self.quiet_turns += 1;
        }
        self.pending = [PASS; 2];
        self.phase = Phase::Move;
        self.moves.refresh(&self.board, self.config.promotion);
        let alive = [
            !self.board.colored(Color::White, Piece::King).is_empty(),
            !self.board.colored(Color::Black, Piece::King).is_empty(),
        ];
        match alive {
            [false, false] => self.finish(EndReason::BothKings, None),
            [true, false] => self.finish(EndReason::KingCaptured, Some(0)),
            [false, true] => self.finish(EndReason::KingCaptured, Some(1)),
            [true, true] => {
                if self.turn >= self.config.max_turns {
                    self.finish(EndReason::MaxTurns, None);
                } else if self.config.fifty_move && self.quiet_turns >= FIFTY_MOVE_TURNS {
                    self.finish(EndReason::FiftyMove, None);
                }
            }
        }
    }

    fn turn_text(record: &TurnRecord) -> String {
        let mut s = format!(
            "w {} (predicts {}) b {} (predicts {})",
            uci(record.moves[0]),
            prediction_text(record.predictions[0]),
            uci(record.moves[1]),
            prediction_text(record.predictions[1]),
        );
        for d in record.resolution.deaths() {
            s.push_str(&format!(" x{}@{}", piece_char(d.color, d.piece), d.square));
        }
        s
    }

    fn status_text(&self) -> String {
        match self.phase {
            Phase::Over => {
                let result = match self.winner {
                    Some(0) => "white wins",
                    Some(_) => "black wins",
                    None => "draw",
                };
                format!("over after {} turns: {result} ({:?})", self.turn, self.end)
            }
            phase => format!(
                "turn {}, {} node, quiet turns {}",
                self.turn + 1,
                if phase == Phase::Move {
                    "move"
                } else {
                    "prediction"
                },
                self.quiet_turns
            ),
        }
    }
}

impl State for PredictionChessState {
    fn num_players(&self) -> usize {
        2
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Over => Player::Terminal,
            _ => Player::Simultaneous,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        out.clear();
        if let Player::Seat(seat) = player
            && seat < 2
        {
            self.for_each_legal(seat, |a| out.push(a));
            debug_assert!(out.is_sorted());
        }
    }

    fn legal_action_mask(&self, player: Player, mask: &mut [bool]) {
        mask.fill(false);
        if let Player::Seat(seat) = player
            && seat < 2
        {
            if self.phase == Phase::Over {
                return;
            }
            let ids = self.legal_ids(seat);
            if ids.is_empty() {
                if let Some(m) = mask.get_mut(PASS as usize) {
                    *m = true;
                }
                return;
            }
            for &a in ids {
                if let Some(m) = mask.get_mut(a as usize) {
                    *m = true;
                }
            }
        }
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        Vec::new()
    }

    fn apply_action(&mut self, action: Action) -> Result<(), GameError> {
        if self.phase == Phase::Over {
            return Err(GameError::GameOver {
                state: self.describe(),
            });
        }
        Err(GameError::IllegalAction {
            action,
            desc: format!("action {action}"),
            player: Player::Simultaneous,
            state: self.describe(),
            reason: "this is a simultaneous node: apply a joint action [seat 0, seat 1] with \
                     apply_actions"
                .to_string(),
        })
    }

    fn apply_actions(&mut self, actions: &[Action]) -> Result<(), GameError> {
        if self.phase == Phase::Over {
            return Err(GameError::GameOver {
                state: self.describe(),
            });
        }
        if actions.len() != 2 {
            return Err(GameError::IllegalAction {
                action: actions.first().copied().unwrap_or(0),
                desc: format!("joint action {actions:?}"),
                player: Player::Simultaneous,
                state: self.describe(),
                reason: format!(
                    "a joint action has exactly 2 entries (seat 0, seat 1), got {}",
                    actions.len()
                ),
            });
        }
        for (seat, &a) in actions.iter().enumerate() {
            self.check_action(seat, a)?;
        }
        for (seat, &a) in actions.iter().enumerate() {
            self.history.push(PlayerAction {
                player: Player::Seat(seat),
                action: a,
            });
        }
        self.rewards = [0.0; 2];
        match self.phase {
            Phase::Move => {
                self.pending = [actions[0], actions[1]];
                self.phase = Phase::Predict;
            }
            _ => self.resolve_turn([actions[0], actions[1]]),
        }
        Ok(())
    }

    fn returns(&self) -> Vec<f64> {
        if self.phase == Phase::Over {
            self.final_returns().to_vec()
        } else {
            vec![0.0; 2]
        }
    }

    fn rewards(&self) -> Vec<f64> {
        self.rewards.to_vec()
    }

    fn add_rewards_to(&self, out: &mut [f64]) {
        crate::game::add_rewards(out, &self.rewards);
    }

    fn history(&self) -> &[PlayerAction] {
        &self.history
    }

    fn action_to_string(&self, player: Player, action: Action) -> String {
        let Player::Seat(seat) = player else {
            return format!("action#{action}");
        };
        if seat > 1 || action as usize >= NUM_ACTIONS {
            return format!("action#{action}");
        }
        let predict = self.phase == Phase::Predict;
        let text = if action == PASS {
            "pass".to_string()
        } else if predict && action >= NUM_SQUARE_PAIRS {
            format!("promotion#{action}")
        } else {
            match action_move(seat_color(seat), action) {
                Some(mv) => mv.to_string(),
                None => format!("promotion#{action}"),
            }
        };
        if predict {
            format!("predict {text}")
        } else {
            text
        }
    }

    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        let bad = |reason: String| GameError::BadActionString {
            text: text.to_string(),
            player,
            reason,
        };
        let Player::Seat(seat) = player else {
            return Err(bad(format!(
                "{player} takes no actions in Prediction Chess"
            )));
        };
        if seat > 1 {
            return Err(bad("Prediction Chess has seats 0 and 1".to_string()));
        }
        let mut body = text.trim();
        let predict = self.phase == Phase::Predict;
        if let Some(rest) = body.strip_prefix("predict ") {
            if !predict {
                return Err(bad(
                    "this is the move node; predictions come at the prediction node".to_string(),
                ));
            }
            body = rest.trim();
        }
        if body == "pass" {
            return Ok(PASS);
        }
        if let Some(n) = body.strip_prefix("promotion#")
            && let Ok(a) = n.parse::<Action>()
            && (NUM_SQUARE_PAIRS..PASS).contains(&a)
        {
            return Ok(a);
        }
        let mv = Move::from_uci(body).map_err(|e| {
            bad(format!(
                "{e}; write a move in UCI (e2e4, e7e8q), 'pass', or at the prediction node \
                 'predict e7e5'"
            ))
        })?;
        match mv.promotion {
            None => pair_action(mv.from, mv.to).ok_or_else(|| {
                bad(format!(
                    "no piece can go from {} to {} (not a queen line or knight jump)",
                    mv.from, mv.to
                ))
            }),
            Some(_) if predict => Err(bad(
                "a prediction is a (from, to) pair without a promotion piece".to_string(),
            )),
            Some(_) => {
                let color = seat_color(seat);
                let df = mv.to.file() as i32 - mv.from.file() as i32;
                if mv.from.rank() != Rank::Seventh.relative_to(color)
                    || mv.to.rank() != Rank::Eighth.relative_to(color)
                    || df.abs() > 1
                {
                    return Err(bad(format!(
                        "a promotion by seat {seat} goes from its 7th rank to its 8th rank, \
                         straight or one file aside"
                    )));
                }
                move_action(mv).ok_or_else(|| bad("not a promotion move".to_string()))
            }
        }
    }

    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        out.fill(0.0);
        self.write_observation(player, &mut DenseSink(out));
    }

    fn observation_entries(&self, player: usize, out: &mut ObservationEntries) -> bool {
        self.write_observation(player, out);
        true
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let codes = self.event_codes(player);
        let layout = event_layout(&self.config);
        write_information_state(self, player, OBSERVATION_SIZE, &layout, &codes, out);
    }

    fn observation_string(&self, player: usize) -> String {
        let mut s = self.board.diagram();
        s.push_str(&format!(
            "seat {player} ({})\n{}\n",
            if player == 0 { "white" } else { "black" },
            self.status_text()
        ));
        if let Some(mv) = self.pending_move(player) {
            s.push_str(&format!("your move: {mv}\n"));
        } else if self.phase == Phase::Predict {
            s.push_str("your move: pass\n");
        }
        if let Some(last) = self.turns.last() {
            s.push_str(&format!("last turn: {}\n", Self::turn_text(last)));
        }
        s
    }

    fn information_state_string(&self, player: usize) -> String {
        let mut s = format!("seat {player} | {}", self.config.start);
        for (i, record) in self.turns.iter().enumerate() {
            s.push_str(&format!(" | {}: {}", i + 1, Self::turn_text(record)));
        }
        if self.phase == Phase::Predict {
            s.push_str(&format!(
                " | my move: {}",
                uci(action_move(seat_color(player), self.pending[player.min(1)]))
            ));
        }
        s
    }

    fn view(&self, viewer: Option<usize>) -> serde_json::Value {
        let pieces: Vec<_> = Square::ALL
            .into_iter()
            .filter_map(|sq| {
                self.board.on(sq).map(|(c, p)| {
                    json!({"square": sq.to_string(), "piece": piece_char(c, p).to_string()})
                })
            })
            .collect();
        let turns: Vec<_> = self
            .turns
            .iter()
            .map(|t| {
                json!({
                    "moves": t.moves.map(uci),
                    "predictions": t.predictions.map(prediction_text),
                    "predicted": t.resolution.predicted,
                    "battles": t.resolution.battles,
                    "deaths": t.resolution.deaths().map(|d| json!({
                        "piece": piece_char(d.color, d.piece).to_string(),
                        "square": d.square.to_string(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let pending = viewer.and_then(|v| {
            (self.phase == Phase::Predict && v < 2)
                .then(|| uci(action_move(seat_color(v), self.pending[v])))
        });
        let over = self.phase == Phase::Over;
        json!({
            "game": INFO.name,
            "viewer": viewer,
            "current_player": self.current_player().id(),
            "phase": self.phase,
            "turn": self.turn,
            "quiet_turns": self.quiet_turns,
            "fen": self.board.to_fen(),
            "board": pieces,
            "my_move": pending,
            "turns": turns,
            "terminal": over,
            "end_reason": self.end,
            "winner": self.winner,
            "returns": over.then(|| self.returns()),
        })
    }

    fn resample_from_infostate(&self, player: usize, rng: &mut GameRng) -> Box<dyn State> {
        let mut out = self.clone();
        if self.phase == Phase::Predict && player < 2 {
            // The other seat's pending move is hidden: any of its legal moves.
            let other = 1 - player;
            let mut phase_move = self.clone();
            phase_move.phase = Phase::Move;
            let options = phase_move.legal_actions_for(Player::Seat(other));
            let pick = rng.choose(&options);
            out.pending[other] = pick;
            let at = out.history.len() - 2 + other;
            out.history[at].action = pick;
        }
        Box::new(out)
    }

    fn heuristic_action(&self, seat: usize, rng: &mut GameRng) -> Action {
        super::bot::heuristic(self, seat, rng)
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }

    fn serialize(&self) -> String {
        crate::serial::serialize(INFO.name, &self.params, &self.history)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl fmt::Display for PredictionChessState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board.diagram())?;
        writeln!(f, "{}", self.status_text())?;
        if self.phase == Phase::Predict {
            writeln!(
                f,
                "pending: w {} b {}",
                uci(action_move(Color::White, self.pending[0])),
                uci(action_move(Color::Black, self.pending[1]))
            )?;
        }
        match self.turns.last() {
            Some(last) => write!(f, "last turn: {}", Self::turn_text(last)),
            None => write!(f, "no turn yet"),
        }
    }
}
