// The play area drawn from a view: the seat's hand and the board (a chess board's squares or
// the card grid's cells), each legal source and target a button that picks or plays it.
import type { LegalAction } from "./gen/checkraise/v1/checkraise_pb";
import { type IdOf, card, cardFace, cardName, h, piece, pieceName } from "./dom";
import {
  type BoardKind,
  type Cell,
  type Click,
  type View,
  attacksOf,
  boardOf,
  chosenMoveOf,
  lastMoveOf,
  seatCards,
} from "./games";
import { cardHelp } from "./rules";
import type { Viewer } from "./viewer";

/** A legal action and what clicking plays it (a source, then maybe a target). */
export type Choice = { action: LegalAction; click: Click };

/** What the hand and the board read of the page as it draws them, and what a click does. */
export interface Picking {
  viewer: Viewer;
  id: IdOf;
  /** The view shown, and the view drawn before it (what the last move changed). */
  view: View | null;
  before: View | null;
  /** The source chosen, waiting for its target. */
  selected: string | null;
  /** The card grid's window drawn so far (it only grows: the board sets it). */
  grid: BoardKind | undefined;
  /** Picks a source, or plays it when the source is the whole action. */
  pick(source: string, clicks: Choice[]): void;
  act(action: LegalAction): void;
  /** Offers the actions of one source and target (a promotion's pieces) as buttons. */
  promote(options: Choice[]): void;
}

/** The seat's hand (none for a spectator): its legal cards as buttons, each card's help. */
export function hand(page: Picking, v: View, clicks: Choice[]): HTMLElement | null {
  const { viewer, id, selected, pick } = page;
  if (viewer.seat === null) return null;
  const own = v.seats?.[viewer.seat];
  const ownCards = seatCards(own);
  if (!ownCards) return null;
  const sources = new Set(clicks.map((c) => c.click.source));
  // What each card allows (Poker Chess) or attacks once placed (Hold'em Poker Chess): under
  // the hand for every card, and the card's description and title.
  const helps = ownCards.map((text) => (text === null ? undefined : cardHelp(v.game, text)));
  const helpId = (i: number) => id(`card-help-${i}`);
  return h(
    "section",
    { class: "hand", "aria-label": "Your hand" },
    h("h2", {}, "Your hand"),
    h(
      "div",
      { class: "cards" },
      ownCards.map((text, i) => {
        const key = `card:${text}`;
        const help = helps[i];
        if (text === null || !sources.has(key)) {
          const shown = card(text);
          if (help) {
            shown.title = help;
            shown.setAttribute("aria-describedby", helpId(i));
          }
          return shown;
        }
        const playNow = clicks.some((c) => c.click.source === key && !c.click.target);
        return h(
          "button",
          {
            class: "card-button legal",
            "data-key": `hand:${i}`,
            "data-source": key,
            // The name holds the card's visible text (for speech input), then its words.
            "aria-label": `${playNow ? "Play" : "Choose"} ${cardFace(text).textContent}, ${cardName(text)}`,
            "aria-pressed": playNow ? undefined : String(selected === key),
            "aria-describedby": help ? helpId(i) : undefined,
            title: help,
            onclick: () => pick(key, clicks),
          },
          cardFace(text),
        );
      }),
    ),
    helps.some((help) => help)
      ? h("ul", { class: "card-help", "aria-label": v.game === "poker_chess" ? "What each card allows" : "What each card attacks" },
          helps.map((help, i) => (help ? h("li", { id: helpId(i) }, help) : null)))
      : null,
  );
}

/** A board square or cell: a button when it is a legal source or target, else drawn only. */
function spot(page: Picking, key: string, label: string, clicks: Choice[], last: Set<string>, ...inner: (Node | null)[]) {
  const { view } = page;
  const chosen = view ? chosenMoveOf(view)?.squares.includes(key) : false;
  const named = `${label}${last.has(key) ? " (last move)" : ""}${chosen ? " (your chosen move)" : ""}`;
  const drawn = spotOf(page, key, named, clicks, ...inner);
  drawn.dataset.spot = key;
  if (last.has(key)) drawn.classList.add("last");
  if (chosen) drawn.classList.add("chosen");
  return drawn;
}

function spotOf(page: Picking, key: string, label: string, clicks: Choice[], ...inner: (Node | null)[]) {
  const { selected, act, pick, promote } = page;
  const isSource = clicks.some((c) => c.click.source === key);
  const targets = selected ? clicks.filter((c) => c.click.source === selected && c.click.target === key) : [];
  if (targets.length > 0) {
    return h(
      "button",
      {
        class: "spot target",
        "data-key": key,
        "aria-label": `${label}: move here`,
        onclick: () => (targets.length === 1 ? void act(targets[0].action) : promote(targets)),
      },
      ...inner,
    );
  }
  if (isSource) {
    return h(
      "button",
      {
        class: selected === key ? "spot source selected" : "spot source",
        "data-key": key,
        "data-source": key,
        "aria-label": `${label}: choose`,
        "aria-pressed": String(selected === key),
        onclick: () => pick(key, clicks),
      },
      ...inner,
    );
  }
  return h("div", { class: "spot", title: label }, ...inner);
}

/** The board, a chess board's squares or the card grid's cells (none for a game without). */
export function board(page: Picking, v: View, clicks: Choice[]): HTMLElement | null {
  const { viewer, grid, before } = page;
  const targets = clicks
    .filter((c) => c.click.target?.startsWith("cell:"))
    .map((c) => c.click.target!);
  const kind = boardOf(v, targets, grid);
  if (kind.kind === "none") return null;
  if (kind.kind === "grid") page.grid = kind;
  const last = new Set(lastMoveOf(v, before));
  const cells = new Map<string, Cell>();
  for (const c of v.board ?? []) cells.set(`${c.x},${c.y}`, c);
  let rows: HTMLElement[] = [];
  let columns = 8;
  if (kind.kind === "chess") {
    const black = viewer.seat !== null && v.seats?.[viewer.seat]?.color === "black";
    const files = [0, 1, 2, 3, 4, 5, 6, 7];
    const ranks = [7, 6, 5, 4, 3, 2, 1, 0];
    if (black) {
      files.reverse();
      ranks.reverse();
    }
    for (const y of ranks) {
      rows.push(coord("rank", String(y + 1)));
      for (const x of files) {
        const name = `${"abcdefgh"[x]}${y + 1}`;
        const c = cells.get(`${x},${y}`);
        const label = c?.piece ? `${name}, ${pieceName(c.piece)}` : name;
        const square = spot(page, `sq:${name}`, label, clicks, last, c?.piece ? piece(c.piece) : null);
        square.classList.add((x + y) % 2 === 0 ? "dark" : "light");
        rows.push(square);
      }
    }
    rows.push(coord("corner", ""), ...files.map((x) => coord("file", "abcdefgh"[x])));
  } else {
    columns = kind.x1 - kind.x0 + 1;
    rows = [];
    // Hold'em Poker Chess: the cells each seat's placed cards attack (its showdown pool).
    const attacks = attacksOf(v);
    for (let y = kind.y1; y >= kind.y0; y--) {
      rows.push(coord("rank", String(y)));
      for (let x = kind.x0; x <= kind.x1; x++) {
        const c = cells.get(`${x},${y}`);
        const has = c !== undefined && "card" in c;
        const by = attacks.get(`${x},${y}`) ?? [];
        const attacked = by.length > 0 ? `, attacked by ${by.map((seat) => `seat ${seat}`).join(" and ")}` : "";
        const label = `${has ? `cell ${x},${y}, ${cardName(c.card ?? null)}${c.owner !== undefined ? ` of seat ${c.owner}` : ""}` : `cell ${x},${y}`}${attacked}`;
        // A dot in the attacking seat's colour, in the cell's corner, per seat.
        const marks = by.length > 0
          ? h("span", { class: "attacks", "aria-hidden": "true" }, by.map((seat) => h("span", { class: `attack by-${seat % 4}` })))
          : null;
        const cell = spot(page, `cell:${x},${y}`, label, clicks, last, has ? cardFace(c.card ?? null) : null, marks);
        if (by.length > 0) cell.dataset.attackedBy = by.join(",");
        if (has && c.owner !== undefined) cell.classList.add(`owner-${c.owner}`);
        if (x === 0 && y === 0) cell.classList.add("centre");
        rows.push(cell);
      }
    }
    rows.push(coord("corner", ""));
    for (let x = kind.x0; x <= kind.x1; x++) rows.push(coord("file", String(x)));
  }
  return h(
    "section",
    { class: "board-wrap", "aria-label": "Board" },
    h("h2", {}, "Board"),
    // Focusable, so a board wider than the screen can be scrolled with the keyboard.
    h("div", { class: `board ${kind.kind}`, style: `--columns: ${columns}`, tabindex: 0, role: "group", "aria-label": "Board squares and cells" }, rows),
  );
}

/** A board coordinate beside the squares or cells (a file or column under them, a rank or row
 * to their left); hidden from screen readers, whose squares and cells name themselves. */
function coord(kind: "file" | "rank" | "corner", text: string): HTMLElement {
  return h("span", { class: `coord ${kind}`, "aria-hidden": "true" }, text);
}
