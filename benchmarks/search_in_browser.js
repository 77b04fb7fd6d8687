// Times the HTML report's search across files in Chromium (Playwright over /usr/bin/chromium):
//
//   .venv/bin/python benchmarks/html_render.py --files 5000 --keep /tmp/big-report
//   node benchmarks/search_in_browser.js /tmp/big-report
//
// Prints, on the index: the time from the first keystroke to the first name results (search.js loaded),
// the time to a first source search's first hits (shown as soon as the first chunks are read) and to its
// complete answer (every chunk read), and the time of a later
// source search for a string found nowhere (a scan of all the text).
"use strict";

const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { chromium } = require(path.join(__dirname, "..", "tests", "browser", "node_modules", "playwright-core"));

async function search(page, text) {
  const start = Date.now();
  await page.fill("#filter", text);
  await page.waitForFunction((t) => {
    const p = document.getElementById("search-results");
    return p.getAttribute("data-query") === t && !p.textContent.includes("Searching the source text");
  }, text, { timeout: 600000, polling: 10 });
  return (Date.now() - start) / 1000;
}

(async () => {
  const dir = process.argv[2];
  const browser = await chromium.launch({ executablePath: process.env.DOTCOV_CHROMIUM || "/usr/bin/chromium",
                                          args: ["--no-sandbox"] });
  const page = await browser.newPage();
  await page.goto(pathToFileURL(path.join(dir, "index.html")).href);
  await page.waitForSelector('body[data-dotcov="ready"]');
  const rows = await page.$$eval("#files tr.file", (r) => r.length);
  console.log(`${rows} files on the index`);
  console.log(`names (loads search.js): ${(await search(page, "ty")).toFixed(2)} s`);
  // The first source search, timed inside the page (Playwright's polling lags while the page is busy reading
  // chunks): from the input event to its first source hits (from the chunks read so far) and to its complete
  // answer (every chunk read).
  const times = await page.evaluate((text) => new Promise((resolve) => {
    const panel = document.getElementById("search-results"), input = document.getElementById("filter");
    const t0 = performance.now();
    let first = null;
    new MutationObserver(() => {
      if (panel.getAttribute("data-query") !== text) { return; }
      if (first === null && panel.querySelector('a[data-kind="source"]')) { first = performance.now() - t0; }
      if (!panel.textContent.includes("Searching the source text")) {
        resolve([first === null ? performance.now() - t0 : first, performance.now() - t0]);
      }
    }).observe(panel, { attributes: true, childList: true });
    input.value = text;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }), "type12");
  console.log(`first source search, first hits: ${(times[0] / 1000).toFixed(2)} s`);
  console.log(`first source search, every chunk read: ${(times[1] / 1000).toFixed(2)} s`);
  console.log(`source search found nowhere (scans all text): ${(await search(page, "zzqqxx")).toFixed(2)} s`);
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
