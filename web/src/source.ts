// The server as a match's source (viewer.ts's MatchSource): the seat's stream and moves with its
// token, or a spectator's stream, and replay pages, over gRPC-Web.
import type { LegalAction } from "./gen/checkraise/v1/checkraise_pb";
import { asSeat, matches } from "./api";
import type { MatchSource, Viewer } from "./viewer";

export function serverSource(viewer: Viewer): MatchSource {
  return {
    watch: (signal) =>
      viewer.seat !== null && viewer.token
        ? matches.watchSeat({ matchId: viewer.match, seat: viewer.seat, presence: true }, asSeat(viewer.token, signal))
        : matches.watchSpectator({ matchId: viewer.match, presence: true }, { signal }),
    act: (action: LegalAction | string, signal) =>
      matches.act(
        {
          matchId: viewer.match,
          seat: viewer.seat ?? 0,
          action:
            typeof action === "string"
              ? { case: "actionText", value: action }
              : { case: "actionId", value: action.id },
        },
        asSeat(viewer.token ?? "", signal),
      ),
    replay: (from, pageSize, signal) =>
      matches.getReplay({ matchId: viewer.match, fromVersion: from, pageSize }, { signal }),
  };
}
