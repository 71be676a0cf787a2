// The page: a new-match form, or a match seen by a seat or a spectator, as the URL fragment
// says (links.ts).
import { Code, ConnectError } from "@connectrpc/connect";
import { asSeat, catalog, errorText, matches } from "./api";
import { h } from "./dom";
import { botPage, ladderPage, laddersPage } from "./ladder";
import { currentPlace, saveToken } from "./links";
import { playPage } from "./play";
import { setupPage } from "./setup";
import { serverSource } from "./source";

const root = document.getElementById("app")!;
let leave: (() => void) | null = null;

/** Whether the server refused `token` for the seat (a wrong or stale link), as opposed to not
 * answering. */
function refused(error: unknown): boolean {
  return (
    error instanceof ConnectError &&
    [Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument].includes(error.code)
  );
}

/** A seat link's token: kept (and stored) once the server accepts it for the seat. A refused
 * one never replaces the token this browser holds: the page goes on with that one and says
 * why. Unchecked (the server did not answer), it is used only where the browser holds none. */
async function settleLinkToken(match: string, seat: number, link: string, held: string | null) {
  if (link === held) return { token: held, notice: null };
  try {
    await matches.getView({ matchId: match, seat }, asSeat(link));
    saveToken(match, seat, link);
    return { token: link, notice: null };
  } catch (error) {
    if (!refused(error)) return { token: held ?? link, notice: null };
    const why = errorText(error);
    return held
      ? { token: held, notice: `The link's token was refused for seat ${seat} (${why}); this browser's own token for the seat is kept.` }
      : { token: null, notice: `The link's token was refused for seat ${seat} (${why}).` };
  }
}

let routed = 0;

function route() {
  leave?.();
  leave = null;
  const place = currentPlace();
  if (place.page === "seat" && place.linkToken !== null) {
    const ticket = ++routed;
    root.replaceChildren(h("main", {}, h("p", { role: "status" }, "Checking the seat's link…")));
    void settleLinkToken(place.match, place.seat, place.linkToken, place.token).then(({ token, notice }) => {
      if (ticket !== routed) return;
      show({ ...place, token, linkToken: null }, notice);
    });
    return;
  }
  routed++;
  show(place, null);
}

function show(place: ReturnType<typeof currentPlace>, notice: string | null) {
  if (place.page === "new") {
    setupPage(root);
  } else if (place.page === "ladders") {
    laddersPage(root);
  } else if (place.page === "ladder") {
    ladderPage(root, place.game);
  } else if (place.page === "bot") {
    botPage(root, place.game, place.bot);
  } else if (place.page === "replay") {
    const viewer = { match: place.match, seat: null, token: null, replay: true, pageSize: place.pageSize };
    leave = playPage(root, viewer, serverSource(viewer));
  } else if (place.page === "watch") {
    const viewer = { match: place.match, seat: null, token: null };
    leave = playPage(root, viewer, serverSource(viewer));
  } else if (place.token === null) {
    root.replaceChildren(
      h("main", {},
        h("h1", {}, "checkraise"),
        notice && h("p", { id: "link-notice", role: "alert" }, notice),
        h("p", { role: notice ? "note" : "alert" }, `This browser holds no token for seat ${place.seat} of match ${place.match}: open the seat's link, or `,
          h("a", { href: `#watch=${encodeURIComponent(place.match)}` }, "watch the match"), "."),
        h("p", {}, h("a", { href: "#", class: "standalone" }, "New match"))),
    );
  } else {
    const viewer = { match: place.match, seat: place.seat, token: place.token, notice };
    leave = playPage(root, viewer, serverSource(viewer));
  }
}

window.addEventListener("hashchange", route);
route();

// The footer names the server's version (the Catalog's server_version); left empty when the
// server cannot be reached (the page itself says so).
catalog.listGames({}).then(
  (reply) => {
    document.getElementById("version")!.textContent = `checkraise-server ${reply.serverVersion}`;
  },
  () => {},
);
