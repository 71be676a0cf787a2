// The page's only link to the server: generated gRPC-Web clients of Catalog, Matches and Ladder, on
// the origin that served the page. Seat calls carry the seat's token in `x-seat-token`.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Catalog, Ladder, Matches } from "./gen/checkraise/v1/checkraise_pb";
import { setLongName } from "./errors";

export { asSeat, errorText, gameTitle, isAbort, isFinal } from "./errors";

const transport = createGrpcWebTransport({ baseUrl: location.origin });

export const catalog = createClient(Catalog, transport);
export const matches = createClient(Matches, transport);
export const ladder = createClient(Ladder, transport);

// Each game's long name, from the catalog (gameTitle gives it once the server answers).
catalog.listGames({}).then(
  (reply) => {
    for (const g of reply.games) setLongName(g.name, g.longName);
  },
  () => {},
);
