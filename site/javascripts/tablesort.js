// Tables inside .atlas-sortable: click a header to sort by that column (numbers numerically); long tables
// get a filter box; columns listed in data-low (0-based) are hidden on a phone (atlas.css).
(function () {
  var FILTER_ROWS = 25;
  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language

  function value(cell) {
    var age = cell.querySelector("[data-days]");  // price ages (ages.js) sort by their day count
    if (age) return Number(age.getAttribute("data-days"));
    var raw = cell.textContent.trim();
    if (raw === "" || raw === "–") return null;  // missing values sort last either way
    var text = raw.replace(/[$,%]/g, "").replace(/\s.*$/, "");
    var n = parseFloat(text);
    return isNaN(n) ? cell.textContent.trim().toLowerCase() : n;
  }

  function addFilter(wrapper, tableEl) {
    var rows = tableEl.tBodies[0] ? tableEl.tBodies[0].rows : [];
    if (rows.length <= FILTER_ROWS) return;
    var box = document.createElement("div");
    box.className = "atlas-filter";
    var label = document.createElement("label");
    label.textContent = Atlas.t("Filter rows") + " ";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = Atlas.t("e.g. H100, aws, spot");
    label.appendChild(input);
    var count = document.createElement("span");
    count.setAttribute("aria-live", "polite");
    count.textContent = Atlas.t("{n} rows", { n: rows.length });
    box.appendChild(label);
    box.appendChild(count);
    wrapper.insertBefore(box, wrapper.firstChild);
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      Array.prototype.forEach.call(rows, function (r) {
        var text = r.textContent.toLowerCase();
        var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
        r.hidden = !keep;
        if (keep) shown += 1;
      });
      count.textContent = Atlas.t("{shown} of {n} rows", { shown: shown, n: rows.length });
    });
  }

  function markLow(wrapper, tableEl) {
    var low = (wrapper.getAttribute("data-low") || "").split(",").filter(Boolean).map(Number);
    if (!low.length) return;
    Array.prototype.forEach.call(tableEl.rows, function (r) {
      low.forEach(function (i) { if (r.cells[i]) r.cells[i].classList.add("atlas-low"); });
    });
  }

  function attach() {
    document.querySelectorAll(".atlas-sortable, .atlas-plain").forEach(function (wrapper) {
      var tableEl = wrapper.querySelector("table");
      if (!tableEl || tableEl.dataset.sortable) return;
      tableEl.dataset.sortable = "1";
      markLow(wrapper, tableEl);
      if (!wrapper.classList.contains("atlas-sortable")) return;
      addFilter(wrapper, tableEl);
      var headers = tableEl.querySelectorAll("thead th");
      headers.forEach(function (th, index) {
        th.addEventListener("click", function () {
          var ascending = th.getAttribute("aria-sort") !== "ascending";
          headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
          var body = tableEl.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (a, b) {
            var x = value(a.cells[index]), y = value(b.cells[index]);
            if (x === null || y === null) return (x === null) - (y === null);
            if (typeof x !== typeof y) { x = String(x); y = String(y); }
            return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
      });
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(attach);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", attach);
  } else {
    attach();
  }
})();
