// The page: a new-match form, or a match seen by a seat or a spectator, as the URL fragment
// says (links.ts).
import { catalog } from "./api";
import { h } from "./dom";
import { currentPlace } from "./links";
import { playPage } from "./play";
import { setupPage } from "./setup";

const root = document.getElementById("app")!;
let leave: (() => void) | null = null;

function route() {
  leave?.();
  leave = null;
  const place = currentPlace();
  if (place.page === "new") {
    setupPage(root);
  } else if (place.page === "replay") {
    leave = playPage(root, { match: place.match, seat: null, token: null, replay: true, pageSize: place.pageSize });
  } else if (place.page === "watch") {
    leave = playPage(root, { match: place.match, seat: null, token: null });
  } else if (place.token === null) {
    root.replaceChildren(
      h("main", {},
        h("h1", {}, "checkraise"),
        h("p", { role: "alert" }, `This browser holds no token for seat ${place.seat} of match ${place.match}: open the seat's link, or `,
          h("a", { href: `#watch=${encodeURIComponent(place.match)}` }, "watch the match"), "."),
        h("p", {}, h("a", { href: "#" }, "New match"))),
    );
  } else {
    leave = playPage(root, { match: place.match, seat: place.seat, token: place.token });
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
