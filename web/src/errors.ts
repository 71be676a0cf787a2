// What the page says of a failed call, and the names of games for people: no client here, so
// the notebook widget (widget.ts) shares it without opening a connection to the page's origin.
import { Code, ConnectError } from "@connectrpc/connect";

/** Each game's long name, from the catalog (filled once the server answers). */
const longNames = new Map<string, string>();

/** Records a game's long name (the catalog's, or the widget's from Python). */
export function setLongName(game: string, longName: string) {
  longNames.set(game, longName);
}

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
  if (isUnreachable(error)) return "The server cannot be reached.";
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

/** A call that never reached the server (the browser's fetch failed: the server is down, or
 * the network): the browser's own words ("Failed to fetch") say nothing to a player. */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return (
    error instanceof ConnectError &&
    (error.code === Code.Unavailable ||
      (error.code === Code.Unknown && /fetch|network|load failed/i.test(error.rawMessage)))
  );
}

/** Whether the match itself is gone from the server (finished and evicted, or never there). */
export function isGone(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.NotFound;
}
