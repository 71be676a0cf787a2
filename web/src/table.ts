// The poker games as a poker client draws them: the seats around an oval table (the viewer's
// at the bottom, the others clockwise as the seats are numbered). Hold'em Poker Chess: each
// seat with its stack, its bet in front of it this street, its state (folded, all-in, sitting
// out), the turn marker and the dealer button; the pot and the community cards in the middle.
// Detective Poker: each seat with its cards, chips, points, action cards and the bets lying on
// its board, the turn marker and the dealer button; the hand, the round and the community cards
// in the middle. Everything is read from the view: a card is drawn only as the view gives it
// (face down where it is null).
import type { SeatView } from "./gen/checkraise/v1/checkraise_pb";
import { type IdOf, card, h } from "./dom";
import type { HoldemChessView, HoldemSeat } from "./schema/views/holdem_chess";
import type { DetectivePokerSeat, DetectivePokerView } from "./schema/views/detective_poker";
import { detectiveBetText } from "./outcome";
import { actionCardName } from "./rules";

/** Where a seat sits around the table: its grid area and the side of the table it is on. */
export interface Place {
  area: string;
  side: "top" | "bottom" | "left" | "right";
}

/**
 * The places of `count` seats around the table, clockwise from the bottom row's right end
 * (bottom row right to left, the left side, the top row left to right, the right side), and the
 * grid that holds them: 12 columns, so that a row of 1, 2, 3 or 4 seats splits it evenly. With
 * four seats or more one sits at each side, beside the table.
 */
export function tableLayout(count: number): { places: Place[]; areas: string } {
  const sides = count >= 4 ? 2 : 0;
  const rest = count - sides;
  const bottom = Math.floor(rest / 2);
  const top = rest - bottom;
  const row = (prefix: string, n: number) => {
    const names: string[] = [];
    for (let i = 0; i < n; i++) names.push(...Array(12 / n).fill(`${prefix}${i}`));
    return `"${names.join(" ")}"`;
  };
  const middle = sides
    ? `"${[...Array(3).fill("l"), ...Array(6).fill("felt"), ...Array(3).fill("r")].join(" ")}"`
    : `"${Array(12).fill("felt").join(" ")}"`;
  const places: Place[] = [];
  for (let i = bottom - 1; i >= 0; i--) places.push({ area: `b${i}`, side: "bottom" });
  if (sides) places.push({ area: "l", side: "left" });
  for (let i = 0; i < top; i++) places.push({ area: `t${i}`, side: "top" });
  if (sides) places.push({ area: "r", side: "right" });
  const areas = [top > 0 ? row("t", top) : "", middle, bottom > 0 ? row("b", bottom) : ""].filter(Boolean).join(" ");
  return { places, areas };
}

/** The first place of the viewer's seat: the middle of the bottom row (counted from its right). */
function viewerPlace(count: number): number {
  const sides = count >= 4 ? 2 : 0;
  return Math.floor(Math.floor((count - sides) / 2) / 2);
}

/** A labelled figure of a seat (stack, bet, ...): a term and its value. */
function figure(cls: string, term: string, value: number | string): HTMLElement {
  return h("div", { class: cls }, h("dt", {}, term), h("dd", {}, String(value)));
}

/** What both poker tables draw at the top of a seat. */
interface SeatTop {
  seat: number;
  you: boolean;
  toAct: boolean;
  dealer: boolean;
  kind: string;
  states: string[];
  cards: (string | null)[];
}

/** A seat's head (its number, the dealer button), who plays it, the turn marker, its states
 * and its cards. */
function seatTop(t: SeatTop): (HTMLElement | null)[] {
  return [
    h(
      "div",
      { class: "seat-head" },
      h("h3", {}, `Seat ${t.seat}`, t.you ? " (you)" : ""),
      t.dealer
        ? h("span", { class: "dealer", title: "Dealer button" },
            h("span", { "aria-hidden": "true" }, "D"), h("span", { class: "sr-only" }, "Dealer button"))
        : null,
    ),
    t.kind ? h("p", { class: "kind" }, t.kind) : null,
    t.toAct ? h("p", { class: "turn-marker" }, t.you ? "▶ Your turn" : "▶ To act") : null,
    t.states.length > 0 ? h("p", { class: "states" }, t.states.map((state) => h("span", { class: "state" }, state))) : null,
    // Only the cards the view gives: a null one is drawn face down.
    h("div", { class: "hole", role: "group", "aria-label": `Seat ${t.seat}'s cards` },
      t.cards.length > 0 ? t.cards.map((c) => card(c)) : h("span", { class: "none" }, "No cards")),
  ];
}

/** One seat: its number, who plays it, its state, its cards, stack and bets, the markers. */
function seatBox(sv: SeatView, v: HoldemChessView, seat: HoldemSeat, place: Place): HTMLElement {
  const s = seat.seat;
  const you = v.viewer === s;
  const toAct = !v.terminal && v.current_player === s;
  const kind = sv.seats[s]?.kind ?? "";
  const states: string[] = [];
  if (!seat.dealt) states.push("Sitting out");
  if (seat.folded) states.push("Folded");
  if (seat.all_in) states.push("All-in");
  const classes = ["seat", place.side];
  if (toAct) classes.push("to-act");
  if (you) classes.push("you");
  if (seat.folded) classes.push("folded");
  if (seat.all_in) classes.push("all-in");
  if (!seat.dealt) classes.push("out");
  return h(
    "div",
    { class: classes.join(" "), "data-seat": s, style: `--area: ${place.area}` },
    seatTop({ seat: s, you, toAct, dealer: v.button === s, kind, states, cards: seat.cards }),
    h("dl", { class: "figures" }, figure("stack", "Stack", seat.chips), figure("total", "Bet this hand", seat.total_bet)),
    // In front of the seat, on the table's side of it (CSS orders it there).
    h("p", { class: seat.street_bet > 0 ? "bet chips" : "bet" }, "Bet this street: ", h("span", { class: "amount" }, String(seat.street_bet))),
  );
}

/** The middle of the table: the pot, the street, the hand and the community cards. */
function felt(v: HoldemChessView, id: IdOf): HTMLElement {
  const street = v.street ? v.street.charAt(0).toUpperCase() + v.street.slice(1) : null;
  return h(
    "div",
    { class: "felt" },
    h("p", { class: "street" }, [street, v.hands > 1 ? `Hand ${v.hand_number} of ${v.hands}` : null].filter(Boolean).join(" · ")),
    h("dl", { class: "pot", id: id("pot") }, h("dt", {}, "Pot"), h("dd", {}, String(v.pot))),
    v.current_bet > 0 ? h("p", { class: "to-match" }, `Bet to match: ${v.current_bet}`) : null,
    h("div", { class: "community", role: "group", "aria-label": "Community cards" },
      v.community.length > 0 ? v.community.map((c) => card(c)) : h("span", { class: "none" }, "No community cards yet")),
  );
}

/** The seats around the table, the viewer's (seat 0 for a spectator) at the bottom. */
function ring<S>(
  viewer: number | null | undefined,
  seats: S[],
  middle: HTMLElement,
  box: (seat: S, place: Place) => HTMLElement,
): HTMLElement {
  const count = seats.length;
  const { places, areas } = tableLayout(count);
  const first = viewerPlace(count);
  const from = viewer ?? 0;
  // In the page's order: the viewer's seat, then clockwise (as a phone lists them).
  const ordered = seats.map((_, i) => seats[(from + i) % count]);
  return h(
    "section",
    { class: "seats poker", "aria-label": "Seats" },
    h("h2", {}, "Seats"),
    h(
      "div",
      { class: "ring", style: `--areas: ${areas}`, "data-seats": count },
      middle,
      ordered.map((seat, i) => box(seat, places[(first + i) % count])),
    ),
  );
}

/** Hold'em Poker Chess's seats around the table (`id`: the page's or a widget's ids). */
export function pokerTable(sv: SeatView, v: HoldemChessView, id: IdOf): HTMLElement {
  return ring(v.viewer, v.seats, felt(v, id), (seat, place) => seatBox(sv, v, seat, place));
}

/** A Detective Poker seat: its cards, chips, points, action cards and the bets on its board. */
function detectiveSeatBox(sv: SeatView, v: DetectivePokerView, seat: DetectivePokerSeat, place: Place): HTMLElement {
  const s = seat.seat;
  const you = v.viewer === s;
  const toAct = !v.terminal && v.current_player === s;
  const kind = sv.seats[s]?.kind ?? "";
  const classes = ["seat", place.side];
  if (toAct) classes.push("to-act");
  if (you) classes.push("you");
  const onBoard = v.bets.filter((bet) => bet.target === s);
  const shown = seat.action_cards.filter((c) => c !== null).map((c) => actionCardName(c));
  const hidden = seat.action_cards.length - shown.length;
  const actionCards = [shown.join(", "), hidden > 0 ? `${hidden} face down` : ""].filter(Boolean).join("; ");
  return h(
    "div",
    { class: classes.join(" "), "data-seat": s, style: `--area: ${place.area}` },
    seatTop({ seat: s, you, toAct, dealer: v.dealer === s, kind, states: [], cards: seat.cards }),
    h("dl", { class: "figures" }, figure("stack", "Chips", seat.chips), figure("points", "Points", seat.points)),
    h("p", { class: "action-cards" }, "Action cards: ", actionCards || "none left"),
    // The chips lying on this seat's board, in front of it (CSS orders it there).
    h("div", { class: onBoard.length > 0 ? "bet chips" : "bet", "aria-label": `Bets on seat ${s}'s board` },
      onBoard.length > 0
        ? onBoard.map((bet) => h("p", { class: "board-bet" }, `${capitalised(bet.street)}: ${detectiveBetText(bet)}`))
        : h("p", {}, "No bets on this board")),
  );
}

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The middle of Detective Poker's table: the hand, the round, the community cards. */
function detectiveFelt(v: DetectivePokerView): HTMLElement {
  const round = v.street ? capitalised(v.street) : null;
  return h(
    "div",
    { class: "felt" },
    h("p", { class: "street" }, [round, `Hand ${v.hand_number} of ${v.hands}`].filter(Boolean).join(" · ")),
    h("div", { class: "community", role: "group", "aria-label": "Community cards" },
      v.community.length > 0 ? v.community.map((c) => card(c)) : h("span", { class: "none" }, "No community cards yet")),
    v.burns > 0 ? h("p", { class: "burns" }, `Burned: ${v.burns}`) : null,
  );
}

/** Detective Poker's seats around the table. */
export function detectiveTable(sv: SeatView, v: DetectivePokerView): HTMLElement {
  return ring(v.viewer, v.seats, detectiveFelt(v), (seat, place) => detectiveSeatBox(sv, v, seat, place));
}
