//! A heuristic bot: at the move node it moves an attacked king to a square no enemy move
//! reaches, otherwise takes the enemy king if it can, otherwise prefers valuable captures and
//! moves that save attacked pieces or threaten the king, avoiding squares the enemy attacks.
//! At the prediction node it predicts the enemy's most valuable capture of a piece that is
//! not moving away (else a move onto its own destination, else a random move).

use super::rules::move_options;
use super::state::{Phase, PredictionChessState};
use super::{NUM_ACTIONS, PASS, action_move, action_pair, seat_color};
use crate::chess::tables::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::chess::{BitBoard, Board, Color, Piece, Square, piece_value};
use crate::game::{Action, Player};
use crate::rng::GameRng;
use crate::rules::Rules;

/// Squares `color` attacks (pawns diagonally, whatever stands there).
fn attack_map(board: &Board, color: Color) -> BitBoard {
    let occupied = board.occupied();
    let mut map = BitBoard::EMPTY;
    for sq in board.colored(color, Piece::Pawn) {
        map |= pawn_attacks(color, sq);
    }
    for sq in board.colored(color, Piece::Knight) {
        map |= knight_attacks(sq);
    }
    for sq in board.colored(color, Piece::Bishop) {
        map |= bishop_attacks(sq, occupied);
    }
    for sq in board.colored(color, Piece::Rook) {
        map |= rook_attacks(sq, occupied);
    }
    for sq in board.colored(color, Piece::Queen) {
        map |= queen_attacks(sq, occupied);
    }
    for sq in board.colored(color, Piece::King) {
        map |= king_attacks(sq);
    }
    map
}

/// Squares `color`'s pseudo-legal moves reach this turn.
fn reach_map(state: &PredictionChessState, color: Color) -> BitBoard {
    let board = state.board();
    let opts = move_options(board, color, state.config().promotion);
    let mut map = BitBoard::EMPTY;
    board.for_each_piece_moves(color, &opts, |pm| map |= pm.to);
    map
}

/// Whether a `piece` on `sq` would attack `target` (with the board's occupancy).
fn attacks_from(board: &Board, color: Color, piece: Piece, sq: Square, target: Square) -> bool {
    let occupied = board.occupied();
    let map = match piece {
        Piece::Pawn => pawn_attacks(color, sq),
        Piece::Knight => knight_attacks(sq),
        Piece::Bishop => bishop_attacks(sq, occupied),
        Piece::Rook => rook_attacks(sq, occupied),
        Piece::Queen => queen_attacks(sq, occupied),
        Piece::King => BitBoard::EMPTY,
    };
    map.has(target)
}

fn choose_move(state: &PredictionChessState, seat: usize, rng: &mut GameRng) -> Action {
    let me = seat_color(seat);
    let board = state.board();
    let mut legal = Vec::with_capacity(64);
    state.legal_actions_into(Player::Seat(seat), &mut legal);
    if legal.len() == 1 {
        return legal[0];
    }
    let enemy_reach = reach_map(state, !me);
    let enemy_attacks = attack_map(board, !me);
    let enemy_king = board.king(!me);
    let my_king = board.king(me);
    let king_threatened = my_king.is_some_and(|k| enemy_reach.has(k));
    let mut best = (f64::NEG_INFINITY, legal[0]);
    for &action in &legal {
        let Some(mv) = action_move(me, action) else {
            continue;
        };
        let Some(piece) = board.piece_on(mv.from) else {
            continue;
        };
        let victim = board.on(mv.to).map(|(_, p)| p);
        let mut score = rng.unit_f64();
        if piece == Piece::King {
            // A king can never capture and dies in any battle: only step onto empty squares
            // no enemy move reaches, and only when it is threatened.
            if victim.is_some() || enemy_reach.has(mv.to) {
                score -= 10_000.0;
            } else if king_threatened {
                score += 5_000.0;
            } else {
                score -= 50.0;
            }
        } else {
            if king_threatened {
                score -= 1_000.0;
            }
            if let Some(v) = victim {
                score += 10.0 * piece_value(v) as f64;
            }
            if enemy_attacks.has(mv.to) {
                score -= 8.0 * piece_value(piece) as f64;
            }
            if enemy_attacks.has(mv.from) && !enemy_attacks.has(mv.to) {
                score += 6.0 * piece_value(piece) as f64;
            }
            if let Some(k) = enemy_king
                && attacks_from(board, me, piece, mv.to, k)
            {
                score += 15.0;
            }
            if let Some(p) = mv.promotion {
                score += 10.0 * piece_value(p) as f64;
            }
            if piece == Piece::Pawn {
                score += 0.5;
            }
        }
        if score > best.0 {
            best = (score, action);
        }
    }
    best.1
}

fn choose_prediction(state: &PredictionChessState, seat: usize, rng: &mut GameRng) -> Action {
    let me = seat_color(seat);
    let board = state.board();
    let mut legal = Vec::with_capacity(64);
    state.legal_actions_into(Player::Seat(seat), &mut legal);
    if legal.len() == 1 || legal[0] == PASS {
        return legal[0];
    }
    let mine = state.pending_move(seat);
    let mut best = (f64::NEG_INFINITY, legal[0]);
    for &action in &legal {
        if action as usize >= NUM_ACTIONS || action == PASS {
            continue;
        }
        let (from, to) = action_pair(action);
        let mut score = rng.unit_f64();
        let moving_away = mine.is_some_and(|m| m.from == to);
        if let Some((c, p)) = board.on(to)
            && c == me
            && !moving_away
        {
            score += 10.0 * piece_value(p) as f64;
            // The cheapest attacker is the likeliest to be sent.
            if let Some(attacker) = board.piece_on(from) {
                score -= 0.1 * piece_value(attacker) as f64;
            }
        }
        if mine.is_some_and(|m| m.to == to) {
            score += 5.0;
        }
        if score > best.0 {
            best = (score, action);
        }
    }
    best.1
}

/// The heuristic action of `seat` at a simultaneous node.
pub fn heuristic_action(state: &PredictionChessState, seat: usize, rng: &mut GameRng) -> Action {
    match state.phase() {
        Phase::Move => choose_move(state, seat, rng),
        _ => choose_prediction(state, seat, rng),
    }
}
