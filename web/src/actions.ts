// The actions panel: the seat's legal actions that are not a click on the hand or the board,
// as buttons in their groups, a slider per kind of bet with many amounts, a composer for a long
// list (Detective Poker's bets), what each kind does, and a field to type an action.
import type { LegalAction, SeatView } from "./gen/checkraise/v1/checkraise_pb";
import { type IdOf, h } from "./dom";
import {
  COMPOSED_FIELDS,
  type ComposedField,
  type View,
  actionHelp,
  chosenMoveOf,
  composable,
  detectiveBetWords,
  detectiveChoiceHelp,
  fieldHelp,
  fieldLabel,
  groupOf,
  known,
  structOf,
  valueLabel,
} from "./games";
import type { Choice } from "./board";
import type { Viewer } from "./viewer";

/** A kind of bet with more amounts than this is a slider (embedded, and on the page for
 * Hold'em Poker Chess). */
const MIN_SLIDER = 3;

/** What the actions panel reads of the page as it draws it, and what its controls do. */
export interface Acting {
  viewer: Viewer;
  id: IdOf;
  /** The seat's view as the server sent it, and its parsed view. */
  current: SeatView | null;
  view: View | null;
  /** The source chosen on the hand or the board, waiting for its target. */
  selected: string | null;
  /** The actions of one source and target waiting for a choice (a promotion's pieces). */
  choosing: Choice[];
  /** The text typed so far (the panel sets it). */
  typed: string;
  /** The composer's chosen value of each field (as JSON), and each kind of bet's slider's
   * amount: kept by the page across redraws, set here. */
  composed: Partial<Record<ComposedField, string>>;
  chosenAmounts: Record<string, number>;
  /** Plays an action (by id, or typed text). */
  act(action: LegalAction | string): void;
  draw(): void;
}

/** The seat's actions panel (none for a spectator or after the end). */
export function actions(page: Acting, clicks: Choice[]): HTMLElement | null {
  const { viewer, id, current, view, selected, choosing, typed, act } = page;
  if (viewer.seat === null || !current || current.isTerminal) return null;
  const all = clicks.filter((c) => !c.click.source);
  const many = all.filter((c) => composable(structOf(c.action.actionJson)));
  const composedNow = many.length > 6 ? many : [];
  // Many amounts of one kind of bet are a slider and a button: in the notebook widget, and
  // on the page for the poker games (Hold'em Poker Chess's raises).
  const poker = view !== null && known(view)?.game === "holdem_chess";
  const sliders = viewer.embedded || poker ? amountGroups(all.filter((c) => !composedNow.includes(c))) : [];
  const sliding = new Set(sliders.flat());
  const buttons = all.filter((c) => !composedNow.includes(c) && !sliding.has(c));
  const pending = choosing.filter((c) => clicks.some((d) => d.action.id === c.action.id));
  const helps = new Map(buttons.map((c) => [c.action.id, actionHelp(structOf(c.action.actionJson), view)]));
  const kinds = new Map<string, string>();
  for (const help of [...helps.values(), ...sliders.map((group) => actionHelp(structOf(group[0].action.actionJson), view))]) {
    if (help && !kinds.has(help.kind)) kinds.set(help.kind, help.general);
  }
  const input = h("input", {
    id: id("action-text"),
    name: "action",
    autocomplete: "off",
    placeholder: "e.g. a legal action's text",
    "data-key": "typed",
    value: typed,
    oninput: () => (page.typed = input.value),
  });
  return h(
    "section",
    { class: "actions", "aria-label": "Actions" },
    h("h2", {}, "Actions"),
    chosenLine(page),
    current.mayAct && clicks.some((c) => c.click.source)
      ? h("p", { class: "hint" }, hint(view, selected))
      : null,
    pending.length > 0
      ? h("div", { class: "buttons", role: "group", "aria-label": "Promote to" },
          pending.map((c) => h("button", { class: "legal", "data-key": `act:${c.action.id}`, onclick: () => void act(c.action) }, c.action.text)))
      : null,
    composedNow.length > 0 ? composer(page, composedNow) : null,
    sliders.map((group) => amountSlider(page, group)),
    groups(buttons).map(([label, group]) =>
      h("div", { class: "buttons", role: "group", "aria-label": label ?? "Actions" },
        label && h("span", { class: "group-label" }, `${label}:`),
        group.map((c) => {
          const help = helps.get(c.action.id);
          return h("button", {
            class: "legal",
            "data-key": `act:${c.action.id}`,
            title: help?.specific,
            "aria-describedby": help ? id(`help-${help.kind}`) : undefined,
            onclick: () => void act(c.action),
          }, c.action.text);
        }))),
    // What each kind of button does, once each, in words (the buttons' descriptions).
    kinds.size > 0
      ? h("ul", { class: "action-help", "aria-label": "What the actions do" },
          [...kinds].map(([kind, general]) => h("li", { id: id(`help-${kind}`) }, general)))
      : null,
    h(
      "form",
      {
        class: "typed",
        onsubmit: (event: Event) => {
          event.preventDefault();
          const text = page.typed.trim();
          if (text) void act(text);
        },
      },
      h("label", { for: id("action-text") }, "Type an action"),
      input,
      h("button", { type: "submit" }, "Play"),
    ),
  );
}

/** Prediction Chess: the move the seat chose this turn, said while it predicts the other's. */
function chosenLine(page: Acting): HTMLElement | null {
  const { id, view } = page;
  const chosen = view ? chosenMoveOf(view) : null;
  if (!chosen) return null;
  return h("p", { id: id("chosen-move"), class: "chosen-move" },
    h("span", { class: "chosen-swatch", "aria-hidden": "true" }),
    `Your move this turn: ${chosen.text} (ringed in white; your opponent does not see it until both have predicted).`);
}

/** A long list of actions (Detective Poker's bets) as one control per field of their structs,
 * each offering the values some legal action with the fields chosen before it has, and one
 * button that plays the action chosen. */
function composer(page: Acting, choices: Choice[]): HTMLElement {
  const { viewer, id, view, composed, act, draw } = page;
  const structs = new Map(choices.map((c) => [c, structOf(c.action.actionJson)]));
  const fields = COMPOSED_FIELDS.filter((f) => choices.some((c) => structs.get(c)![f] !== undefined));
  // Words for Detective Poker's bets; a game the page has no words for gets the controls only.
  const detective = view !== null && known(view)?.game === "detective_poker";
  let left = choices;
  const controls: HTMLElement[] = [];
  for (const field of fields) {
    const values: string[] = [];
    for (const c of left) {
      const value = JSON.stringify(structs.get(c)![field] ?? null);
      if (!values.includes(value)) values.push(value);
    }
    const chosen = values.includes(composed[field] ?? "") ? composed[field]! : values[0];
    composed[field] = chosen;
    left = left.filter((c) => JSON.stringify(structs.get(c)![field] ?? null) === chosen);
    const key = `compose-${field.replace(/_/g, "-")}`;
    const select = h(
      "select",
      {
        id: id(key),
        "data-key": key,
        onchange: () => {
          composed[field] = select.value;
          draw();
        },
      },
      values.map((value) =>
        h("option", { value, selected: value === chosen }, valueLabel(field, JSON.parse(value), viewer.seat))),
    );
    if (detective) select.setAttribute("aria-describedby", id(`${key}-help`));
    controls.push(h("div", { class: "compose-field" }, h("label", { for: id(key) }, fieldLabel(field)), select,
      detective ? h("span", { class: "help", id: id(`${key}-help`) }, fieldHelp(field, JSON.parse(chosen))) : null));
  }
  const action = left[0];
  const parts = structs.get(action)!;
  const meaning =
    detective && parts.target !== undefined && typeof parts.amount === "number"
      ? detectiveChoiceHelp(parts.target, parts.amount, parts.action_card ?? null, typeof view?.street === "string" ? view.street : null)
      : undefined;
  return h(
    "div",
    { class: "composer" },
    h("div", { class: "compose-fields" }, controls),
    h("div", { class: "buttons", role: "group", "aria-label": "Chosen action" },
      h("button", {
        class: "legal",
        id: id("compose-act"),
        "data-key": "compose-act",
        title: meaning,
        "aria-describedby": meaning ? id("compose-act-help") : undefined,
        onclick: () => void act(action.action),
      }, detective && typeof parts.target === "number" && typeof parts.amount === "number"
        ? detectiveBetWords(parts.amount, parts.target, typeof parts.action_card === "string" ? parts.action_card : null)
        : action.action.text)),
    meaning ? h("p", { class: "help", id: id("compose-act-help") }, `This bet: ${meaning}.`) : null,
  );
}

/** The actions that differ only by a numeric `amount` (raises to 4, 5, … 200), more than
 * MIN_SLIDER of one kind: each kind's, in amount order. */
function amountGroups(choices: Choice[]): Choice[][] {
  const byKind = new Map<string, Choice[]>();
  for (const c of choices) {
    const struct = structOf(c.action.actionJson);
    if (typeof struct.amount !== "number") continue;
    const { amount: _, ...rest } = struct;
    const key = JSON.stringify(rest);
    byKind.set(key, [...(byKind.get(key) ?? []), c]);
  }
  const amountOf = (c: Choice) => structOf(c.action.actionJson).amount as number;
  return [...byKind.values()]
    .filter((group) => group.length > MIN_SLIDER)
    .map((group) => group.sort((a, b) => amountOf(a) - amountOf(b)));
}

/** One kind of bet as a slider over its amounts and a button that plays the amount chosen. */
function amountSlider(page: Acting, group: Choice[]): HTMLElement {
  const { id, view, chosenAmounts, act } = page;
  const amounts = group.map((c) => structOf(c.action.actionJson).amount as number);
  const kind = String(structOf(group[0].action.actionJson).kind ?? "bet");
  const kept = amounts.indexOf(chosenAmounts[kind] ?? NaN);
  let index = kept >= 0 ? kept : 0;
  const help = (i: number) => actionHelp(structOf(group[i].action.actionJson), view);
  const general = help(index);
  const button = h("button", {
    class: "legal",
    id: id(`amount-act-${kind}`),
    "data-key": `amount-act:${kind}`,
    title: help(index)?.specific,
    "aria-describedby": general ? id(`help-${general.kind}`) : undefined,
    onclick: () => void act(group[index].action),
  }, group[index].action.text);
  const slider = h("input", {
    type: "range",
    class: "amount-slider",
    id: id(`amount-${kind}`),
    "data-key": `amount:${kind}`,
    "aria-label": `Amount (${kind})`,
    min: 0,
    max: group.length - 1,
    value: index,
    oninput: () => {
      index = Number(slider.value);
      chosenAmounts[kind] = amounts[index];
      button.textContent = group[index].action.text;
      button.title = help(index)?.specific ?? "";
    },
  });
  return h("div", { class: "buttons", role: "group", "aria-label": `Amount (${kind})` },
    slider, button);
}

/** Buttons in their groups, in order of first appearance. */
function groups(buttons: Choice[]): [string | undefined, Choice[]][] {
  const out = new Map<string | undefined, Choice[]>();
  for (const c of buttons) {
    const key = groupOf(structOf(c.action.actionJson));
    out.set(key, [...(out.get(key) ?? []), c]);
  }
  return [...out];
}

/** What to click next. */
function hint(v: View | null, selected: string | null): string {
  if (selected) return "Now choose a highlighted square or cell (or the chosen one again to change your mind).";
  const typed = v && known(v);
  if (typed?.game === "prediction_chess" && typed.phase === "predict") {
    return "Predict your opponent's move: choose one of its highlighted pieces, then the square it goes to.";
  }
  return "Choose a highlighted card or piece.";
}
