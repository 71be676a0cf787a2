// The rules of each game in the page's own words (a summary and the key rules, written from
// docs/games/<game>.md, which states them fully), and the help the play page gives on a card or
// an action whose meaning the face alone does not say. Only words: every rule is still applied
// by the server, which offers the legal actions.
import { cardShort, h } from "./dom";

export interface GameRules {
  /** What the game is, in a sentence or two. */
  summary: string;
  /** The rules a player needs, one short item each. */
  rules: string[];
}

export const RULES: Record<string, GameRules> = {
  pokeros: {
    summary:
      "Poker hands laid as tiles. Take turns placing one card from your hand next to the cards on the grid; every hand the new card forms in its row and its column scores for you at once. Most points at the end wins.",
    rules: [
      "Your hand is private (3 cards by default) and refilled from the deck at the start of each of your turns.",
      "Place a card on an empty cell that touches a card on its left, right, top or bottom (a diagonal does not count). No row or column of touching cards may grow longer than 5.",
      "A placed card affects only its own row and its own column: the stretches of 2 to 5 touching cards through it, in the row and in the column, are checked for hands.",
      "Every card of a stretch must belong to the hand, in any order: 7♣ 2♠ 7♥ scores nothing. Hands: pair (1 point), 3-card straight or flush (2), two pair (3), three of a kind or 4-card flush (4), 4-card straight or full house (5), 5-card flush (8), 5-card straight, four of a kind or 3-card straight flush (10), 4-card straight flush (20), 5-card straight flush (40), royal flush (60).",
      "On each line the best stretch ending at the new card and the best one starting at it score, or one stretch across it when that pays more than both. So a card scores at most two hands a line, four in all.",
      "Each hand scored pays its score times the number of hands scored by the placement: two pairs at once pay (1 + 1) × 2 = 4.",
      "An ace is high or low in a straight, never both (K A 2 is not a straight). Jokers, when in the deck, are wild in every stretch.",
      "The game ends when no card can be placed or a player's hand is empty with the deck gone.",
    ],
  },
  prediction_chess: {
    summary:
      "Chess where both players move at the same time and each also predicts the other's move. A piece whose move was predicted loses its battle. Capture the king to win.",
    rules: [
      "Each turn both players secretly choose a move of their own, then a prediction of the opponent's move; then both are revealed and played at once.",
      "Moves are ordinary chess moves judged at the start of the turn; check does not exist, there is no castling and no en passant. A player with no move passes.",
      "A battle happens when a piece lands on a piece that stayed, when both pieces end on the same square, or when two pieces swap squares and at least one of the moves was predicted.",
      "In a battle the piece whose move was predicted dies. An unpredicted attacker takes the piece that stayed; when both or neither of two movers were predicted, both die (a swap with neither predicted is no battle).",
      "A king cannot fight: a king in a battle always dies, and never takes anything.",
      "A pawn reaching the last rank becomes a piece type its owner has lost (by default); with nothing lost it cannot go there.",
      "A king captured loses the game; both kings at once, the turn limit or 50 turns without a death or a pawn move are a draw.",
    ],
  },
  poker_chess: {
    summary:
      "Chess where every move is paid for with a playing card. On your turn play a card from your hand and make a chess move the card allows, or show and discard two cards that allow nothing. Capturing scores the piece's value; taking the king ends the game.",
    rules: [
      "Black cards (♣ ♠) move pawns: A and 2–8 a pawn move ending on file a–h (A = a, 2 = b, … 8 = h); 9 a pawn move ending on file a, c, e or g; 10 on file b, d, f or h; J, Q, K any pawn capture.",
      "Red cards (♦ ♥) move other pieces: A and 2–8 a move of a non-pawn piece ending on file a–h (king moves and castling included); 9 any rook move; 10 any knight move; J any bishop move; Q any queen move; K any king move, castling included.",
      "A joker moves any of your pieces that an enemy piece attacks at the start of your turn.",
      "A card that allows no move now is dead and cannot be played; two dead cards can be shown and discarded instead of moving. After either you draw back up to your hand size.",
      "Check plays no role: a king may stand in check and be captured. Castling, en passant and promotion follow chess.",
      "Captures score: king 100, queen 9, rook 5, bishop 3, knight 3, pawn 1. Most points wins when a king is taken or nobody can act.",
      "Hands and the draw pile are hidden; played and discarded cards are public.",
    ],
  },
  holdem_chess: {
    summary:
      "No-limit Texas hold'em where, after the flop, you may place your hole cards face down on a grid around the community cards. Placed cards attack cells like chess pieces, and your hand at the showdown may use the cards they attack.",
    rules: [
      "Two hole cards each, blinds, then betting before the flop, after the flop (3 community cards), the turn and the river (1 card each), as in hold'em.",
      "Betting is no-limit: fold, check, call, or raise to an amount (your total bet on this street). The smallest raise is the last raise's size, at least the big blind; you may always go all-in.",
      "From the flop on, each time you act you may first place 0, 1 or 2 of your hole cards face down on an empty cell next to (diagonals count) any card on the grid, then you must check, call or raise: a seat that placed a card this turn cannot fold.",
      "Placed cards attack cells: K the 8 neighbours (a king), Q every line and diagonal (a queen), A the diagonals (a bishop), 10 the rows and columns (a rook), J the knight's jumps, 2–9 the two cells diagonally one row closer to the middle row (a pawn). Attacks pass through cards.",
      "At the showdown your hand is the best of at most 5 cards from your kept hole cards, your placed cards, and cards in cells your placed cards attack, each attacked card used with one of its attackers.",
      "A placed card is seen only by its owner until the showdown, which reveals every placed card and kept hole card of the seats still in the hand. Folding gives up the pot; your placed cards stay on the grid.",
      "The game is one hand by default; the return is your chips at the end minus the stack you started with.",
    ],
  },
  detective_poker: {
    summary:
      "Bet on whose board holds the best poker hand, seeing only one of each player's two cards. A board is a player's two cards plus the community cards. Right bets score one point per chip; most points at the end wins.",
    rules: [
      "Each player gets two cards: a private card only its owner sees, and a shown card every other player sees but its owner does not. That is why your own second card is face down to you: the others see it, you must deduce it.",
      "There are four betting rounds: preflop, then the flop (3 community cards), the turn and the river (1 card each). In each round every player bets once, in turn.",
      "A bet puts 1 to 3 chips (by default) on any player's board, your own included, keeping at least one chip for each later round. The chips are never lost or won: they only count for points.",
      "A bet is right when its board holds the best hand of that round (preflop: the two cards alone; then the best 5 cards with the community cards so far). A tie makes every tied board best. A right bet scores one point per chip.",
      "You may put one of your action cards face down under a bet, each once a hand: +1 scores one more point if the bet is right; Clockwise makes the bet count for the next player's board clockwise; Bluff makes the bet right when its board holds the weakest hand; Empty does nothing and only hides which card you used.",
      "After the river every card and action card is revealed and each bet is judged against the hands of its own round. Each hand starts fresh: new cards, chips and the four action cards.",
      "The game is two rounds of hands by default, each player dealing once a round. Ties in points go to the player with more action cards left in the last hand.",
    ],
  },
};

/**
 * The rules of `game` as a disclosure ("How to play …"), closed until opened; null for a game
 * the page has no words for (its description from the Catalog is all the page says of it).
 */
export function rulesPanel(game: string, title: string, id = "rules"): HTMLElement | null {
  const rules = RULES[game];
  if (!rules) return null;
  return h(
    "details",
    { class: "rules", id, "data-game": game },
    h("summary", { "data-key": `${id}-summary` }, `How to play ${title}`),
    h("p", {}, rules.summary),
    h("ul", {}, rules.rules.map((rule) => h("li", {}, rule))),
  );
}

const FILES = "abcdefgh";

/** What a Poker Chess card allows (the card table), or undefined for text that is no card. */
export function pokerChessCardHelp(card: string): string | undefined {
  if (card.startsWith("X")) return "a joker: move any of your pieces that an enemy piece attacks now";
  const rank = card[0];
  const red = card[1] === "d" || card[1] === "h";
  const value = rank === "A" ? 1 : Number(rank);
  if (red) {
    if (value >= 1 && value <= 8) {
      return `a move of a piece other than a pawn ending on the ${FILES[value - 1]}-file (king moves and castling included)`;
    }
    return (
      { "9": "any rook move", T: "any knight move", J: "any bishop move", Q: "any queen move", K: "any king move, castling included" } as Record<string, string>
    )[rank];
  }
  if (value >= 1 && value <= 8) return `a pawn move ending on the ${FILES[value - 1]}-file (captures and promotions included)`;
  if (rank === "9") return "a pawn move ending on the a-, c-, e- or g-file";
  if (rank === "T") return "a pawn move ending on the b-, d-, f- or h-file";
  if (rank === "J" || rank === "Q" || rank === "K") return "any pawn capture (en passant included)";
  return undefined;
}

/** What a Hold'em Poker Chess card attacks once placed on the grid. */
export function holdemCardHelp(card: string): string | undefined {
  const rank = card[0];
  const piece: Record<string, string> = {
    K: "like a king: the 8 neighbouring cells",
    Q: "like a queen: every cell along its row, column and diagonals",
    A: "like a bishop: every cell along its diagonals",
    T: "like a rook: every cell along its row and column",
    J: "like a knight: the 8 knight's jumps",
  };
  if (piece[rank]) return `placed, it attacks ${piece[rank]}`;
  if (rank >= "2" && rank <= "9") {
    return "placed, it attacks like a pawn: the two cells diagonally one row closer to the middle row (nothing in the middle row)";
  }
  return undefined;
}

/** A card's help line for `game` ("7♥: …"), or undefined when the page has none. */
export function cardHelp(game: string, card: string): string | undefined {
  const help = game === "poker_chess" ? pokerChessCardHelp(card) : game === "holdem_chess" ? holdemCardHelp(card) : undefined;
  return help === undefined ? undefined : `${cardShort(card)}: ${help}`;
}

/** What a Detective Poker action card does to the bet it lies under. */
export const ACTION_CARD_HELP: Record<string, string> = {
  "+1": "+1: one more point if the bet is right",
  clockwise: "Clockwise: the bet counts for the board of the next player clockwise",
  bluff: "Bluff: the bet is right when its board holds the weakest hand of the round",
  empty: "Empty: no effect; it only hides which action card you used",
};

/** An action card's name as a person reads it (`clockwise`: Clockwise). */
export function actionCardName(name: string): string {
  return name === "+1" ? "+1" : name.charAt(0).toUpperCase() + name.slice(1);
}
