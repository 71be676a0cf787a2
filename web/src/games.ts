// What differs between the games on the page: how an action's text maps to clicks (a source
// to pick, then a target), which board is drawn, and how the history reads. Everything comes
// from the seat's view and its legal actions: the page knows no rule. A game whose schemas are
// published is read through the types generated from them (src/schema/, `npm run schema`);
// any other game (one behind a feature) through the loose `View`, by the shared shapes alone.
import { cardShort } from "./dom";
import { holdemHandText } from "./outcome";
import { type GameAction, type GameView, PUBLISHED_GAMES } from "./schema";
import type { PokerChessEvent } from "./schema/views/poker_chess";
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
  return String(value);
}

/** Top-level fields drawn elsewhere, left out of the facts list. */
const DRAWN = new Set([
  "game", "viewer", "current_player", "terminal", "returns", "board", "seats", "moves",
  "events", "turns", "bets", "results", "legal_actions", "last_scored_hand", "window",
  "community", "discards", "fen", "board_size",
]);

/** The view's other plain fields (phase, street, pot, ...), as label and text. */
export function factsOf(view: View): [string, string][] {
  const facts: [string, string][] = [];
  for (const [key, value] of Object.entries(view)) {
    if (DRAWN.has(key) || value === null || typeof value === "object") continue;
    facts.push([key.replace(/_/g, " "), String(value)]);
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

/** The history as lines, oldest first. */
export function historyOf(view: View): string[] {
  const v = known(view);
  switch (v?.game) {
    case "pokeros":
      return v.moves.map((m) => {
        const hands = m.hands.map((x) => `${x.name} ${x.score}`).join(", ");
        return `${s(m.seat)} places ${m.cell.card} at ${m.cell.x},${m.cell.y}: ${m.points} points${hands ? ` (${hands})` : ""}`;
      });
    case "poker_chess": {
      const side = (seat: number) => capital(v.seats[seat]?.color ?? s(seat));
      return v.events.filter((e) => e.kind !== "deal").map((e) => pokerChessEventText(e, side(e.seat)));
    }
    case "prediction_chess":
      return v.turns.map((t, i) => {
        const moves = t.moves.map(predictionChessText).join(" / ");
        const predictions = t.predictions.map(predictionChessText).join(" / ");
        return `turn ${i + 1}: moves ${moves}; predictions ${predictions}; battles ${t.battles}`;
      });
    case "holdem_chess":
      return v.results.map(holdemHandText);
    case "detective_poker":
      return v.bets.map((b) => {
        const card = b.action_card === undefined ? "" : b.action_card === null ? " with a face-down card" : ` with ${b.action_card}`;
        return `${b.street}: ${s(b.seat)} bets ${b.amount} on ${s(b.target)}${card}`;
      });
    default:
      // A game the page has no words for: its view's `history`, if it keeps one, each entry
      // as text or with a `text` field.
      return Array.isArray(view.history)
        ? view.history.map((e: unknown) =>
            typeof e === "string" ? e : typeof (e as Json)?.text === "string" ? String((e as Json).text) : JSON.stringify(e))
        : [];
  }
}
