// The Planner: reads the ranked options the build wrote (api/v1/plan/<model>.json, from the same SQL as
// `gpu-atlas plan`), shows the scenario chosen in the form, and keeps the choice in the address.
(function () {
  var form = document.getElementById("planner-form");
  if (!form) return;
  var api = form.getAttribute("data-api");
  var results = document.getElementById("planner-results");
  var summary = document.getElementById("planner-summary");
  var index = null;
  var cache = {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function fill(select, values) {  // values: [[value, label], ...]
    var current = select.value;
    select.innerHTML = "";
    values.forEach(function (v) { select.appendChild(el("option", { value: String(v[0]) }, v[1])); });
    if (values.some(function (v) { return String(v[0]) === current; })) select.value = current;
  }

  function fmt(n, digits) {
    if (n === null || n === undefined) return "–";
    return Number(n).toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 0 : digits,
                                               minimumFractionDigits: digits === undefined ? 0 : digits });
  }

  function days(date) {
    var p = date.split("-").map(Number);
    var now = new Date();
    return Math.round((Date.UTC(now.getFullYear(), now.getMonth(), now.getDate()) - Date.UTC(p[0], p[1] - 1, p[2])) / 864e5);
  }

  function model() {
    return index.models.filter(function (m) { return m.model_id === form.model.value; })[0];
  }

  function syncControls() {
    var m = model();
    fill(form.context, m.contexts.map(function (c) { return [c, c.toLocaleString("en-US")]; }));
    var serve = form.workload.value === "serve";
    ["precision", "context", "users"].forEach(function (n) { form[n].closest("label").hidden = !serve; });
    form.tokens.closest("label").hidden = serve;
    if (form.workload.value === "pretrain" && !form.tokens.dataset.touched) {
      form.tokens.value = String(Math.round(20 * m.params_b));  // 20 tokens per parameter, in billions
    }
  }

  function key() {
    var tier = form.tier.value;
    if (form.workload.value === "serve") {
      return ["serve", form.precision.value, form.context.value, form.users.value, tier].join("|");
    }
    return form.workload.value + "|" + tier;
  }

  function load(id) {
    if (!cache[id]) {
      cache[id] = fetch(api + id + ".json").then(function (r) {
        if (!r.ok) throw new Error("could not load " + id + ".json: " + r.status);
        return r.json();
      });
    }
    return cache[id];
  }

  function writeUrl() {
    var q = new URLSearchParams();
    ["model", "workload", "precision", "context", "users", "tier"].forEach(function (n) { q.set(n, form[n].value); });
    if (form.workload.value !== "serve") q.set("tokens", form.tokens.value);
    history.replaceState(null, "", "?" + q.toString());
  }

  function render(data) {
    var cols = data.columns;
    var rows = (data.scenarios[key()] || []).map(function (r) {
      var o = {};
      cols.forEach(function (c, i) { o[c] = r[i]; });
      return o;
    });
    var serve = form.workload.value === "serve";
    var scale = 1;
    if (!serve && rows.length && rows[0].job_tokens) {
      var wanted = Number(form.tokens.value) * 1e9;
      if (wanted > 0) scale = wanted / rows[0].job_tokens;  // cost and time are linear in the tokens
    }
    var m = model();
    var what = serve
      ? form.precision.value.toUpperCase() + " weights, " + Number(form.context.value).toLocaleString("en-US")
        + " tokens of context, " + form.users.value + " concurrent users"
      : index.workloads[form.workload.value] + " on " + fmt(Number(form.tokens.value), 3) + " B tokens";
    summary.innerHTML = "";
    summary.appendChild(el("strong", {}, m.name));
    summary.appendChild(document.createTextNode(", " + what + ", " + (form.tier.value === "any" ? "every tier" : form.tier.value + " prices")
      + ": " + (rows.length ? "the " + rows.length + " cheapest options " + (serve ? "per million output tokens." : "per job.")
                            : "no priced offer holds it on up to 8 GPUs.")));
    results.innerHTML = "";
    if (!rows.length) return;
    var table = el("table", { "data-scenario": key() });
    var head = ["#", "Deployment", "Provider", "Tier", serve ? "$/M tokens" : "$ per job", serve ? "$/hour" : "Hours",
                "Tokens/s expected (bound)", "Headroom", "Price date", "Why this rank"];
    var low = { 3: 1, 5: 1, 6: 1, 7: 1, 9: 1 };
    var tr = el("tr");
    head.forEach(function (h, i) { tr.appendChild(el("th", low[i] ? { "class": "atlas-low" } : {}, h)); });
    table.appendChild(el("thead")).appendChild(tr);
    var body = table.appendChild(el("tbody"));
    rows.forEach(function (o) {
      var row = el("tr");
      var gpu = el("td");
      gpu.appendChild(document.createTextNode(o.gpu_count + " × "));
      gpu.appendChild(el("a", { href: "../gpus/" + o.gpu_id + "/" }, o.gpu_name));
      var tier = o.pricing_tier + (o.statistic !== "list" ? " · " + o.statistic : "");
      var cells = [String(o.rank), gpu, o.provider + " · " + o.offering, tier,
                   serve ? "$" + fmt(o.usd_per_million_tokens, 3) : "$" + fmt(o.usd_per_job * scale),
                   serve ? "$" + fmt(o.usd_per_hour, 2) : fmt(o.job_hours * scale, 1),
                   fmt(o.expected_tokens_per_s) + " (bound " + fmt(o.bound_tokens_per_s) + ")"
                     + (serve ? "; " + fmt(o.expected_tokens_per_s_per_user, 1) + " per user" : ""),
                   fmt(o.headroom_gb) + " GB of " + fmt(o.capacity_gb),
                   o.observed_on + " · " + days(o.observed_on) + " days ago", o.why];
      cells.forEach(function (c, i) {
        var td = typeof c === "string" ? el("td", {}, c) : c;
        if (low[i]) td.className = "atlas-low";
        if (i === 9) td.className = (td.className + " atlas-why").trim();
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    var wrap = el("div", { "class": "md-typeset__scrollwrap" });
    wrap.appendChild(el("div", { "class": "md-typeset__table" })).appendChild(table);
    results.appendChild(wrap);
  }

  function update() {
    syncControls();
    writeUrl();
    results.setAttribute("aria-busy", "true");
    return load(form.model.value).then(function (data) {
      render(data);
      results.removeAttribute("aria-busy");
      results.setAttribute("data-ready", "true");
    }).catch(function (err) {
      results.textContent = String(err);
      results.setAttribute("data-error", String(err));
    });
  }

  fetch(api + "index.json").then(function (r) { return r.json(); }).then(function (idx) {
    index = idx;
    var q = new URLSearchParams(location.search);
    var d = idx["default"];
    fill(form.model, idx.models.map(function (m) { return [m.model_id, m.name]; }));
    fill(form.workload, Object.keys(idx.workloads).map(function (w) { return [w, idx.workloads[w]]; }));
    fill(form.precision, idx.precisions.map(function (p) { return [p, p.toUpperCase()]; }));
    fill(form.users, idx.users.map(function (u) { return [u, String(u)]; }));
    fill(form.tier, idx.tiers.map(function (t) { return [t, t === "any" ? "any tier" : t]; }));
    form.model.value = q.get("model") || d.model;
    form.workload.value = q.get("workload") || d.workload;
    form.precision.value = q.get("precision") || d.precision;
    form.users.value = q.get("users") || String(d.users);
    form.tier.value = q.get("tier") || d.tier;
    if (q.get("tokens")) { form.tokens.value = q.get("tokens"); form.tokens.dataset.touched = "1"; }
    syncControls();
    form.context.value = q.get("context") || String(d.context);
    if (!form.context.value) form.context.selectedIndex = form.context.options.length - 1;
    form.tokens.addEventListener("input", function () { form.tokens.dataset.touched = "1"; });
    form.addEventListener("change", update);
    form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
    update();
  });
})();
