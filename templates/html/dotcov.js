/* dotcov HTML report: sorting and filtering on the index and the method pages, keyboard navigation on file pages,
   search across files on every page. */
(function () {
  "use strict";

  var SORT_STORE = "dotcov.index.sort";

  function typing(event) {
    var t = event.target;
    return t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
  }

  function plainKey(event) {
    return !(event.ctrlKey || event.metaKey || event.altKey) && !typing(event);
  }

  function store(key, value) {
    try {
      if (value === undefined) { return window.localStorage.getItem(key); }
      window.localStorage.setItem(key, value);
    } catch (e) { /* file:// storage may be unavailable */ }
    return null;
  }

  /* --- search across files (every page): names from search.js, source text from search-src-N.js ------ */

  var SEARCH_LIMITS = { file: 8, "class": 8, method: 12, source: 20 };
  var searchData = null, searchLoading = false, searchWaiting = [];
  var sources = null, sourcesPending = 0, sourcesWaiting = [];

  function loadScript(src, failed) {
    var el = document.createElement("script");
    el.src = src;
    el.onerror = function () {
      document.body.setAttribute("data-search-error", src);
      if (failed) { failed(); }
    };
    document.head.appendChild(el);
  }

  // search.js calls this with the index (html_search.py).
  window.dotcovSearchIndex = function (data) {
    data.files.forEach(function (f) { f.key = f[0].toLowerCase(); });
    data.classes.forEach(function (c) {
      c.key = c[0].toLowerCase();
      c.short = c.key.split("/").pop().split(".").pop();
    });
    data.methods.forEach(function (m) {
      var cls = data.classes[m[1]];
      m.key = (cls[0] + "." + m[0]).toLowerCase();
      m.short = m[0].toLowerCase();
    });
    searchData = data;
    document.body.setAttribute("data-search", "ready");
    searchWaiting.splice(0).forEach(function (f) { f(); });
  };

  // each search-src-N.js calls this with [[file index, text], ...]. The open search is shown again after each
  // chunk, so the first source hits appear as soon as the first chunk is read, not after all of them.
  window.dotcovSearchSource = function (n, files) {
    files.forEach(function (f) { sources.push({ file: f[0], text: f[1], lower: f[1].toLowerCase() }); });
    if (files.length) { sources.sort(function (a, b) { return a.file - b.file; }); }  // chunks may come in any order
    sourcesPending -= 1;
    loadNextChunk();
    if (sourcesPending === 0) { document.body.setAttribute("data-search-source", "ready"); }
    sourcesWaiting.splice(0).forEach(function (f) { f(); });
  };

  function withIndex(then) {
    if (searchData) { then(); return; }
    searchWaiting.push(then);
    if (!searchLoading) { searchLoading = true; loadScript("search.js"); }
  }

  var nextChunk = 0;
  function loadNextChunk() {
    if (nextChunk >= searchData.chunks) { return; }
    // a chunk that cannot be loaded (a copied report missing it) only leaves its files unsearched
    loadScript("search-src-" + nextChunk + ".js", function () { window.dotcovSearchSource(-1, []); });
    nextChunk += 1;
  }

  function sourcesComplete() { return sources !== null && sourcesPending === 0; }

  // Starts loading the source text (once); `then` runs when the next chunk has been read (at once if all have).
  function withSources(then) {
    if (sourcesComplete()) { then(); return; }
    sourcesWaiting.push(then);
    if (!sources) {
      sources = [];
      sourcesPending = searchData.chunks;
      // Two chunks in flight at a time, in order: all at once, the browser would parse them all before the
      // page could show the first hits.
      loadNextChunk();
      loadNextChunk();
      if (sourcesPending === 0) {
        document.body.setAttribute("data-search-source", "ready");
        sourcesWaiting.splice(0).forEach(function (f) { f(); });
      }
    }
  }

  function matchNames(list, terms, limit) {
    var hits = [];
    list.forEach(function (item) {
      for (var i = 0; i < terms.length; i += 1) { if (item.key.indexOf(terms[i]) < 0) { return; } }
      var short = item.short || item.key.split("/").pop();
      var rank = short.indexOf(terms[0]) === 0 ? 0 : short.indexOf(terms[0]) > 0 ? 1 : 2;
      hits.push({ item: item, rank: rank });
    });
    hits.sort(function (a, b) { return a.rank - b.rank || a.item.key.length - b.item.key.length || (a.item.key < b.item.key ? -1 : 1); });
    return { shown: hits.slice(0, limit).map(function (h) { return h.item; }), total: hits.length };
  }

  function matchSource(q, limit) {
    var shown = [], total = 0, cap = 1000;
    for (var s = 0; s < sources.length && total < cap; s += 1) {
      var src = sources[s], from = 0, line = 1, counted = 0, at;
      while (total < cap && (at = src.lower.indexOf(q, from)) >= 0) {
        for (var i = counted; i < at; i += 1) { if (src.lower.charCodeAt(i) === 10) { line += 1; } }
        counted = at;
        total += 1;
        if (shown.length < limit) {
          if (!src.lines) { src.lines = src.text.split("\n"); }
          shown.push({ file: src.file, line: line, text: src.lines[line - 1] || "" });
        }
        var eol = src.lower.indexOf("\n", at);
        if (eol < 0) { break; }
        from = eol;  // one hit a line
      }
    }
    return { shown: shown, total: total, capped: total >= cap };
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function marked(text, q) {
    var span = el("span", "text"), i = q ? text.toLowerCase().indexOf(q) : -1;
    if (text.length > 160) {
      var start = Math.max(0, (i < 0 ? 0 : i) - 60);
      text = (start > 0 ? "\u2026" : "") + text.substr(start, 160);
      i = q ? text.toLowerCase().indexOf(q) : -1;
    }
    if (i < 0 || text.toLowerCase().length !== text.length) { span.textContent = text; return span; }
    span.appendChild(document.createTextNode(text.slice(0, i)));
    span.appendChild(el("mark", "", text.slice(i, i + q.length)));
    span.appendChild(document.createTextNode(text.slice(i + q.length)));
    return span;
  }

  function initSearch() {
    var input = document.querySelector("input[data-search]");
    var panel = document.getElementById("search-results");
    if (!input || !panel) { return null; }
    var timer = null, selected = -1, lastQuery = null;

    function options() { return Array.prototype.slice.call(panel.querySelectorAll("a.hit")); }

    function select(i) {
      var opts = options();
      if (!opts.length) { selected = -1; return; }
      selected = Math.max(0, Math.min(opts.length - 1, i));
      opts.forEach(function (o, k) { o.setAttribute("aria-selected", k === selected ? "true" : "false"); });
      opts[selected].scrollIntoView({ block: "nearest" });
      input.setAttribute("aria-activedescendant", opts[selected].id);
    }

    function close() {
      panel.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function section(title, result, make) {
      if (!result.total) { return; }
      var head = el("div", "sr-head", title + " ");
      var more = result.total > result.shown.length ? "(" + result.shown.length + " of " + result.total + (result.capped ? "+" : "") + ")" : "(" + result.total + ")";
      head.appendChild(el("span", "muted", more));
      panel.appendChild(head);
      result.shown.forEach(function (r) {
        var a = make(r);
        a.className = "hit";
        a.id = "sr-" + panel.querySelectorAll("a.hit").length;
        a.setAttribute("role", "option");
        panel.appendChild(a);
      });
    }

    function fileHref(fi, line) {
      return searchData.files[fi][1] + (line ? "#L" + line : "");
    }

    function render(q) {
      var terms = q.toLowerCase().split(/\s+/).filter(Boolean);
      panel.textContent = "";
      selected = -1;
      input.removeAttribute("aria-activedescendant");
      if (!terms.length) { close(); return; }
      var counts = 0;
      var files = matchNames(searchData.files, terms, SEARCH_LIMITS.file);
      section("Files", files, function (f) {
        var a = el("a"); a.href = f[1];
        a.appendChild(el("span", "name", f[0])); a.appendChild(el("span", "where", f[2] + "%"));
        a.setAttribute("data-kind", "file");
        return a;
      });
      var classes = matchNames(searchData.classes, terms, SEARCH_LIMITS["class"]);
      section("Classes", classes, function (c) {
        var a = el("a"); a.href = fileHref(c[1], c[2]);
        a.appendChild(el("span", "name", c[0])); a.appendChild(el("span", "where", searchData.files[c[1]][0]));
        a.setAttribute("data-kind", "class");
        return a;
      });
      var methods = matchNames(searchData.methods, terms, SEARCH_LIMITS.method);
      section("Methods", methods, function (m) {
        var cls = searchData.classes[m[1]];
        var a = el("a"); a.href = fileHref(cls[1], m[2]);
        a.appendChild(el("span", "name", m[0]));
        a.appendChild(el("span", "where", cls[0] + " \u00b7 " + m[3] + "%"));
        a.setAttribute("data-kind", "method");
        return a;
      });
      counts = files.total + classes.total + methods.total;
      var phrase = q.trim().toLowerCase();
      if (phrase.length >= 3 && sources && sources.length) {  // the chunks read so far
        var found = matchSource(phrase, SEARCH_LIMITS.source);
        section("Source", found, function (h) {
          var a = el("a"); a.href = fileHref(h.file, h.line);
          a.appendChild(marked(h.text.trim(), phrase));
          a.appendChild(el("span", "where", searchData.files[h.file][0] + ":" + h.line));
          a.setAttribute("data-kind", "source");
          return a;
        });
        counts += found.total;
      }
      if (phrase.length >= 3 && !sourcesComplete()) {
        var read = sources ? searchData.chunks - sourcesPending : 0;
        panel.appendChild(el("div", "sr-head muted", "Searching the source text\u2026" +
                             (read ? " (" + read + " of " + searchData.chunks + " parts read)" : "")));
        panel.setAttribute("data-source-parts", String(read));
        withSources(function () { if (lastQuery === q) { rerender(q); } });
      } else {
        panel.removeAttribute("data-source-parts");
      }
      if (!counts && !(phrase.length >= 3 && !sourcesComplete())) {
        panel.appendChild(el("div", "sr-none muted", "Nothing matches \u201c" + q.trim() + "\u201d."));
      }
      panel.hidden = false;
      input.setAttribute("aria-expanded", "true");
      panel.setAttribute("data-count", String(counts));
      panel.setAttribute("data-query", q);
      renderedAt = Date.now();
    }

    // After a chunk of source text: shown again, at most every 100 ms while chunks keep coming (the last at once).
    var rerenderTimer = null, renderedAt = 0;
    function rerender(q) {
      var wait = 100 - (Date.now() - renderedAt);
      if (sourcesComplete() || wait <= 0) {
        clearTimeout(rerenderTimer); rerenderTimer = null; render(q); return;
      }
      if (rerenderTimer === null) {
        rerenderTimer = setTimeout(function () { rerenderTimer = null; if (lastQuery === q) { render(q); } }, wait);
      }
    }

    function update() {
      var q = input.value;
      lastQuery = q;
      if (!q.trim()) { close(); return; }
      withIndex(function () { if (lastQuery === q) { render(q); } });
    }

    input.setAttribute("aria-controls", "search-results");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-autocomplete", "list");
    input.addEventListener("focus", function () { withIndex(function () {}); if (input.value.trim() && panel.childNodes.length) { panel.hidden = false; } });
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 60); });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" && !panel.hidden) { event.preventDefault(); select(selected + 1); }
      else if (event.key === "ArrowUp" && !panel.hidden) { event.preventDefault(); select(selected - 1); }
      else if (event.key === "Enter" && !panel.hidden) {
        var opts = options(), pick = opts[selected >= 0 ? selected : 0];
        if (pick && (selected >= 0 || document.body.getAttribute("data-page") === "file")) { event.preventDefault(); window.location.href = pick.href; }
      } else if (event.key === "Escape" && !panel.hidden) { event.preventDefault(); event.stopPropagation(); close(); }
    });
    document.addEventListener("click", function (event) {
      if (event.target !== input && !panel.contains(event.target)) { close(); }
    });
    return input;
  }

  /* --- index ------------------------------------------------------------ */

  function initIndex() {
    var table = document.getElementById("files");
    if (!table) { return; }
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var tfoot = table.tFoot;
    var groups = Array.prototype.slice.call(table.tBodies);
    var filter = document.getElementById("filter");
    var hideCovered = document.getElementById("hide-covered");
    var shown = document.getElementById("shown");
    var nomatch = document.getElementById("nomatch");
    var totalFiles = 0;

    groups.forEach(function (tbody) {
      var head = tbody.rows[0];
      var groupName = head.cells[0].textContent.trim().toLowerCase();
      tbody.fileRows = Array.prototype.slice.call(tbody.rows, 1);
      tbody.fileRows.forEach(function (row) {
        row.searchText = (row.cells[0].textContent + "\n" + row.cells[1].textContent + "\n" + groupName).toLowerCase();
        totalFiles += 1;
      });
      var toggle = head.querySelector("button.toggle");
      toggle.addEventListener("click", function () {
        var open = toggle.getAttribute("aria-expanded") !== "true";
        toggle.setAttribute("aria-expanded", open ? "true" : "false");
        tbody.classList.toggle("collapsed", !open);
        applyFilter();
      });
    });

    function value(row, index, numeric) {
      var raw = row.cells[index].getAttribute("data-sort") || "";
      return numeric ? parseFloat(raw) || 0 : raw;
    }

    function compare(index, numeric, dir) {
      return function (a, b) {
        var va = value(a, index, numeric), vb = value(b, index, numeric), c;
        if (numeric) { c = va - vb; } else { c = va.localeCompare(vb); }
        if (c === 0) {
          // ties keep name order, whatever the direction
          return parseInt(a.getAttribute("data-order"), 10) - parseInt(b.getAttribute("data-order"), 10);
        }
        return dir === "descending" ? -c : c;
      };
    }

    function sortBy(key, dir) {
      var index = -1;
      headers.forEach(function (th, i) {
        if (th.getAttribute("data-key") === key) { index = i; th.setAttribute("aria-sort", dir); }
        else { th.removeAttribute("aria-sort"); }
      });
      if (index < 0) { return false; }
      var numeric = headers[index].classList.contains("num") || key === "name";
      var cmp = compare(index, numeric, dir);
      groups.forEach(function (tbody) {
        tbody.fileRows.sort(cmp).forEach(function (row) { tbody.appendChild(row); });
      });
      var heads = groups.map(function (tbody) { var r = tbody.rows[0]; r.tbody = tbody; return r; });
      var groupCmp = compare(index, numeric, dir);
      heads.sort(function (a, b) {
        var c = groupCmp(a, b);
        return c !== 0 ? c : parseInt(a.tbody.getAttribute("data-order"), 10) - parseInt(b.tbody.getAttribute("data-order"), 10);
      });
      groups = heads.map(function (r) { return r.tbody; });
      groups.forEach(function (tbody) { table.insertBefore(tbody, tfoot); });
      table.setAttribute("data-sorted", key + "-" + (dir === "ascending" ? "asc" : "desc"));
      return true;
    }

    headers.forEach(function (th) {
      var button = th.querySelector("button");
      button.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
        var key = th.getAttribute("data-key");
        sortBy(key, dir);
        store(SORT_STORE, (dir === "descending" ? "-" : "") + key);
      });
    });

    function applyFilter() {
      var q = (filter.value || "").trim().toLowerCase();
      var hide = hideCovered.checked;
      var count = 0;
      groups.forEach(function (tbody) {
        var any = false;
        var collapsed = tbody.classList.contains("collapsed");
        tbody.fileRows.forEach(function (row) {
          var match = (!q || row.searchText.indexOf(q) >= 0) && !(hide && row.getAttribute("data-full") === "1");
          if (match) { any = true; count += 1; }
          row.hidden = !match || collapsed;
        });
        tbody.hidden = !any;
      });
      shown.textContent = (q || hide) ? count + " of " + totalFiles + " files shown" : totalFiles + " files";
      nomatch.hidden = count > 0 || totalFiles === 0;
    }

    filter.addEventListener("input", applyFilter);
    hideCovered.addEventListener("change", applyFilter);
    document.addEventListener("keydown", function (event) {
      if (event.key === "/" && plainKey(event)) { event.preventDefault(); filter.focus(); filter.select(); }
      else if (event.key === "Escape" && event.target === filter) { filter.value = ""; applyFilter(); filter.blur(); }
    });

    // "#sort=-cover" (shareable) wins over the remembered sort.
    var wanted = null, m = /(?:^#|&)sort=(-?)([a-z]+)/.exec(window.location.hash);
    if (m) { wanted = m[1] + m[2]; } else { wanted = store(SORT_STORE); }
    if (wanted) {
      var desc = wanted.charAt(0) === "-";
      if (!sortBy(desc ? wanted.slice(1) : wanted, desc ? "descending" : "ascending")) { sortBy("name", "ascending"); }
    } else {
      table.setAttribute("data-sorted", "name-asc");
    }
    applyFilter();  // the browser may have restored the filter and checkbox
  }

  /* --- file pages ------------------------------------------------------- */

  function initFile() {
    var lines = document.getElementById("lines");
    if (!lines) { return; }
    // Chunks: runs of consecutive missed or partial lines; j/k move between their first lines.
    var chunks = [];
    var previous = null;
    Array.prototype.forEach.call(lines.children, function (el) {
      var hot = el.classList.contains("mis") || el.classList.contains("par");
      if (hot && !previous) { chunks.push(el); }
      previous = hot ? el : null;
    });
    var current = -1;

    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    if (target) {
      // start from the chunk at or before the linked line
      chunks.forEach(function (el, i) {
        if (el === target || (el.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING)) { current = i; }
      });
    }

    function go(i) {
      if (!chunks.length) { return; }
      current = Math.max(0, Math.min(chunks.length - 1, i));
      var el = chunks[current];
      var old = lines.querySelector(".cur");
      if (old) { old.classList.remove("cur"); }
      el.classList.add("cur");
      el.scrollIntoView({ block: "center" });
      if (window.history && window.history.replaceState) { window.history.replaceState(null, "", "#" + el.id); }
    }

    function follow(rel) {
      var link = document.querySelector('a[rel="' + rel + '"]');
      if (link) { window.location.href = link.href; }
    }

    document.addEventListener("keydown", function (event) {
      if (!plainKey(event)) { return; }
      switch (event.key) {
        case "j": case "n": go(current + 1); break;
        case "k": case "p": go(current < 0 ? 0 : current - 1); break;
        case "u": window.location.href = document.getElementById("up").href; break;
        case "[": follow("prev"); break;
        case "]": follow("next"); break;
        default: return;
      }
      event.preventDefault();
    });
    document.body.setAttribute("data-chunks", String(chunks.length));
    initContexts();
  }

  // --show-contexts: a line's count opens to its tests' names, listed from the page's one copy of them
  // (<script id="contexts">: {"names": [...], "sets": [[name indexes], ...]}; each count's data-ctx is a set).
  function initContexts() {
    var holder = document.getElementById("contexts");
    if (!holder) { return; }
    var data = null;
    document.addEventListener("toggle", function (event) {
      var d = event.target;
      if (!d.classList || !d.classList.contains("ctx") || !d.open || d.querySelector("ul")) { return; }
      if (data === null) { data = JSON.parse(holder.textContent); }
      var ul = document.createElement("ul");
      (data.sets[parseInt(d.getAttribute("data-ctx"), 10)] || []).forEach(function (i) {
        var li = document.createElement("li");
        li.textContent = data.names[i];
        ul.appendChild(li);
      });
      d.appendChild(ul);
    }, true);  // toggle does not bubble: listen while it is captured
  }

  /* --- method pages: one table, sortable by any column, filterable ---------- */

  function initMethods() {
    var table = document.getElementById("methods");
    var shown = document.getElementById("shown");
    if (!table) { shown.textContent = "0 methods"; return; }
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var filter = document.getElementById("filter");
    var nomatch = document.getElementById("nomatch");
    rows.forEach(function (row) {
      row.searchText = (row.cells[0].textContent + "\n" + row.cells[1].textContent + "\n" +
                        (row.cells[1].querySelector("a").getAttribute("title") || "")).toLowerCase();
    });

    function sortBy(th, dir) {
      var index = headers.indexOf(th);
      var numeric = th.classList.contains("num");
      headers.forEach(function (h) { if (h !== th) { h.removeAttribute("aria-sort"); } });
      th.setAttribute("aria-sort", dir);
      rows.sort(function (a, b) {
        var va = a.cells[index].getAttribute("data-sort") || "", vb = b.cells[index].getAttribute("data-sort") || "", c;
        c = numeric ? (parseFloat(va) || 0) - (parseFloat(vb) || 0) : va.localeCompare(vb);
        if (c === 0) { return parseInt(a.getAttribute("data-order"), 10) - parseInt(b.getAttribute("data-order"), 10); }
        return dir === "descending" ? -c : c;
      }).forEach(function (row) { body.appendChild(row); });
      table.setAttribute("data-sorted", th.getAttribute("data-key") + "-" + (dir === "ascending" ? "asc" : "desc"));
    }

    headers.forEach(function (th) {
      th.querySelector("button").addEventListener("click", function () {
        sortBy(th, th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
      });
    });

    // Members C# generated for records are hidden unless the checkbox asks for them (they stay in every total).
    var showRecordMembers = document.getElementById("show-record-members");

    function applyFilter() {
      var q = (filter.value || "").trim().toLowerCase(), count = 0, listed = 0;
      var records = showRecordMembers && showRecordMembers.checked;
      rows.forEach(function (row) {
        var wanted = records || !row.classList.contains("record-member");
        var match = wanted && (!q || row.searchText.indexOf(q) >= 0);
        row.hidden = !match;
        if (wanted) { listed += 1; }
        if (match) { count += 1; }
      });
      var noun = listed === 1 ? " method" : " methods";
      shown.textContent = q ? count + " of " + listed + noun + " shown" : listed + noun;
      nomatch.hidden = count > 0;
    }

    filter.addEventListener("input", applyFilter);
    if (showRecordMembers) { showRecordMembers.addEventListener("change", applyFilter); }
    document.addEventListener("keydown", function (event) {
      if (event.key === "/" && plainKey(event)) { event.preventDefault(); filter.focus(); filter.select(); }
      else if (event.key === "Escape" && event.target === filter) { filter.value = ""; applyFilter(); filter.blur(); }
    });
    var m = /(?:^#|&)sort=(-?)([a-z]+)/.exec(window.location.hash);
    if (m) {
      headers.forEach(function (th) {
        if (th.getAttribute("data-key") === m[2]) { sortBy(th, m[1] ? "descending" : "ascending"); }
      });
    }
    if (!table.getAttribute("data-sorted")) {
      var initial = table.querySelector("th[aria-sort]");
      table.setAttribute("data-sorted", initial.getAttribute("data-key") + "-" +
                         (initial.getAttribute("aria-sort") === "ascending" ? "asc" : "desc"));
    }
    applyFilter();
  }

  function start() {
    var page = document.body.getAttribute("data-page");
    var search = initSearch();
    if (search && page === "file") {
      search.addEventListener("keydown", function (event) {
        if (event.key === "Escape") { search.value = ""; search.blur(); }
      });
      document.addEventListener("keydown", function (event) {
        if (event.key === "/" && plainKey(event)) { event.preventDefault(); search.focus(); search.select(); }
      });
    }
    if (page === "index") { initIndex(); }
    else if (page === "file") { initFile(); }
    else if (page === "methods") { initMethods(); }
    document.body.setAttribute("data-dotcov", "ready");
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
}());
