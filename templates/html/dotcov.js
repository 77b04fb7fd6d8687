/* dotcov HTML report: sorting and filtering on the index and the method pages, keyboard navigation on file pages. */
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

    function applyFilter() {
      var q = (filter.value || "").trim().toLowerCase(), count = 0;
      rows.forEach(function (row) {
        var match = !q || row.searchText.indexOf(q) >= 0;
        row.hidden = !match;
        if (match) { count += 1; }
      });
      var noun = rows.length === 1 ? " method" : " methods";
      shown.textContent = q ? count + " of " + rows.length + noun + " shown" : rows.length + noun;
      nomatch.hidden = count > 0;
    }

    filter.addEventListener("input", applyFilter);
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
    if (page === "index") { initIndex(); }
    else if (page === "file") { initFile(); }
    else if (page === "methods") { initMethods(); }
    document.body.setAttribute("data-dotcov", "ready");
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
}());
