// Own or rent: the calculator (owned cost per busy GPU-hour against a rental, break-even utilisation, payback, and a
// chart of both over utilisation) and "I own these GPUs" (what runs, how fast), from the page's data.
// The formulas are those of pipeline/sql/out_ownership_cost.sql.
(function () {
  var form = document.getElementById("own-form");
  var out = document.getElementById("own-out");
  var dataEl = document.getElementById("own-data");
  if (!form || !out || !dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var P = data.parameters;
  var HOURS = P.hours_per_year || 8760;

  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language
  var el = Atlas.el, money = Atlas.money;
  function num(v) { var n = parseFloat(v); return isFinite(n) ? n : null; }

  // one owned item: every hour pays amortisation and hosting; a busy hour also pays power
  function owned(q) {
    var amort = q.price / (q.years * HOURS);
    var kw = q.watts / 1000 * (q.hosting === "home" ? 1 : P.pue);
    var power = kw * q.kwh;
    var hosting = q.hosting === "home" ? 0 : q.count * P.rack_usd_per_month * 12 / HOURS / (P.servers_per_rack * P.server_gpus);
    return { amort: amort, power: power, hosting: hosting,
             perBusyGpuHour: function (u) { return ((amort + hosting) / u + power) / q.count; } };
  }

  var byId = {};
  data.gpus.forEach(function (g) { byId[g.gpu_id] = g; });
  var items = {};
  data.items.forEach(function (i) { items[i.gpu_id + "|" + i.hosting] = i; });

  data.gpus.forEach(function (g) {
    var o = el("option", { value: g.gpu_id }, g.name);
    if (g.gpu_id === "nvidia-rtx-4090-pcie-24gb") o.selected = true;
    form.gpu.appendChild(o);
  });

  // the page's assumptions for the GPU and count chosen; the reader overwrites any of them, and changing the hosting
  // keeps what was typed (it changes only what hosting costs)
  function defaults() {
    var g = byId[form.gpu.value], n = parseInt(form.count.value, 10) || 1;
    var item = items[g.gpu_id + "|" + form.hosting.value] || items[g.gpu_id + "|colocation"];
    var rental = item && item.rental_usd_per_gpu_hour !== null ? item.rental_usd_per_gpu_hour : g.rental_usd_per_gpu_hour;
    form.price.value = g.launch_price_usd ? Math.round(g.launch_price_usd * (1 + P.gpu_host_share) * n) : "";
    form.watts.value = g.tdp_w ? Math.round(g.tdp_w * n) : "";
    form.kwh.value = P.electricity_usd_per_kwh;
    form.years.value = P.amortisation_years;
    form.rental.value = rental !== null && rental !== undefined ? rental : "";
  }

  function chart(o, rental) {
    var w = 520, h = 220, pad = 44, ns = "http://www.w3.org/2000/svg";
    var us = [], u;
    for (u = 0.05; u <= 1.0001; u += 0.05) us.push(u);
    var ys = us.map(function (x) { return o.perBusyGpuHour(x); }).concat([rental || 0]);
    var ymax = Math.max.apply(null, ys.filter(isFinite)) * 1.05 || 1;
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", Atlas.t("Owned cost per busy GPU-hour against utilisation, with the rental price"));
    svg.setAttribute("class", "atlas-own-chart");
    function x(v) { return pad + v * (w - pad - 10); }
    function y(v) { return h - pad + 10 - v / ymax * (h - pad - 10); }
    function line(pts, cls) {
      var p = document.createElementNS(ns, "polyline");
      p.setAttribute("points", pts.map(function (q) { return x(q[0]).toFixed(1) + "," + y(q[1]).toFixed(1); }).join(" "));
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
    line(us.map(function (v) { return [v, o.perBusyGpuHour(v)]; }).filter(function (q) { return q[1] <= ymax; }), "atlas-owned");
    if (rental) line([[0, rental], [1, rental]], "atlas-rental");
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) { text(x(v), h - 8, Math.round(v * 100) + "%", "middle"); });
    text(4, y(ymax / 1.05) + 4, money(ymax / 1.05, 2));
    text(w - 12, y(rental || 0) - 4, rental ? Atlas.t("rent {price}", { price: money(rental, 2) }) : "", "end");
    text(x(0.5), 14, Atlas.t("owned, per busy GPU-hour (falls as the hardware is busier)"), "middle");
    return svg;
  }

  function render() {
    var q = { count: parseInt(form.count.value, 10) || 1, price: num(form.price.value), watts: num(form.watts.value),
              kwh: num(form.kwh.value), hosting: form.hosting.value, years: num(form.years.value),
              util: num(form.util.value), rental: num(form.rental.value) };
    out.innerHTML = "";
    if (q.price === null || q.watts === null || q.kwh === null || !q.years || !q.util || q.util > 100) {
      out.appendChild(el("p", {}, Atlas.t("Give a purchase price, the power while busy, an electricity price, years (above 0) " +
                                          "and a busy share between 1 and 100%.")));
      return;
    }
    var o = owned(q), u = q.util / 100, cost = o.perBusyGpuHour(u);
    var rows = [[Atlas.t("Owned, per busy GPU-hour at {util}% busy", { util: q.util }), money(cost, 3)],
                [Atlas.t("of which amortisation + hosting (every hour, per GPU)"),
                 Atlas.t("{cost} per hour", { cost: money((o.amort + o.hosting) / q.count, 3) })],
                [Atlas.t("of which power (busy hours, per GPU)"), money(o.power / q.count, 3)]];
    if (q.rental !== null && q.rental > 0) {
      var margin = q.rental * q.count - o.power;
      var breakeven = margin > 0 ? (o.amort + o.hosting) / margin : null;
      var monthly = (margin * u - o.hosting * (1 - u)) * HOURS / 12;  // saved per month against renting the busy hours
      rows.push([Atlas.t("Renting the same, per GPU-hour"), money(q.rental, 3)]);
      rows.push([Atlas.t("Break-even utilisation"), breakeven === null ? Atlas.t("never (power alone costs more than the rental)")
                 : breakeven > 1 ? Atlas.t("never ({pct}%)", { pct: Math.round(breakeven * 100) }) : Math.round(breakeven * 100) + "%"]);
      rows.push([Atlas.t("Payback at {util}% busy", { util: q.util }),
                 monthly > 0 ? Atlas.t("{n} months", { n: Math.round(q.price / monthly) }) : Atlas.t("never")]);
      rows.push([Atlas.t("Cheaper at {util}% busy", { util: q.util }), cost < q.rental ? Atlas.t("owning") : Atlas.t("renting")]);
    }
    var t = el("table", { "class": "atlas-own-table" });
    rows.forEach(function (r) {
      var tr = t.insertRow();
      tr.appendChild(el("th", { scope: "row" }, r[0]));
      tr.appendChild(el("td", {}, r[1]));
    });
    out.appendChild(t);
    out.appendChild(chart(o, q.rental));
  }

  form.gpu.addEventListener("change", function () { defaults(); render(); });
  form.count.addEventListener("change", function () { defaults(); render(); });
  form.addEventListener("input", render);
  defaults();
  render();
  out.setAttribute("data-ready", "true");

  // I own these GPUs: what runs on them and how fast
  var owned2 = document.getElementById("owned-form"), out2 = document.getElementById("owned-out");
  if (!owned2 || !out2) return;
  var runs = null;
  function show() {
    var list = (runs.gpus[owned2.gpu.value] || []).filter(function (r) { return r[2] <= parseInt(owned2.count.value, 10); });
    out2.innerHTML = "";
    if (!list.length) { out2.appendChild(el("p", {}, Atlas.t("No current model fits on that many of these GPUs."))); return; }
    var t = el("table", {}), head = t.createTHead().insertRow();
    [Atlas.t("Model"), Atlas.t("Weights"), Atlas.t("GPUs it needs"), Atlas.t("Expected tokens/s, one user")].forEach(function (h) { head.appendChild(el("th", {}, h)); });
    var body = t.createTBody();
    list.forEach(function (r) {
      var tr = body.insertRow();
      [r[0], r[1].toUpperCase(), String(r[2]), Atlas.fmt(r[3], 3)].forEach(function (v) {
        tr.appendChild(el("td", {}, v));
      });
    });
    out2.appendChild(el("p", {}, Atlas.t("{n} model and weight combinations fit, largest models first.", { n: list.length })));
    out2.appendChild(el("div", { "class": "atlas-scroll" })).appendChild(t);
    out2.setAttribute("data-ready", "true");
  }
  owned2.addEventListener("change", function () { if (runs) show(); });
  Atlas.getJSON(owned2.getAttribute("data-src")).then(function (d) { runs = d; show(); });
})();
