// VRAM-fit explorer: pick a model, weights and context; every GPU with the number of GPUs it takes.
// Data: charts/vram-fit-explorer.json (the vram_fit requirements at batch 1, KV cache BF16, with vram_fit's count of
// GPUs for each GPU: no count is computed here).
(function () {
  var form = document.getElementById("fit-form");
  if (!form) return;
  var out = document.getElementById("fit-out");
  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language

  function fill(select, values, labels) {
    select.innerHTML = "";
    values.forEach(function (v, i) {
      var o = document.createElement("option");
      o.value = String(v);
      o.textContent = labels ? labels[i] : String(v);
      select.appendChild(o);
    });
  }

  function render(data) {
    var key = form.model.value + "|" + form.precision.value + "|" + form.context.value;
    var req = data.required[key];
    out.innerHTML = "";
    out.setAttribute("data-key", key);
    if (!req || req[0] === null) {
      out.textContent = Atlas.t("No requirement computed for this setting (a figure of the model's configuration is missing).");
      return;
    }
    var p = document.createElement("p");
    p.textContent = Atlas.t("Needs {total} GB: weights {weights} GB, KV cache {kv} GB, plus runtime overhead.",
                            { total: req[0].toFixed(1), weights: req[1].toFixed(1), kv: req[2].toFixed(2) });
    out.appendChild(p);
    // GPUs needed: vram_fit's own count for each GPU (sharding, cache copies, runtime overhead per GPU)
    var rows = data.gpus.map(function (g, i) {
      return { g: g, n: req[3][i] };
    }).filter(function (r) { return r.n !== null; })
      .sort(function (a, b) { return a.n - b.n || b.g.usable_gb - a.g.usable_gb; });
    var table = document.createElement("table");
    table.className = "atlas-fit-table";
    var head = table.appendChild(document.createElement("thead")).appendChild(document.createElement("tr"));
    [Atlas.t("GPU"), Atlas.t("Usable GB"), Atlas.t("GPUs needed")].forEach(function (h) {
      head.appendChild(document.createElement("th")).textContent = h;
    });
    var body = table.appendChild(document.createElement("tbody"));
    rows.forEach(function (r) {
      var tr = body.insertRow();
      var a = document.createElement("a");
      a.href = "../gpus/" + r.g.gpu_id + "/";
      a.textContent = r.g.name;
      tr.insertCell().appendChild(a);
      tr.insertCell().textContent = r.g.usable_gb.toFixed(1);
      var cell = tr.insertCell();
      var bar = cell.appendChild(document.createElement("span"));
      bar.className = "atlas-bar " + (r.n <= 1 ? "one" : r.n <= 8 ? "few" : "many");
      bar.style.width = Math.min(r.n, 9) * 10 + "%";
      cell.appendChild(document.createTextNode(" " + (r.n <= 1 ? Atlas.t("1 (fits on one)") : r.n <= 8 ? String(r.n)
        : Atlas.t("{n} (more than 8: several servers)", { n: r.n }))));
    });
    var wrap = out.appendChild(document.createElement("div"));
    wrap.className = "md-typeset__scrollwrap";
    wrap.appendChild(document.createElement("div")).className = "md-typeset__table";
    wrap.firstChild.appendChild(table);
  }

  Atlas.getJSON(form.getAttribute("data-src")).then(function (data) {
    fill(form.model, data.models.map(function (m) { return m.model_id; }),
         data.models.map(function (m) {
           return Atlas.t("{model} ({n} B parameters)", { model: m.name || m.model_id, n: Atlas.fmt(m.params_b, 3) });
         }));
    fill(form.precision, data.precisions, data.precisions.map(function (p) { return p.toUpperCase(); }));
    fill(form.context, data.contexts, data.contexts.map(function (c) { return Atlas.fmt(c); }));
    form.model.value = data["default"].model;
    form.precision.value = data["default"].precision;
    form.context.value = String(data["default"].context);
    form.addEventListener("change", function () { render(data); });
    render(data);
    out.setAttribute("data-ready", "true");
  });
})();
