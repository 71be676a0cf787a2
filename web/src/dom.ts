// A small helper to build DOM trees, and the drawing of cards and pieces shared by the games.

/** An element's id as drawn where it is drawn: the page's own ids as they are, a notebook
 * widget's behind a prefix of its own (several widgets share one page). */
export type IdOf = (name: string) => string;

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** An element with attributes (`on…` ones are listeners; false or undefined are left out). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (value === true) {
      element.setAttribute(name, "");
    } else if (value !== false && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "object" ? child : String(child));
  }
  return element;
}

const SUITS: Record<string, [string, string]> = {
  c: ["♣", "clubs"],
  d: ["♦", "diamonds"],
  h: ["♥", "hearts"],
  s: ["♠", "spades"],
};
const RANKS: Record<string, string> = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

/** A card's text (`Kd`, `X1`) as words, for screen readers; null is a face-down card. */
export function cardName(card: string | null): string {
  if (card === null) return "face-down card";
  if (card.startsWith("X")) return `joker ${card.slice(1)}`;
  const [, suit] = SUITS[card[1]] ?? ["", card[1]];
  return `${RANKS[card[0]] ?? card[0]} of ${suit}`;
}

/** A card's text (`Th`, `X1`) as a line of text reads it: `10♥`, `joker 1`. */
export function cardShort(card: string): string {
  if (card.startsWith("X")) return `joker ${card.slice(1)}`;
  const [symbol] = SUITS[card[1]] ?? [card[1]];
  return `${card[0] === "T" ? "10" : card[0]}${symbol}`;
}

/** A card's face: rank and suit symbol, red or black; a back when face down. */
export function cardFace(card: string | null): HTMLElement {
  if (card === null) return h("span", { class: "card back", "aria-hidden": "true" }, "?");
  if (card.startsWith("X")) return h("span", { class: "card joker" }, `★${card.slice(1)}`);
  const [symbol] = SUITS[card[1]] ?? [card[1]];
  const red = card[1] === "d" || card[1] === "h";
  return h(
    "span",
    { class: red ? "card red" : "card", "aria-hidden": "true" },
    card[0] === "T" ? "10" : card[0],
    symbol,
  );
}

/** A card that is only shown. */
export function card(text: string | null): HTMLElement {
  return h("span", { class: "card-wrap", role: "img", "aria-label": cardName(text) }, cardFace(text));
}

const PIECES: Record<string, [string, string]> = {
  K: ["♚", "king"],
  Q: ["♛", "queen"],
  R: ["♜", "rook"],
  B: ["♝", "bishop"],
  N: ["♞", "knight"],
  P: ["♟", "pawn"],
};

/** A chess piece from its FEN letter (upper case white). */
export function piece(letter: string): HTMLElement {
  const white = letter === letter.toUpperCase();
  const [glyph] = PIECES[letter.toUpperCase()] ?? ["?"];
  return h("span", { class: white ? "piece white" : "piece black", "aria-hidden": "true" }, glyph);
}

export function pieceName(letter: string): string {
  const white = letter === letter.toUpperCase();
  return `${white ? "white" : "black"} ${(PIECES[letter.toUpperCase()] ?? ["", "piece"])[1]}`;
}
