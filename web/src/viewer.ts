// Who looks at a match and where its views come from: what the table (play.ts) is given by the
// web page (main.ts, with the server as source.ts) or by the notebook widget (widget.ts).
import type { LegalAction, Replay, SeatView } from "./gen/checkraise/v1/checkraise_pb";

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
