// A match seen by one seat (with its token) or by a spectator: the board and hands drawn from
// that viewer's view only, the seat's legal actions as clicks, and every change streamed live.
import { create } from "@bufbuild/protobuf";
import {
  type LegalAction,
  type MatchSummary,
  MatchStatus,
  type Replay,
  type ReplayEntry,
  type SeatView,
  SeatViewSchema,
} from "./gen/checkraise/v1/checkraise_pb";
import { ConnectError } from "@connectrpc/connect";
import { errorText, gameTitle, isAbort, isFinal, isGone, isUnreachable } from "./errors";
import { type IdOf, card, cardFace, cardName, h, piece, pieceName } from "./dom";
import { type Json, applyPatch } from "./patch";
import {
  type Cell,
  type Click,
  type SeatInfo,
  type View,
  type BoardKind,
  COMPOSED_FIELDS,
  type ComposedField,
  type LoggedStep,
  actionHelp,
  actionWords,
  attacksOf,
  boardOf,
  chanceWords,
  chosenMoveOf,
  cardRowsOf,
  clickOf,
  composable,
  detectiveBetWords,
  detectiveChoiceHelp,
  fieldHelp,
  fieldLabel,
  factsOf,
  groupOf,
  historyOf,
  known,
  lastMoveOf,
  logsSteps,
  seatCards,
  stepsOf,
  structOf,
  valueLabel,
} from "./games";
import { linksOf, replayLink, seatLink, spectatorLink } from "./links";
import { lastHandLines, outcomeLines, resultText, verdictText } from "./outcome";
import { cardHelp, rulesPanel } from "./rules";
import { detectiveTable, pokerTable } from "./table";

/** Who looks: a seat with its token, or a spectator (seat null). */
export interface Viewer {
  match: string;
  seat: number | null;
  token: string | null;
  /** A match step by step (GetReplay) instead of live: seat and token are null. */
  replay?: boolean;
  /** Steps per GetReplay page (0: the server's 100). */
  pageSize?: number;
  /** Said above the table (a seat link's token refused, this browser's own kept). */
  notice?: string | null;
  /** Drawn inside another page (the notebook widget, widget.ts): no links to the server's
   * pages, and a replay has a slider too. */
  embedded?: boolean;
  /** What a replay's views show, said instead of the server replay's words. */
  replayNote?: string;
  /** The replay step shown first (0 unless said). */
  startAt?: number;
  /** Put before every element id drawn (the notebook widget: one of its own per widget view,
   * so that several tables on one page keep their ids, and their labels' targets, apart). The
   * page's ids are unprefixed. */
  idPrefix?: string;
}

/** Where a match's views come from and where the seat's moves go: the server over gRPC-Web
 * (source.ts), or a notebook's kernel (widget.ts). */
export interface MatchSource {
  /** The viewer's view now, then one event per change of the match, in order (as
   * `Matches.WatchSeat` and `Matches.WatchSpectator` stream them). */
  watch(signal: AbortSignal): AsyncIterable<{ view?: SeatView; actor: bigint }>;
  /** Plays the seat's action (by id, or typed text): the seat's view once chance and the bots
   * have moved on; a refusal rejects (a `ConnectError`, as the server's). */
  act(action: LegalAction | string, signal: AbortSignal): Promise<SeatView>;
  /** A replay's page from step `from` on (`pageSize` 0: the source's own size). */
  replay(from: bigint, pageSize: number, signal: AbortSignal): Promise<Replay>;
}

/** A replay step as loaded: what it did and its public view, rebuilt from the patches. */
interface Step {
  version: bigint;
  actor: bigint;
  entries: ReplayEntry[];
  view: Json;
}

/** The steps of a replay read so far (pages are read as the viewer steps past them). */
interface ReplaySoFar {
  match: MatchSummary | undefined;
  revealed: boolean;
  steps: Step[];
  /** The next page's from_version; undefined once the last step is loaded. */
  next: bigint | undefined;
  /** How many steps the match has (as the latest page's summary says). */
  total: number;
}

/** What the page says of a practice deal (a seed the creator chose); nothing otherwise. */
function practiceNotice(chosenSeed: boolean | undefined, id: IdOf): HTMLElement | null {
  if (!chosenSeed) return null;
  return h("p", { id: id("practice-deal"), class: "notice", role: "note" },
    "Practice deal: the creator chose the seed, so the creator can know every card, hidden ones included.");
}

type Choice = { action: LegalAction; click: Click };

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
/** A kind of bet with more amounts than this is a slider (embedded, and on the page for
 * Hold'em Poker Chess). */
const MIN_SLIDER = 3;

/** The pause chosen in this browser, or the default (a value the page does not offer too). */
function pauseMs(): number {
  const kept = localStorage.getItem(PAUSE_KEY);
  const ms = kept === null ? NaN : Number(kept);
  return PAUSES.some(([offered]) => offered === ms) ? ms : DEFAULT_PAUSE_MS;
}
/** How long an Act reply waits for the watch stream to bring the changes before it. */
const REPLY_GRACE_MS = 250;
/** More changes waiting than this: the older ones are skipped, so a watcher never lags. */
const MAX_QUEUED = 3;

/** A view waiting to be drawn: from the watch stream (`own`: the viewer's own action) or an
 * Act reply. */
interface Queued {
  view: SeatView;
  own: boolean;
  reply: boolean;
  at: number;
}

export function playPage(root: HTMLElement, viewer: Viewer, source: MatchSource): () => void {
  const abort = new AbortController();
  const id: IdOf = (name) => `${viewer.idPrefix ?? ""}${name}`;
  let current: SeatView | null = null;
  let view: View | null = null;
  let selected: string | null = null;
  let busy = false;
  let message = "";
  let choosing: Choice[] = [];
  let typed = "";
  let replay: ReplaySoFar | null = null;
  let loading: Promise<void> | null = null;
  let at = 0;
  /** The view drawn before the one shown (what the last move changed), and the card grid's
   * window drawn so far (it only grows). */
  let before: View | null = null;
  let grid: BoardKind | undefined;
  /** The views to draw, in version order, paced by the chosen pause. */
  const queue: Queued[] = [];
  let draining = false;
  let lastDrawn = 0;
  /** The version an Act reply brought: the page stays busy until it is drawn. */
  let awaiting: bigint | null = null;
  /** The steps read from consecutive views of a game whose view keeps no list of its actions
   * (Hold'em Poker Chess), and the view the next step is read against. */
  let log: LoggedStep[] = [];
  /** The game's rules ("How to play …"), kept across redraws; null for a game without them. */
  let rules: HTMLElement | null | undefined;
  let logBase: { version: bigint; view: View } | null = null;
  let logging = true;
  /** The watch stream: up ("ok"), down and being retried, or stopped for good (the match gone,
   * the seat refused), with what the page says of it; kept apart from `message`, which a click
   * clears, until the stream brings the match again. */
  let link: "ok" | "down" | "stopped" = "ok";
  let linkText = "";
  /** Whether the seat might act as last drawn (its controls are brought into view as it
   * becomes its turn). */
  let wasTurn = false;
  /** The composer's chosen value of each field (as JSON). */
  const composed: Partial<Record<ComposedField, string>> = {};
  /** The amount chosen on each kind of bet's slider (embedded only). */
  const chosenAmounts: Record<string, number> = {};
  const main = h("main", { id: id("play"), "data-version": "-1" });
  root.replaceChildren(main);

  /** Shows a view unless a newer one is shown already (replies and events may cross). */
  function show(next: SeatView | undefined) {
    if (next && (!current || next.version >= current.version)) {
      if (!current || next.version !== current.version) {
        selected = null;
        choosing = [];
        // What the page said was about the position before (a refused move, a failed call).
        if (current) message = "";
      }
      if (!current || next.version !== current.version) before = view;
      current = next;
      view = JSON.parse(next.viewJson) as View;
    }
    if (awaiting !== null && current && current.version >= awaiting) awaiting = null;
    draw();
  }

  /** Queues a view to draw: the viewer's own change at once, someone else's change the chosen
   * pause after the change drawn before it, an Act reply once the stream has had time to bring
   * what led to it. */
  function enqueue(next: SeatView | undefined, own: boolean, reply = false) {
    if (!next) return;
    queue.push({ view: next, own, reply, at: performance.now() });
    void drain();
  }

  async function drain() {
    if (draining) return;
    draining = true;
    try {
      while (queue.length > 0 && !abort.signal.aborted) {
        queue.sort((a, b) => (a.view.version < b.view.version ? -1 : a.view.version > b.view.version ? 1 : 0));
        if (queue.length > MAX_QUEUED) queue.splice(0, queue.length - MAX_QUEUED);
        const next = queue[0];
        if (current && next.view.version <= current.version) {
          queue.shift();
          if (next.view.version === current.version && !next.reply) show(next.view);
          continue;
        }
        const now = performance.now();
        let wait = next.reply ? next.at + REPLY_GRACE_MS - now : 0;
        if (!next.own) wait = Math.max(wait, lastDrawn + pauseMs() - now);
        if (wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
          continue;
        }
        queue.shift();
        show(next.view);
        lastDrawn = performance.now();
      }
    } finally {
      draining = false;
    }
  }

  function say(text: string) {
    message = text;
    draw();
  }

  /** Plays an action (by id, or typed text); a refusal is shown. */
  async function act(action: LegalAction | string) {
    if ((!viewer.token && !viewer.embedded) || viewer.seat === null || isBusy() || link !== "ok") return;
    busy = true;
    message = "";
    draw();
    try {
      const reply = await source.act(action, abort.signal);
      busy = false;
      if (typeof action === "string") typed = "";
      // Drawn after the changes the stream brings (your move, then each reply, paced).
      if (!current || reply.version > current.version) awaiting = reply.version;
      enqueue(reply, false, true);
      draw();
    } catch (error) {
      busy = false;
      if (!isAbort(error)) {
        // A refusal is the server's answer; anything else means the move may not have reached it.
        say(isFinal(error) ? `Move refused. ${errorText(error)}` : `The move was not played (${errorText(error).replace(/\.$/, "")}): try again.`);
      }
    }
  }

  /** Reads a streamed view against the one before it (each stream event is one step of the
   * match, in order, before any is skipped for pacing); a stream's first event (actor -1, the
   * view as of subscribing) only becomes the base. */
  function record(next: SeatView | undefined, actor: bigint) {
    if (!next || !logging) return;
    if (logBase && next.version <= logBase.version) return;
    const after = JSON.parse(next.viewJson) as View;
    // A game whose view keeps its own history needs no log (nor this second parse).
    if (!logsSteps(after)) {
      logging = false;
      return;
    }
    if (logBase && actor !== -1n && next.version === logBase.version + 1n) {
      const steps = stepsOf(logBase.view, after, Number(actor), next.version);
      log.push(...steps);
      // A step already drawn past (an Act reply came first): its line shows now.
      if (steps.length > 0 && current && next.version <= current.version) draw();
    }
    logBase = { version: next.version, view: after };
  }

  /** Reads the replay's page from `from` on and appends its steps, each view rebuilt: the page's
   * first from its whole view, each later one by applying its patch to the previous view. */
  async function loadPage(from: bigint) {
    const reply: Replay = await source.replay(from, viewer.pageSize ?? 0, abort.signal);
    const steps: Step[] = [];
    let view: Json = null;
    for (const [i, step] of reply.steps.entries()) {
      if (step.spectatorViewJson !== "") view = JSON.parse(step.spectatorViewJson) as Json;
      else if (step.spectatorViewPatch !== "") {
        if (i === 0) throw new Error(`The replay's page starts with a patch (step ${step.version}).`);
        try {
          view = applyPatch(view, JSON.parse(step.spectatorViewPatch));
        } catch (error) {
          throw new Error(`Step ${step.version} of the replay cannot be drawn: ${error instanceof Error ? error.message : String(error)}`);
        }
      } else if (i === 0) view = {};
      steps.push({ version: step.version, actor: step.actor, entries: step.entries, view });
    }
    const all = [...(replay?.steps ?? []), ...steps];
    const next = reply.nextVersion;
    let total = all.length;
    if (next !== undefined && all.length > 0) {
      const left = Number((reply.match?.version ?? 0n) - all[all.length - 1].version);
      total += Math.max(1, left);
    }
    replay = { match: reply.match, revealed: replay ? replay.revealed : reply.revealed, steps: all, next, total };
  }

  /** Shows step `index` of the replay: its public view, drawn as a spectator's. Pages not read
   * yet are read first, up to that step. */
  async function goTo(index: number) {
    if (!replay || replay.steps.length === 0) return;
    let wanted = Math.max(0, Math.min(replay.total - 1, index));
    while (replay.next !== undefined && wanted >= replay.steps.length) {
      const had = replay.steps.length;
      loading ??= loadPage(replay.next).finally(() => (loading = null));
      try {
        await loading;
      } catch (error) {
        if (!isAbort(error)) say(errorText(error));
        return;
      }
      if (replay.steps.length === had) break; // an empty page: nothing more to read
      wanted = Math.max(0, Math.min(replay.total - 1, index));
    }
    at = Math.min(wanted, replay.steps.length - 1);
    const step = replay.steps[at];
    const last = at === replay.steps.length - 1 && replay.next === undefined;
    current = create(SeatViewSchema, {
      matchId: viewer.match,
      version: step.version,
      currentPlayer: BigInt(-3),
      isTerminal: last && replay.match?.status === MatchStatus.FINISHED,
      seats: (replay.match?.seats ?? []).map((kind, seat) => ({ seat, kind, taken: true })),
      chosenSeed: replay.match?.chosenSeed ?? false,
    });
    view = step.view as unknown as View;
    before = at > 0 ? (replay.steps[at - 1].view as unknown as View) : null;
    // The steps up to this one, read from each pair of steps in a row.
    log = [];
    for (let i = 1; i <= at; i++) {
      const [was, now] = [replay.steps[i - 1], replay.steps[i]];
      if (now.version !== was.version + 1n) continue;
      log.push(...stepsOf(was.view as unknown as View, now.view as unknown as View, Number(now.actor), now.version));
    }
    // The grid's window: every step's up to this one (the same forward and back).
    grid = undefined;
    for (const s of replay.steps.slice(0, at + 1)) {
      const k = boardOf(s.view as unknown as View, [], grid);
      if (k.kind === "grid") grid = k;
    }
    selected = null;
    choosing = [];
    draw();
  }

  function onKey(event: KeyboardEvent) {
    if (!replay || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    const moves: Record<string, number> = {
      ArrowLeft: at - 1,
      ArrowRight: at + 1,
      Home: 0,
      End: replay.total - 1,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    void goTo(moves[event.key]);
  }

  /** The logged steps of the views drawn so far (none past the one shown). */
  function shownLog(): LoggedStep[] {
    return current ? log.filter((step) => step.version <= current!.version) : [];
  }

  /** Whether the seat may act now: its turn, no move on its way, the server there. */
  function mayAct(): boolean {
    return Boolean(current?.mayAct) && !isBusy() && link === "ok";
  }

  function isBusy(): boolean {
    return busy || awaiting !== null;
  }

  function draw() {
    const focusKey = (document.activeElement as HTMLElement | null)?.dataset?.key;
    main.replaceChildren(...content().filter((node): node is Node => node !== null));
    main.dataset.version = current ? String(current.version) : "-1";
    main.dataset.mayAct = String(mayAct());
    main.dataset.link = link;
    main.dataset.terminal = String(Boolean(current?.isTerminal));
    if (viewer.replay) {
      main.dataset.step = String(at);
      main.dataset.steps = String(replay?.total ?? 0);
    }
    const again = focusKey && main.querySelector<HTMLElement>(`[data-key="${focusKey}"]`);
    if (again) again.focus();
    const turn = main.dataset.mayAct === "true";
    if (turn && !wasTurn) bringControls();
    wasTurn = turn;
  }

  /** On the seat's turn: its controls scrolled into the window if they are out of it (the
   * actions' buttons, else the hand's cards or the board's pieces), focus left where it is (the
   * status line says "Your turn." to a screen reader). */
  function bringControls() {
    const control =
      main.querySelector<HTMLElement>(".actions .legal, .actions select") ??
      main.querySelector<HTMLElement>(".hand .legal, .board .source");
    if (!control) return;
    // Embedded in a notebook, a table scrolled out of sight stays there (the reader is
    // elsewhere in the notebook).
    const table = main.getBoundingClientRect();
    if (viewer.embedded && (table.bottom <= 0 || table.top >= window.innerHeight)) return;
    const box = control.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    const area = control.closest<HTMLElement>(".actions, .hand, .board-wrap") ?? control;
    // The area's top in view when it fits, else the control itself.
    const fits = area.getBoundingClientRect().height <= window.innerHeight;
    (fits ? area : control).scrollIntoView({ block: fits ? "nearest" : "center" });
  }

  function content(): (Node | null)[] {
    const title = h(
      "header",
      {},
      h("h1", {}, view ? gameTitle(view.game) : "checkraise"),
      h(
        "p",
        { class: "who" },
        viewer.replay ? "Replay" : viewer.seat === null ? "Watching as a spectator" : `You play seat ${viewer.seat}`,
        viewer.match ? ` · match ${viewer.match}` : null,
        viewer.embedded ? null : " · ",
        viewer.embedded ? null : h("a", { href: "#" }, "New match"),
      ),
    );
    const alert = h("p", { id: id("message"), class: "message", role: "alert", "data-link": link }, link !== "ok" ? linkText : message);
    const notice = viewer.notice ? h("p", { id: id("link-notice"), class: "notice", role: "note" }, viewer.notice) : null;
    if (!current || !view) return [title, notice, alert, h("p", {}, "Connecting…")];
    const practice = practiceNotice(current.chosenSeed, id);
    // While the server is away (or the match gone) nothing is clickable.
    const legal = current.mayAct && link === "ok" ? current.legalActions : [];
    const clicks = legal.map((action) => ({ action, click: clickOf(structOf(action.actionJson)) }));
    // The poker games (Hold'em Poker Chess, Detective Poker): the seats around a poker table, in
    // the play area, instead of the table of seats beside it.
    const game = known(view);
    const around =
      game?.game === "holdem_chess" ? pokerTable(current, game, id)
      : game?.game === "detective_poker" ? detectiveTable(current, game)
      : null;
    // One panel for the page's life, so that it stays open (or closed) as the match redraws.
    if (rules === undefined || rules?.dataset.game !== view.game) rules = rulesPanel(view.game, gameTitle(view.game), id("rules"));
    if (viewer.replay && replay) {
      return [
        title,
        practice,
        stepper(replay),
        alert,
        rules,
        h(
          "div",
          { class: "table" },
          h("div", { class: "play-area" }, around, board(view, clicks)),
          h("div", { class: "side" }, outcome(view, id), around ? null : seats(current, view), facts(view, around !== null), history(view, shownLog()), viewer.embedded ? null : links()),
        ),
      ];
    }
    return [
      title,
      notice,
      practice,
      h("p", { id: id("status"), class: "status", "aria-live": "polite" },
        link === "down" ? "Waiting for the server: the board is locked until it answers."
        : link === "stopped" ? "This match cannot be followed any more."
        : isBusy() ? "Playing your move (bots answer before the reply)…" : statusText(current, view, viewer.seat)),
      alert,
      rules,
      h(
        "div",
        { class: "table" },
        h("div", { class: "play-area" }, around, hand(view, clicks), board(view, clicks)),
        // The actions beside the table (on a narrow screen: right after it), first of the side.
        h("div", { class: "side" }, actions(clicks), outcome(view, id), around ? null : seats(current, view), facts(view, around !== null), history(view, shownLog()), viewer.embedded ? null : links(), pacing()),
      ),
    ];
  }

  /** The replay's controls and the step's text. */
  function stepper(r: ReplaySoFar): HTMLElement {
    const last = r.total - 1;
    // Each button is named by its visible text (speech input can say it); the title says more.
    const button = (key: string, label: string, text: string, to: number, disabled: boolean) =>
      h("button", { "data-key": key, id: id(key), title: label, disabled, onclick: () => void goTo(to) }, text);
    return h(
      "section",
      { class: "replay", "aria-label": "Replay" },
      h("p", { id: id("status"), class: "status", "aria-live": "polite" },
        h("span", { id: id("step-counter") }, `Step ${at} of ${last}`),
        " · ",
        h("span", { id: id("step-text") }, stepText(r.steps[at])),
        viewer.replayNote !== undefined ? ` (${viewer.replayNote})`
        : r.revealed ? " (finished match: every seat's cards face up)" : " (live match: only what a spectator may see)"),
      h("div", { class: "buttons", role: "group", "aria-label": "Step" },
        button("replay-start", "First step", "Start", 0, at === 0),
        button("replay-back", "Previous step", "◀ Back", at - 1, at === 0),
        button("replay-forward", "Next step", "Forward ▶", at + 1, at === last),
        button("replay-end", "Last step", "End", last, at === last)),
      // Embedded (the notebook widget): a slider over every step too.
      viewer.embedded
        ? h("input", {
            type: "range",
            id: id("replay-slider"),
            class: "replay-slider",
            "data-key": "replay-slider",
            "aria-label": "Step",
            min: 0,
            max: last,
            value: at,
            onchange: (event: Event) => void goTo(Number((event.target as HTMLInputElement).value)),
          })
        : null,
      h("p", { class: "hint" }, "Keys: ← and → step, Home and End jump."),
    );
  }

  /** Picks a source, or acts at once when the source is the whole action. */
  function pick(source: string, clicks: Choice[]) {
    const whole = clicks.find((c) => c.click.source === source && !c.click.target);
    if (whole) {
      void act(whole.action);
      return;
    }
    selected = selected === source ? null : source;
    message = "";
    draw();
  }

  function hand(v: View, clicks: Choice[]): HTMLElement | null {
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
  function spot(key: string, label: string, clicks: Choice[], last: Set<string>, ...inner: (Node | null)[]) {
    const chosen = view ? chosenMoveOf(view)?.squares.includes(key) : false;
    const named = `${label}${last.has(key) ? " (last move)" : ""}${chosen ? " (your chosen move)" : ""}`;
    const drawn = spotOf(key, named, clicks, ...inner);
    drawn.dataset.spot = key;
    if (last.has(key)) drawn.classList.add("last");
    if (chosen) drawn.classList.add("chosen");
    return drawn;
  }

  function spotOf(key: string, label: string, clicks: Choice[], ...inner: (Node | null)[]) {
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

  function promote(options: Choice[]) {
    choosing = options;
    draw();
  }

  function board(v: View, clicks: Choice[]): HTMLElement | null {
    const targets = clicks
      .filter((c) => c.click.target?.startsWith("cell:"))
      .map((c) => c.click.target!);
    const kind = boardOf(v, targets, grid);
    if (kind.kind === "none") return null;
    if (kind.kind === "grid") grid = kind;
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
          const square = spot(`sq:${name}`, label, clicks, last, c?.piece ? piece(c.piece) : null);
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
          const cell = spot(`cell:${x},${y}`, label, clicks, last, has ? cardFace(c.card ?? null) : null, marks);
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

  function actions(clicks: Choice[]): HTMLElement | null {
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
      oninput: () => (typed = input.value),
    });
    return h(
      "section",
      { class: "actions", "aria-label": "Actions" },
      h("h2", {}, "Actions"),
      chosenLine(),
      current.mayAct && clicks.some((c) => c.click.source)
        ? h("p", { class: "hint" }, hint(view, selected))
        : null,
      pending.length > 0
        ? h("div", { class: "buttons", role: "group", "aria-label": "Promote to" },
            pending.map((c) => h("button", { class: "legal", "data-key": `act:${c.action.id}`, onclick: () => void act(c.action) }, c.action.text)))
        : null,
      composedNow.length > 0 ? composer(composedNow) : null,
      sliders.map((group) => amountSlider(group)),
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
            const text = typed.trim();
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
  function chosenLine(): HTMLElement | null {
    const chosen = view ? chosenMoveOf(view) : null;
    if (!chosen) return null;
    return h("p", { id: id("chosen-move"), class: "chosen-move" },
      h("span", { class: "chosen-swatch", "aria-hidden": "true" }),
      `Your move this turn: ${chosen.text} (ringed in white; your opponent does not see it until both have predicted).`);
  }

  /** A long list of actions (Detective Poker's bets) as one control per field of their structs,
   * each offering the values some legal action with the fields chosen before it has, and one
   * button that plays the action chosen. */
  function composer(choices: Choice[]): HTMLElement {
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
  function amountSlider(group: Choice[]): HTMLElement {
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

  /** The pause before drawing someone else's move, chosen here for every match in this browser. */
  function pacing(): HTMLElement {
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

  function links(): HTMLElement {
    const invites = linksOf(viewer.match);
    return h(
      "section",
      { class: "links", "aria-label": "Links" },
      h("h2", {}, "Links"),
      h("ul", {},
        viewer.seat !== null && viewer.token && !viewer.replay
          ? h("li", {}, h("a", { href: seatLink(viewer.match, viewer.seat, viewer.token), id: id("own-seat-link") },
            `Seat ${viewer.seat} (your own link: it opens your seat in another browser; keep it private)`))
          : null,
        invites.map(([seat, href]) => {
          // Whether someone has the seat open now (its watch stream), as the server says.
          const here = current?.seats[seat]?.connected ?? false;
          return h("li", {},
            h("a", { href, class: "invite" }, `Seat ${seat} (a friend's link)`),
            " ",
            h("span", { class: "presence", "data-seat": seat, "data-connected": String(here) },
              here ? "· here now" : current?.isTerminal ? "" : "· not here"));
        }),
        viewer.replay ? null : h("li", {}, h("a", { href: spectatorLink(viewer.match), id: id("spectator-link"), target: "_blank" }, "Spectator view")),
        current?.isTerminal || viewer.replay
          ? h("li", {}, h("a", { href: replayLink(viewer.match), id: id("replay-link") }, viewer.replay ? "Replay from the start" : "Replay this match"))
          : null),
    );
  }

  if (viewer.replay) {
    // Embedded, the keys step this replay only while the focus is in it (a notebook can show
    // several, and uses the keys itself elsewhere).
    const keys: HTMLElement | Document = viewer.embedded ? root : document;
    keys.addEventListener("keydown", onKey as EventListener);
    loadPage(0n).then(
      () => {
        if (!replay || replay.steps.length === 0) say("This match has no steps yet.");
        else void goTo(viewer.startAt ?? 0);
      },
      (error) => {
        if (!isAbort(error)) say(errorText(error));
      },
    );
    draw();
    return () => {
      keys.removeEventListener("keydown", onKey as EventListener);
      abort.abort();
    };
  }

  void (async () => {
    // Set while the stream is down: the first event after it comes back clears what the page
    // said meanwhile (the stream's error, or a move refused because the server was away).
    let down = false;
    let ended = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const stream = source.watch(abort.signal);
        for await (const event of stream) {
          attempt = 1;
          if (down) {
            down = false;
            message = "";
            link = "ok";
            linkText = "";
          }
          ended = event.view?.isTerminal ?? ended;
          record(event.view, event.actor);
          enqueue(event.view, event.actor === -1n || (viewer.seat !== null && event.actor === BigInt(viewer.seat)));
        }
        // A stream that ends before the match does: the server went away (or dropped the
        // match); asked again, it says which.
        if (ended || abort.signal.aborted) return;
        throw new Error("The server closed the match's stream.");
      } catch (error) {
        if (isAbort(error) || abort.signal.aborted) return;
        down = true;
        if (isFinal(error)) {
          link = "stopped";
          linkText = isGone(error) ? "This match is no longer on the server." : errorText(error);
          draw();
          return;
        }
        link = "down";
        // The server's own words where it answered (a watcher cut off for lagging behind).
        linkText = isUnreachable(error) || !(error instanceof ConnectError)
          ? "The server cannot be reached; retrying…"
          : `${errorText(error)} Retrying…`;
        draw();
        await new Promise((resolve) => setTimeout(resolve, Math.min(attempt, 5) * 1000));
      }
    }
  })();
  draw();
  return () => abort.abort();
}

/** What a replay step did: its history entries (a finished match), or who acted. */
/** A board coordinate beside the squares or cells (a file or column under them, a rank or row
 * to their left); hidden from screen readers, whose squares and cells name themselves. */
function coord(kind: "file" | "rank" | "corner", text: string): HTMLElement {
  return h("span", { class: `coord ${kind}`, "aria-hidden": "true" }, text);
}

function stepText(step: Step): string {
  if (step.entries.length > 0) {
    return step.entries.map((e) => (e.player < 0n ? chanceWords(e.text) : `Seat ${e.player}: ${actionWords(e.text)}`)).join("; ");
  }
  const actor = Number(step.actor);
  if (actor === -1) return "The deal.";
  if (actor === -2) return "Every seat acted at once.";
  return `Seat ${actor} acted.`;
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

function statusText(sv: SeatView, v: View, seat: number | null): string {
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

function seats(sv: SeatView, v: View): HTMLElement {
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
function facts(v: View, felt: boolean): HTMLElement {
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
function outcome(v: View, id: IdOf): HTMLElement | null {
  const lines = v.terminal ? outcomeLines(v) : lastHandLines(v);
  if (lines.length === 0) return null;
  return h(
    "section",
    { class: "outcome", id: id("outcome"), "aria-label": v.terminal ? "How it ended" : "Last hand" },
    h("h2", {}, v.terminal ? "How it ended" : "Last hand"),
    lines.map((line) => h("p", {}, line)),
  );
}

function history(v: View, log: LoggedStep[]): HTMLElement | null {
  const lines = historyOf(v, log);
  if (lines.length === 0) return null;
  return h(
    "section",
    { class: "history", "aria-label": "History" },
    h("h2", {}, "History"),
    h("ol", { start: Math.max(1, lines.length - 11) }, lines.slice(-12).map((line) => h("li", {}, line))),
  );
}
