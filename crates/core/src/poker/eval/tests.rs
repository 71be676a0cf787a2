use std::cmp::Ordering;
use std::collections::HashSet;

use super::*;
use crate::cards::parse_cards;
use crate::env::GameRng;

fn cards(s: &str) -> Vec<Card> {
    parse_cards(s).unwrap()
}

fn partial(s: &str) -> HandValue {
    evaluate_partial(&cards(s))
}

fn five(s: &str) -> HandValue {
    let c = cards(s);
    evaluate5(&[c[0], c[1], c[2], c[3], c[4]])
}

fn set(s: &str) -> CardSet {
    cards(s).into_iter().collect()
}

/// An independent reference for one hand of 0..=5 distinct cards: the category and the ranks
/// to compare in order (group ranks by size then rank, then kickers), -1 for a missing card.
fn reference(hand: &[Card]) -> (Category, [i8; 5]) {
    assert!(hand.len() <= 5);
    let mut counts = [0u8; 13];
    for c in hand {
        counts[c.rank().0 as usize] += 1;
    }
    let mut groups: Vec<(u8, i8)> = (0..13)
        .filter(|&r| counts[r] > 0)
        .map(|r| (counts[r], r as i8))
        .collect();
    groups.sort_by(|a, b| b.cmp(a));
    let mut ranks = [-1i8; 5];
    for (slot, g) in ranks.iter_mut().zip(&groups) {
        *slot = g.1;
    }
    let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
    let mut straight = None;
    let mut flush = false;
    if hand.len() == 5 && groups.len() == 5 {
        flush = hand.iter().all(|c| c.suit() == hand[0].suit());
        if ranks[0] - ranks[4] == 4 {
            straight = Some(ranks[0]);
        } else if ranks == [12, 3, 2, 1, 0] {
            straight = Some(3);
        }
    }
    let category = match (straight, flush, shape.as_slice()) {
        (Some(_), true, _) => Category::StraightFlush,
        (_, _, [4, ..]) => Category::FourOfAKind,
        (_, _, [3, 2]) => Category::FullHouse,
        (_, true, _) => Category::Flush,
        (Some(_), _, _) => Category::Straight,
        (_, _, [3, ..]) => Category::ThreeOfAKind,
        (_, _, [2, 2, ..]) => Category::TwoPair,
        (_, _, [2, ..]) => Category::Pair,
        _ => Category::HighCard,
    };
    if let (Some(top), Category::Straight | Category::StraightFlush) = (straight, category) {
        ranks = [top, -1, -1, -1, -1];
    }
    (category, ranks)
}

/// The reference best hand of at most 5 of `hand`: the maximum reference key over subsets.
fn reference_best(hand: &[Card]) -> (Category, [i8; 5]) {
    let k = hand.len().min(5);
    let mut best = reference(&[]);
    for mask in 0u32..1 << hand.len() {
        if mask.count_ones() as usize == k {
            let sub: Vec<Card> = (0..hand.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| hand[i])
                .collect();
            best = best.max(reference(&sub));
        }
    }
    best
}

fn random_hand(rng: &mut GameRng, n: usize) -> Vec<Card> {
    let mut deck: Vec<Card> = CardSet::full_deck().iter().collect();
    rng.shuffle(&mut deck);
    deck.truncate(n);
    deck
}

#[test]
fn rules_examples_for_partial_hands() {
    assert!(partial("Ac Ad") > partial("Kc Kd As 3h 7s"));
    assert!(partial("Ac Ad 2s") > partial("Ac Ad"));
    assert!(partial("Qc 3d 2s") > partial("Jc 9d 7s 5h 2c"));
    assert!(partial("7c 7d Ks") > partial("7h 7s Qc 2d 5h"));
}

#[test]
fn categories_are_ordered() {
    let hands = [
        ("As Kd 9c 7h 3s", Category::HighCard),
        ("2s 2d 3c 4h 6s", Category::Pair),
        ("3s 3d 2c 2h 4s", Category::TwoPair),
        ("2s 2d 2c 3h 4s", Category::ThreeOfAKind),
        ("As 2d 3c 4h 5s", Category::Straight),
        ("2s 3s 4s 5s 7s", Category::Flush),
        ("2s 2d 2c 3h 3s", Category::FullHouse),
        ("2s 2d 2c 2h 3s", Category::FourOfAKind),
        ("As 2s 3s 4s 5s", Category::StraightFlush),
    ];
    let values: Vec<HandValue> = hands.iter().map(|(h, _)| five(h)).collect();
    for ((h, cat), v) in hands.iter().zip(&values) {
        assert_eq!(v.category(), *cat, "{h}");
    }
    for w in values.windows(2) {
        assert!(w[0] < w[1], "{w:?}");
    }
    // The strongest hand of each category loses to the weakest of the next.
    let strongest = [
        "As Kd Qc Jh 9s",
        "As Ad Kc Qh Js",
        "As Ad Kc Kh Qs",
        "As Ad Ac Kh Qs",
        "Ts Jd Qc Kh As",
        "As Ks Qs Js 9s",
        "As Ad Ac Kh Ks",
        "As Ad Ac Ah Ks",
    ];
    for (s, w) in strongest.iter().zip(&values[1..]) {
        assert!(five(s) < *w, "{s}");
    }
    for c in Category::ALL {
        assert!(!c.name().is_empty());
    }
}

#[test]
fn straights_wheel_and_no_wraparound() {
    let wheel = five("As 2d 3c 4h 5s");
    let six_high = five("2d 3c 4h 5s 6c");
    let broadway = five("Ts Jd Qc Kh As");
    assert!(wheel < six_high && six_high < broadway);
    assert_eq!(wheel.category(), Category::Straight);
    assert!(wheel > five("As Ad Ac 4h 5s"));
    assert_eq!(five("Qs Kd Ac 2h 3s").category(), Category::HighCard);
    assert_eq!(five("Js Qd Kc Ah 2s").category(), Category::HighCard);
    let steel_wheel = five("As 2s 3s 4s 5s");
    assert!(steel_wheel < five("2h 3h 4h 5h 6h"));
    assert!(steel_wheel > five("As Ad Ac Ah Ks"));
    // A wheel in seven cards with a higher straight: the higher one counts.
    assert_eq!(best_of(set("As 2d 3c 4h 5s 6d 9c")), six_high);
    assert_eq!(best_of(set("As 2d 3c 4h 5s Kd 9c")), wheel);
    // Straight flush beats a plain higher straight in the same seven cards.
    assert_eq!(
        best_of(set("As 2s 3s 4s 5s 6d Kc")).category(),
        Category::StraightFlush
    );
}

#[test]
fn kickers_decide_within_a_category() {
    assert!(five("As Kd 9c 7h 4s") > five("Ac Kh 9d 7s 3c"));
    assert!(five("As Qd Jc 9h 8s") < five("Ac Kh 3d 4s 2c"));
    assert!(five("9s 9d Ac 3h 2s") > five("9c 9h Kc Qh Js"));
    assert!(five("9s 9d Ac 4h 2s") > five("9c 9h Ad 3c 2c"));
    assert!(five("Ts Td 9c 9h 3s") > five("Tc Th 9d 9s 2c"));
    assert!(five("Ts Td 2c 2h 3s") > five("9c 9h 8d 8s Ac"));
    assert!(five("5s 5d 5c Kh 2s") > five("5s 5d 5c Qh Js"));
    assert!(five("As Ks 4s 3s 2s") > five("Ad Qd Jd Td 8d"));
    assert!(five("Ah Ks 3s 7d 4c") == five("Ac Kd 3c 7h 4s"));
    assert!(five("3s 3d 3c Ah Ad") < five("4s 4d 4c 2h 2d"));
    assert!(five("Ks Kd Kc 2h 2d") > five("Ks Kd Kc Qh Js"));
    assert!(five("2s 2d 2c 2h As") > five("2s 2d 2c 2h Ks"));
    assert!(five("3s 3d 3c 3h 2s") > five("2s 2d 2c 2h As"));
    // The best five of seven drop the lowest kickers.
    assert_eq!(best_of(set("As Kd 9c 7h 4s 3d 2c")), five("As Kd 9c 7h 4s"));
    assert_eq!(best_of(set("As Ad Kc Kh Qs Qd 2c")), five("As Ad Kc Kh Qs"));
    assert_eq!(best_of(set("As Ad Ac Kh Kd Kc 2c")), five("As Ad Ac Kh Kd"));
    assert_eq!(best_of(set("9s 9d 9c 9h Kd Kc Ac")), five("9s 9d 9c 9h Ac"));
}

#[test]
fn two_card_hands_pair_then_high_then_second() {
    // The key Detective Poker needs preflop: pair first, then high card, then second card.
    let key = |a: Card, b: Card| {
        let (hi, lo) = (a.rank().max(b.rank()), a.rank().min(b.rank()));
        (hi == lo, hi, lo)
    };
    let deck: Vec<Card> = CardSet::full_deck().iter().collect();
    let mut hands = Vec::new();
    for i in 0..52 {
        for j in i + 1..52 {
            hands.push((deck[i], deck[j]));
        }
    }
    let mut rng = GameRng::new(7);
    for _ in 0..20_000 {
        let (a, b) = (rng.choose(&hands), rng.choose(&hands));
        let va = best_of([a.0, a.1].into_iter().collect());
        let vb = best_of([b.0, b.1].into_iter().collect());
        assert_eq!(
            va.cmp(&vb),
            key(a.0, a.1).cmp(&key(b.0, b.1)),
            "{a:?} {b:?}"
        );
    }
    assert!(partial("2c 2d") > partial("As Kd"));
    assert!(partial("As 2d") > partial("Ks Qd"));
    assert!(partial("As 3d") > partial("Ad 2c"));
}

#[test]
fn partial_hands_compare_like_the_reference() {
    let mut rng = GameRng::new(11);
    for _ in 0..20_000 {
        let (na, nb) = (rng.below(6) as usize, rng.below(6) as usize);
        let a = random_hand(&mut rng, na);
        let b = random_hand(&mut rng, nb);
        let (va, vb) = (evaluate_partial(&a), evaluate_partial(&b));
        assert_eq!(va.category(), reference(&a).0, "{a:?}");
        assert_eq!(
            va.cmp(&vb),
            reference(&a).cmp(&reference(&b)),
            "{a:?} {b:?}"
        );
    }
    assert_eq!(evaluate_partial(&[]), HandValue::NONE);
    assert_eq!(partial("Ac Ad Ah As").category(), Category::FourOfAKind);
    assert_eq!(partial("Ac Ad Ah Ks").category(), Category::ThreeOfAKind);
    assert_eq!(partial("Ac Ad Kh Ks").category(), Category::TwoPair);
    assert_eq!(partial("2s 3s 4s 5s").category(), Category::HighCard);
}

#[test]
fn best_of_seven_equals_best_of_the_21_five_card_subsets() {
    let mut rng = GameRng::new(3);
    for round in 0..20_000 {
        let hand = random_hand(&mut rng, 7);
        let set: CardSet = hand.iter().copied().collect();
        let mut best = HandValue::NONE;
        for skip_a in 0..7 {
            for skip_b in skip_a + 1..7 {
                let sub: Vec<Card> = (0..7)
                    .filter(|&i| i != skip_a && i != skip_b)
                    .map(|i| hand[i])
                    .collect();
                best = best.max(evaluate5(&[sub[0], sub[1], sub[2], sub[3], sub[4]]));
            }
        }
        assert_eq!(best_of(set), best, "{hand:?}");
        if round % 10 == 0 {
            let want = reference_best(&hand);
            assert_eq!(best_of(set).category(), want.0, "{hand:?}");
        }
    }
}

#[test]
fn best_of_five_and_six_cards_and_small_sets() {
    let mut rng = GameRng::new(5);
    for _ in 0..5_000 {
        let n = 1 + rng.below(6) as usize;
        let hand = random_hand(&mut rng, n);
        let v = best_of(hand.iter().copied().collect());
        let reference_value = reference_best(&hand);
        // Same key as the best subset found by the reference.
        let k = n.min(5);
        let mut best = HandValue::NONE;
        let mut best_key = reference(&[]);
        for mask in 0u32..1 << n {
            if mask.count_ones() as usize == k {
                let sub: Vec<Card> = (0..n)
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| hand[i])
                    .collect();
                if reference(&sub) >= best_key {
                    best_key = reference(&sub);
                    best = evaluate_partial(&sub);
                }
            }
        }
        assert_eq!(best_key, reference_value);
        assert_eq!(v, best, "{hand:?}");
    }
}

#[test]
fn best_partial_of_limits_the_hand_size() {
    let pool = cards("As Ah Kd Kc 2s 7d");
    assert_eq!(best_partial_of(&pool, 2), partial("As Ah"));
    assert_eq!(best_partial_of(&pool, 3), partial("As Ah Kd"));
    assert_eq!(best_partial_of(&pool, 4), partial("As Ah Kd Kc"));
    assert_eq!(best_partial_of(&pool, 5), partial("As Ah Kd Kc 7d"));
    assert_eq!(best_partial_of(&pool, 9), partial("As Ah Kd Kc 7d"));
    assert_eq!(best_partial_of(&pool, 1), partial("As"));
    assert_eq!(best_partial_of(&pool, 0), HandValue::NONE);
    assert_eq!(best_partial_of(&[], 3), HandValue::NONE);
    let mut rng = GameRng::new(9);
    for _ in 0..500 {
        let n = rng.below(10) as usize;
        let max = rng.below(6) as usize;
        let pool = random_hand(&mut rng, n);
        let k = max.min(n);
        let mut best = HandValue::NONE;
        for mask in 0u32..1 << n {
            if mask.count_ones() as usize <= k {
                let sub: Vec<Card> = (0..n)
                    .filter(|&i| mask >> i & 1 == 1)
                    .map(|i| pool[i])
                    .collect();
                best = best.max(best_of(sub.into_iter().collect()));
            }
        }
        assert_eq!(best_partial_of(&pool, max), best, "{pool:?} max {max}");
    }
}

#[test]
fn big_sets_take_the_best_five() {
    // Flush and quads together (8 cards): quads win; two flush suits: the best counts.
    assert_eq!(
        best_of(set("9s 9d 9c 9h 2s 4s 6s Ks")).category(),
        Category::FourOfAKind
    );
    assert_eq!(
        best_of(set("2s 4s 6s 8s Ts 3h 5h 7h 9h Jh")),
        five("3h 5h 7h 9h Jh")
    );
    assert_eq!(best_of(CardSet::full_deck()), five("Ts Js Qs Ks As"));
    // Jokers are ignored.
    let mut with_joker = set("As Ad");
    with_joker.insert(Card::joker(0));
    assert_eq!(best_of(with_joker), partial("As Ad"));
}

#[test]
fn all_five_card_hands_have_the_known_category_counts() {
    let mut counts = [0u32; NUM_CATEGORIES];
    let mut distinct = HashSet::new();
    let mut rng = GameRng::new(1);
    let mut checked = 0;
    for a in 0..52u64 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    let abcd = 1 << a | 1 << b | 1 << c | 1 << d;
                    for e in d + 1..52 {
                        let v = best_of(CardSet(abcd | 1 << e));
                        counts[v.category() as usize] += 1;
                        distinct.insert(v);
                        // Spot-check against the reference.
                        if rng.below(64) == 0 {
                            let hand: Vec<Card> = CardSet(abcd | 1 << e).iter().collect();
                            assert_eq!(v.category(), reference(&hand).0, "{hand:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 10_000);
    assert_eq!(
        counts,
        [
            1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40
        ]
    );
    assert_eq!(distinct.len(), 7462);
}

#[test]
fn descriptions() {
    assert_eq!(
        five("As Ad Kc 7h 2s").describe(),
        "pair of aces, K 7 2 kickers"
    );
    assert_eq!(
        partial("As Ad Kc 7h").describe(),
        "pair of aces, K 7 kickers"
    );
    assert_eq!(partial("As Ad").describe(), "pair of aces");
    assert_eq!(
        five("As Kd 9c 7h 3s").describe(),
        "ace high, K 9 7 3 kickers"
    );
    assert_eq!(partial("9c").describe(), "nine high");
    assert_eq!(HandValue::NONE.describe(), "no cards");
    assert_eq!(
        five("3s 3d 2c 2h 4s").describe(),
        "two pair, threes and twos, 4 kicker"
    );
    assert_eq!(
        five("6s 6d 6c Ah 4s").describe(),
        "three sixes, A 4 kickers"
    );
    assert_eq!(five("As 2d 3c 4h 5s").describe(), "straight, five high");
    assert_eq!(five("2s 9s 4s 5s Js").describe(), "flush, J 9 5 4 2");
    assert_eq!(
        five("Ks Kd Kc 7h 7s").describe(),
        "full house, kings full of sevens"
    );
    assert_eq!(five("Qs Qd Qc Qh Ts").describe(), "four queens, T kicker");
    assert_eq!(
        five("9s Ts Js Qs Ks").describe(),
        "straight flush, king high"
    );
    assert_eq!(five("Ts Js Qs Ks As").describe(), "royal flush");
}

#[test]
fn value_layout_is_stable() {
    // Other modules may store values; the encoding is part of the API.
    assert_eq!(partial("As"), HandValue(1 << 12));
    assert_eq!(partial("As Ad"), HandValue(1 << 26 | 1 << 25));
    assert_eq!(five("Ts Js Qs Ks As"), HandValue(8 << 26 | 1 << 12));
    assert_eq!(
        five("As Kd 9c 7h 3s").cmp(&five("As Kd 9c 7h 2s")),
        Ordering::Greater
    );
}

#[test]
fn fast_path_agrees_with_the_general_path() {
    // Exhaustive over all 7-card hands in release (with the known category counts); a large
    // random sample in debug.
    let mut rng = GameRng::new(13);
    for _ in 0..100_000 {
        let n = rng.below(9) as usize;
        let hand: CardSet = random_hand(&mut rng, n).into_iter().collect();
        assert_eq!(best_of(hand), best_of_any(hand), "{hand:?}");
    }
    if cfg!(debug_assertions) {
        return;
    }
    let mut counts = [0u64; NUM_CATEGORIES];
    let mut hand = (1u64 << 7) - 1;
    while hand < 1 << 52 {
        let v = best_of(CardSet(hand));
        assert_eq!(v, best_of_any(CardSet(hand)), "{:?}", CardSet(hand));
        counts[v.category() as usize] += 1;
        // Next set of the same size (Gosper's hack).
        let low = hand & hand.wrapping_neg();
        let ripple = hand + low;
        hand = ripple | (((hand ^ ripple) >> 2) / low);
    }
    assert_eq!(
        counts,
        [
            23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
            224_848, 41_584
        ]
    );
}

/// Every 7-card rank multiset (at most 4 of a rank): counts per rank.
fn seven_card_multisets() -> Vec<[u8; 13]> {
    fn rec(r: usize, left: u8, c: &mut [u8; 13], out: &mut Vec<[u8; 13]>) {
        if r == 13 {
            if left == 0 {
                out.push(*c);
            }
            return;
        }
        for k in 0..=left.min(4) {
            c[r] = k;
            rec(r + 1, left - k, c, out);
        }
    }
    let mut out = Vec::new();
    rec(0, 7, &mut [0; 13], &mut out);
    out
}

#[test]
fn seven_card_path_agrees_on_every_rank_multiset_and_every_flush() {
    // The 7-card path's non-flush value depends on the rank multiset only: every multiset,
    // with suits dealt round-robin (never a flush) and with 6 random suit patterns (some
    // flushes), must match the general evaluator.
    let multisets = seven_card_multisets();
    assert_eq!(multisets.len(), 49_205);
    let mut rng = GameRng::new(7);
    for counts in &multisets {
        for pattern in 0..7 {
            let mut hand = 0u64;
            let mut dealt = 0;
            for (rank, &count) in counts.iter().enumerate() {
                let start = if pattern == 0 {
                    dealt
                } else {
                    rng.below(4) as usize
                };
                for k in 0..count as usize {
                    hand |= 1 << (4 * rank + (start + k) % 4);
                }
                dealt += count as usize;
            }
            let hand = CardSet(hand);
            assert_eq!(hand.len(), 7);
            assert_eq!(best_of(hand), best_of_any(hand), "{hand:?}");
        }
    }
    // Every 7-card hand with a flush: 5, 6 or 7 cards of one suit, any others.
    let mut flushes = 0u64;
    for suit in 0..4 {
        for ranks in 0u32..1 << 13 {
            let k = ranks.count_ones();
            if !(5..=7).contains(&k) {
                continue;
            }
            let flush = (0..13)
                .filter(|r| ranks >> r & 1 == 1)
                .fold(0u64, |m, r| m | 1 << (4 * r + suit));
            let others: Vec<u64> = (0..52)
                .filter(|&b| b % 4 != suit)
                .map(|b| 1u64 << b)
                .collect();
            let mut check = |hand: u64| {
                let hand = CardSet(hand);
                assert_eq!(best_of(hand), best_of_any(hand), "{hand:?}");
                flushes += 1;
            };
            match k {
                7 => check(flush),
                6 => others.iter().for_each(|&a| check(flush | a)),
                _ => {
                    for (i, &a) in others.iter().enumerate() {
                        others[i + 1..].iter().for_each(|&b| check(flush | a | b));
                    }
                }
            }
        }
    }
    // C(13,5)·C(39,2) + C(13,6)·39 + C(13,7), per suit.
    assert_eq!(flushes, 4 * (1287 * 741 + 1716 * 39 + 1716));
}

#[test]
fn seven_card_path_ignores_jokers_and_falls_back_for_other_sizes() {
    let hand = set("As Kd Qh 7c 7d 3s 2h");
    let jokers = CardSet(hand.0 | 0b111 << 52);
    assert_eq!(best_of(jokers), best_of(hand));
    assert_eq!(best_of(hand), best_of_any(hand));
    let mut rng = GameRng::new(11);
    for n in [0, 1, 2, 5, 6, 8, 9, 12, 20, 52] {
        for _ in 0..200 {
            let hand: CardSet = random_hand(&mut rng, n).into_iter().collect();
            assert_eq!(best_of(hand), best_of_any(hand), "{hand:?}");
        }
    }
}
