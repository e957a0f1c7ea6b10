// Price ages are counted here, in the reader's browser, from each price's observation date: a static
// page stays right on every later day without a rebuild. Without JavaScript the cell shows the date only.
(function () {
  var DAY = 24 * 60 * 60 * 1000;
  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language

  function label(days) {
    if (days <= 0) return Atlas.t("today");
    if (days === 1) return Atlas.t("1 day ago");
    return Atlas.t("{n} days ago", { n: days });
  }

  function render() {
    var today = new Date();
    var todayUtc = Date.UTC(today.getFullYear(), today.getMonth(), today.getDate());
    document.querySelectorAll("time.atlas-age[datetime]").forEach(function (el) {
      var parts = el.getAttribute("datetime").split("-").map(Number);
      if (parts.length !== 3 || parts.some(isNaN)) return;
      var days = Math.round((todayUtc - Date.UTC(parts[0], parts[1] - 1, parts[2])) / DAY);
      el.textContent = el.getAttribute("datetime") + " \u00b7 " + label(days);
      el.setAttribute("title", Atlas.t("observed on {date}", { date: el.getAttribute("datetime") }));
      el.setAttribute("data-days", String(days));
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(render);
  } else {
    document.addEventListener("DOMContentLoaded", render);
  }
})();
