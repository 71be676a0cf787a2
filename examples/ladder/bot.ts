// A ladder bot in TypeScript for Node (20 or later): it registers itself, keeps its event
// stream open, and plays every game the server places it in through the Matches calls, with
// the clients generated from the gRPC contract for the web page (gRPC-Web over HTTP/1.1,
// which checkraise-server answers unless it runs with --no-web).
//
//   node ladder-bot.mjs ADDRESS NAME GAME [MAX_GAMES]
//
// It plays the legal action with the highest id, asks the server for MAX_GAMES games (the
// server then ends its event stream once they have ended; a duplicate set is always played
// whole, so it may get a few more), and prints a JSON summary. Build it with esbuild (see
// README.md).
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Ladder, LadderEventKind, Matches } from "../../web/src/gen/checkraise/v1/checkraise_pb";

const [address, name, game, maxText] = process.argv.slice(2);
if (!address || !name || !game) {
  console.error("usage: node ladder-bot.mjs ADDRESS NAME GAME [MAX_GAMES]");
  process.exit(2);
}
const maxGames = Number(maxText ?? "10");

const transport = createGrpcWebTransport({ baseUrl: `http://${address}` });
const ladder = createClient(Ladder, transport);
const matches = createClient(Matches, transport);

/** Plays one seat of a game until its end, or until the server took the seat over. */
async function playSeat(matchId: string, seat: number, token: string): Promise<void> {
  const asSeat = { headers: { "x-seat-token": token } };
  const viewOptions = { omitViewJson: true, omitObservation: true, omitObservationText: true };
  let actedAt: bigint | null = null;
  try {
    for await (const event of matches.watchSeat({ matchId, seat, viewOptions }, asSeat)) {
      const view = event.view;
      if (!view || view.isTerminal) return;
      if (!view.mayAct || view.version === actedAt || view.legalActions.length === 0) continue;
      actedAt = view.version;
      const action = view.legalActions[view.legalActions.length - 1].id;
      try {
        await matches.act(
          { matchId, seat, action: { case: "actionId", value: action }, expectedVersion: view.version, viewOptions },
          asSeat,
        );
      } catch (error) {
        // The match moved on: the next event says how.
        if (error instanceof ConnectError && error.code === Code.Aborted) continue;
        throw error;
      }
    }
  } catch (error) {
    // A seat the server played out (a forfeit) or a game that is gone ends here.
    if (error instanceof ConnectError && [Code.PermissionDenied, Code.FailedPrecondition, Code.NotFound].includes(error.code)) return;
    throw error;
  }
}

const registered = await ladder.registerBot({ name, games: [game] });
const asBot = { headers: { "x-bot-token": registered.botToken } };
const playing: Promise<void>[] = [];
const results: { matchId: string; bots: string[]; returns: number[]; forfeits: boolean[] }[] = [];
for await (const event of ladder.events({ name, maxGames }, asBot)) {
  if (event.kind === LadderEventKind.GAME_STARTED && event.game) {
    for (const seat of event.seats) playing.push(playSeat(event.game.matchId, seat.seat, seat.seatToken));
  } else if (event.kind === LadderEventKind.GAME_FINISHED && event.game) {
    const g = event.game;
    results.push({ matchId: g.matchId, bots: g.bots, returns: g.returns, forfeits: g.forfeits });
  }
}
await Promise.all(playing);
console.log(JSON.stringify({ bot: registered.name, games: registered.games, finished: results }));
