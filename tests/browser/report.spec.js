// The HTML report in a real browser, driven by Playwright (playwright-core) over Debian's chromium.
//
//   node tests/browser/report.spec.js REPORT_DIR
//
// REPORT_DIR is a report of tests/test_html.py's browser_result() (tests/test_html_browser.py writes it and
// runs this). Exits non-zero with the failed step on any failure, including a console error on any page.
"use strict";

const assert = require("node:assert/strict");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const { chromium } = require("playwright-core");

const DIR = process.argv[2];
const CHROMIUM = process.env.DOTCOV_CHROMIUM || "/usr/bin/chromium";
const url = (name) => pathToFileURL(path.join(DIR, name)).href;
const errors = [];

async function step(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (e) {
    console.log(`not ok - ${name}`);
    throw e;
  }
}

async function open(page, name) {
  await page.goto(url(name));
  await page.waitForSelector('body[data-dotcov="ready"]');
}

// The data-sort values of column `index` of the visible rows (per group on the index).
async function columnValues(page, rowSelector, index) {
  return page.$$eval(rowSelector, (rows, i) => rows.filter((r) => !r.hidden)
    .map((r) => r.cells[i].getAttribute("data-sort")), index);
}

function assertSorted(values, numeric, dir, what) {
  const v = values.map((x) => (numeric ? parseFloat(x) || 0 : x));
  for (let i = 1; i < v.length; i += 1) {
    const c = numeric ? v[i - 1] - v[i] : v[i - 1].localeCompare(v[i]);
    assert.ok(dir === "asc" ? c <= 0 : c >= 0, `${what} not sorted ${dir}: ${JSON.stringify(values)}`);
  }
}

async function sortEveryColumn(page, tableId, rowSelectors) {
  const keys = await page.$$eval(`#${tableId} thead th`, (ths) => ths.map((th) => [th.dataset.key, th.classList.contains("num")]));
  assert.ok(keys.length >= 6, `too few columns: ${keys}`);
  for (const [i, [key, num]] of keys.entries()) {
    for (const dir of ["asc", "desc"]) {
      let sorted = await page.getAttribute(`#${tableId}`, "data-sorted");
      // A click sorts ascending, a click on the sorted column flips it.
      await page.click(`#${tableId} thead th[data-key="${key}"] button`);
      sorted = await page.getAttribute(`#${tableId}`, "data-sorted");
      if (sorted !== `${key}-${dir}`) { await page.click(`#${tableId} thead th[data-key="${key}"] button`); }
      assert.equal(await page.getAttribute(`#${tableId}`, "data-sorted"), `${key}-${dir}`);
      for (const sel of rowSelectors) {
        const numeric = num || key === "name";  // the name column sorts by name order
        assertSorted(await columnValues(page, sel, i), numeric, dir, `${tableId} ${sel} by ${key}`);
      }
    }
  }
}

async function searchFor(page, text) {
  await page.fill("input[data-search]", "");
  await page.type("input[data-search]", text);
  await page.waitForFunction((t) => {
    const p = document.getElementById("search-results");
    return !p.hidden && p.getAttribute("data-query") === t &&
      !p.textContent.includes("Searching the source text");
  }, text);
  return page.$$eval("#search-results a.hit", (as) => as.map((a) => ({
    kind: a.dataset.kind, text: a.textContent, href: a.getAttribute("href"),
  })));
}

(async () => {
  assert.ok(DIR, "usage: node report.spec.js REPORT_DIR");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await context.newPage();
  page.on("console", (msg) => { if (msg.type() === "error") { errors.push(`${page.url()}: ${msg.text()}`); } });
  page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
  try {
    await step("index: sorts by every column, both ways, within each group", async () => {
      await open(page, "index.html");
      assert.equal(await page.getAttribute("#files", "data-sorted"), "name-asc");
      for (const g of await page.$$eval("#files tbody", (bs) => bs.map((b, i) => i))) {
        await sortEveryColumn(page, "files", [`#files tbody:nth-of-type(${g + 1}) tr.file`]);
      }
      await page.click('#files thead th[data-key="name"] button');
    });

    await step("index: the filter and 'hide fully covered'", async () => {
      await open(page, "index.html");
      await page.click("#filter");
      await searchFor(page, "parser");
      await page.keyboard.press("Escape");  // closes the search results, keeps the filter
      assert.equal(await page.isHidden("#search-results"), true);
      const names = await page.$$eval("#files tr.file", (rows) => rows.filter((r) => !r.hidden).map((r) => r.cells[0].textContent));
      assert.deepEqual(names, ["Calc/Parser.cs"]);
      assert.match(await page.textContent("#shown"), /^1 of \d+ files shown$/);
      await page.keyboard.press("Escape");  // clears it
      assert.equal(await page.inputValue("#filter"), "");
      await page.check("#hide-covered");
      const shown = await page.$$eval("#files tr.file", (rows) => rows.filter((r) => !r.hidden).map((r) => r.dataset.full));
      assert.ok(shown.length > 0 && shown.every((f) => f === "0"), `fully covered files shown: ${shown}`);
      await page.uncheck("#hide-covered");
      await page.click("#files tbody .toggle");  // collapse the first group
      assert.equal(await page.$$eval("#files tbody:first-of-type tr.file", (rows) => rows.filter((r) => !r.hidden).length), 0);
      await page.click("#files tbody .toggle");
    });

    await step("index: '/' focuses the search; a method found by name opens at its line", async () => {
      await open(page, "index.html");
      await page.keyboard.press("/");
      assert.equal(await page.evaluate(() => document.activeElement.id), "filter");
      const hits = await searchFor(page, "div");
      const method = hits.find((h) => h.kind === "method");
      assert.ok(method && method.text.startsWith("Div(System.Int32,System.Int32)"), JSON.stringify(hits));
      assert.equal(hits[0].kind === "file" || hits[0].kind === "class" || hits[0].kind === "method", true);
      const first = hits.findIndex((h) => h.kind === "method");
      for (let i = 0; i <= first; i += 1) { await page.keyboard.press("ArrowDown"); }
      await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
      assert.ok(page.url().endsWith(method.href), `${page.url()} is not ${method.href}`);
      assert.match(method.href, /#L11$/);
      assert.equal(await page.evaluate(() => document.querySelector(":target").id), "L11");
    });

    await step("search: classes, files, and source text; Escape closes the results", async () => {
      await open(page, "index.html");
      let hits = await searchFor(page, "Parsing.Parser");
      assert.deepEqual(hits.filter((h) => h.kind === "class").map((h) => h.text.split("Calc/")[0]), ["Calc.Parsing.Parser"]);
      hits = await searchFor(page, "util");
      assert.ok(hits.some((h) => h.kind === "file" && h.text.startsWith("Lib/Util.fs")), JSON.stringify(hits));
      hits = await searchFor(page, "divides");  // only in a comment of Calculator.cs: a source-text hit
      const src = hits.filter((h) => h.kind === "source");
      assert.equal(src.length, 1, JSON.stringify(hits));
      assert.match(src[0].href, /^Calc_Calculator_cs_[0-9a-f]+\.html#L5$/);
      assert.equal(await page.textContent("#search-results mark"), "divides");
      await page.keyboard.press("Escape");
      assert.equal(await page.isHidden("#search-results"), true);
      hits = await searchFor(page, "no such name anywhere");
      assert.equal(hits.length, 0);
      assert.match(await page.textContent("#search-results"), /Nothing matches/);
      await page.click("h1");  // a click elsewhere closes it
      assert.equal(await page.isHidden("#search-results"), true);
      await searchFor(page, "divides");
      await Promise.all([page.waitForNavigation(), page.click('#search-results a[data-kind="source"]')]);
      assert.equal(await page.evaluate(() => document.querySelector(":target").id), "L5");
    });

    await step("search: the first chunk's source hits show while later chunks are still being read", async () => {
      await open(page, "methods.html");
      await page.evaluate(() => {  // holds back every source chunk after the first (the report has one per file)
        const append = document.head.appendChild.bind(document.head);
        window.heldChunks = [];
        document.head.appendChild = (el) => (/search-src-[1-9][0-9]*\.js$/.test(el.src || "") ? window.heldChunks.push(el) && el : append(el));
        window.releaseChunks = () => { document.head.appendChild = append; window.heldChunks.splice(0).forEach(append); };
      });
      await page.click("input[data-search]");
      await page.type("input[data-search]", "divides");
      await page.waitForSelector('#search-results[data-query="divides"] a[data-kind="source"]');
      assert.match(await page.textContent("#search-results"), /Searching the source text\u2026 \(1 of \d+ parts read\)/);
      assert.equal(await page.getAttribute("#search-results", "data-source-parts"), "1");
      await page.evaluate(() => window.releaseChunks());
      const hits = await searchFor(page, "divides");
      assert.equal(hits.filter((h) => h.kind === "source").length, 1, JSON.stringify(hits));
      assert.equal(await page.getAttribute("body", "data-search-source"), "ready");
    });

    await step("index: links lead to the file pages, the method pages and back", async () => {
      await open(page, "index.html");
      await Promise.all([page.waitForNavigation(), page.click('#files a:text("Calc/Calculator.cs")')]);
      assert.match(await page.textContent("h1 .path"), /Calc\/Calculator\.cs/);
      await open(page, "index.html");
      await Promise.all([page.waitForNavigation(), page.click('nav.views a[href="methods.html"]')]);
      assert.equal(await page.getAttribute("body", "data-page"), "methods");
      await Promise.all([page.waitForNavigation(), page.click("#up")]);
      assert.equal(await page.getAttribute("body", "data-page"), "index");
    });

    await step("file page: j/k/n/p, [ ] between files, u to the index, / to search", async () => {
      await open(page, "index.html");
      const first = await page.getAttribute("#files tr.file a", "href");
      await open(page, first);
      const chunks = parseInt(await page.getAttribute("body", "data-chunks"), 10);
      assert.ok(chunks >= 1);
      await page.keyboard.press("j");
      const cur = await page.$eval(".l.cur", (e) => e.id);
      assert.ok(page.url().endsWith(`#${cur}`));
      assert.match(await page.getAttribute(`#${cur}`, "class"), /\b(mis|par)\b/);
      await page.keyboard.press("n");
      await page.keyboard.press("k");
      await page.keyboard.press("p");
      assert.equal(await page.$eval(".l.cur", (e) => e.id), cur);
      await Promise.all([page.waitForNavigation(), page.keyboard.press("]")]);
      const second = path.basename(new URL(page.url()).pathname);
      assert.notEqual(second, first);
      await page.waitForSelector('body[data-dotcov="ready"]');
      await Promise.all([page.waitForNavigation(), page.keyboard.press("[")]);
      assert.equal(path.basename(new URL(page.url()).pathname), first);
      await page.waitForSelector('body[data-dotcov="ready"]');
      await page.keyboard.press("/");
      assert.equal(await page.evaluate(() => document.activeElement.id), "search");
      const hits = await searchFor(page, "parse");
      assert.ok(hits.length > 0);
      await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);  // the first result
      assert.equal(path.basename(new URL(page.url()).pathname), hits[0].href.split("#")[0]);
      await page.waitForSelector('body[data-dotcov="ready"]');
      await Promise.all([page.waitForNavigation(), page.keyboard.press("u")]);
      assert.equal(await page.getAttribute("body", "data-page"), "index");
    });

    await step("methods page: sorts by every column, filters, links to the method's line", async () => {
      await open(page, "methods.html");
      await sortEveryColumn(page, "methods", ["#methods tbody tr"]);
      await page.keyboard.press("/");
      assert.equal(await page.evaluate(() => document.activeElement.id), "filter");
      await searchFor(page, "parse");
      await page.keyboard.press("Escape");
      const shown = await page.$$eval("#methods tbody tr", (rows) => rows.filter((r) => !r.hidden).map((r) => r.cells[1].textContent));
      assert.deepEqual(shown, ["Parse(System.String)"]);
      await Promise.all([page.waitForNavigation(), page.click('#methods a:text("Parse(System.String)")')]);
      assert.equal(await page.evaluate(() => document.querySelector(":target").id), "L6");
    });

    await step("hotspots page: highest CRAP first; the layout fits 1300 px", async () => {
      await open(page, "hotspots.html");
      assert.equal(await page.getAttribute("#methods", "data-sorted"), "crap-desc");
      assertSorted(await columnValues(page, "#methods tbody tr", -1 + (await page.$$eval("#methods thead th", (t) => t.length))), true, "desc", "hotspots");
      for (const name of ["methods.html", "hotspots.html", "index.html"]) {
        await open(page, name);
        const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
        assert.ok(scroll <= client, `${name} scrolls sideways at 1300 px (${scroll} > ${client})`);
      }
    });

    await step("history: the chart shows line and branch coverage; the index sorts by the change", async () => {
      await open(page, "index.html");
      const lines = await page.$$eval("#history svg polyline", (ps) => ps.map((p) => p.getAttribute("class")));
      assert.deepEqual(lines.sort(), ["branch", "line"]);
      const box = await page.$eval("#history svg", (s) => { const r = s.getBoundingClientRect(); return [r.width, r.height]; });
      assert.ok(box[0] > 300 && box[1] > 80, `chart drawn at ${box}`);
      assert.equal(await page.$$eval("#history svg circle.line", (c) => c.length), 3);
      await page.click('#files thead th[data-key="delta"] button');
      await page.click('#files thead th[data-key="delta"] button');
      assert.equal(await page.getAttribute("#files", "data-sorted"), "delta-desc");
      const top = await page.$$eval("#files tr.file", (rows) => rows.filter((r) => !r.hidden)
        .map((r) => [r.cells[0].textContent, r.cells[r.cells.length - 1].textContent]));
      assert.ok(top.some(([name, d]) => name === "Lib/Util.fs" && d === "+20.0"), JSON.stringify(top));
    });

    await step("dark theme follows prefers-color-scheme", async () => {
      for (const name of ["index.html", "methods.html"]) {
        await page.emulateMedia({ colorScheme: "dark" });
        await open(page, name);
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(13, 17, 23)");
        await page.emulateMedia({ colorScheme: "light" });
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(255, 255, 255)");
      }
    });

    await step("no console errors on any page", async () => {
      assert.deepEqual(errors, []);
    });
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  if (errors.length) { console.error(`console errors:\n${errors.join("\n")}`); }
  process.exit(1);
});
