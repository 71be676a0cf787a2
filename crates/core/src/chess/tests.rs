use super::*;
use crate::env::GameRng;

fn perft(board: &Board, depth: u32, opts: &MoveGenOptions) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    board.generate_moves(opts, &mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&mv| {
            let mut next = *board;
            next.make_move(mv);
            perft(&next, depth - 1, opts)
        })
        .sum()
}

#[test]
fn perft_start_position_matches_legal_counts() {
    let board = Board::start();
    let opts = MoveGenOptions::STANDARD;
    assert_eq!(perft(&board, 1, &opts), 20);
    assert_eq!(perft(&board, 2, &opts), 400);
    assert_eq!(perft(&board, 3, &opts), 8_902);
}

#[test]
fn fen_round_trips() {
    for fen in [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/8/8/8/8/8/8/8 b - - 12 40",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    ] {
        let board = Board::from_fen(fen).unwrap();
        assert_eq!(board.to_fen(), fen);
    }
    let short = Board::from_fen("4k3/8/8/8/8/8/8/4K3 w - -").unwrap();
    assert_eq!(short.to_fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
}

#[test]
fn bad_fen_is_an_error_not_a_panic() {
    for (fen, needle) in [
        ("", "expected 6 fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "1 to 8",
        ),
        (
            "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "7 squares",
        ),
        (
            "rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "more than 8",
        ),
        (
            "rnbqkbnx/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "not a piece",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "side to move",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1",
            "castling",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
            "needs the king",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
            "en passant",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq zz 0 1",
            "en passant",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
            "halfmove",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
            "at least 1",
        ),
        ("P7/8/8/8/8/8/8/8 w - - 0 1", "first or last rank"),
        ("QQQQQQQQ/QQQQQQQQ/Q7/8/8/8/8/8 w - - 0 1", "more than 16"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1",
            "repeats",
        ),
    ] {
        let err = Board::from_fen(fen).unwrap_err().to_string();
        assert!(err.contains(needle), "{fen}: {err}");
    }
}

#[test]
fn uci_round_trips_and_rejects_garbage() {
    for text in ["e2e4", "e7e8q", "a2a1n", "h7g8r", "b7b8b"] {
        assert_eq!(Move::from_uci(text).unwrap().to_string(), text);
    }
    for text in ["", "e2", "e2e4e4", "i2e4", "e2e9", "e7e8k", "e2e2", "é2e4"] {
        assert!(Move::from_uci(text).is_err(), "{text}");
    }
}

#[test]
fn make_move_reports_captures_including_en_passant() {
    let mut board =
        Board::from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3").unwrap();
    let capture = board.play(Move::from_uci("e5f6").unwrap(), &MoveGenOptions::STANDARD);
    assert_eq!(
        capture,
        Ok(Some(Capture {
            piece: Piece::Pawn,
            square: Square::F5
        }))
    );
    assert_eq!(board.piece_on(Square::F5), None);
    let capture = board.make_move(Move::from_uci("d8d2").unwrap());
    assert_eq!(capture.map(|c| c.piece), Some(Piece::Pawn));
    // The king can be captured: check does not exist.
    let capture = board.make_move(Move::from_uci("d2e1").unwrap());
    assert_eq!(capture.map(|c| c.piece), Some(Piece::King));
    assert_eq!(board.king(Color::White), None);
}

#[test]
fn options_switch_variant_rules() {
    let board = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let mut moves = MoveList::new();
    board.generate_moves(&MoveGenOptions::STANDARD, &mut moves);
    assert!(moves.contains(&Move::from_uci("e1g1").unwrap()));
    assert!(moves.contains(&Move::from_uci("e1c1").unwrap()));
    board.generate_moves(&MoveGenOptions::SIMPLE, &mut moves);
    assert!(!moves.contains(&Move::from_uci("e1g1").unwrap()));
    // A rook attacking f1 forbids short castling unless the option allows it.
    let attacked = Board::from_fen("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
    attacked.generate_moves(&MoveGenOptions::STANDARD, &mut moves);
    assert!(!moves.contains(&Move::from_uci("e1g1").unwrap()));
    assert!(moves.contains(&Move::from_uci("e1c1").unwrap()));
    let through = MoveGenOptions {
        castle_through_attacks: true,
        ..MoveGenOptions::STANDARD
    };
    attacked.generate_moves(&through, &mut moves);
    assert!(moves.contains(&Move::from_uci("e1g1").unwrap()));
    let mut castled = attacked;
    castled.make_move(Move::from_uci("e1g1").unwrap());
    assert_eq!(castled.on(Square::F1), Some((Color::White, Piece::Rook)));
    assert_eq!(castled.castling_rights(), CastlingRights::NONE);
    // Promotion pieces: none means no move onto the last rank.
    let pawn = Board::from_fen("8/4P3/8/8/8/8/8/k6K w - - 0 1").unwrap();
    let only_rook = MoveGenOptions {
        promotions: PieceSet::EMPTY.with(Piece::Rook),
        ..MoveGenOptions::SIMPLE
    };
    pawn.generate_moves_for(Color::White, &only_rook, &mut moves);
    assert!(moves.contains(&Move::from_uci("e7e8r").unwrap()));
    assert!(!moves.contains(&Move::from_uci("e7e8q").unwrap()));
    let none = MoveGenOptions {
        promotions: PieceSet::EMPTY,
        ..MoveGenOptions::SIMPLE
    };
    pawn.generate_moves_for(Color::White, &none, &mut moves);
    assert!(moves.iter().all(|m| m.from != Square::E7));
    assert!(
        pawn.check_move(Color::White, Move::from_uci("e7e8q").unwrap(), &only_rook)
            .unwrap_err()
            .to_string()
            .contains("not allowed")
    );
    // En passant off.
    let ep = Board::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
    ep.generate_moves(&MoveGenOptions::STANDARD, &mut moves);
    assert!(moves.contains(&Move::from_uci("e5d6").unwrap()));
    ep.generate_moves(&MoveGenOptions::SIMPLE, &mut moves);
    assert!(!moves.contains(&Move::from_uci("e5d6").unwrap()));
}

#[test]
fn attackers_count_pawns_diagonally_only() {
    let board = Board::from_fen("4k3/8/8/3p4/4P3/8/8/R3K3 w - - 0 1").unwrap();
    assert_eq!(
        board.attackers_of(Square::D5, Color::White),
        Square::E4.bitboard()
    );
    assert!(!board.is_attacked(Square::E5, Color::White));
    assert!(board.is_attacked(Square::E4, Color::Black));
    assert_eq!(
        board.attackers_of(Square::A8, Color::White),
        Square::A1.bitboard()
    );
    assert!(board.is_attacked(Square::D2, Color::White));
}

/// Our pseudo-legal moves minus those leaving the own king capturable are cozy-chess's
/// legal moves, on positions reached by random legal play.
#[test]
fn differential_against_cozy_chess() {
    let mut rng = GameRng::new(2026);
    let mut ours = MoveList::new();
    let mut positions = 0;
    for _ in 0..if cfg!(debug_assertions) { 40 } else { 400 } {
        let mut cozy = cozy_chess::Board::default();
        for _ in 0..120 {
            let fen = format!("{cozy}");
            let board = Board::from_fen(&fen).unwrap();
            assert_eq!(board.to_fen(), fen);
            let mut expected = Vec::new();
            cozy.generate_moves(|pm| {
                for mv in pm {
                    expected.push(cozy_chess::util::display_uci_move(&cozy, mv).to_string());
                }
                false
            });
            expected.sort();
            board.generate_moves(&MoveGenOptions::STANDARD, &mut ours);
            let me = board.side_to_move();
            let mut got: Vec<String> = ours
                .iter()
                .filter(|&&mv| {
                    let mut next = board;
                    next.make_move(mv);
                    next.king(me).is_none_or(|k| !next.is_attacked(k, !me))
                })
                .map(|mv| mv.to_string())
                .collect();
            got.sort();
            assert_eq!(got, expected, "{fen}");
            positions += 1;
            if expected.is_empty() {
                break;
            }
            let pick = &expected[rng.below(expected.len() as u64) as usize];
            let mv = cozy_chess::util::parse_uci_move(&cozy, pick).unwrap();
            cozy.play(mv);
        }
    }
    assert!(positions > 1000);
}

#[test]
fn piece_sets_and_values() {
    let set = PieceSet::EMPTY.with(Piece::Queen).with(Piece::Knight);
    assert_eq!(
        set.iter().collect::<Vec<_>>(),
        vec![Piece::Knight, Piece::Queen]
    );
    assert_eq!(
        set.without(Piece::Queen),
        PieceSet::EMPTY.with(Piece::Knight)
    );
    assert_eq!(set.len(), 2);
    let total: u32 = [
        Piece::Queen,
        Piece::Rook,
        Piece::Rook,
        Piece::Bishop,
        Piece::Bishop,
    ]
    .into_iter()
    .chain([Piece::Knight; 2])
    .chain([Piece::Pawn; 8])
    .map(piece_value)
    .sum();
    assert!(piece_value(Piece::King) > total);
}

/// Perft counting only moves that do not leave the own king capturable (standard legality).
fn legal_perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    board.generate_moves(&MoveGenOptions::STANDARD, &mut moves);
    let me = board.side_to_move();
    moves
        .iter()
        .map(|&mv| {
            let mut next = *board;
            next.make_move(mv);
            match next.king(me) {
                Some(k) if next.is_attacked(k, !me) => 0,
                _ => legal_perft(&next, depth - 1),
            }
        })
        .sum()
}

#[test]
fn legal_perft_on_tricky_positions() {
    // Kiwipete (castling, en passant, promotions) and position 3 (en passant pins).
    let kiwipete =
        Board::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
    assert_eq!(legal_perft(&kiwipete, 1), 48);
    assert_eq!(legal_perft(&kiwipete, 2), 2_039);
    let pos3 = Board::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
    assert_eq!(legal_perft(&pos3, 1), 14);
    assert_eq!(legal_perft(&pos3, 2), 191);
    assert_eq!(legal_perft(&pos3, 3), 2_812);
}
