// A match seen by one seat (with its token) or by a spectator: the page's wiring. The viewer's
// views come from a MatchSource (viewer.ts), live (the watch loop, its retries, the queue that
// paces what others did) or as a replay read in pages; the seat's clicks go back as moves. The
// drawing is the other modules': the hand and board (board.ts), the actions panel
// (actions.ts), the side panels (panels.ts), the poker table (table.ts), the pause (pacing.ts).
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
import { type IdOf, h } from "./dom";
import { type Json, applyPatch } from "./patch";
import {
  type View,
  type BoardKind,
  type ComposedField,
  type LoggedStep,
  actionWords,
  boardOf,
  chanceWords,
  clickOf,
  known,
  logsSteps,
  stepsOf,
  structOf,
} from "./games";
import { linksOf, replayLink, seatLink, spectatorLink } from "./links";
import { rulesPanel } from "./rules";
import { detectiveTable, pokerTable } from "./table";
import { type Choice, type Picking, board, hand } from "./board";
import { type Acting, actions } from "./actions";
import { facts, history, outcome, practiceNotice, seats, statusText } from "./panels";
import { pacing, pauseMs } from "./pacing";
import type { MatchSource, Viewer } from "./viewer";

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

/** Draws the match `viewer` looks at into `root`, its views from `source`, live or as a
 * replay; the function returned stops it (the stream, the listeners). */
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
  /** What the hand, the board (board.ts) and the actions panel (actions.ts) read of the page as
   * they draw, and what their clicks do. */
  const page: Picking & Acting = {
    viewer,
    id,
    get current() { return current; },
    get view() { return view; },
    get before() { return before; },
    get selected() { return selected; },
    get grid() { return grid; },
    set grid(kind) { grid = kind; },
    get choosing() { return choosing; },
    get typed() { return typed; },
    set typed(text) { typed = text; },
    composed,
    chosenAmounts,
    pick,
    act,
    promote,
    draw,
  };

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
          h("div", { class: "play-area" }, around, board(page, view, clicks)),
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
        h("div", { class: "play-area" }, around, hand(page, view, clicks), board(page, view, clicks)),
        // The actions beside the table (on a narrow screen: right after it), first of the side.
        h("div", { class: "side" }, actions(page, clicks), outcome(view, id), around ? null : seats(current, view), facts(view, around !== null), history(view, shownLog()), viewer.embedded ? null : links(), pacing(id)),
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

  function promote(options: Choice[]) {
    choosing = options;
    draw();
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
function stepText(step: Step): string {
  if (step.entries.length > 0) {
    return step.entries.map((e) => (e.player < 0n ? chanceWords(e.text) : `Seat ${e.player}: ${actionWords(e.text)}`)).join("; ");
  }
  const actor = Number(step.actor);
  if (actor === -1) return "The deal.";
  if (actor === -2) return "Every seat acted at once.";
  return `Seat ${actor} acted.`;
}
