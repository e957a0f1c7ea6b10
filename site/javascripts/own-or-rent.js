// Own or rent: the calculator (owned cost per busy GPU-hour against a rental, break-even utilisation, payback, and a
// chart of both over utilisation) and "I own these GPUs" (what runs, how fast), from the page's data.
// No formula is written here: the page carries the answer to its first question (computed by the build), and any
// other question is answered by the same SQL in the browser (pipeline/sql/own/own_answer.sql over the formulas of
// pipeline/sql/macros/ownership.sql, run by DuckDB-WASM through planner-sql.js), loaded on the first change.
(function () {
  var form = document.getElementById("own-form");
  var out = document.getElementById("own-out");
  var dataEl = document.getElementById("own-data");
  if (!form || !out || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var P = data.parameters;

  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language
  var el = Atlas.el, money = Atlas.money;
  function num(v) { var n = parseFloat(v); return isFinite(n) ? n : null; }

  var byId = {};
  data.gpus.forEach(function (g) { byId[g.gpu_id] = g; });
  data.gpus.forEach(function (g) {
    var o = el("option", { value: g.gpu_id }, g.name);
    if (g.gpu_id === data.question_gpu) o.selected = true;
    form.gpu.appendChild(o);
  });

  // the page's starting values for the GPU and count chosen (the card's price with its host, its board power, its
  // on-demand price pick); the reader overwrites any of them, and changing the hosting keeps what was typed
  function defaults() {
    var g = byId[form.gpu.value], n = parseInt(form.count.value, 10) || 1;
    form.price.value = g.purchase_usd ? Math.round(g.purchase_usd * n) : "";
    form.watts.value = g.tdp_w ? Math.round(g.tdp_w * n) : "";
    form.kwh.value = P.electricity_usd_per_kwh;
    form.years.value = P.amortisation_years;
    form.rental.value = g.rental_usd_per_gpu_hour !== null && g.rental_usd_per_gpu_hour !== undefined
      ? g.rental_usd_per_gpu_hour : "";
  }

  // the form as own_answer.sql's question (own_question's columns), or null with a reason to show
  function question() {
    var q = { question_id: 1, gpus: parseInt(form.count.value, 10) || 1, purchase_usd: num(form.price.value),
              busy_w: num(form.watts.value), usd_per_kwh: num(form.kwh.value), hosting: form.hosting.value,
              years: num(form.years.value), busy_percent: num(form.util.value), rental_usd_per_gpu_hour: num(form.rental.value) };
    if (q.purchase_usd === null || q.busy_w === null || q.usd_per_kwh === null || !(q.years > 0)
        || !(q.busy_percent >= 1 && q.busy_percent <= 100) || q.gpus < 1) return null;
    if (!(q.rental_usd_per_gpu_hour > 0)) q.rental_usd_per_gpu_hour = null;
    return q;
  }

  function same(a, b) {
    return Object.keys(a).every(function (k) { return a[k] === b[k] || (a[k] === null && b[k] === undefined); });
  }

  function chart(a) {
    var w = 520, h = 220, pad = 44, ns = "http://www.w3.org/2000/svg", rental = a.rental_usd_per_gpu_hour;
    var pts = a.curve_usd_per_busy_gpu_hour.map(function (v, i) { return [(i + 1) * 0.05, v]; });
    var ys = pts.map(function (p) { return p[1]; }).concat([rental || 0]);
    var ymax = Math.max.apply(null, ys.filter(isFinite)) * 1.05 || 1;
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", Atlas.t("Owned cost per busy GPU-hour against utilisation, with the rental price"));
    svg.setAttribute("class", "atlas-own-chart");
    function x(v) { return pad + v * (w - pad - 10); }
    function y(v) { return h - pad + 10 - v / ymax * (h - pad - 10); }
    function line(list, cls) {
      var p = document.createElementNS(ns, "polyline");
      p.setAttribute("points", list.map(function (q) { return x(q[0]).toFixed(1) + "," + y(q[1]).toFixed(1); }).join(" "));
      p.setAttribute("fill", "none"); p.setAttribute("class", cls);
      svg.appendChild(p);
    }
    function text(tx, ty, s, anchor) {
      var t = document.createElementNS(ns, "text");
      t.setAttribute("x", tx); t.setAttribute("y", ty); t.setAttribute("font-size", "11");
      if (anchor) t.setAttribute("text-anchor", anchor);
      t.textContent = s; svg.appendChild(t);
    }
    line([[0, 0], [1, 0]], "atlas-axis");
    line(pts.filter(function (q) { return q[1] <= ymax; }), "atlas-owned");
    if (rental) line([[0, rental], [1, rental]], "atlas-rental");
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) { text(x(v), h - 8, Math.round(v * 100) + "%", "middle"); });
    text(4, y(ymax / 1.05) + 4, money(ymax / 1.05, 2));
    text(w - 12, y(rental || 0) - 4, rental ? Atlas.t("rent {price}", { price: money(rental, 2) }) : "", "end");
    text(x(0.5), 14, Atlas.t("owned, per busy GPU-hour (falls as the hardware is busier)"), "middle");
    return svg;
  }

  // own_answer.sql's row for question q, as a table and a chart
  function show(q, a) {
    var util = q.busy_percent;
    var rows = [[Atlas.t("Owned, per busy GPU-hour at {util}% busy", { util: util }), money(a.usd_per_busy_gpu_hour, 3)],
                [Atlas.t("of which amortisation + hosting (every hour, per GPU)"),
                 Atlas.t("{cost} per hour", { cost: money(a.fixed_usd_per_gpu_hour, 3) })],
                [Atlas.t("of which power (busy hours, per GPU)"), money(a.power_usd_per_gpu_hour, 3)]];
    if (a.rental_usd_per_gpu_hour) {
      var b = a.breakeven_utilisation;
      rows.push([Atlas.t("Renting the same, per GPU-hour"), money(a.rental_usd_per_gpu_hour, 3)]);
      rows.push([Atlas.t("Break-even utilisation"), b === null ? Atlas.t("never (power alone costs more than the rental)")
                 : b > 1 ? Atlas.t("never ({pct}%)", { pct: Math.round(b * 100) }) : Math.round(b * 100) + "%"]);
      rows.push([Atlas.t("Payback at {util}% busy", { util: util }),
                 a.payback_months === null ? Atlas.t("never") : Atlas.t("{n} months", { n: Math.round(a.payback_months) })]);
      rows.push([Atlas.t("Cheaper at {util}% busy", { util: util }), a.owning_cheaper ? Atlas.t("owning") : Atlas.t("renting")]);
    }
    var t = el("table", { "class": "atlas-own-table" });
    rows.forEach(function (r) {
      var tr = t.insertRow();
      tr.appendChild(el("th", { scope: "row" }, r[0]));
      tr.appendChild(el("td", {}, r[1]));
    });
    out.innerHTML = "";
    out.appendChild(t);
    out.appendChild(chart(a));
    out.removeAttribute("aria-busy");
    out.setAttribute("data-ready", "true");
  }

  function say(text) {
    out.innerHTML = "";
    out.appendChild(el("p", {}, text));
    out.removeAttribute("aria-busy");
  }

  var engine = null, asked = 0;
  function render() {
    var q = question();
    if (!q) {
      say(Atlas.t("Give a purchase price, the power while busy, an electricity price, years (above 0) " +
                  "and a busy share between 1 and 100%."));
      return;
    }
    if (same(q, data.question)) { show(q, data.answer); return; }
    var mine = ++asked;
    out.setAttribute("aria-busy", "true");
    out.removeAttribute("data-ready");
    if (!engine) engine = window.AtlasSql.open(form.getAttribute("data-api"), form.getAttribute("data-engine"), data.engine);
    engine.then(function (e) { return e.plan([q]); }).then(function (rows) {
      if (mine === asked) show(q, rows[0]);
    }).catch(function (err) {
      if (mine === asked) say(Atlas.t("The calculator could not run: {error}", { error: String(err && err.message || err) }));
    });
  }

  form.gpu.addEventListener("change", function () { defaults(); render(); });
  form.count.addEventListener("change", function () { defaults(); render(); });
  form.addEventListener("input", render);
  defaults();
  render();

  // I own these GPUs: what runs on them and how fast
  var owned2 = document.getElementById("owned-form"), out2 = document.getElementById("owned-out");
  if (!owned2 || !out2) return;
  var runs = null;
  function list() {
    var found = (runs.gpus[owned2.gpu.value] || []).filter(function (r) { return r[2] <= parseInt(owned2.count.value, 10); });
    out2.innerHTML = "";
    if (!found.length) { out2.appendChild(el("p", {}, Atlas.t("No current model fits on that many of these GPUs."))); return; }
    var t = el("table", {}), head = t.createTHead().insertRow();
    [Atlas.t("Model"), Atlas.t("Weights"), Atlas.t("GPUs it needs"), Atlas.t("Expected tokens/s, one user")].forEach(function (h) { head.appendChild(el("th", {}, h)); });
    var body = t.createTBody();
    found.forEach(function (r) {
      var tr = body.insertRow();
      [r[0], r[1].toUpperCase(), String(r[2]), Atlas.fmt(r[3], 3)].forEach(function (v) {
        tr.appendChild(el("td", {}, v));
      });
    });
    out2.appendChild(el("p", {}, Atlas.t("{n} model and weight combinations fit, largest models first.", { n: found.length })));
    out2.appendChild(el("div", { "class": "atlas-scroll" })).appendChild(t);
    out2.setAttribute("data-ready", "true");
  }
  owned2.addEventListener("change", function () { if (runs) list(); });
  Atlas.getJSON(owned2.getAttribute("data-src")).then(function (d) { runs = d; list(); });
})();
