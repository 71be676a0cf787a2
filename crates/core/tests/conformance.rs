//! Every game and variant through the generic conformance gates: random simulation with all
//! invariants, information hiding by resampling, and playthrough golden files. Every registered
//! game (one added later, or compiled in behind a feature, too) runs the gate on its default
//! parameters; the lists below add variants and the goldens of the published games.

use std::path::Path;

use checkraise_core::conformance::{check_playthrough, random_simulation};

macro_rules! simulate {
    ($($test:ident: $spec:expr, $games:expr;)*) => {
        $(#[test] fn $test() { random_simulation($spec, $games, 1000); })*
    };
}

macro_rules! playthrough {
    ($($test:ident: $file:expr, $spec:expr, $seed:expr;)*) => {
        $(#[test] fn $test() {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/playthroughs");
            check_playthrough(&dir, $file, $spec, $seed);
        })*
    };
}

/// Every game of the registry, on its default parameters.
#[test]
fn every_registered_game_conforms() {
    for entry in checkraise_core::registry::entries() {
        random_simulation(entry.info.name, 2, 2026);
    }
}

simulate! {
    sim_pokeros: "pokeros", 6;
    sim_pokeros_3p: "pokeros(players=3)", 3;
    sim_pokeros_4p_hand0: "pokeros(players=4,hand_size=0)", 3;
    sim_pokeros_prototype_cap: "pokeros(run_cap_check=prototype,multiplier=cross)", 3;
    sim_pokeros_stripped_wild: "pokeros(deck=stripped,wildcards=2,scores=original)", 3;
    sim_pokeros_points_small: "pokeros(reward=points,board_size=5,multiplier=none)", 4;
    sim_pokeros_hand5: "pokeros(hand_size=5,players=4,wildcards=1)", 2;
    sim_pokeros_placements: "pokeros(observation=placements,players=3,wildcards=1)", 2;
    sim_pokeros_placements_hand0: "pokeros(observation=placements,hand_size=0,board_size=7)", 2;
    sim_pokeros_lookahead: "pokeros(observation=lookahead,players=3,wildcards=1)", 2;
    sim_pokeros_lookahead_hand0: "pokeros(observation=lookahead,hand_size=0,board_size=7)", 2;
    sim_poker_chess: "poker_chess", 4;
    sim_poker_chess_variants: "poker_chess(jokers=0,hand_size=2,en_passant=false,reward=points)", 3;
    sim_poker_chess_hand8: "poker_chess(hand_size=8,jokers=1,piece_values=k=50 q=10 p=2)", 2;
    sim_poker_chess_scores: "poker_chess(observation=scores)", 2;
    sim_poker_chess_scores_hand3: "poker_chess(observation=scores,hand_size=3,jokers=0,reward=points)", 2;
    sim_detective_poker: "detective_poker", 4;
    sim_detective_poker_4p_expert: "detective_poker(players=4,expert=true,rounds=1)", 3;
    sim_detective_poker_2p_points: "detective_poker(players=2,reward=points,rounds=1)", 3;
    sim_detective_poker_6p_house: "detective_poker(players=6,rounds=1,chips=9,max_bet=4,expert=true)", 2;
    sim_detective_poker_odds: "detective_poker(observation=odds)", 2;
    sim_detective_poker_odds_4p_expert: "detective_poker(observation=odds,players=4,expert=true,rounds=1)", 2;
    sim_holdem_chess: "holdem_chess", 8;
    sim_holdem_chess_6p: "holdem_chess(players=6,allin_place=true)", 3;
    sim_holdem_chess_10p_hands: "holdem_chess(players=10,hands=3,stack=20)", 2;
    sim_holdem_chess_all_sizes: "holdem_chess(bet_sizes=all,stack=30,centre_pawn=both)", 3;
    sim_holdem_chess_small_grid: "holdem_chess(grid=-1..5:-1..1,hands=4,stack=10,allin_place=true)", 3;
    sim_prediction_chess: "prediction_chess", 4;
    sim_prediction_chess_queen: "prediction_chess(promotion=queen,fifty_move=false,max_turns=60)", 3;
    sim_prediction_chess_endgame: "prediction_chess(fen=4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1)", 4;
}

playthrough! {
    playthrough_pokeros: "pokeros.txt", "pokeros(board_size=9)", 7;
    playthrough_poker_chess: "poker_chess.txt", "poker_chess", 7;
    playthrough_detective_poker: "detective_poker.txt", "detective_poker(rounds=1)", 7;
    playthrough_holdem_chess: "holdem_chess.txt", "holdem_chess", 2;
    playthrough_prediction_chess: "prediction_chess.txt", "prediction_chess(max_turns=12)", 3;
}
