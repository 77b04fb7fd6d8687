// Photographs an HTML report's pages for docs/reports.md (scripts/screenshots.sh runs this).
//
//   node tests/browser/screenshots.js REPORT_DIR OUT_DIR
//
// Playwright (playwright-core) over Debian's chromium, as the browser test; 1 CSS pixel = 1 image pixel.
"use strict";

const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { chromium } = require("playwright-core");

const [DIR, OUT] = process.argv.slice(2);
const CHROMIUM = process.env.DOTCOV_CHROMIUM || "/usr/bin/chromium";
const url = (name) => pathToFileURL(path.join(DIR, name)).href;
const WIDTH = 1280;

(async () => {
  if (!DIR || !OUT) { throw new Error("usage: node screenshots.js REPORT_DIR OUT_DIR"); }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: WIDTH, height: 760 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  async function open(name, scheme = "light") {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(url(name));
    await page.waitForSelector('body[data-dotcov="ready"]');
  }
  async function shot(name, options = {}) {
    await page.screenshot({ path: path.join(OUT, name), ...options });
    console.log(`wrote ${path.join(OUT, name)}`);
  }

  await open("index.html");
  await shot("index.png", { fullPage: true });
  const calculator = await page.$eval('#files a[href^="Calc_Calculator_cs_"]', (a) => a.getAttribute("href"));
  // The file page at its first partly covered line, with its branch note.
  await open(`${calculator}`);
  await page.evaluate(() => {
    const el = document.querySelector(".l.par") || document.querySelector(".l.mis");
    if (el) { window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 260); }
  });
  await shot("file.png");
  await open("methods.html");
  await shot("methods.png");
  await open("hotspots.html");
  await shot("hotspots.png", { fullPage: true });
  await open("index.html");
  await page.click("#filter");
  await page.keyboard.type("divide");
  await page.waitForSelector('#search-results[data-query="divide"]:not([hidden])');
  await page.waitForFunction(() => !document.getElementById("search-results").textContent.includes("Searching"));
  await shot("search.png", { clip: { x: 0, y: 0, width: WIDTH, height: 560 } });
  await open("index.html", "dark");
  await shot("index-dark.png");
  await open(`${calculator}`, "dark");
  await shot("file-dark.png", { clip: { x: 0, y: 0, width: WIDTH, height: 560 } });
  await browser.close();
  if (errors.length) { throw new Error(`page errors: ${errors.join("; ")}`); }
})().catch((e) => { console.error(e && e.stack ? e.stack : e); process.exit(1); });
