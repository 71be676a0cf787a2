// The notebook widget (`checkraise.notebook`, on anywidget): the page's own table (play.ts)
// drawn from what the kernel sends, a seat's views only. The kernel holds the game; each view
// of the widget asks it for the steps so far ("sync") and is then sent each new one once (a
// "frames" message: the seat's view, its legal actions and who acted), or reads a replay's
// steps from one viewer's side (the synced `steps`), and sends back the seat's clicks. Each
// view draws its elements' ids behind a prefix of its own, so that several share a page.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type LegalAction,
  MatchStatus,
  type Replay,
  ReplaySchema,
  type SeatView,
  SeatViewSchema,
} from "./gen/checkraise/v1/checkraise_pb";
import { h } from "./dom";
import { setLongName } from "./errors";
import { playPage } from "./play";
import type { MatchSource, Viewer } from "./viewer";

/** One step of a match as the kernel sends it: the seat's (or a spectator's) view after it. */
interface Frame {
  version: number;
  /** Who acted: a seat, -2 every seat at once, -1 not a step (the first frame). */
  actor: number;
  view: unknown;
  current_player: number;
  is_terminal: boolean;
  may_act: boolean;
  action_submitted: boolean;
  legal_actions: { id: number; text: string; action_json: unknown }[];
  returns: number[];
  seats: { seat: number; kind: string; taken: boolean; connected: boolean }[];
  chosen_seed: boolean;
}

/** One replay step: its version, who acted, the view from the chosen side, its entries. */
interface ReplayFrame {
  version: number;
  actor: number;
  view: unknown;
  entries: { player: number; action: number; text: string }[];
}

/** The part of anywidget's model the widget reads. */
interface Model {
  get(name: string): unknown;
  on(event: string, callback: (...args: unknown[]) => void): void;
  off(event: string, callback: (...args: unknown[]) => void): void;
  send(message: unknown): void;
}

/** A reply of the kernel to a click: the version it led to (with its frame when the kernel
 * has not sent that frame already: a server's reply ahead of its stream), or the refusal's
 * words. */
interface Answer {
  type: "acted" | "refused";
  request: string;
  version?: number;
  frame?: Frame;
  code?: string;
  message?: string;
}

/** Frames the kernel sends: the game's from `start` on (the answer to a view's "sync"), or one
 * new frame (`start` its index). */
interface FramesMessage {
  type: "frames";
  start: number;
  frames: Frame[];
}

/** The frames one view of the widget has been sent, in order, and a way to wait for more. */
interface FrameLog {
  frames: Frame[];
  /** Resolves at the next frame received, or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void>;
  close(): void;
}

/** Asks the kernel for the game's frames so far, then keeps each new one it sends (a frame
 * already held, sent again for another view of the same widget, is skipped). */
function frameLog(model: Model): FrameLog {
  const frames: Frame[] = [];
  const waiting = new Set<() => void>();
  // A frame past the end of those held means some were missed (a view drawn while the kernel
  // was sending): asked again from the first one missing, once until frames come in order.
  let asked = false;
  const heard = (...args: unknown[]) => {
    const message = args[0] as FramesMessage;
    if (message?.type !== "frames") return;
    if (message.start > frames.length) {
      if (!asked) model.send({ type: "sync", from: frames.length });
      asked = true;
      return;
    }
    asked = false;
    const fresh = message.frames.slice(frames.length - message.start);
    if (fresh.length === 0) return;
    frames.push(...fresh);
    for (const wake of [...waiting]) wake();
  };
  model.on("msg:custom", heard);
  model.send({ type: "sync", from: 0 });
  return {
    frames,
    next(signal) {
      return new Promise<void>((resolve) => {
        const wake = () => {
          waiting.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        waiting.add(wake);
        signal.addEventListener("abort", wake);
      });
    },
    close() {
      model.off("msg:custom", heard);
      for (const wake of [...waiting]) wake();
    },
  };
}

const CODES: Record<string, Code> = {
  invalid_argument: Code.InvalidArgument,
  failed_precondition: Code.FailedPrecondition,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

function seatView(frame: Frame, match: string, seat: number | null): SeatView {
  return create(SeatViewSchema, {
    matchId: match,
    seat: seat ?? undefined,
    version: BigInt(frame.version),
    viewJson: JSON.stringify(frame.view),
    currentPlayer: BigInt(frame.current_player),
    isTerminal: frame.is_terminal,
    mayAct: frame.may_act,
    actionSubmitted: frame.action_submitted,
    legalActions: frame.legal_actions.map((a) => ({ id: a.id, text: a.text, actionJson: JSON.stringify(a.action_json) })),
    returns: frame.is_terminal ? frame.returns : [],
    seats: frame.seats,
    chosenSeed: frame.chosen_seed,
  });
}

/** The kernel as the table's source: its frames as a stream, clicks as messages. */
function kernelSource(model: Model, log: FrameLog, name: string, match: string, seat: number | null): MatchSource {
  // Every view of the widget (a cell's output shown twice) hears every answer: its requests
  // are told apart by the view's name.
  let request = 0;
  const frames = () => log.frames;
  return {
    watch(signal) {
      return {
        async *[Symbol.asyncIterator]() {
          let seen = 0;
          while (!signal.aborted) {
            const all = frames();
            while (seen < all.length) {
              const frame = all[seen++];
              yield { view: seatView(frame, match, seat), actor: BigInt(frame.actor) };
            }
            if (all.length > 0 && all[all.length - 1].is_terminal) return;
            await log.next(signal);
          }
        },
      };
    },
    act(action: LegalAction | string, signal) {
      const id = `${name}:${++request}`;
      return new Promise<SeatView>((resolve, reject) => {
        const done = () => {
          model.off("msg:custom", answer);
          signal.removeEventListener("abort", aborted);
        };
        const answer = (...args: unknown[]) => {
          const message = args[0] as Answer;
          if (message?.request !== id) return;
          done();
          if (message.type === "refused") {
            reject(new ConnectError(message.message ?? "", CODES[message.code ?? ""] ?? Code.InvalidArgument));
            return;
          }
          // The seat's view once the bots have answered: the kernel's frame of that version
          // (sent before its answer), or the server's reply.
          const all = frames();
          const frame = message.frame ?? all.find((f) => f.version === message.version) ?? all[all.length - 1];
          resolve(seatView(frame, match, seat));
        };
        const aborted = () => {
          done();
          reject(new ConnectError("left", Code.Canceled));
        };
        model.on("msg:custom", answer);
        signal.addEventListener("abort", aborted);
        model.send(typeof action === "string" ? { type: "act", request: id, text: action } : { type: "act", request: id, id: action.id });
      });
    },
    async replay(): Promise<Replay> {
      const steps = (model.get("steps") as ReplayFrame[] | null) ?? [];
      const seats = (model.get("seat_kinds") as string[] | null) ?? [];
      const finished = Boolean(model.get("finished"));
      return create(ReplaySchema, {
        match: {
          matchId: match,
          game: String(model.get("game") ?? ""),
          seats,
          status: finished ? MatchStatus.FINISHED : MatchStatus.LIVE,
          version: BigInt(steps.length > 0 ? steps[steps.length - 1].version : 0),
        },
        revealed: false,
        steps: steps.map((s) => ({
          version: BigInt(s.version),
          actor: BigInt(s.actor),
          entries: s.entries.map((e) => ({ player: BigInt(e.player), action: e.action, text: e.text })),
          spectatorViewJson: JSON.stringify(s.view),
        })),
      });
    },
  };
}

/** How many views this module has drawn (a part of each view's name). */
let views = 0;

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const game = String(model.get("game") ?? "");
  setLongName(game, String(model.get("long_name") || game));
  // The view's name: its requests' and its elements' ids' prefix. Random as well as counted,
  // as each widget may load its own copy of this module.
  const name = `${Math.random().toString(36).slice(2, 8)}${++views}`;
  const idPrefix = `checkraise-${name}-`;
  const error = h("p", { class: "widget-error", role: "alert" });
  const perspective = h("p", { class: "perspective" });
  const root = h("div", {});
  const box = h("div", { class: "checkraise-widget", "data-id-prefix": idPrefix }, error, perspective, root);
  el.replaceChildren(box);
  let leave: (() => void) | null = null;
  const log = frameLog(model);

  function start(startAt?: number) {
    leave?.();
    const mode = String(model.get("mode"));
    const seat = model.get("seat") as number | null;
    const viewer: Viewer = {
      match: String(model.get("match_id") ?? ""),
      seat: seat ?? null,
      token: null,
      embedded: true,
      replay: mode === "replay",
      replayNote: mode === "replay" ? String(model.get("replay_note") ?? "") : undefined,
      startAt,
      idPrefix,
    };
    leave = playPage(root, viewer, kernelSource(model, log, name, viewer.match, viewer.seat));
  }

  function showError() {
    error.textContent = String(model.get("error") ?? "");
  }

  /** A replay's viewer: each seat, or everyone once the game is over. */
  function showPerspectives() {
    const options = (model.get("perspectives") as [string, string][] | null) ?? [];
    if (model.get("mode") !== "replay" || options.length === 0) {
      perspective.replaceChildren();
      return;
    }
    const chosen = String(model.get("perspective") ?? "");
    const select = h(
      "select",
      {
        id: `${idPrefix}replay-perspective`,
        class: "replay-perspective",
        onchange: () => {
          model.send({ type: "perspective", value: select.value });
        },
      },
      options.map(([value, label]) => h("option", { value, selected: value === chosen }, label)),
    );
    perspective.replaceChildren(h("label", {}, "View as ", select));
  }

  const restep = () => {
    const shown = root.querySelector<HTMLElement>("main")?.dataset.step;
    showPerspectives();
    start(shown === undefined ? undefined : Number(shown));
  };
  model.on("change:error", showError);
  model.on("change:steps", restep);
  model.on("change:perspectives", showPerspectives);
  showError();
  showPerspectives();
  start();
  return () => {
    model.off("change:error", showError);
    model.off("change:steps", restep);
    model.off("change:perspectives", showPerspectives);
    leave?.();
    log.close();
  };
}

export default { render };
