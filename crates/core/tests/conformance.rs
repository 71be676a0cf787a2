//! Every game and variant through the generic conformance gates: random simulation with all
//! invariants, information hiding by resampling, and playthrough golden files. A new game
//! joins with one line in each list.

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

simulate! {
    sim_pokeros: "pokeros", 6;
    sim_pokeros_3p: "pokeros(players=3)", 3;
    sim_pokeros_4p_hand0: "pokeros(players=4,hand_size=0)", 3;
    sim_pokeros_prototype_cap: "pokeros(run_cap_check=prototype,multiplier=cross)", 3;
    sim_pokeros_stripped_wild: "pokeros(deck=stripped,wildcards=2,scores=original)", 3;
    sim_pokeros_points_small: "pokeros(reward=points,board_size=5,multiplier=none)", 4;
    sim_pokeros_hand5: "pokeros(hand_size=5,players=4,wildcards=1)", 2;
    sim_poker_chess: "poker_chess", 4;
    sim_poker_chess_variants: "poker_chess(jokers=0,hand_size=2,en_passant=false,reward=points)", 3;
    sim_poker_chess_hand8: "poker_chess(hand_size=8,jokers=1,piece_values=k=50 q=10 p=2)", 2;
}

playthrough! {
    playthrough_pokeros: "pokeros.txt", "pokeros(board_size=9)", 7;
    playthrough_poker_chess: "poker_chess.txt", "poker_chess", 7;
}
