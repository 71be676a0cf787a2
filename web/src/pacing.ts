// The pause before drawing a change someone else made (a bot's reply to your move): the
// choices, this browser's choice (kept in localStorage), and its control under the actions.
import { type IdOf, h } from "./dom";

/** The least time between drawing one change and the next one made by someone else (a bot's
 * reply to your move), so that both can be seen: the player's choice, kept in the browser. */
const PAUSE_KEY = "checkraise.pause-ms";
const PAUSES: [number, string][] = [
  [0, "none"],
  [300, "short (0.3 s)"],
  [600, "normal (0.6 s)"],
  [1200, "long (1.2 s)"],
];
const DEFAULT_PAUSE_MS = 600;

/** The pause chosen in this browser, or the default (a value the page does not offer too). */
export function pauseMs(): number {
  const kept = localStorage.getItem(PAUSE_KEY);
  const ms = kept === null ? NaN : Number(kept);
  return PAUSES.some(([offered]) => offered === ms) ? ms : DEFAULT_PAUSE_MS;
}

/** The pause before drawing someone else's move, chosen here for every match in this browser. */
export function pacing(id: IdOf): HTMLElement {
  const chosen = pauseMs();
  return h(
    "p",
    { class: "pacing" },
    h(
      "label",
      {},
      "Pause before others' moves ",
      h(
        "select",
        {
          id: id("pause"),
          "data-key": "pause",
          onchange: (event: Event) => localStorage.setItem(PAUSE_KEY, (event.target as HTMLSelectElement).value),
        },
        PAUSES.map(([ms, words]) => h("option", { value: ms, selected: ms === chosen }, words)),
      ),
    ),
  );
}
