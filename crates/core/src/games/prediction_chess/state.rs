//! The Prediction Chess state: the board, the two simultaneous nodes of a turn, the revealed
//! turn records, and the end of the game. This file holds the state type, its constructor
//! and accessors, and the rules (legal sets, the joint-action checks, turn resolution,
//! rewards) with the one `impl Rules`; the observation writers, event codes and resampling
//! are in `observe.rs`, the text, views and `Display` in `text.rs`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{Prediction, Promotion, Resolution, move_options, resolve};
use super::{
    Config, FIFTY_MOVE_TURNS, NUM_ACTIONS, NUM_SQUARE_PAIRS, PASS, PROMOTION_BASE, action_move,
    action_pair, pair_row, seat_color,
};
use crate::chess::{Board, Color, Move, MoveGenOptions, Piece, Rank};
use crate::game::{Action, Player, rank_rewards};
use crate::rng::GameRng;
use crate::rules::{Illegal, Rules};

/// Which node of the turn the game is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "PredictionChessPhase")]
pub enum Phase {
    /// Both seats choose their own move.
    Move,
    /// Both seats predict the other's move (each knows only its own move).
    Predict,
    /// The game is over.
    Over,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
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
    pub(super) phase: Phase,
    pub(super) end: Option<EndReason>,
    pub(super) pending: [Action; 2],
    pub(super) turn: u32,
    pub(super) quiet_turns: u32,
    pub(super) winner: Option<usize>,
    rewards: [f64; 2],
    pub(super) turns: Vec<TurnRecord>,
    pub(super) config: Arc<Config>,
    pub(super) board: Board,
    moves: TurnMoves,
}

impl PredictionChessState {
    /// The state at the start of the game.
    pub fn new(config: Arc<Config>) -> Self {
        PredictionChessState {
            board: config.start,
            moves: TurnMoves::new(&config.start, config.promotion),
            config,
            phase: Phase::Move,
            pending: [PASS; 2],
            turn: 0,
            quiet_turns: 0,
            end: None,
            winner: None,
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

    /// `seat`'s legal actions at the move node of the current turn (what it could have
    /// chosen, also during the prediction node that follows).
    pub(super) fn move_node_actions(&self, seat: usize) -> Vec<Action> {
        let ids = self.moves.ids(seat_color(seat), false);
        if ids.is_empty() {
            vec![PASS]
        } else {
            ids.iter().map(|&a| a as Action).collect()
        }
    }

    /// Why `action` is not legal for `seat` at the current node, if it is not.
    fn check_action(&self, seat: usize, action: Action) -> Result<(), Illegal> {
        if action as usize >= NUM_ACTIONS {
            return Err(Illegal::new(format!(
                "actions are 0 to {} (0 to {} (from, to) pairs, {PROMOTION_BASE} to {} \
                 promotions, {PASS} pass)",
                NUM_ACTIONS - 1,
                NUM_SQUARE_PAIRS - 1,
                PASS - 1
            )));
        }
        if self.is_legal(seat, action) {
            return Ok(());
        }
        self.explain_illegal(seat, action)?;
        Err(Illegal::new("not a legal action at this node"))
    }

    /// The detailed reason an action the fast check refused is illegal.
    fn explain_illegal(&self, seat: usize, action: Action) -> Result<(), Illegal> {
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
                Err(Illegal::new(format!(
                    "pass is only legal when {whose} no pseudo-legal move"
                )))
            } else {
                Ok(())
            };
        }
        let checked = self.check_move_or_prediction(action, mover, &opts);
        if checked.is_err() && !self.board.has_moves(mover, &opts) {
            return Err(Illegal::new(format!(
                "{whose} no pseudo-legal move; the only legal action is pass ({PASS})"
            )));
        }
        checked
    }

    /// The check of a non-pass action against the mover's pseudo-legal moves.
    fn check_move_or_prediction(
        &self,
        action: Action,
        mover: Color,
        opts: &MoveGenOptions,
    ) -> Result<(), Illegal> {
        if self.phase == Phase::Move {
            let Some(mv) = action_move(mover, action) else {
                return Err(Illegal::new("no such promotion move"));
            };
            // A plain (from, to) onto the last rank by a pawn must name its promotion piece.
            let promotes = self.board.colored(mover, Piece::Pawn).has(mv.from)
                && mv.to.rank() == Rank::Eighth.relative_to(mover);
            if promotes && mv.promotion.is_none() {
                return Err(Illegal::new(format!(
                    "a pawn reaching the last rank promotes; choose one of {:?} \
                     (e.g. {}{}q)",
                    opts.promotions.iter().collect::<Vec<_>>(),
                    mv.from,
                    mv.to
                )));
            }
            if promotes && opts.promotions.is_empty() {
                return Err(Illegal::new(
                    "no piece type has been lost, so a pawn may not move onto the last rank",
                ));
            }
            self.board
                .check_move(mover, mv, opts)
                .map_err(|e| Illegal::new(e.to_string()))
        } else {
            if action >= NUM_SQUARE_PAIRS {
                return Err(Illegal::new(
                    "a prediction is a (from, to) pair action, without promotion piece",
                ));
            }
            let (from, to) = action_pair(action);
            if self.board.color_on(from) != Some(mover) {
                return Err(Illegal::new(format!(
                    "the opponent has no piece on {from} to predict a move of"
                )));
            }
            if !self.board.targets(from, opts).has(to) {
                return Err(Illegal::new(format!(
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

    /// Each seat's return at the end of the game.
    pub(super) fn final_returns(&self) -> [f64; 2] {
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
}

impl Rules for PredictionChessState {
    type Config = Config;

    fn config(&self) -> &Config {
        &self.config
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Over => Player::Terminal,
            _ => Player::Simultaneous,
        }
    }

    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        if let Player::Seat(seat) = player
            && seat < 2
        {
            self.for_each_legal(seat, |a| out.push(a));
            debug_assert!(out.is_sorted());
        }
    }

    fn action_mask(&self, player: Player, mask: &mut [bool]) {
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

    /// Never called: every node is simultaneous or terminal (`apply_joint`).
    fn apply(&mut self, _player: Player, _action: Action) -> Result<(), Illegal> {
        Err(Illegal::new(
            "this is a simultaneous node: apply a joint action [seat 0, seat 1] with \
             apply_actions",
        ))
    }

    fn apply_joint(&mut self, actions: &[Action]) -> Result<(), (usize, Illegal)> {
        let joint = [actions[0], actions[1]];
        for (seat, &a) in joint.iter().enumerate() {
            self.check_action(seat, a).map_err(|why| (seat, why))?;
        }
        self.rewards = [0.0; 2];
        match self.phase {
            Phase::Move => {
                self.pending = joint;
                self.phase = Phase::Predict;
            }
            _ => self.resolve_turn(joint),
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

    fn reward_slice(&self) -> &[f64] {
        &self.rewards
    }

    fn heuristic(&self, seat: usize, rng: &mut GameRng) -> Action {
        super::bot::heuristic_action(self, seat, rng)
    }
}
