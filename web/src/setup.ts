// The new-match form: a game, its parameters (from the Catalog's schemas, checked by the
// server as they change), a seed, and who sits in each seat.
import { catalog, errorText, gameTitle, matches } from "./api";
import { h } from "./dom";
import { type GameDescription, MatchStatus, type MatchSummary, ParameterType } from "./gen/checkraise/v1/checkraise_pb";
import { loadToken, replayLink, saveLinks, saveToken, seatLink } from "./links";
import { resultText } from "./outcome";
import { rulesPanel } from "./rules";

const YOU = "you";
const FRIEND = "friend";
const ISMCTS_BUDGETS = [200, 1000];
// The search that reads the other seats' bets (its deals weighted by how likely their bets
// were under the heuristic), offered where it was measured to beat the heuristic
// (docs/strength.md: Detective Poker, 1,000 iterations, random rollouts).
const READING: Record<string, string> = {
  detective_poker: "ismcts(iterations=1000,rollout=random,belief=heuristic)",
};

export function setupPage(root: HTMLElement) {
  const main = h("main", { id: "setup" }, h("h1", {}, "checkraise"), h("p", {}, "Loading the games…"));
  root.replaceChildren(main);
  catalog.listGames({}).then(
    (reply) => form(main, reply.games),
    (error) => main.append(h("p", { role: "alert" }, errorText(error))),
  );
}

/** The most recent matches, newest first, each with a link to watch it live or replay it. */
function recentMatches(): HTMLElement {
  const list = h("ul", { id: "recent" });
  const section = h("section", { class: "recent", "aria-label": "Recent matches" }, h("h2", {}, "Recent matches"), list);
  // The server lists oldest first: read the pages of the last day and keep the newest ten.
  const since = BigInt(Date.now() - 24 * 3600 * 1000);
  (async () => {
    const all: MatchSummary[] = [];
    let pageToken = "";
    for (let page = 0; page < 10; page++) {
      const reply = await matches.listMatches({ pageSize: 1000, pageToken, createdAfterMs: since });
      all.push(...reply.matches);
      pageToken = reply.nextPageToken;
      if (!pageToken) break;
    }
    return all;
  })().then(
    (found) => {
      const sorted = [...found].sort((a, b) => Number(b.createdMs - a.createdMs)).slice(0, 10);
      list.replaceChildren(
        ...(sorted.length === 0
          ? [h("li", {}, "None yet.")]
          : sorted.map((m) => {
              const finished = m.status === MatchStatus.FINISHED;
              const live = m.status === MatchStatus.LIVE;
              const href = finished ? replayLink(m.matchId) : `#watch=${encodeURIComponent(m.matchId)}`;
              const what = finished ? "finished" : live ? "live" : "expired";
              const created = new Date(Number(m.createdMs));
              const players = m.seats.map((kind, seat) => `seat ${seat} ${kind}`).join(", ");
              const result = finished && m.returns.length > 0 ? resultText(m.returns) : `${what}, ${m.version} steps`;
              return h("li", { "data-match": m.matchId, "data-status": what },
                h("time", { datetime: created.toISOString(), class: "when" }, timeText(created)),
                ` · ${gameTitle(m.game.split("(")[0])} · `,
                h("span", { class: "players" }, players),
                ` · `,
                h("span", { class: "result" }, result),
                m.chosenSeed ? " · practice deal" : "",
                " · ",
                live ? ownSeats(m).flatMap((seat) => [h("a", { href: seatLink(m.matchId, seat), class: "resume" }, `Resume seat ${seat}`), " · "]) : null,
                finished || live ? h("a", { href }, finished ? "Replay" : "Watch") : "gone");
            })),
      );
    },
    (error) => list.replaceChildren(h("li", { role: "alert" }, errorText(error))),
  );
  return section;
}

/** The seats of `m` this browser plays: those it holds a token for (a friend's link is kept as a
 * link, not as this browser's token). */
function ownSeats(m: MatchSummary): number[] {
  return m.seats.flatMap((_, seat) => (loadToken(m.matchId, seat) === null ? [] : [seat]));
}

/** When a match was created: the time today, else the date and time, in the browser's locale. */
function timeText(when: Date): string {
  const today = new Date().toDateString() === when.toDateString();
  return today
    ? when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : when.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function form(main: HTMLElement, games: GameDescription[]) {
  const gameSelect = h("select", { id: "game", name: "game", "aria-describedby": "game-description" },
    games.map((g) => h("option", { value: g.name }, g.longName)));
  const description = h("p", { class: "description", id: "game-description" });
  // The chosen game's rules ("How to play …"), redrawn with the game.
  const rulesBox = h("div", { class: "rules-box" });
  const params = h("div", { class: "params" });
  const seatsBox = h("div", { class: "seat-choices" });
  const seed = h("input", {
    id: "seed", name: "seed", type: "number", min: 0, step: 1, inputmode: "numeric", "aria-describedby": "seed-help",
  });
  const error = h("p", { id: "form-error", role: "alert" });
  const start = h("button", { type: "submit", id: "start" }, "Start the match");
  let game = games[0];
  let seatCount = game.minPlayers;
  let check = 0;

  const values = () => {
    const out: Record<string, string> = {};
    for (const spec of game.parameters) {
      const input = params.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="param-${spec.name}"]`);
      if (input && input.value !== spec.defaultValue) out[spec.name] = input.value;
    }
    return out;
  };

  function drawSeats(count: number) {
    const before = [...seatsBox.querySelectorAll("select")].map((s) => s.value);
    seatCount = count;
    // IS-MCTS at a few budgets (more iterations: stronger and slower; the server caps a bot's
    // time per move with --max-bot-ms).
    const reading = game.botKinds.includes("ismcts") ? READING[game.name] : undefined;
    const bots = game.botKinds.flatMap((k) =>
      k === "ismcts" ? [...ISMCTS_BUDGETS.map((n) => `ismcts(iterations=${n})`), ...(reading ? [reading] : [])] : [k],
    );
    const kinds = [YOU, FRIEND, ...bots];
    const labels: Record<string, string> = {
      [YOU]: "You",
      [FRIEND]: "A friend (link)",
      random: "Bot: random",
      heuristic: "Bot: heuristic",
      policy: "Bot: trained policy",
      br: "Bot: search that exploits the trained policy, 1,000 iterations",
      cfr: "Bot: solved equilibrium (CFR+, 1,000 iterations)",
      ...Object.fromEntries(ISMCTS_BUDGETS.map((n) => [`ismcts(iterations=${n})`, `Bot: IS-MCTS search, ${n.toLocaleString("en")} iterations`])),
      ...(reading ? { [reading]: "Bot: IS-MCTS reading the bets, 1,000 iterations" } : {}),
    };
    const fallback = game.botKinds.includes("heuristic") ? "heuristic" : game.botKinds[0];
    seatsBox.replaceChildren(
      ...Array.from({ length: count }, (_, seat) => {
        const chosen = before[seat] ?? (seat === 0 ? YOU : fallback);
        return h("div", { class: "field" },
          h("label", { for: `seat-${seat}` }, `Seat ${seat}`),
          h("select", { id: `seat-${seat}`, name: `seat-${seat}` },
            kinds.map((k) => h("option", { value: k, selected: k === chosen }, labels[k] ?? `Bot: ${k}`))));
      }),
    );
  }

  /** Asks the server whether the parameters are valid, and how many seats they make. */
  async function validate() {
    const mine = ++check;
    try {
      const reply = await catalog.getGame({ name: game.name, parameters: values() });
      if (mine !== check) return;
      error.textContent = "";
      start.disabled = false;
      drawSeats(reply.sizes?.numPlayers ?? seatCount);
    } catch (e) {
      if (mine !== check) return;
      error.textContent = errorText(e);
      start.disabled = true;
    }
  }

  function drawGame() {
    game = games.find((g) => g.name === gameSelect.value) ?? games[0];
    description.textContent = game.description;
    rulesBox.replaceChildren(...[rulesPanel(game.name, game.longName)].filter((node) => node !== null));
    params.replaceChildren(...game.parameters.map(parameter));
    seatsBox.replaceChildren();
    drawSeats(game.defaultSizes?.numPlayers ?? game.minPlayers);
    error.textContent = "";
    start.disabled = false;
  }

  async function submit(event: Event) {
    event.preventDefault();
    start.disabled = true;
    error.textContent = "";
    try {
      const kinds = [...seatsBox.querySelectorAll("select")].map((s) => s.value);
      const created = await matches.createMatch({
        game: game.name,
        parameters: values(),
        seed: seed.value === "" ? undefined : BigInt(seed.value),
        seats: kinds.map((k) => (k === YOU || k === FRIEND ? "human" : k)),
      });
      const id = created.matchId;
      let mine: number | null = null;
      const invites: [number, string][] = [];
      for (const [seat, k] of kinds.entries()) {
        if (k !== YOU && k !== FRIEND) continue;
        const joined = await matches.joinSeat({ matchId: id, seat });
        if (k === YOU && mine === null) {
          mine = seat;
          saveToken(id, seat, joined.seatToken);
        } else {
          invites.push([seat, seatLink(id, seat, joined.seatToken)]);
        }
      }
      saveLinks(id, invites);
      location.hash = mine === null ? `watch=${encodeURIComponent(id)}` : `match=${encodeURIComponent(id)}&seat=${mine}`;
    } catch (e) {
      error.textContent = errorText(e);
      start.disabled = false;
    }
  }

  gameSelect.addEventListener("change", drawGame);
  params.addEventListener("change", () => void validate());
  main.replaceChildren(
    h("h1", {}, "checkraise"),
    h("p", {}, "Play the checkraise games against bots or friends, or watch a match. ",
      h("a", { href: "#ladders", id: "ladders-link" }, "Bot ladders"), ": programs playing rated games."),
    h("form", { onsubmit: submit },
      h("div", { class: "field" }, h("label", { for: "game" }, "Game"), gameSelect),
      description,
      rulesBox,
      // On a wide screen the parameters beside the seats and the Start button, which so stay
      // near the top however many parameters the game has; on a narrow one, above them.
      h("div", { class: "setup-columns" },
        h("fieldset", { class: "params-box" }, h("legend", {}, "Parameters"), params),
        h("div", { class: "setup-go" },
          h("fieldset", {}, h("legend", {}, "Seats"), seatsBox),
          h("div", { class: "field" }, h("label", { for: "seed" }, "Seed (empty: a secret deal)"), seed,
            h("span", { class: "help", id: "seed-help" },
              "Choosing a seed makes a practice deal: whoever knows the seed can work out every hidden card, so every seat is told it is one. Leave it empty for a secret deal.")),
          error,
          start))),
    recentMatches(),
  );
  drawGame();
}

/** One parameter's input, as its schema says. */
function parameter(spec: GameDescription["parameters"][number]): HTMLElement {
  const id = `param-${spec.name}`;
  const help = `${id}-help`;
  let input: HTMLElement;
  if (spec.type === ParameterType.CHOICE || spec.type === ParameterType.BOOL) {
    const options = spec.type === ParameterType.BOOL ? ["true", "false"] : spec.options;
    input = h("select", { id, name: id, "aria-describedby": help },
      options.map((o) => h("option", { value: o, selected: o === spec.defaultValue }, o)));
  } else if (spec.type === ParameterType.INT) {
    // No min/max on the input: the server's message says what is allowed.
    input = h("input", { id, name: id, type: "number", step: 1, value: spec.defaultValue, inputmode: "numeric", "aria-describedby": help });
  } else {
    input = h("input", { id, name: id, type: "text", value: spec.defaultValue, "aria-describedby": help });
  }
  const range = spec.type === ParameterType.INT ? ` (${spec.min}–${spec.max})` : "";
  return h("div", { class: "field" },
    h("label", { for: id }, `${plainName(spec.name)}${range}`),
    input,
    h("span", { class: "help", id: help }, spec.description, ` (default ${spec.defaultValue})`));
}

/** A parameter's name in words: `max_turns` reads "Max turns". */
export function plainName(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
