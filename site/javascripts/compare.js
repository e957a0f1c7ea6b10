// Compare: two to four GPUs side by side, from the build's JSON files (api/v1/gpus.json, fits.json).
// The address keeps the choice: compare/?gpus=a,b,c
(function () {
  var form = document.getElementById("compare-form");
  if (!form) return;
  var api = form.getAttribute("data-api");
  var out = document.getElementById("compare-out");
  var selects = Array.prototype.slice.call(form.querySelectorAll("select"));

  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language
  var fmt = Atlas.fmt;

  var ROWS = [
    [Atlas.t("Memory (GB)"), function (g) { return g.memory_gb; }, "max"],
    [Atlas.t("Memory bandwidth (GB/s)"), function (g) { return g.memory_bandwidth_gbs; }, "max"],
    [Atlas.t("Dense BF16 (TFLOPS)"), function (g) { return g.bf16_tflops; }, "max"],
    [Atlas.t("Dense FP8 (TFLOPS)"), function (g) { return g.fp8_tflops; }, "max"],
    [Atlas.t("Dense FP4 (TFLOPS)"), function (g) { return g.fp4_tflops; }, "max"],
    [Atlas.t("INT8 (TOPS)"), function (g) { return g.int8_tops; }, "max"],
    [Atlas.t("FP32 vector (TFLOPS)"), function (g) { return g.fp32_tflops; }, "max"],
    [Atlas.t("TDP (W)"), function (g) { return g.tdp_w; }, "min"],
    [Atlas.t("GPU-to-GPU link (GB/s)"), function (g) { return g.interconnect_gbs; }, "max"],
    [Atlas.t("Architecture"), function (g) { return g.architecture; }],
    [Atlas.t("Form factor"), function (g) { return g.form_factor; }],
    [Atlas.t("Release year"), function (g) { return g.release_year === null ? null : String(g.release_year); }],
    [Atlas.t("Launch price (USD)"), function (g) { return g.launch_price_usd; }, "min"]
  ];

  var DEFAULT = "nvidia-h100-sxm-80gb,nvidia-h200-sxm-141gb,nvidia-b200-sxm-180gb,amd-mi300x-oam-192gb";

  // a reserved price's term ("12 month", "term not stated"), in the reader's language where it has that form
  function term(v) {
    if (v === "term not stated") return Atlas.t("term not stated");
    var n = /^(\d+) (month|year)$/.exec(v);
    if (n) return n[2] === "month" ? Atlas.t("{n} month", { n: n[1] }) : Atlas.t("{n} year", { n: n[1] });
    return v;
  }

  function cheapest(g, tier) {
    var c = (g.cheapest || []).filter(function (x) { return x.pricing_tier === tier; })[0];
    return c ? c : null;
  }

  function render(all, fits) {
    var ids = selects.map(function (s) { return s.value; }).filter(Boolean);
    var q = new URLSearchParams(location.search);
    if (ids.length) q.set("gpus", ids.join(",")); else q.delete("gpus");
    history.replaceState(null, "", "?" + q.toString());
    out.innerHTML = "";
    if (ids.length < 2) {
      out.appendChild(document.createElement("p")).textContent = Atlas.t("Choose at least two GPUs.");
      return;
    }
    var gpus = ids.map(function (id) { return all[id]; });
    var rows = ROWS.map(function (r) { return [r[0], gpus.map(r[1]), r[2]]; });
    // [tier, row label]; a price row's figures print in dollars (row[4])
    [["on-demand", Atlas.t("Price, on-demand ($/GPU-hour)")], ["spot", Atlas.t("Price, spot ($/GPU-hour)")],
     ["reserved", Atlas.t("Price, reserved ($/GPU-hour)")],
     ["on-demand (China mainland)", Atlas.t("Price, on-demand in mainland China ($/GPU-hour)")]].forEach(function (t) {
      rows.push([t[1], gpus.map(function (g) {
        var c = cheapest(g, t[0]);
        return c ? c.usd_per_gpu_hour : null;
      }), "min", gpus.map(function (g) {
        var c = cheapest(g, t[0]);
        if (!c) return "";
        var when = c.observed_date_known === false ? Atlas.t("undated copy, read {date}", { date: c.observed_on }) : c.observed_on;
        return c.term ? Atlas.t("{provider}, {term}, {date}", { provider: c.provider, term: term(c.term), date: when })
          : Atlas.t("{provider}, {date}", { provider: c.provider, date: when });
      }), true]);
    });
    ["bf16", "fp8", "int4"].forEach(function (p) {
      rows.push([Atlas.t("Largest model on one GPU, {precision} weights", { precision: p.toUpperCase() }), gpus.map(function (g) {
        var f = (fits[g.gpu_id] || {})[p];
        return f ? f.name : null;
      })]);
    });
    // per GPU, so that a model needing two H100s and one on a single H200 compare like for like
    var perGpu = function (key) {
      return function (g) { return g[key] && g.serving_gpus ? g[key] / g.serving_gpus : null; };
    };
    var count = gpus.map(function (g) {
      if (!g.serving_gpus) return "";
      return g.serving_gpus === 1 ? Atlas.t("on {n} GPU", { n: g.serving_gpus }) : Atlas.t("on {n} GPUs", { n: g.serving_gpus });
    });
    rows.push([Atlas.t("Llama 3.3 70B, FP8, batch of 16: expected decode tokens/s per GPU"), gpus.map(perGpu("serving_tokens_per_s")), "max", count]);
    rows.push([Atlas.t("Same, bound (no GPU exceeds it) tokens/s per GPU"), gpus.map(perGpu("serving_tokens_per_s_bound")), null, count]);
    rows.push([Atlas.t("Llama 3.1 8B full fine-tune tokens/s per GPU (expected)"), gpus.map(function (g) {
      return g.training_tokens_per_s_per_gpu;
    }), "max"]);
    rows.push([Atlas.t("Llama 3.1 8B LoRA fine-tune tokens/s per GPU (expected)"), gpus.map(function (g) {
      return g.lora_tokens_per_s_per_gpu;
    }), "max"]);
    var table = document.createElement("table");
    table.setAttribute("data-compare", ids.join(","));
    var head = table.createTHead().insertRow();
    head.appendChild(document.createElement("th")).textContent = "";
    gpus.forEach(function (g) {
      var th = head.appendChild(document.createElement("th"));
      var a = th.appendChild(document.createElement("a"));
      a.href = "../gpus/" + g.gpu_id + "/";
      a.textContent = g.name;
    });
    var body = table.createTBody();
    rows.forEach(function (r) {
      var tr = body.insertRow();
      tr.appendChild(document.createElement("th")).textContent = r[0];
      var nums = r[1].filter(function (v) { return typeof v === "number"; });
      var best = r[2] === "max" ? Math.max.apply(null, nums) : r[2] === "min" ? Math.min.apply(null, nums) : null;
      r[1].forEach(function (v, i) {
        var td = tr.insertCell();
        var text = typeof v === "number" ? (r[4] ? "$" + fmt(v, 3) : fmt(v, 1)) : (v === null || v === undefined ? "–" : String(v));
        if (r[3] && r[3][i]) text = Atlas.t("{value} ({note})", { value: text, note: r[3][i] });
        if (best !== null && nums.length > 1 && v === best) {
          td.appendChild(document.createElement("strong")).textContent = text;
        } else {
          td.textContent = text;
        }
      });
    });
    var wrap = out.appendChild(document.createElement("div"));
    wrap.className = "md-typeset__scrollwrap";
    wrap.appendChild(document.createElement("div")).className = "md-typeset__table";
    wrap.firstChild.appendChild(table);
    out.appendChild(document.createElement("p")).textContent = Atlas.t(
      "Bold: the best of the row. Prices: the price every page uses for the tier (current, like for like, mainland-China offers apart), with its provider and date. Speeds: the expected figure is bolded; the bound is what the memory and compute allow, never reached.");
  }

  Promise.all([Atlas.getJSON(api + "gpus.json"), Atlas.getJSON(api + "fits.json")]).then(function (res) {
    var all = {};
    res[0].gpus.forEach(function (g) { all[g.gpu_id] = g; });
    var fits = res[1].largest_model_on_one_gpu;
    var asked = new URLSearchParams(location.search).get("gpus");
    // with no choice in the address, open on the four GPUs most often compared for serving
    var wanted = (asked === null ? DEFAULT : asked).split(",").filter(function (id) { return all[id]; });
    selects.forEach(function (s, i) { s.value = wanted[i] || ""; });
    form.addEventListener("change", function () { render(all, fits); });
    render(all, fits);
    out.setAttribute("data-ready", "true");
  });
})();
