// How a game ended and how each hand was scored, in words, from the view alone: the page states
// what the view holds (the winning seat, showdown hands with their cards, each bet judged), it
// decides nothing itself.
import { cardShort } from "./dom";
import { type View, known, rankWords } from "./games";
import { actionCardName } from "./rules";
import type { DetectivePokerBet, DetectivePokerScoredHand } from "./schema/views/detective_poker";
import type { EndReason } from "./schema/views/prediction_chess";
import type { HoldemResult } from "./schema/views/holdem_chess";

const seatName = (seat: unknown) => `Seat ${seat}`;
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
/** Cards with their suit symbols (`K♠ 9♣`); a face-down one as `?`. */
const cards = (list: unknown) =>
  Array.isArray(list) ? list.map((c) => (typeof c === "string" ? cardShort(c) : "?")).join(" ") : "";

/** The action card under a bet in words: " with +1", " with a face-down action card", or "". */
function underBet(card: string | null | undefined): string {
  return card === undefined ? "" : card === null ? " with a face-down action card" : ` with ${actionCardName(card)}`;
}

/** A Detective Poker bet in words: "Seat 1 bets 2 on seat 0's board with Bluff". */
export function detectiveBetText(bet: DetectivePokerBet): string {
  return `${seatName(bet.seat)} bets ${bet.amount} on seat ${bet.target}'s board${underBet(bet.action_card)}`;
}

/** The result line: who won, with every seat's return. */
export function resultText(returns: number[]): string {
  if (returns.length === 0) return "";
  const best = Math.max(...returns);
  const winners = returns.flatMap((r, s) => (r === best ? [s] : []));
  const all = returns.map((r, s) => `seat ${s} ${signed(r)}`).join(", ");
  if (winners.length === returns.length) return `A draw (${all}).`;
  if (winners.length === 1) return `${seatName(winners[0])} won (${all}).`;
  return `${winners.map(seatName).join(" and ")} share the best result (${all}).`;
}

/** What the viewing seat made of it: "You won.", "You lost.", "You drew." */
export function verdictText(returns: number[], seat: number): string {
  const best = Math.max(...returns);
  const mine = returns[seat];
  if (mine !== best) return "You lost.";
  return returns.filter((r) => r === best).length === 1 ? "You won." : "You drew.";
}

const PREDICTION_END: Record<EndReason, (loser: string, winner: string) => string> = {
  king_captured: (loser, winner) => `${loser}'s king was captured: ${winner} wins.`,
  both_kings: () => "Both kings died in the same turn: a draw.",
  max_turns: () => "The turn limit was reached: a draw.",
  fifty_move: () => "Fifty turns passed without a death or a pawn move: a draw.",
};

/** A Hold'em Poker Chess hand's result: the showdown hands named with their cards, or the
 * uncontested winner, and who took how many chips. */
export function holdemHandText(result: HoldemResult): string {
  const takers = result.won.flatMap((w, s) => (w > 0 ? [`${seatName(s)} won ${w} chips`] : []));
  const shown = result.showdown.map((hand) => `${seatName(hand.seat)} showed ${rankWords(hand.name)} (${cards(hand.cards)})`);
  const how = shown.length > 0 ? `${shown.join("; ")}. ` : "No showdown: the others folded. ";
  return `Hand ${result.hand_number}: ${how}${takers.join(", ") || "No chips changed hands"}.`;
}

/** A scored Detective Poker hand: each bet right or wrong with its points, then each seat's
 * points for the hand. */
export function detectiveHandLines(hand: DetectivePokerScoredHand): string[] {
  const lines = hand.bets.map((bet) => {
    const card = underBet(bet.action_card);
    const forWhom = bet.counts_for !== bet.target ? `, counted for seat ${bet.counts_for}` : "";
    const verdict = bet.correct ? "right" : "wrong";
    return `${seatName(bet.seat)}'s bet of ${bet.amount} on seat ${bet.target}${card} (${bet.street}${forWhom}): ${verdict}, ${signed(bet.points)} points.`;
  });
  const seats = hand.seats.map((s) => `seat ${s.seat} ${cards(s.cards)}`);
  const points = hand.points.map((p, s) => `seat ${s} ${signed(p)}`).join(", ");
  return [
    `Hand ${hand.hand_number} scored. Community ${cards(hand.community)}; cards ${seats.join(", ")}.`,
    ...lines,
    `Points this hand: ${points}.`,
  ];
}

/** The lines that explain the end of a finished game, from its view. */
export function outcomeLines(view: View): string[] {
  const returns = view.returns ?? [];
  const lines: string[] = [];
  const v = known(view);
  switch (v?.game) {
    case "prediction_chess": {
      const winner = v.winner;
      const colors = v.seats.map((s) => `${seatName(s.seat)} (${s.color})`);
      const loserSeat = winner === null ? null : 1 - winner;
      const say = v.end_reason === null ? undefined : PREDICTION_END[v.end_reason];
      if (say) {
        lines.push(say(loserSeat === null ? "" : colors[loserSeat] ?? seatName(loserSeat), winner === null ? "" : colors[winner] ?? seatName(winner)));
      }
      break;
    }
    case "holdem_chess": {
      const last = v.results[v.results.length - 1];
      if (last) lines.push(holdemHandText(last));
      const chips = last ? last.chips : [];
      if (chips.length) lines.push(`Final stacks: ${chips.map((c, s) => `seat ${s} ${c}`).join(", ")}.`);
      break;
    }
    case "detective_poker": {
      if (v.last_scored_hand) lines.push(...detectiveHandLines(v.last_scored_hand));
      break;
    }
    case "pokeros":
    case "poker_chess": {
      lines.push(`Points: ${v.seats.map((s) => `seat ${s.seat} ${s.points}`).join(", ")}.`);
      break;
    }
    default:
      // A game the page has no words for: its view's own summary, if it writes one.
      if (typeof view.outcome === "string") lines.push(view.outcome);
  }
  lines.push(resultText(returns));
  return lines.filter((line) => line !== "");
}

/** While a game runs: the last finished hand explained (the poker games with hands). */
export function lastHandLines(view: View): string[] {
  const v = known(view);
  if (v?.game === "holdem_chess") {
    const last = v.results[v.results.length - 1];
    return last ? [holdemHandText(last)] : [];
  }
  if (v?.game === "detective_poker") {
    return v.last_scored_hand ? detectiveHandLines(v.last_scored_hand) : [];
  }
  return [];
}
