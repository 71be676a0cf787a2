// Where the page is: the URL fragment names the match and the seat (`#match=ID&seat=N`), or a
// spectator (`#watch=ID`). A seat's token lives in localStorage, so a reload resumes the seat;
// a friend's link carries it once (`&token=...`): the page takes it out of the address and
// stores it only once the server has accepted it, so a wrong link never replaces a good token.

const tokenKey = (match: string, seat: number) => `checkraise:token:${match}:${seat}`;
const linksKey = (match: string) => `checkraise:invites:${match}`;

export function saveToken(match: string, seat: number, token: string) {
  localStorage.setItem(tokenKey(match, seat), token);
}

export function loadToken(match: string, seat: number): string | null {
  return localStorage.getItem(tokenKey(match, seat));
}

export function seatLink(match: string, seat: number, token?: string): string {
  const base = `${location.origin}${location.pathname}#match=${encodeURIComponent(match)}&seat=${seat}`;
  return token ? `${base}&token=${encodeURIComponent(token)}` : base;
}

export function spectatorLink(match: string): string {
  return `${location.origin}${location.pathname}#watch=${encodeURIComponent(match)}`;
}

/** Remembers the friends' seat links of a match this page created, to show them again. */
export function saveLinks(match: string, links: [number, string][]) {
  localStorage.setItem(linksKey(match), JSON.stringify(links));
}

export function linksOf(match: string): [number, string][] {
  try {
    return JSON.parse(localStorage.getItem(linksKey(match)) ?? "[]") as [number, string][];
  } catch {
    return [];
  }
}

/** A finished (or live) match step by step (`#replay=ID`; `&page_size=N` reads it N steps a
 * request instead of the server's 100). */
export function replayLink(match: string): string {
  return `#replay=${encodeURIComponent(match)}`;
}

export type Place =
  | { page: "new" }
  | { page: "seat"; match: string; seat: number; token: string | null; linkToken: string | null }
  | { page: "watch"; match: string }
  | { page: "replay"; match: string; pageSize: number }
  | { page: "ladders" }
  | { page: "ladder"; game: string }
  | { page: "bot"; bot: string; game: string };

/** The place the fragment names; a token in it (`linkToken`) is taken out of the address, not
 * stored: `token` is the one this browser already holds for the seat. */
export function currentPlace(): Place {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has("ladders")) return { page: "ladders" };
  const bot = params.get("bot");
  const ladder = params.get("ladder");
  if (bot && ladder) return { page: "bot", bot, game: ladder };
  if (ladder) return { page: "ladder", game: ladder };
  const watch = params.get("watch");
  if (watch) return { page: "watch", match: watch };
  const replay = params.get("replay");
  if (replay) {
    const pageSize = Number(params.get("page_size") ?? 0);
    return { page: "replay", match: replay, pageSize: Number.isInteger(pageSize) && pageSize > 0 ? pageSize : 0 };
  }
  const match = params.get("match");
  const seat = Number(params.get("seat"));
  if (!match || !Number.isInteger(seat) || seat < 0) return { page: "new" };
  const linkToken = params.get("token");
  if (linkToken) history.replaceState(null, "", seatLink(match, seat));
  return { page: "seat", match, seat, token: loadToken(match, seat), linkToken };
}
