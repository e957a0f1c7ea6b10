// Click a header of a table inside .atlas-sortable to sort by that column (numbers numerically).
(function () {
  function value(cell) {
    var age = cell.querySelector("[data-days]");  // price ages (ages.js) sort by their day count
    if (age) return Number(age.getAttribute("data-days"));
    var raw = cell.textContent.trim();
    if (raw === "" || raw === "–") return null;  // missing values sort last either way
    var text = raw.replace(/[$,%]/g, "").replace(/\s.*$/, "");
    var n = parseFloat(text);
    return isNaN(n) ? cell.textContent.trim().toLowerCase() : n;
  }

  function attach() {
    document.querySelectorAll(".atlas-sortable table").forEach(function (tableEl) {
      if (tableEl.dataset.sortable) return;
      tableEl.dataset.sortable = "1";
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
  } else {
    document.addEventListener("DOMContentLoaded", attach);
  }
})();
