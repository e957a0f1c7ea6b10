// The Planner's tables for a question the page was not built with: the serving options (with each option's load
// curve, drawn on request) and the training options, with the words the data files carry in the reader's language
// and each price's date and age. planner.js calls them (window.AtlasPlannerTables).
(function () {
  var Atlas = window.Atlas;
  if (!Atlas || !document.getElementById("planner-form")) return;
  var el = Atlas.el, fmt = Atlas.fixed, money = Atlas.money;
  // the English words the data files (api/v1/plan/*.json) carry, as the reader's language shows them
  var WORDS = {
    "serve": Atlas.t("serve"), "fine-tune (full)": Atlas.t("fine-tune (full)"),
    "fine-tune (LoRA)": Atlas.t("fine-tune (LoRA)"), "fine-tune (QLoRA)": Atlas.t("fine-tune (QLoRA)"),
    "pre-train": Atlas.t("pre-train"), "TensorRT-LLM (NVIDIA only)": Atlas.t("TensorRT-LLM (NVIDIA only)"),
    "on-demand": Atlas.t("on-demand"), "spot": Atlas.t("spot"), "reserved": Atlas.t("reserved"),
    "current": Atlas.t("current"), "superseded": Atlas.t("superseded"), "legacy": Atlas.t("legacy"),
    "list price": Atlas.t("list price"),
    "prefill (compute)": Atlas.t("prefill (compute)"), "decode (memory bandwidth)": Atlas.t("decode (memory bandwidth)"),
    "decode (compute)": Atlas.t("decode (compute)"), "compute": Atlas.t("compute"),
    "lowest $ per million tokens": Atlas.t("lowest $ per million tokens"),
    "ties with #1 (within 0.5%)": Atlas.t("ties with #1 (within 0.5%)")
  };
  function word(v) {
    if (Object.prototype.hasOwnProperty.call(WORDS, v)) return WORDS[v];
    var n = /^marketplace median over (\d+) listings$/.exec(v);
    if (n) return Atlas.t("marketplace median over {n} listings", { n: n[1] });
    n = /^(\d+)% more per million tokens than #1$/.exec(v);
    if (n) return Atlas.t("{pct}% more per million tokens than #1", { pct: n[1] });
    return v;
  }

  function days(date) {
    var p = date.split("-").map(Number), now = new Date();
    return Math.round((Date.UTC(now.getFullYear(), now.getMonth(), now.getDate()) - Date.UTC(p[0], p[1] - 1, p[2])) / 864e5);
  }
  function dated(o) {
    if (!o.observed_on) return "–";
    if (o.observed_date_known === false && o.observed_no_later_than) {
      // a copy read at a dated commit: its prices are from that day or before
      return Atlas.t("no later than {date} ({n} days ago)", { date: o.observed_no_later_than,
                                                             n: fmt(days(o.observed_no_later_than)) });
    }
    if (o.observed_date_known === false) return Atlas.t("undated copy, read {date}", { date: o.observed_on });
    var n = days(o.observed_on);
    if (n === 0) return Atlas.t("{date} (today)", { date: o.observed_on });
    return n === 1 ? Atlas.t("{date} ({n} day ago)", { date: o.observed_on, n: fmt(n) })
      : Atlas.t("{date} ({n} days ago)", { date: o.observed_on, n: fmt(n) });
  }

  // a small chart: throughput per GPU (y) against tokens/s per user (x) as users double
  function curveSvg(points) {
    var w = 260, h = 130, pad = 34;
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("class", "atlas-curve");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", Atlas.t("Output tokens per second per GPU against tokens per second per user, " +
                                           "{n} loads from {first} to {last} users",
                                           { n: points.length, first: points[0].users, last: points[points.length - 1].users }));
    var maxX = Math.max.apply(null, points.map(function (p) { return p.per_user; }));
    var maxY = Math.max.apply(null, points.map(function (p) { return p.per_gpu; }));
    function X(v) { return pad + (w - pad - 8) * v / maxX; }
    function Y(v) { return h - pad + 8 - (h - pad - 4) * v / maxY; }
    function add(tag, attrs, text) {
      var e = document.createElementNS(ns, tag);
      Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
      if (text) e.textContent = text;
      svg.appendChild(e);
      return e;
    }
    add("line", { x1: pad, y1: Y(0), x2: w - 8, y2: Y(0), class: "axis" });
    add("line", { x1: pad, y1: Y(0), x2: pad, y2: 4, class: "axis" });
    add("text", { x: w - 8, y: h - 4, "text-anchor": "end" }, Atlas.t("tok/s per user → {max}", { max: fmt(maxX) }));
    add("text", { x: 2, y: 12 }, fmt(maxY));
    add("text", { x: 2, y: 24 }, Atlas.t("tok/s/GPU"));
    add("polyline", { points: points.map(function (p) { return X(p.per_user) + "," + Y(p.per_gpu); }).join(" "),
                      class: "line" });
    points.forEach(function (p) {
      var c = add("circle", { cx: X(p.per_user), cy: Y(p.per_gpu), r: 3 });
      var t = document.createElementNS(ns, "title");
      var shown = { users: fmt(p.users), each: fmt(p.per_user, 1), gpu: fmt(p.per_gpu) };
      t.textContent = Number(p.users) === 1 ? Atlas.t("{users} user: {each} tok/s each, {gpu} tok/s per GPU", shown)
        : Atlas.t("{users} users: {each} tok/s each, {gpu} tok/s per GPU", shown);
      c.appendChild(t);
    });
    return svg;
  }

  // `shown` rows unless `all`; `curve(q, o)` answers the rows of one option's load curve
  function serveTable(q, options, all, shown, curve) {
    var t = el("table");
    var head = ["#", Atlas.t("Machine"), Atlas.t("Split"), Atlas.t("Provider"), Atlas.t("Tier"), Atlas.t("$/hour"),
                Atlas.t("Output tok/s per GPU (expected)"), Atlas.t("Tok/s per user (expected)"),
                Atlas.t("Time to first token, s"), Atlas.t("$/M input"), Atlas.t("$/M output"),
                Atlas.t("$/M tokens (blended)"), Atlas.t("Price date"), Atlas.t("Load curve")];
    var tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", { scope: "col" }, h)); });
    t.appendChild(el("thead")).appendChild(tr);
    var body = el("tbody");
    options.slice(0, all ? options.length : shown).forEach(function (o) {
      var r = el("tr", { id: "planner-option-" + o.rank });
      r.appendChild(el("td", { class: "atlas-rank" }, String(o.rank)));
      r.appendChild(machineCell(o, true));
      r.appendChild(el("td", {}, split(o)));
      r.appendChild(el("td", {}, o.provider));
      r.appendChild(el("td", {}, word(o.pricing_tier)));
      r.appendChild(el("td", {}, money(o.usd_per_hour, 2)));
      r.appendChild(el("td", { title: Atlas.t("bound {value}", { value: fmt(o.bound_throughput_tokens_per_s_per_gpu) }) },
                       fmt(o.throughput_tokens_per_s_per_gpu)));
      var perUser = el("td", { title: Atlas.t("bound {value}", { value: fmt(o.bound_tokens_per_s_per_user, 1) }) },
                       fmt(o.expected_tokens_per_s_per_user, 1));
      if (String(o.expectation_basis || "").indexOf("not measured") === 0)  // no published figure on this hardware
        perUser.appendChild(el("abbr", { class: "atlas-unmeasured",
          title: Atlas.t("not measured on this accelerator: only the bound is physical") }, " †"));
      r.appendChild(perUser);
      r.appendChild(el("td", { title: Atlas.t("bound {value}", { value: fmt(o.bound_ttft_s, 3) }) }, fmt(o.ttft_s, 2)));
      r.appendChild(el("td", {}, money(o.usd_per_million_input_tokens, 3)));
      r.appendChild(el("td", {}, money(o.usd_per_million_output_tokens, 3)));
      r.appendChild(el("td", { title: Atlas.t("{why}; {limit}-bound", { why: word(o.why), limit: word(o.limited_by) }) },
                       money(o.usd_per_million_tokens, 3)));
      r.appendChild(el("td", {}, dated(o)));
      var cell = el("td");
      var button = el("button", { type: "button", class: "atlas-curve-button", "aria-expanded": "false",
                                  "aria-label": Atlas.t("Load curve of option {rank}", { rank: o.rank }) }, Atlas.t("show"));
      var chartRow = null;
      button.addEventListener("click", function () {
        if (chartRow) {
          chartRow.remove();
          chartRow = null;
          button.setAttribute("aria-expanded", "false");
          button.textContent = Atlas.t("show");
          return;
        }
        chartRow = el("tr", { class: "atlas-curve-row" });
        var td = el("td", { colspan: String(head.length) });
        td.appendChild(el("p", {}, Atlas.t("Option {rank} ({gpus} × {gpu}, TP {tp}): output tokens/s per GPU against " +
                                           "tokens/s per user as the users double.",
                                           { rank: o.rank, gpus: o.instance_gpus, gpu: o.gpu_name, tp: o.tensor_parallel })));
        curve(q, o).then(function (pts) { if (pts.length) td.appendChild(curveSvg(pts)); });
        chartRow.appendChild(td);
        r.after(chartRow);
        button.setAttribute("aria-expanded", "true");
        button.textContent = Atlas.t("hide");
      });
      cell.appendChild(button);
      r.appendChild(cell);
      body.appendChild(r);
    });
    t.appendChild(body);
    return t;
  }

  // "TP 4 × 2 replicas", or, for a replica across machines of a cluster, "TP 8 across 2 machines (InfiniBand)"
  function split(o) {
    var n = { tp: o.tensor_parallel, n: o.replicas, p: o.pipeline_parallel, net: o.cluster_network };
    if (o.pipeline_parallel > 1) {
      return o.replicas > 1 ? Atlas.t("TP {tp} across {p} machines ({net}) × {n} replicas", n)
        : Atlas.t("TP {tp} across {p} machines ({net})", n);
    }
    return o.replicas > 1 ? Atlas.t("TP {tp} × {n} replicas", n) : Atlas.t("TP {tp}", n);
  }
  // "2 machines of 1 × B200 SXM 180 GB" (the count never parted from its ×), with the offer and price kind below
  function machineCell(o, detail) {
    var machine = el("td");
    if (o.machines > 1) machine.appendChild(document.createTextNode(Atlas.t("{k} machines of", { k: o.machines }) + " "));
    machine.appendChild(el("span", { class: "atlas-nowrap" }, o.instance_gpus + " ×"));
    machine.appendChild(document.createTextNode(" "));
    machine.appendChild(el("a", { href: "../gpus/" + o.gpu_id + "/" }, o.gpu_name));
    if (detail) {
      machine.appendChild(el("br"));
      machine.appendChild(el("small", {}, o.offering + " · " + word(o.price_kind)));
    }
    return machine;
  }

  function trainingTable(options, factor) {
    var t = el("table");
    var tr = el("tr");
    ["#", Atlas.t("Machine"), Atlas.t("Provider"), Atlas.t("Tier"), Atlas.t("$/hour"), Atlas.t("Tokens/s (expected)"),
     Atlas.t("Hours"), Atlas.t("$ per job"), Atlas.t("Price date")]
      .forEach(function (h) { tr.appendChild(el("th", { scope: "col" }, h)); });
    t.appendChild(el("thead")).appendChild(tr);
    var body = el("tbody");
    options.forEach(function (o) {
      var r = el("tr", { id: "planner-option-" + o.rank });
      r.appendChild(el("td", { class: "atlas-rank" }, String(o.rank)));
      r.appendChild(machineCell(o, false));
      r.appendChild(el("td", {}, o.provider));
      r.appendChild(el("td", {}, word(o.pricing_tier)));
      r.appendChild(el("td", {}, money(o.usd_per_hour, 2)));
      r.appendChild(el("td", {}, fmt(o.expected_tokens_per_s)));
      r.appendChild(el("td", {}, fmt(o.job_hours * factor, 1)));
      r.appendChild(el("td", {}, money(o.usd_per_job * factor, 0)));
      r.appendChild(el("td", {}, dated(o)));
      body.appendChild(r);
    });
    t.appendChild(body);
    return t;
  }

  window.AtlasPlannerTables = { word: word, dated: dated, serveTable: serveTable, trainingTable: trainingTable };
})();
