// `npm run bundle`: src/ -> dist/ (committed; checkraise-server embeds dist/ at build time),
// and the notebook widget (src/widget.ts, the page's own table code) -> the Python package's
// checkraise/notebook/ (committed; the wheel carries it). One minified script and one
// stylesheet each; the output depends only on the sources and the locked packages, so
// scripts/test.sh can rebuild both and compare.
import { build, transform } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const out = process.env.CHECKRAISE_WEB_OUT ?? "dist";
const widgetOut = process.env.CHECKRAISE_WIDGET_OUT ?? "../python/checkraise/notebook";
mkdirSync(out, { recursive: true });
mkdirSync(widgetOut, { recursive: true });
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

// The widget: an anywidget module (its default export renders into a notebook's output).
await build({
  entryPoints: ["src/widget.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  outfile: `${widgetOut}/widget.js`,
  logLevel: "warning",
});
// The page's stylesheet scoped to the widget's box, so that it styles no other part of the
// notebook: its :root and body rules become the box's own, every other rule is nested in it.
const page = readFileSync("src/app.css", "utf8")
  .replace(/^:root \{/m, "& {")
  .replace(/^body \{[^}]*\}\n/m, "");
const scoped = await transform(`.checkraise-widget {\n${page}\n}\n${readFileSync("src/widget.css", "utf8")}`, {
  loader: "css",
  minify: true,
  target: "chrome100",
  logLevel: "warning",
});
writeFileSync(`${widgetOut}/widget.css`, scoped.code);
