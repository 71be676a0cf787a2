// The bot ladder's pages: every ladder, one ladder's leaderboard with its live and recent
// games, and one bot's page (its rating over time as a chart, its games), all from the
// Ladder service. Games link to the match pages: watch a live one, replay a finished one.
import { errorText, gameTitle, ladder } from "./api";
import { h } from "./dom";
import type { LadderGameSummary, LadderInfo, LadderStanding, RatingPoint } from "./gen/checkraise/v1/checkraise_pb";
import { replayLink } from "./links";

/** The link to a ladder's leaderboard. */
export function ladderLink(game: string): string {
  return `#ladder=${encodeURIComponent(game)}`;
}

/** The link to a bot's page on one ladder. */
export function botLink(game: string, bot: string): string {
  return `#bot=${encodeURIComponent(bot)}&ladder=${encodeURIComponent(game)}`;
}

function page(root: HTMLElement, title: string, ...body: HTMLElement[]): HTMLElement {
  return pageTitled(root, title, undefined, ...body);
}

/** A ladder page whose heading has a title (the whole game string behind a short name). */
function pageTitled(root: HTMLElement, title: string, full: string | undefined, ...body: HTMLElement[]): HTMLElement {
  const main = h("main", { id: "ladder" },
    h("p", {}, h("a", { href: "#", class: "standalone" }, "New match"), " · ",
      h("a", { href: "#ladders", class: "standalone" }, "Bot ladders")),
    h("h1", { title: full }, title),
    ...body);
  root.replaceChildren(main);
  return main;
}

function failed(into: HTMLElement, error: unknown) {
  into.replaceChildren(h("p", { role: "alert" }, errorText(error)));
}

/** How many of a ladder game's parameters its short name shows (the rest counted). */
const SHOWN_PARAMETERS = 2;

/** A ladder's game string for people, short: the game's long name and its first parameters
 * in words ("Hold'em Poker Chess · stack 200"), the others counted ("+3 more"); the whole
 * string is `gameFull`'s, in the title of where it is shown. */
export function gameText(game: string): string {
  const open = game.indexOf("(");
  const name = open < 0 ? game : game.slice(0, open);
  if (open < 0) return gameTitle(name);
  const params = game.slice(open + 1, game.endsWith(")") ? -1 : undefined).split(",").filter((p) => p !== "");
  const shown = params.slice(0, SHOWN_PARAMETERS).map((p) => p.replace("=", " ").replace(/_/g, " "));
  const more = params.length - shown.length;
  return [gameTitle(name), [...shown, ...(more > 0 ? [`+${more} more`] : [])].join(", ")].filter((x) => x).join(" · ");
}

/** The whole game string (its long name, then every parameter), for a title. */
function gameFull(game: string): string {
  const open = game.indexOf("(");
  return open < 0 ? gameTitle(game) : `${gameTitle(game.slice(0, open))} ${game.slice(open)}`;
}

/** A ladder game's returns in a line: who won and every seat's return ("Seat 1 wins (−1 : 1)"). */
export function returnsText(returns: number[]): string {
  if (returns.length === 0) return "";
  const number = (r: number) => {
    const text = String(Math.round(r * 100) / 100);
    return text.startsWith("-") ? `−${text.slice(1)}` : text;
  };
  const all = returns.map(number).join(" : ");
  const best = Math.max(...returns);
  const winners = returns.flatMap((r, seat) => (r === best ? [seat] : []));
  if (winners.length === returns.length) return `A draw (${all})`;
  if (winners.length === 1) return `Seat ${winners[0]} wins (${all})`;
  return `Seats ${winners.join(" and ")} share the best result (${all})`;
}

/** Every ladder the server runs, read page by page (a reply holds at most 1000). */
async function everyLadder(): Promise<LadderInfo[]> {
  const ladders: LadderInfo[] = [];
  let pageToken = "";
  do {
    const reply = await ladder.listLadders({ pageSize: 1000, pageToken });
    ladders.push(...reply.ladders);
    pageToken = reply.nextPageToken;
  } while (pageToken !== "");
  return ladders;
}

/** Every ladder the server runs. */
export function laddersPage(root: HTMLElement) {
  const list = h("ul", { id: "ladders", class: "links" }, h("li", {}, "Loading…"));
  page(root, "Bot ladders",
    h("p", {}, "Programs written in any language play rated games here, against each other and the server's bots. ",
      "A bot registers and connects through the Ladder service (docs/ladder.md in the repository)."),
    list);
  everyLadder().then(
    (ladders) => {
      list.replaceChildren(
        ...(ladders.length === 0
          ? [h("li", {}, "No ladder yet: none starts until a bot registers for a game.")]
          : ladders.map((l) =>
              h("li", { "data-game": l.game },
                h("a", { href: ladderLink(l.game), title: gameFull(l.game) }, gameText(l.game)),
                ` · ${l.bots} bots, ${l.connected} connected · ${l.games} games played, ${l.live} live`))),
      );
    },
    (error) => failed(list, error),
  );
}

function signed(x: number): string {
  const rounded = Math.round(x);
  return rounded > 0 ? `+${rounded}` : `${rounded}`;
}

function standingRow(game: string, s: LadderStanding): HTMLElement {
  const state = s.retired ? "retired" : s.connected ? (s.house ? "house bot" : "connected") : "away";
  return h("tr", { "data-bot": s.bot },
    h("th", { scope: "row" }, h("a", { href: botLink(game, s.bot) }, s.bot)),
    h("td", { class: "rating" }, signed(s.rating)),
    h("td", {}, `${signed(s.ratingLow)} to ${signed(s.ratingHigh)}`),
    h("td", {}, `${s.returnRating.toFixed(2)} (${s.returnLow.toFixed(2)} to ${s.returnHigh.toFixed(2)})`),
    h("td", { class: "games" }, String(s.games)),
    h("td", {}, String(s.wins)),
    h("td", { class: "forfeits" }, String(s.forfeits)),
    h("td", {}, state),
    exploitabilityCell(s));
}

/** A house bot's measured bound on its exploitability (offline, from the server's results
 * file): the value with its interval, the method and command in the cell's title. */
function exploitabilityCell(s: LadderStanding): HTMLElement {
  const e = s.exploitability;
  if (!e) return h("td", { class: "exploitability" }, s.house ? "not measured" : "");
  return h("td", { class: "exploitability", title: `${e.method}, ${e.games} games: ${e.command}` },
    `${e.value.toFixed(2)} (${e.low.toFixed(2)} to ${e.high.toFixed(2)})`);
}

/** A list of ladder games, each linked to its match. */
function gameList(id: string, games: LadderGameSummary[], empty: string): HTMLElement {
  if (games.length === 0) return h("ul", { id, class: "links" }, h("li", {}, empty));
  return h("ul", { id, class: "links" },
    ...games.map((g) => {
      const who = g.bots.map((bot, seat) => `seat ${seat} ${bot}${g.forfeits[seat] ? " (forfeit)" : ""}`).join(", ");
      const result = g.live ? "live" : returnsText(g.returns);
      return h("li", { "data-match": g.matchId, "data-live": String(g.live) },
        `set ${g.set} · ${who} · ${result} · `,
        g.live
          ? h("a", { href: `#watch=${encodeURIComponent(g.matchId)}` }, "Watch")
          : h("a", { href: replayLink(g.matchId) }, "Replay"));
    }));
}

/** One ladder: the leaderboard, the games being played and the latest finished ones. */
export function ladderPage(root: HTMLElement, game: string) {
  const board = h("div", { class: "scroll" }, h("p", {}, "Loading…"));
  const live = h("section", { "aria-label": "Live games" }, h("h2", {}, "Live games"));
  const recent = h("section", { "aria-label": "Recent games" }, h("h2", {}, "Recent games"));
  pageTitled(root, `Ladder: ${gameText(game)}`, gameFull(game),
    h("section", { class: "seats", "aria-label": "Leaderboard" }, h("h2", {}, "Leaderboard"), board,
      h("p", { class: "hint" },
        "Ratings on the Elo scale with random at 0, each with its 95% interval; the rating on returns is in the game's own units. ",
        "A forfeit is a game whose bot ran out of time (the server played the rest). ",
        "A house bot's exploitability bound is what a strategy was measured to win from it, offline (the cell's title names how); the ladder computes none.")),
    live, recent);
  ladder.getLeaderboard({ game }).then(
    (reply) => {
      board.replaceChildren(
        h("table", { id: "leaderboard" },
          h("caption", {}, `${reply.games} games played; anchor ${reply.anchor}`),
          h("thead", {}, h("tr", {},
            ...["Bot", "Rating", "95% interval", "Rating on returns", "Games", "Wins", "Forfeits", "Now", "Exploitability at least"].map((c) =>
              h("th", { scope: "col" }, c)))),
          h("tbody", {}, ...reply.standings.map((s) => standingRow(reply.game, s)))));
    },
    (error) => failed(board, error),
  );
  ladder.listLadderGames({ game, pageSize: 50 }).then(
    (reply) => {
      live.append(gameList("live-games", reply.games.filter((g) => g.live), "None now."));
      recent.append(gameList("recent-games", reply.games.filter((g) => !g.live).slice(0, 20), "None yet."));
    },
    (error) => failed(recent, error),
  );
}

/** The rating over time: a line with its 95% band, drawn as SVG, with a text summary. */
function chart(points: RatingPoint[]): HTMLElement {
  const rated = points.filter((p) => p.rating !== undefined);
  if (rated.length === 0) return h("p", { id: "rating-chart" }, "No games yet.");
  const width = 560;
  const height = 220;
  const pad = 40;
  const lows = rated.map((p) => p.ratingLow);
  const highs = rated.map((p) => p.ratingHigh);
  const top = Math.max(...highs, 0);
  const bottom = Math.min(...lows, 0);
  const span = top - bottom || 1;
  const first = Number(rated[0].games);
  const last = Number(rated[rated.length - 1].games);
  const x = (games: bigint) => pad + ((Number(games) - first) / (last - first || 1)) * (width - 2 * pad);
  const y = (r: number) => pad / 2 + ((top - r) / span) * (height - pad);
  const line = rated.map((p) => `${x(p.games).toFixed(1)},${y(p.rating ?? 0).toFixed(1)}`).join(" ");
  const band = [
    ...rated.map((p) => `${x(p.games).toFixed(1)},${y(p.ratingHigh).toFixed(1)}`),
    ...[...rated].reverse().map((p) => `${x(p.games).toFixed(1)},${y(p.ratingLow).toFixed(1)}`),
  ].join(" ");
  const end = rated[rated.length - 1];
  const summary = `Rating ${signed(end.rating ?? 0)} (95% interval ${signed(end.ratingLow)} to ${signed(end.ratingHigh)}) after ${end.games} ladder games, ${end.botGames} of them its own; it started at ${signed(rated[0].rating ?? 0)}.`;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", summary);
  svg.setAttribute("class", "chart");
  const add = (tag: string, attrs: Record<string, string>, text?: string) => {
    const el = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.append(el);
  };
  add("polygon", { points: band, fill: "#c7d7f5", stroke: "none" });
  add("line", { x1: String(pad), x2: String(width - pad), y1: String(y(0)), y2: String(y(0)), stroke: "#6b6b6b", "stroke-dasharray": "4 3" });
  add("polyline", { points: line, fill: "none", stroke: "#1d4ed8", "stroke-width": "2" });
  add("text", { x: "2", y: String(y(top) + 4), "font-size": "11" }, signed(top));
  add("text", { x: "2", y: String(y(bottom) + 4), "font-size": "11" }, signed(bottom));
  add("text", { x: String(pad), y: String(height - 2), "font-size": "11" }, `${first} games`);
  add("text", { x: String(width - pad - 50), y: String(height - 2), "font-size": "11" }, `${last} games`);
  return h("figure", { id: "rating-chart" }, svg as unknown as HTMLElement, h("figcaption", {}, summary));
}

/** One bot on one ladder: its standing, its rating over time, its games. */
export function botPage(root: HTMLElement, game: string, bot: string) {
  const standing = h("p", { id: "standing" }, "Loading…");
  const history = h("section", { "aria-label": "Rating over time" }, h("h2", {}, "Rating over time"));
  const games = h("section", { "aria-label": "Games" }, h("h2", {}, "Games"));
  pageTitled(root, `${bot} on ${gameText(game)}`, gameFull(game),
    h("p", {}, h("a", { href: ladderLink(game) }, "The leaderboard")),
    standing, history, games);
  ladder.getLeaderboard({ game }).then(
    (reply) => {
      const s = reply.standings.find((x) => x.bot === bot);
      standing.replaceChildren(
        s
          ? `Rating ${signed(s.rating)} (${signed(s.ratingLow)} to ${signed(s.ratingHigh)}), ${s.games} games, ${s.wins} wins, ${s.forfeits} forfeits${s.house ? ", a house bot" : ""}.`
          : "No games yet.");
    },
    (error) => failed(standing, error),
  );
  ladder.getRatingHistory({ game, bot, points: 30 }).then(
    (reply) => history.append(chart(reply.points)),
    (error) => history.append(h("p", { role: "alert" }, errorText(error))),
  );
  ladder.listLadderGames({ game, bot, pageSize: 30 }).then(
    (reply) => games.append(gameList("bot-games", reply.games, "None yet.")),
    (error) => games.append(h("p", { role: "alert" }, errorText(error))),
  );
}
