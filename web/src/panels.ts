// The panels beside the table, drawn from a view: the seats' table, the table's other facts,
// how the game ended (or the last hand), the history, the status line's words and the practice
// deal's notice.
import type { SeatView } from "./gen/checkraise/v1/checkraise_pb";
import { type IdOf, card, h } from "./dom";
import { type LoggedStep, type SeatInfo, type View, cardRowsOf, factsOf, historyOf, seatCards } from "./games";
import { lastHandLines, outcomeLines, resultText, verdictText } from "./outcome";

/** What the page says of a practice deal (a seed the creator chose); nothing otherwise. */
export function practiceNotice(chosenSeed: boolean | undefined, id: IdOf): HTMLElement | null {
  if (!chosenSeed) return null;
  return h("p", { id: id("practice-deal"), class: "notice", role: "note" },
    "Practice deal: the creator chose the seed, so the creator can know every card, hidden ones included.");
}

/** The status line: the end and its verdict, whose turn it is, or what the seat waits for. */
export function statusText(sv: SeatView, v: View, seat: number | null): string {
  const kind = (s: number) => sv.seats[s]?.kind ?? "";
  if (sv.isTerminal) {
    const verdict = seat !== null ? ` ${verdictText(sv.returns, seat)}` : "";
    return `Game over. ${resultText(sv.returns)}${verdict}`;
  }
  const player = Number(sv.currentPlayer);
  if (player === -2) {
    if (sv.mayAct) return "Your move: every seat chooses at once.";
    if (sv.actionSubmitted) return "Chosen; waiting for the other seats.";
    return "Every seat chooses at once.";
  }
  if (player < 0) return "Dealing…";
  if (player === seat) return "Your turn.";
  const who = kind(player) === "human" ? `Seat ${player}` : `Seat ${player} (${kind(player)})`;
  return `${who} to act.${v.viewer === null ? "" : " Waiting…"}`;
}

/** The seats' table: each seat's player, cards and the view's other fields of it. */
export function seats(sv: SeatView, v: View): HTMLElement {
  const infos: SeatInfo[] = v.seats ?? sv.seats.map((s) => ({ seat: s.seat }));
  const keys: string[] = [];
  for (const info of infos) {
    for (const [key, value] of Object.entries(info)) {
      if (key !== "seat" && key !== "cards" && key !== "card" && key !== "count" && !keys.includes(key) && value !== null) keys.push(key);
    }
  }
  const withCards = infos.some((info) => seatCards(info) !== undefined);
  const turn = Number(sv.currentPlayer);
  const cell = (value: unknown) =>
    Array.isArray(value)
      ? value.map((x) => (x === null ? "face down" : String(x))).join(", ")
      : String(value);
  return h(
    "section",
    { class: "seats", "aria-label": "Seats" },
    h("h2", {}, "Seats"),
    // A wide table scrolls inside its box, which the keyboard can focus to scroll it.
    h("div", { class: "scroll", tabindex: 0, role: "region", "aria-label": "Seats table" }, h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Player"),
        withCards && h("th", { scope: "col" }, "Cards"), keys.map((k) => h("th", { scope: "col" }, seatFieldLabel(k))))),
      h("tbody", {}, infos.map((info) => {
        const s = info.seat;
        const status = sv.seats[s];
        const who = `${status?.kind ?? ""}${v.viewer === s ? " (you)" : ""}`;
        return h("tr", { class: turn === s || (turn === -2 && !sv.isTerminal) ? "to-act" : "" },
          h("th", { scope: "row" }, turn === s ? `▶ ${s}` : String(s)),
          h("td", {}, who),
          withCards && h("td", { class: "cards" }, (seatCards(info) ?? []).map((c) => card(c))),
          keys.map((k) => h("td", {}, k in info ? cell(info[k]) : "")));
      })),
    )),
  );
}

/** A seat's field as the seats table heads it: `color` reads "Colour", `street_bet` "Street bet". */
function seatFieldLabel(key: string): string {
  const words = key === "color" ? "colour" : key.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What the poker table's middle draws (`table.ts`): left out of the panel beside it. */
const ON_THE_FELT = new Set(["pot", "street", "hand_number", "hands", "current_bet", "burns"]);

/** The view's other facts and card rows; `felt`: less what the poker table already shows. */
export function facts(v: View, felt: boolean): HTMLElement {
  const shown = factsOf(v).filter(([, , key]) => !(felt && ON_THE_FELT.has(key)));
  const rows = cardRowsOf(v).filter(([label]) => !(felt && label === "Community"));
  return h(
    "section",
    { class: "facts", "aria-label": "Table" },
    h("h2", {}, "Table"),
    h("dl", {}, shown.flatMap(([k, value]) => [h("dt", {}, k), h("dd", {}, value)])),
    rows.map(([label, cards]) =>
      h("div", { class: "card-row" }, h("span", { class: "row-label" }, `${label}: `), cards.length ? cards.map((c) => card(c)) : "none")),
  );
}

/** How the game ended (at the end), or the last finished hand (while a poker game runs). */
export function outcome(v: View, id: IdOf): HTMLElement | null {
  const lines = v.terminal ? outcomeLines(v) : lastHandLines(v);
  if (lines.length === 0) return null;
  return h(
    "section",
    { class: "outcome", id: id("outcome"), "aria-label": v.terminal ? "How it ended" : "Last hand" },
    h("h2", {}, v.terminal ? "How it ended" : "Last hand"),
    lines.map((line) => h("p", {}, line)),
  );
}

/** The last twelve steps of the game's history, numbered from its start. */
export function history(v: View, log: LoggedStep[]): HTMLElement | null {
  const lines = historyOf(v, log);
  if (lines.length === 0) return null;
  return h(
    "section",
    { class: "history", "aria-label": "History" },
    h("h2", {}, "History"),
    h("ol", { start: Math.max(1, lines.length - 11) }, lines.slice(-12).map((line) => h("li", {}, line))),
  );
}
