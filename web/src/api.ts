// The page's only link to the server: generated gRPC-Web clients of Catalog, Matches and Ladder, on
// the origin that served the page. Seat calls carry the seat's token in `x-seat-token`.
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Catalog, Ladder, Matches } from "./gen/checkraise/v1/checkraise_pb";

const transport = createGrpcWebTransport({ baseUrl: location.origin });

export const catalog = createClient(Catalog, transport);
export const matches = createClient(Matches, transport);
export const ladder = createClient(Ladder, transport);

/** Each game's long name, from the catalog (filled once the server answers). */
const longNames = new Map<string, string>();
catalog.listGames({}).then(
  (reply) => {
    for (const g of reply.games) longNames.set(g.name, g.longName);
  },
  () => {},
);

/** A game's name for people: its catalog long name, or its registered name until the catalog
 * answers. The page keeps no list of games: a new game shows up with its catalog entry. */
export function gameTitle(game: string): string {
  return longNames.get(game) ?? game;
}

/** Call options that authenticate as a seat. */
export function asSeat(token: string, signal?: AbortSignal) {
  return { headers: { "x-seat-token": token }, signal };
}

/** What to show a person for a failed call: the server's own message, with its status. */
export function errorText(error: unknown): string {
  if (error instanceof ConnectError) {
    const code = Code[error.code] ?? "Error";
    const words = code.replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
    return `${words}: ${error.rawMessage}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function isAbort(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.Canceled;
}

/** An error that trying again will not mend (a wrong match, seat or token). */
export function isFinal(error: unknown): boolean {
  return (
    error instanceof ConnectError &&
    [Code.NotFound, Code.PermissionDenied, Code.InvalidArgument, Code.FailedPrecondition].includes(error.code)
  );
}
