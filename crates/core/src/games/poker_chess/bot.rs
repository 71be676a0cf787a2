//! The heuristic bot: take the most valuable piece it can pay for (the king above all), keep
//! its pieces out of reach, aim at the enemy king, spend its least useful card, and discard
//! dead cards when nothing is worth doing. One ply, no search.

use super::PokerChessState;
use super::moves;
use super::table::{self, CARD_CLASS};
use super::{CARD_BASE, TurnStep};
use crate::cards::Card;
use crate::chess::{Board, Color, Move, Piece};
use crate::game::Action;

/// How much keeping a card is worth, by class: jokers save attacked pieces, black J/Q/K
/// capture with pawns, red K/Q move the strongest pieces.
fn card_keep_value(card: Card) -> i64 {
    match CARD_CLASS[card.0 as usize] as u32 {
        table::JOKER => 4,
        table::BLACK_CAPTURE => 2,
        table::RED_QUEEN | table::RED_KING => 1,
        _ => 0,
    }
}

/// The value the bot gives a piece (the game's values).
fn value(state: &PokerChessState, piece: Piece) -> i64 {
    state.config().values.of(moves::kind(piece)) as i64
}

/// The highest value among `color`'s pieces that the opponent attacks.
fn most_valuable_attacked(state: &PokerChessState, board: &Board, color: Color) -> i64 {
    let mut best = 0;
    for piece in Piece::ALL {
        for sq in board.colored(color, piece) {
            if board.is_attacked(sq, !color) {
                best = best.max(value(state, piece));
            }
        }
    }
    best
}

/// The summed value of `color`'s pieces that the opponent attacks (the king counted as 20).
fn attacked_value(state: &PokerChessState, board: &Board, color: Color) -> i64 {
    let mut total = 0;
    for piece in Piece::ALL {
        for sq in board.colored(color, piece) {
            if board.is_attacked(sq, !color) {
                total += value(state, piece).min(20);
            }
        }
    }
    total
}

/// The score of playing `mv` (a move of the side to move) with `card`.
fn score_move(state: &PokerChessState, card: Card, mv: Move) -> i64 {
    let board = state.board();
    let color = board.side_to_move();
    let mut after = *board;
    let captured = after.make_move(mv).map(|c| c.piece);
    let gain = captured.map_or(0, |p| value(state, p));
    if captured == Some(Piece::King) {
        return 1_000_000;
    }
    let promotion = mv
        .promotion
        .map_or(0, |p| value(state, p) - value(state, Piece::Pawn));
    let risk = most_valuable_attacked(state, &after, color);
    let threat = after
        .king(!color)
        .map_or(0, |k| i64::from(after.is_attacked(k, color)));
    let pressure = attacked_value(state, &after, !color);
    100 * gain + 50 * promotion - 60 * risk + 30 * threat + 5 * pressure
        - 10 * card_keep_value(card)
}

/// The best move `card` allows here, with its score (ties to the lowest id).
fn best_move_for(state: &PokerChessState, card: Card) -> Option<(i64, Action)> {
    let mut best: Option<(i64, Action)> = None;
    moves::for_each_allowed(
        state.board(),
        state.move_options(),
        CARD_CLASS[card.0 as usize] as u32,
        |id, mv| {
            let s = score_move(state, card, mv);
            if best.is_none_or(|(b, bid)| s > b || (s == b && id < bid)) {
                best = Some((s, id));
            }
        },
    );
    best
}

/// The heuristic's score of every legal action of the side to move, ids in no set order: at
/// a move step each move's score with the played card; at a card step, for each playable
/// card the score of the best move it allows, and for each pair of dead cards the score of
/// doing nothing (minus 60 times the most valuable own piece attacked now) less 10 times what
/// keeping the two cards is worth. The greedy action plays the best of these, except that it
/// plays a card whenever one scores above doing nothing, and of the dead cards discards the two
/// least worth keeping (ties to the lowest id, as here). Outside a turn: nothing.
pub fn for_each_action_score(state: &PokerChessState, mut f: impl FnMut(Action, i64)) {
    match state.step() {
        Some(TurnStep::Move(card)) => moves::for_each_allowed(
            state.board(),
            state.move_options(),
            CARD_CLASS[card.0 as usize] as u32,
            |id, mv| f(id, score_move(state, card, mv)),
        ),
        Some(TurnStep::Card) => {
            let seat = state.to_move();
            let mut dead: Vec<Card> = Vec::new();
            for card in state.hand(seat).iter() {
                if !state.is_playable(card) {
                    dead.push(card);
                } else if let Some((s, _)) = best_move_for(state, card) {
                    f(state.play_action(card).expect("held"), s);
                }
            }
            let baseline = -60 * most_valuable_attacked(state, state.board(), side(seat));
            for (i, &a) in dead.iter().enumerate() {
                for &b in &dead[i + 1..] {
                    let keep = card_keep_value(a) + card_keep_value(b);
                    f(
                        state.discard_action(a, b).expect("dead cards are held"),
                        baseline - 10 * keep,
                    );
                }
            }
        }
        None => {}
    }
}

/// The heuristic action for the side to move.
pub fn greedy_action(state: &PokerChessState) -> Action {
    let seat = state.to_move();
    match state.step() {
        Some(TurnStep::Move(card)) => {
            best_move_for(state, card)
                .expect("a played card allows a move")
                .1
        }
        _ => {
            let hand = state.hand(seat);
            let mut best: Option<(i64, Action)> = None;
            let mut dead: Vec<Card> = Vec::new();
            for card in hand.iter() {
                if !state.is_playable(card) {
                    dead.push(card);
                    continue;
                }
                if let Some((s, _)) = best_move_for(state, card) {
                    let play = CARD_BASE + state.slot_of(seat, card).expect("held") as Action;
                    if best.is_none_or(|(b, _)| s > b) {
                        best = Some((s, play));
                    }
                }
            }
            // Nothing worth doing: cycle two dead cards rather than weaken the position.
            let baseline = -60 * most_valuable_attacked(state, state.board(), side(seat));
            if dead.len() >= 2 && best.is_none_or(|(b, _)| b <= baseline) {
                dead.sort_by_key(|&c| card_keep_value(c));
                return state
                    .discard_action(dead[0], dead[1])
                    .expect("dead cards are held");
            }
            best.expect("a seat to act has a playable card or two dead cards")
                .1
        }
    }
}

fn side(seat: usize) -> Color {
    if seat == 0 {
        Color::White
    } else {
        Color::Black
    }
}
