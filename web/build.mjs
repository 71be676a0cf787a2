// `npm run bundle`: src/ -> dist/ (committed; checkraise-server embeds dist/ at build time).
// One minified script and one stylesheet; the output depends only on the sources and the
// locked packages, so scripts/test.sh can rebuild it and compare.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const out = process.env.CHECKRAISE_WEB_OUT ?? "dist";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  outfile: `${out}/app.js`,
  logLevel: "warning",
});
await build({
  entryPoints: ["src/app.css"],
  bundle: true,
  minify: true,
  outfile: `${out}/app.css`,
  logLevel: "warning",
});
copyFileSync("src/index.html", `${out}/index.html`);
