// What differs between the games on the page: how an action's text maps to clicks (a source
// to pick, then a target), which board is drawn, and how the history reads. Everything comes
// from the seat's view and its legal actions: the page knows no rule. A game whose schemas are
// published is read through the types generated from them (src/schema/, `npm run schema`);
// any other game (one behind a feature) through the loose `View`, by the shared shapes alone.
import { cardShort } from "./dom";
import { detectiveBetText, holdemHandText } from "./outcome";
import { ACTION_CARD_HELP, actionCardName } from "./rules";
import { type GameAction, type GameView, PUBLISHED_GAMES } from "./schema";
import type { DetectivePokerBet, DetectivePokerScoredBet, DetectivePokerView } from "./schema/views/detective_poker";
import type { HoldemChessView } from "./schema/views/holdem_chess";
import type { PokerChessEvent } from "./schema/views/poker_chess";
import type { PokerosMove } from "./schema/views/pokeros";
import type { PredictionChessMove, PredictionChessPrediction } from "./schema/views/prediction_chess";

type Json = Record<string, unknown>;

/** A board cell, as every published view writes it (docs/views.md). */
export type Cell = Extract<GameView, { board: unknown }>["board"][number];

/**
 * Any game's view as the page first reads it: the header every view has, and the shared shapes
 * (board cells, seats) a game may have. `known` gives the view typed by its game's schema.
 */
export interface View {
  game: string;
  viewer: number | null;
  current_player: number;
  terminal: boolean;
  returns: number[] | null;
  board?: Cell[];
  seats?: SeatInfo[];
  [field: string]: unknown;
}

export interface SeatInfo {
  seat: number;
  cards?: (string | null)[];
  count?: number;
  [field: string]: unknown;
}

/**
 * The view typed by its game's generated types (narrowed by `game`), or null for a game whose
 * schemas are not published, which the page reads through `View` alone.
 */
export function known(view: View): GameView | null {
  return (PUBLISHED_GAMES as readonly string[]).includes(view.game) ? (view as unknown as GameView) : null;
}

/**
 * A seat's cards as the page draws them: its `cards`, or a single `card` (a game whose seats
 * hold one card); undefined when the seat shows none.
 */
export function seatCards(info: SeatInfo | undefined): (string | null)[] | undefined {
  if (!info) return undefined;
  if (info.cards !== undefined) return info.cards;
  if ("card" in info && (typeof info.card === "string" || info.card === null)) return [info.card];
  return undefined;
}

/**
 * One legal action as clicks: pick `source` (a hand card `card:Kd` or a square `sq:e2`), then
 * `target` (a cell `cell:1,0` or a square `sq:e4`). No target: picking the source acts. No
 * source: a button of its own.
 */
export interface Click {
  source?: string;
  target?: string;
  /** Tells apart actions with the same source and target (a promotion's piece). */
  variant?: string;
}

type FieldsOf<T> = T extends unknown ? keyof T : never;
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * An action's parts as the server sends them (`LegalAction.action_json`, the game's action
 * struct: docs/actions.md): every field of a published game's action struct, each optional and
 * typed as the generated types say. The page reads them by field, not by game, so a game without
 * published schemas is clickable when its structs use the same fields.
 */
export type ActionStruct = { [K in FieldsOf<GameAction>]?: FieldOf<GameAction, K> };

/** A legal action's struct (empty when the server sent none). */
export function structOf(actionJson: string): ActionStruct {
  if (!actionJson) return {};
  try {
    return JSON.parse(actionJson) as ActionStruct;
  } catch {
    return {};
  }
}

/**
 * How an action is clicked, from its struct alone (no game's notation is parsed): a card put
 * on a cell is the card then the cell; a move or a prediction is its two squares (a promotion
 * tells apart moves between the same squares); a card played alone is the card; anything else
 * is a button of its own.
 */
export function clickOf(action: ActionStruct): Click {
  if (action.card && action.x !== undefined && action.y !== undefined) {
    return { source: `card:${action.card}`, target: `cell:${action.x},${action.y}` };
  }
  if (action.from && action.to) {
    return { source: `sq:${action.from}`, target: `sq:${action.to}`, variant: action.promotion ?? undefined };
  }
  if (action.card && action.kind === "play") {
    return { source: `card:${action.card}` };
  }
  return {};
}

/** The group of an action button (bets by the board they go on), if any. */
export function groupOf(action: ActionStruct): string | undefined {
  return action.target !== undefined ? `On seat ${action.target}'s board` : undefined;
}

/** The board to draw: a chessboard, a card grid over a window of cells, or none. */
export type BoardKind =
  | { kind: "chess" }
  | { kind: "grid"; x0: number; x1: number; y0: number; y1: number }
  | { kind: "none" };

export function boardOf(view: View, targets: string[], drawn?: BoardKind): BoardKind {
  const v = known(view);
  switch (v?.game) {
    case "poker_chess":
    case "prediction_chess":
      return { kind: "chess" };
    case "holdem_chess":
      return { kind: "grid", ...v.window };
    case "pokeros": {
      // The cards placed and the legal cells, with a margin, inside the board; it only grows
      // from the window drawn before (`drawn`), so the grid does not re-centre on every move.
      const half = Math.floor(v.board_size / 2);
      const points = v.board.map((c) => [c.x, c.y]);
      for (const t of targets) points.push(t.slice(5).split(",").map(Number));
      if (points.length === 0) points.push([0, 0]);
      const xs = points.map((p) => p[0]);
      const ys = points.map((p) => p[1]);
      const clamp = (value: number) => Math.max(-half, Math.min(half, value));
      const grid = {
        kind: "grid" as const,
        x0: clamp(Math.min(...xs) - 1),
        x1: clamp(Math.max(...xs) + 1),
        y0: clamp(Math.min(...ys) - 1),
        y1: clamp(Math.max(...ys) + 1),
      };
      return drawn?.kind === "grid" ? unionOf(grid, drawn) : grid;
    }
    default:
      return { kind: "none" };
  }
}

/** The smallest window holding both. */
function unionOf(
  a: { kind: "grid"; x0: number; x1: number; y0: number; y1: number },
  b: { kind: "grid"; x0: number; x1: number; y0: number; y1: number },
): BoardKind {
  return {
    kind: "grid",
    x0: Math.min(a.x0, b.x0),
    x1: Math.max(a.x1, b.x1),
    y0: Math.min(a.y0, b.y0),
    y1: Math.max(a.y1, b.y1),
  };
}

/**
 * The squares or cells the last move touched, as board keys (`sq:e2`, `cell:1,0`), from the
 * view's own history: a Pokeros placement's cell, a chess move's two squares (both seats' in a
 * Prediction Chess turn). A view that keeps no such history (Hold'em Poker Chess, a game the
 * page has no words for): the board's cells that gained or changed their content since
 * `before`, the view drawn before it (never anything the view does not show).
 */
export function lastMoveOf(view: View, before: View | null): string[] {
  const v = known(view);
  switch (v?.game) {
    case "pokeros": {
      const cell = v.moves[v.moves.length - 1]?.cell;
      return cell ? [`cell:${cell.x},${cell.y}`] : [];
    }
    case "poker_chess": {
      for (let i = v.events.length - 1; i >= 0; i--) {
        const event = v.events[i];
        if (event.kind === "move") return [`sq:${event.from}`, `sq:${event.to}`];
      }
      return [];
    }
    case "prediction_chess": {
      const moves = v.turns[v.turns.length - 1]?.moves ?? [];
      return moves.flatMap((move) => (move.kind === "move" ? [`sq:${move.from}`, `sq:${move.to}`] : []));
    }
    default: {
      if (!before || before.game !== view.game || !view.board) return [];
      const was = new Map((before.board ?? []).map((c) => [`${c.x},${c.y}`, JSON.stringify(c)]));
      const changed = view.board.filter(
        (c) => (c.card !== undefined || c.piece !== undefined) && was.get(`${c.x},${c.y}`) !== JSON.stringify(c),
      );
      // A new hand's deal or a board redrawn whole is not a move.
      return changed.length > 0 && changed.length <= 4 ? changed.map((c) => `cell:${c.x},${c.y}`) : [];
    }
  }
}

/**
 * The fields a long list of action buttons is chosen by, one control each, in this order (a
 * bet's board, its amount, its action card): the actions that have a `target`, when there are
 * more than a few of them. Every combination that is legal stays reachable.
 */
export const COMPOSED_FIELDS = ["target", "amount", "action_card"] as const;
export type ComposedField = (typeof COMPOSED_FIELDS)[number];

/** Whether an action is chosen with the composer's controls rather than a button of its own. */
export function composable(action: ActionStruct): boolean {
  return action.target !== undefined;
}

/** A composer field's label, and how one of its values reads. */
export function fieldLabel(field: ComposedField): string {
  return { target: "On the board of", amount: "Amount", action_card: "Action card" }[field];
}

export function valueLabel(field: ComposedField, value: unknown, viewer: number | null): string {
  if (value === undefined || value === null) return field === "action_card" ? "none" : "—";
  if (field === "target") return `seat ${value}${value === viewer ? " (you)" : ""}`;
  if (field === "action_card") return actionCardName(String(value));
  return String(value);
}

/** Top-level fields drawn elsewhere, left out of the facts list. */
const DRAWN = new Set([
  "game", "viewer", "current_player", "terminal", "returns", "board", "seats", "moves",
  "events", "turns", "bets", "results", "legal_actions", "last_scored_hand", "window",
  "community", "discards", "fen", "board_size",
]);

/** The published views' plain fields as people read them (a field the page has no label for:
 * its name in words). */
const FACT_LABELS: Record<string, string> = {
  phase: "Phase",
  street: "Street",
  pot: "Pot",
  current_bet: "Bet to match",
  min_raise: "Smallest raise",
  placed_this_turn: "Cards placed this turn",
  hand_number: "Hand",
  hands: "Hands in the match",
  button: "Dealer",
  dealer: "Dealer",
  players: "Players",
  burns: "Burned cards",
  deck_remaining: "Cards left in the deck",
  turn: "Turn",
  quiet_turns: "Turns without a capture or pawn move",
  end_reason: "How it ended",
  winner: "Winner",
  everyone: "Every seat's cards shown",
};

/** Field values that are the engine's words (phases, end reasons), as people read them. */
const FACT_VALUES: Record<string, Record<string, string>> = {
  phase: { deal: "dealing", bet: "betting", place: "placing cards", over: "over", move: "moving", predict: "predicting", card: "playing a card" },
  street: { preflop: "preflop", flop: "flop", turn: "turn", river: "river" },
  end_reason: {
    king_captured: "a king was captured",
    both_kings: "both kings were captured",
    max_turns: "the turn limit",
    fifty_move: "fifty quiet turns",
  },
};

/** The view's other plain fields (phase, street, pot, ...), as label and text, with the field's
 * name third. */
export function factsOf(view: View): [string, string, string][] {
  const facts: [string, string, string][] = [];
  for (const [key, value] of Object.entries(view)) {
    if (DRAWN.has(key) || value === null || typeof value === "object") continue;
    const label = FACT_LABELS[key] ?? capital(key.replace(/_/g, " "));
    const seatField = key === "button" || key === "dealer" || key === "winner";
    const text =
      typeof value === "boolean" ? (value ? "yes" : "no")
      : seatField && typeof value === "number" ? `seat ${value}`
      : FACT_VALUES[key]?.[String(value)] ?? String(value).replace(/_/g, " ");
    facts.push([label, text, key]);
  }
  return facts;
}

/** Public card rows to draw: community cards, discards, the played card. */
export function cardRowsOf(view: View): [string, string[]][] {
  const rows: [string, string[]][] = [];
  if (Array.isArray(view.community)) rows.push(["Community", view.community as string[]]);
  if (typeof view.played_card === "string") rows.push(["Played card", [view.played_card]]);
  if (Array.isArray(view.discards)) rows.push(["Discards", view.discards as string[]]);
  return rows;
}

const s = (seat: unknown) => `seat ${seat}`;
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A move's squares as a person reads them: `e2–e4`, `e7–e8=Q` for a promotion. */
function squaresText(move: { from: string; to: string; promotion?: string | null }): string {
  return `${move.from}–${move.to}${move.promotion ? `=${move.promotion.toUpperCase()}` : ""}`;
}

/** A Prediction Chess move or prediction in words: its squares, or `pass`. */
function predictionChessText(choice: PredictionChessMove | PredictionChessPrediction): string {
  return choice.kind === "pass" ? "pass" : squaresText(choice);
}

/** A Poker Chess event in words, by the side that acted ("White plays 7♥", "Black: d7–d5"). */
function pokerChessEventText(event: PokerChessEvent, side: string): string {
  switch (event.kind) {
    case "deal":
      return `${side} draws ${event.card === null ? "a card" : cardShort(event.card)}`;
    case "play":
      return `${side} plays ${cardShort(event.card)}`;
    case "move":
      return `${side}: ${squaresText(event)}${event.captured ? `, takes the ${pieceKind(event.captured)}` : ""}`;
    case "discard":
      return `${side} discards ${event.cards.map(cardShort).join(" ")}`;
  }
}

/** A piece's kind from its FEN letter (`p`: pawn). */
function pieceKind(letter: string): string {
  return { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" }[letter.toLowerCase()] ?? "piece";
}

/** A card as a line of text reads it (`K♦`), or "a face-down card" where the view hides it. */
function cardText(card: string | null | undefined): string {
  return card ? cardShort(card) : "a face-down card";
}

/** Cards in a line of text: `K♠ Q♠ 9♣`. */
export function cardsText(cards: readonly (string | null)[]): string {
  return cards.map(cardText).join(" ");
}

const STREET_NAMES: Record<string, string> = { preflop: "Preflop", flop: "Flop", turn: "Turn", river: "River" };

/** A Pokeros placement in words: "Seat 1 places K♦ at (2, 1): 4 points (pair 1, pair 1)". */
function pokerosMoveText(m: PokerosMove): string {
  const hands = m.hands.map((x) => `${rankWords(x.name)} ${x.score}`).join(", ");
  const points = m.points === 0 ? "no points" : `${m.points} ${m.points === 1 ? "point" : "points"}${hands ? ` (${hands})` : ""}`;
  return `Seat ${m.seat} places ${cardText(m.cell.card)} at (${m.cell.x}, ${m.cell.y}): ${points}`;
}

/**
 * A Detective Poker hand's bets in words, with the community cards each round was bet on
 * before its bets ("Hand 2 flop: K♠ Q♠ 9♣", "Hand 2 flop: Seat 1 bets 2 on seat 0's board with
 * a face-down action card"); a scored hand's bets with how each was judged.
 */
function detectiveHandHistory(
  hand: number,
  community: readonly string[],
  bets: readonly (DetectivePokerBet | DetectivePokerScoredBet)[],
): string[] {
  const lines: string[] = [];
  const dealt: Record<string, [number, number]> = { flop: [0, 3], turn: [3, 4], river: [4, 5] };
  let street = "";
  for (const bet of bets) {
    if (bet.street !== street) {
      street = bet.street;
      const range = dealt[street];
      if (range && community.length >= range[1]) {
        lines.push(`Hand ${hand} ${street}: ${cardsText(community.slice(...range))}`);
      }
    }
    const judged = "correct" in bet ? `: ${bet.correct ? "right" : "wrong"}, ${bet.points > 0 ? "+" : bet.points < 0 ? "−" : ""}${Math.abs(bet.points)} points` : "";
    lines.push(`Hand ${hand} ${bet.street}: ${detectiveBetText(bet)}${judged}`);
  }
  // A round dealt but not bet on yet.
  for (const [name, range] of Object.entries(dealt)) {
    if (community.length >= range[1] && !bets.some((b) => b.street === name)) {
      lines.push(`Hand ${hand} ${name}: ${cardsText(community.slice(...range))}`);
    }
  }
  return lines;
}

/** The Detective Poker history: the last scored hand, judged, then the hand being played. */
function detectiveHistory(v: DetectivePokerView): string[] {
  const lines: string[] = [];
  const scored = v.last_scored_hand;
  if (scored) {
    lines.push(...detectiveHandHistory(scored.hand_number, scored.community, scored.bets));
    const points = scored.points.map((p, seat) => `seat ${seat} ${p > 0 ? "+" : ""}${p}`).join(", ");
    const cards = scored.seats.map((seat) => `seat ${seat.seat} ${cardsText(seat.cards)}`).join(", ");
    lines.push(`Hand ${scored.hand_number} scored: ${points} (cards ${cards})`);
  }
  if (!scored || scored.hand_number !== v.hand_number) {
    lines.push(...detectiveHandHistory(v.hand_number, v.community, v.bets));
  }
  return lines;
}

/**
 * One step of a game whose view keeps no list of its actions (Hold'em Poker Chess), as the page
 * read it from two views in a row: what the seat that acted did, or the community cards the step
 * dealt. Only what the views hold: a placed card is named only where the view shows its face.
 */
export interface LoggedStep {
  /** The version of the view after the step. */
  version: bigint;
  /** The hand the step belongs to. */
  hand: number;
  seat: number;
  kind: "place" | "done" | "fold" | "check" | "call" | "bet" | "raise" | "deal";
  amount?: number;
  allIn?: boolean;
  card?: string | null;
  x?: number;
  y?: number;
  street?: string | null;
  cards?: string[];
}

/** Whether the page logs the steps of this view's game from its views in a row (its view
 * keeps no list of its actions). */
export function logsSteps(view: View): boolean {
  return known(view)?.game === "holdem_chess";
}

/**
 * What changed from `before` to `after`, the views on either side of one step of the match
 * (`actor` the seat that acted, as the stream or the replay says), as logged steps; empty for a
 * game whose view keeps its own history, or when the two views cannot be one step apart.
 */
export function stepsOf(before: View, after: View, actor: number, version: bigint): LoggedStep[] {
  const b = known(before);
  const a = known(after);
  if (b?.game !== "holdem_chess" || a?.game !== "holdem_chess") return [];
  return holdemSteps(b, a, actor).map((step) => ({ ...step, version }));
}

function holdemSteps(b: HoldemChessView, a: HoldemChessView, actor: number): Omit<LoggedStep, "version">[] {
  const out: Omit<LoggedStep, "version">[] = [];
  const hand = b.hand_number;
  const handOver = a.hand_number !== b.hand_number || a.results.length > b.results.length;
  if (actor >= 0 && b.current_player === actor && b.seats[actor] && a.seats[actor]) {
    const was = b.seats[actor];
    const now = a.seats[actor];
    const had = new Set(b.board.map((c) => `${c.x},${c.y}`));
    const placed = handOver ? [] : a.board.filter((c) => c.owner === actor && !had.has(`${c.x},${c.y}`));
    const toCall = Math.max(0, b.current_bet - was.street_bet);
    const base = { hand, seat: actor, street: b.street };
    if (placed.length === 1) {
      out.push({ ...base, kind: "place", card: placed[0].card ?? null, x: placed[0].x, y: placed[0].y });
    } else if (b.phase === "place") {
      out.push({ ...base, kind: "done" });
    } else if (handOver) {
      // The step that ended the hand: a fold that left one seat in, or the last check or call.
      const result = a.results[b.results.length];
      const others = b.seats.filter((s) => s.seat !== actor && s.dealt && !s.folded).length;
      if (result && result.showdown.length === 0 && (result.won[actor] ?? 0) === 0 && others === 1 && toCall > 0) {
        out.push({ ...base, kind: "fold" });
      } else if (toCall > 0) {
        out.push({ ...base, kind: "call", amount: Math.min(toCall, was.chips), allIn: toCall >= was.chips });
      } else {
        out.push({ ...base, kind: "check" });
      }
    } else if (now.folded && !was.folded) {
      out.push({ ...base, kind: "fold" });
    } else {
      const added = was.chips - now.chips;
      const total = was.street_bet + added;
      if (added <= 0) out.push({ ...base, kind: "check" });
      else if (total <= b.current_bet) out.push({ ...base, kind: "call", amount: added, allIn: now.all_in });
      else out.push({ ...base, kind: b.current_bet === 0 ? "bet" : "raise", amount: total, allIn: now.all_in });
    }
  }
  if (!handOver && a.community.length > b.community.length) {
    out.push({ hand, seat: -1, kind: "deal", street: a.street, cards: a.community.slice(b.community.length) });
  }
  return out;
}

/** A logged step in words; a placed card named as `view` shows it now (a showdown reveals it). */
function loggedStepText(step: LoggedStep, view: HoldemChessView): string {
  const who = `Seat ${step.seat}`;
  const allIn = step.allIn ? " (all-in)" : "";
  switch (step.kind) {
    case "place": {
      const now = step.hand === view.hand_number ? view.board.find((c) => c.x === step.x && c.y === step.y)?.card : null;
      return `${who} places ${cardText(step.card ?? now)} at (${step.x}, ${step.y})`;
    }
    case "done":
      return `${who} is done placing`;
    case "fold":
      return `${who} folds`;
    case "check":
      return `${who} checks`;
    case "call":
      return `${who} calls ${step.amount}${allIn}`;
    case "bet":
      return `${who} bets ${step.amount}${allIn}`;
    case "raise":
      return `${who} raises to ${step.amount}${allIn}`;
    case "deal":
      return `${STREET_NAMES[step.street ?? ""] ?? "Dealt"}: ${cardsText(step.cards ?? [])}`;
  }
}

/** The Hold'em Poker Chess history: each hand's steps the page saw, then the hand's result. */
function holdemHistory(v: HoldemChessView, log: readonly LoggedStep[]): string[] {
  const lines: string[] = [];
  const steps = (hand: number) => log.filter((step) => step.hand === hand).map((step) => `${loggedStepText(step, v)}`);
  for (const result of v.results) {
    lines.push(...steps(result.hand_number), holdemHandText(result));
  }
  if (!v.results.some((r) => r.hand_number === v.hand_number)) lines.push(...steps(v.hand_number));
  return lines;
}

/**
 * The history as lines, oldest first. `log`: the steps the page read from consecutive views of a
 * game whose view keeps no list of its actions (Hold'em Poker Chess's bets and placements).
 */
export function historyOf(view: View, log: readonly LoggedStep[] = []): string[] {
  const v = known(view);
  switch (v?.game) {
    case "pokeros": {
      // The centre card, turned up by chance before the first placement.
      const centre = v.board.find((c) => c.x === 0 && c.y === 0);
      const placed = v.moves.some((m) => m.cell.x === 0 && m.cell.y === 0);
      return [...(centre?.card && !placed ? [`The centre card: ${cardShort(centre.card)}`] : []), ...v.moves.map(pokerosMoveText)];
    }
    case "poker_chess": {
      const side = (seat: number) => capital(v.seats[seat]?.color ?? s(seat));
      return v.events.filter((e) => e.kind !== "deal").map((e) => pokerChessEventText(e, side(e.seat)));
    }
    case "prediction_chess":
      // "Turn 1: White a2–a4, Black b7–b5; predicted: White b8–a6, Black f2–f4; no battle".
      return v.turns.map((t, i) => {
        const side = (seat: number) => capital(v.seats[seat]?.color ?? s(seat));
        const each = (list: (PredictionChessMove | PredictionChessPrediction)[]) =>
          list.map((choice, seat) => `${side(seat)} ${predictionChessText(choice)}`).join(", ");
        const battles = t.battles === 0 ? "no battle" : t.battles === 1 ? "1 battle" : `${t.battles} battles`;
        return `Turn ${i + 1}: ${each(t.moves)}; predicted: ${each(t.predictions)}; ${battles}`;
      });
    case "holdem_chess":
      return holdemHistory(v, log);
    case "detective_poker":
      return detectiveHistory(v);
    default:
      // A game the page has no words for: its view's `history`, if it keeps one, each entry
      // as text or with a `text` field.
      return Array.isArray(view.history)
        ? view.history.map((e: unknown) =>
            typeof e === "string" ? e : typeof (e as Json)?.text === "string" ? String((e as Json).text) : JSON.stringify(e))
        : [];
  }
}

/**
 * Help on an action button whose text alone may not say what it does: `general` for every
 * action of its `kind` (shown under the buttons), `specific` for this one (its title).
 */
export interface ActionHelp {
  kind: string;
  general: string;
  specific: string;
}

export function actionHelp(action: ActionStruct, view: View | null): ActionHelp | undefined {
  const v = view && known(view);
  if (v?.game === "holdem_chess") {
    const own = v.viewer === null ? undefined : v.seats[v.viewer];
    const street = v.street ?? "street";
    switch (action.kind) {
      case "fold":
        return { kind: "fold", general: "Fold: give up the hand; the chips you bet stay in the pot.", specific: "Fold: give up this hand and the pot" };
      case "check":
        return { kind: "check", general: "Check: bet nothing more now; the turn passes.", specific: "Check: bet nothing more" };
      case "call": {
        const amount = action.amount ?? Math.max(0, v.current_bet - (own?.street_bet ?? 0));
        return {
          kind: "call",
          general: "Call: put in the chips that match the bet to call.",
          specific: `Call: put in ${amount} more ${amount === 1 ? "chip" : "chips"} to match the bet of ${v.current_bet}`,
        };
      }
      case "raise": {
        const to = action.amount ?? 0;
        const more = Math.max(0, to - (own?.street_bet ?? 0));
        const size = action.size ? ` (${action.size})` : "";
        return {
          kind: "raise",
          general: "Raise to N: your whole bet on this street becomes N chips; the others must call it, raise or fold.",
          specific: `Raise to ${to}${size}: your bet on the ${street} becomes ${to} chips, ${more} more${action.all_in ? ", all your chips" : ""}`,
        };
      }
      case "done":
        return { kind: "done", general: "Done: end your placement turn without placing more cards.", specific: "Done: place no more cards now" };
      default:
        return undefined;
    }
  }
  if (v?.game === "detective_poker" && action.target !== undefined && typeof action.amount === "number") {
    return {
      kind: "bet",
      general: "A bet: chips on a player's board, right if that board holds the best hand of this round; a right bet scores a point per chip.",
      specific: detectiveChoiceHelp(action.target, action.amount, action.action_card ?? null, v.street),
    };
  }
  if (v?.game === "poker_chess" && action.kind === "discard") {
    return {
      kind: "discard",
      general: "Discard: show two cards that allow no move now and put them on the discard pile, then draw back up; your turn passes with no move.",
      specific: `Discard ${(action.cards ?? []).map(cardShort).join(" and ")}: they allow no move now`,
    };
  }
  if (v?.game === "prediction_chess" && action.kind === "pass") {
    return v.phase === "predict"
      ? { kind: "pass", general: "Pass: the opponent has no move this turn, so the only prediction is a pass.", specific: "Predict that the opponent passes" }
      : { kind: "pass", general: "Pass: you have no move this turn (you still predict the opponent's).", specific: "Pass: no move this turn" };
  }
  return undefined;
}

/** What a Detective Poker bet means, in words: its board, chips and action card. */
export function detectiveChoiceHelp(target: number, amount: number, card: string | null, street: string | null): string {
  const round = street ? `the ${street}` : "this round";
  const chips = `${amount} ${amount === 1 ? "chip" : "chips"} on seat ${target}'s board`;
  const points = (n: number) => `${n} ${n === 1 ? "point" : "points"}`;
  switch (card) {
    case "+1":
      return `${chips} with +1: ${points(amount + 1)} if seat ${target} holds the best hand of ${round}`;
    case "clockwise":
      return `${chips} with Clockwise: counts for the next board clockwise; ${points(amount)} if that board holds the best hand of ${round}`;
    case "bluff":
      return `${chips} with Bluff: ${points(amount)} if seat ${target} holds the weakest hand of ${round}`;
    case "empty":
      return `${chips} with Empty (no effect): ${points(amount)} if seat ${target} holds the best hand of ${round}`;
    default:
      return `${chips}: ${points(amount)} if seat ${target} holds the best hand of ${round}`;
  }
}

/** Help on a composer field (Detective Poker's bets), with the chosen value. */
export function fieldHelp(field: ComposedField, value: unknown): string {
  switch (field) {
    case "target":
      return "The board you bet on: that player's two cards with the community cards (your own board too); the bet is right if it holds the best hand of this round.";
    case "amount":
      return "A right bet scores one point per chip; keep at least one chip for each later round.";
    case "action_card":
      return typeof value === "string" ? ACTION_CARD_HELP[value] ?? actionCardName(value) : "No action card under the bet.";
  }
}

/** A card's text as the engine writes it (`7h`, `Td`, `X1`). */
const CARD_TEXT = /^([2-9TJQKA][cdhs]|X\d+)$/;

/** The engine's rank letters in a hand's name (`A K T` kickers) as the cards show them (`A K 10`). */
export function rankWords(name: string): string {
  return name.replace(/\bT\b/g, "10");
}

/** A Detective Poker bet in words, from its struct: "Bet 2 on seat 1's board with the Bluff
 * card", "… with no action card". */
export function detectiveBetWords(amount: number, target: number, card: string | null): string {
  return `Bet ${amount} on seat ${target}'s board ${card === null ? "with no action card" : `with the ${actionCardName(card)} card`}`;
}

/** An action's engine text in words where its shape is a known one (a placed card, a chess
 * move, a Detective Poker bet); any other text as it is. */
export function actionWords(text: string): string {
  const place = /^(\S+)@(-?\d+),(-?\d+)$/.exec(text);
  if (place && CARD_TEXT.test(place[1])) return `places ${cardShort(place[1])} at (${place[2]}, ${place[3]})`;
  const move = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/.exec(text);
  if (move) return squaresText({ from: move[1], to: move[2], promotion: move[3] ?? null });
  const bet = /^bet (\d+) on s(\d+)(?: with (\S+))?$/.exec(text);
  if (bet) {
    const words = detectiveBetWords(Number(bet[1]), Number(bet[2]), bet[3] ?? null);
    return words.charAt(0).toLowerCase() + words.slice(1);
  }
  return text;
}

/** What chance did at a replay step in words: "Dealt 7♥", "Dealt K♠ Q♠ 9♣"; other outcomes
 * as the engine writes them. */
export function chanceWords(text: string): string {
  const tokens = text.split(/[\s,]+/).filter((t) => t !== "");
  if (tokens.length > 0 && tokens.every((t) => CARD_TEXT.test(t))) return `Dealt ${tokens.map(cardShort).join(" ")}`;
  return `Chance: ${text}`;
}

/** Hold'em Poker Chess: each cell some placed card attacks, as "x,y", with the seats whose
 * cards attack it, from the view's `attacks` (the engine's attack rule; a card face down to
 * the viewer is not in it); empty for any other game. */
export function attacksOf(view: View): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const v = known(view);
  if (v?.game !== "holdem_chess") return out;
  for (const a of v.attacks) {
    for (const c of a.cells) {
      const key = `${c.x},${c.y}`;
      const seats = out.get(key) ?? [];
      if (!seats.includes(a.owner)) seats.push(a.owner);
      out.set(key, seats.sort((x, y) => x - y));
    }
  }
  return out;
}

/** Prediction Chess at the prediction node: the squares of the viewer's own chosen move (kept
 * hidden from the opponent), and the move in words ("e2–e4", "pass"); none otherwise. */
export function chosenMoveOf(view: View): { squares: string[]; text: string } | null {
  const v = known(view);
  if (v?.game !== "prediction_chess" || !v.my_move) return null;
  const move = v.my_move;
  return move.kind === "pass" ? { squares: [], text: "pass" } : { squares: [`sq:${move.from}`, `sq:${move.to}`], text: squaresText(move) };
}
