// The Planner page: reads the choices and limits (api/v1/plan/index.json), answers the question in the form by
// running the Planner's own SQL in the browser (planner-sql.js: DuckDB-WASM, the same files `gpu-atlas plan`
// runs, opened on the first question the page was not built with), refuses values out of range with the valid
// range, and keeps every choice in the address.
(function () {
  var form = document.getElementById("planner-form");
  if (!form || !window.AtlasSql || !window.AtlasPlannerAnswer || !window.AtlasPlannerTables) return;
  var api = form.getAttribute("data-api");
  var results = document.getElementById("planner-results");
  var summary = document.getElementById("planner-summary");
  var errorBox = document.getElementById("planner-error");
  var cli = document.getElementById("planner-cli");
  var Answer = window.AtlasPlannerAnswer;  // planner-answer.js: the headline, the chart and the filters
  var Tables = window.AtlasPlannerTables;  // planner-tables.js: the options' tables and the data files' words
  var word = Tables.word;
  var SHOWN = 15;
  var index = null, engine = null, training = {}, asked = 0, builtDefault = null;
  // the question answered last, all its options (before the filters) and whether the table shows them all
  var current = null;
  // the SQL engine, opened once, on first use
  function sql() {
    if (!engine) engine = window.AtlasSql.open(api, form.getAttribute("data-engine"), index.engine);
    return engine;
  }
  // the rows plan_options.sql answers for these scenarios (its plan_scenarios columns, SCENARIO_COLUMNS)
  function ask(scenarios) {
    return sql().then(function (e) { return e.plan(scenarios); });
  }
  function scenario(q, extra) {
    return Object.assign({ tokens: null, machine_id: null, machines: null, tensor_parallel: null,
                          pipeline_parallel: null }, q, extra || {});
  }
  function busy(on) { document.body.dataset.plannerBusy = on ? "1" : "0"; }
  var NUMBERS = { users: "users", input: "input_tokens", output: "output_tokens", context: "context",
                  min_user: "min_tokens_per_user", max_ttft: "max_ttft_s" };
  var Atlas = window.Atlas;  // atlas.js, loaded first: Atlas.t, the texts in the page's language
  var LABELS = { users: Atlas.t("Concurrent users"), input: Atlas.t("Input tokens"), output: Atlas.t("Output tokens"),
                 context: Atlas.t("Context tokens"), min_user: Atlas.t("Tokens/s per user"),
                 max_ttft: Atlas.t("Seconds to first token"), tokens: Atlas.t("Training tokens (billions)") };
  var el = Atlas.el, fmt = Atlas.fixed, money = Atlas.money;
  function fill(select, values) {  // values: [[value, label], ...]
    var current = select.value;
    select.innerHTML = "";
    values.forEach(function (v) { select.appendChild(el("option", { value: String(v[0]) }, v[1])); });
    if (values.some(function (v) { return String(v[0]) === current; })) select.value = current;
  }
  function fillModels(select, models) {  // current models first; superseded and legacy ones apart
    select.innerHTML = "";
    [[Atlas.t("Current models"), true], [Atlas.t("Older models"), false]].forEach(function (g) {
      var group = el("optgroup", { label: g[0] });
      models.filter(function (m) { return (m.status === "current") === g[1]; }).forEach(function (m) {
        group.appendChild(el("option", { value: m.model_id },
                             g[1] ? m.name : Atlas.t("{model} ({status})", { model: m.name, status: word(m.status) })));
      });
      if (group.children.length) select.appendChild(group);
    });
  }
  function currentModel() {
    return index.models.filter(function (m) { return m.model_id === form.model.value; })[0];
  }

  // the question in the form, or the first input out of range (with the valid range)
  function question() {
    var m = currentModel();
    var q = { model_id: m.model_id, workload: form.workload.value };
    var problems = [];
    function number(name, required, low, high) {
      var raw = form[name].value.trim();
      form[name].removeAttribute("aria-invalid");
      if (raw === "" && !required) return null;
      var v = Number(raw);
      if (raw === "" || !isFinite(v) || v < low || v > high) {
        form[name].setAttribute("aria-invalid", "true");
        var range = { label: LABELS[name], low: fmt(low, low < 1 ? 3 : 0), high: fmt(high), got: raw };
        problems.push(raw === "" ? Atlas.t("{label} must be between {low} and {high}.", range)
          : Atlas.t("{label} must be between {low} and {high} (got {got}).", range));
      }
      return v;
    }
    if (q.workload === "serve") {
      var L = index.limits;
      q.precision = form.precision.value;
      q.kv_precision = form.kv.value;
      q.engine_family = form.engine.value;
      q.users = number("users", true, L.users[0], L.users[1]);
      q.input_tokens = number("input", true, L.input_tokens[0], L.input_tokens[1]);
      q.output_tokens = number("output", true, L.output_tokens[0], L.output_tokens[1]);
      q.context_tokens = number("context", true, L.context[0], m.max_context);
      q.min_tokens_per_user = number("min_user", false, L.min_tokens_per_user[0], L.min_tokens_per_user[1]);
      q.max_ttft_s = number("max_ttft", false, L.max_ttft_s[0], L.max_ttft_s[1]);
      if (!problems.length && q.input_tokens + q.output_tokens > q.context_tokens) {
        form.context.setAttribute("aria-invalid", "true");
        problems.push(Atlas.t("Input + output tokens ({sum}) must fit the context ({context}); {model} allows up to {max}.",
                              { sum: fmt(q.input_tokens + q.output_tokens), context: fmt(q.context_tokens), model: m.name,
                                max: fmt(m.max_context) }));
      }
      ["users", "input_tokens", "output_tokens", "context_tokens"].forEach(function (k) {
        if (q[k] !== null) q[k] = Math.round(q[k]);
      });
    } else {
      q.tokens = number("tokens", true, index.limits.tokens[0] / 1e9, index.limits.tokens[1] / 1e9) * 1e9;
    }
    q.tier = form.tier.value === "any" ? null : form.tier.value;
    return { q: q, problems: problems };
  }

  function syncControls() {
    var serve = form.workload.value === "serve";
    ["precision", "kv", "users", "input", "output", "context", "min_user", "max_ttft", "engine"].forEach(function (n) {
      form[n].closest("label").hidden = !serve;
    });
    form.tokens.closest("label").hidden = serve;
    var m = currentModel();
    form.context.max = String(m.max_context);
    if (form.workload.value === "pretrain" && !form.tokens.dataset.touched) {
      // the parameters' tokens per parameter (plan_options.sql's default), in billions
      form.tokens.value = String(Math.round(index.pretrain_tokens_per_param * m.params_b));
    }
  }

  function writeUrl() {
    var q = new URLSearchParams();
    var names = form.workload.value === "serve"
      ? ["model", "workload", "precision", "kv", "users", "input", "output", "context", "min_user", "max_ttft", "engine", "tier"]
      : ["model", "workload", "tokens", "tier"];
    names.forEach(function (n) { if (form[n].value !== "") q.set(n, form[n].value); });
    var filters = document.getElementById("planner-filters");
    Answer.names.forEach(function (n) { if (filters && filters[n].value !== "") q.set(n, filters[n].value); });
    history.replaceState(null, "", "?" + q.toString());
  }

  function writeCli(q) {
    if (!cli) return;
    var parts = ["gpu-atlas plan", "--model " + q.model_id];
    if (q.workload === "serve") {
      parts.push("--precision " + q.precision, "--kv-precision " + q.kv_precision, "--users " + q.users,
                 "--input-tokens " + q.input_tokens, "--output-tokens " + q.output_tokens,
                 "--context " + q.context_tokens, "--engine " + q.engine_family);
      if (q.min_tokens_per_user !== null) parts.push("--min-tokens-per-user " + q.min_tokens_per_user);
      if (q.max_ttft_s !== null) parts.push("--max-ttft " + q.max_ttft_s);
    } else {
      parts.push("--workload " + q.workload, "--tokens " + q.tokens);
    }
    parts.push("--tier " + (q.tier || "any"));
    cli.innerHTML = "";
    cli.appendChild(document.createTextNode(Atlas.t("The same answer from the command line:") + " "));
    cli.appendChild(el("code", {}, parts.join(" ")));
  }

  // one option's machine and split as the users double from one per replica (no speed target): plan_options.sql's
  // rows for that machine_id, tensor_parallel and pipeline_parallel, up to the first load it cannot hold
  function curve(q, o) {
    var loads = [];
    for (var users = o.replicas; users <= index.limits.users[1]; users *= 2) loads.push(users);
    return ask(loads.map(function (users) {
      return scenario(q, { users: users, min_tokens_per_user: null, max_ttft_s: null, machine_id: o.machine_id,
                           machines: o.machines, tensor_parallel: o.tensor_parallel,
                           pipeline_parallel: o.pipeline_parallel });
    })).then(function (rows) {
      var points = [];
      for (var i = 0; i < loads.length; i++) {
        var row = rows.filter(function (r) { return r.scenario_id === i + 1; })[0];
        if (!row) break;
        points.push({ users: loads[i], per_user: row.expected_tokens_per_s_per_user,
                      per_gpu: row.throughput_tokens_per_s_per_gpu });
      }
      return points;
    });
  }

  function loadTraining(modelId) {
    if (!training[modelId]) {
      training[modelId] = fetch(api + "training/" + modelId + ".json").then(function (r) {
        if (!r.ok) return { columns: [], scenarios: {} };
        return r.json();
      });
    }
    return training[modelId];
  }

  // the weights a question asks for: a format, or the checkpoint's own (named)
  function weightsLabel(q) {
    if (q.precision !== "native") return q.precision.toUpperCase();
    var shipped = index.native_formats[q.model_id];
    var format = shipped ? shipped.toUpperCase() : Atlas.t("checkpoint");
    return Atlas.t("native ({format})", { format: format });
  }

  // the default question, as the form asks it: the page was built with its answer (api/v1/plan/default.json)
  function isDefault(q) {
    var d = index.defaults;
    return q.workload === "serve" && q.model_id === d.model && q.precision === d.precision &&
      q.kv_precision === d.kv_precision && q.users === d.users && q.input_tokens === d.input_tokens &&
      q.output_tokens === d.output_tokens && q.context_tokens === d.context && q.engine_family === d.engine &&
      q.tier === d.tier && q.min_tokens_per_user === d.min_tokens_per_user && q.max_ttft_s === d.max_ttft_s;
  }
  // a serving question's options: the built ones for the default question, else the engine's
  function serveOptions(q) {
    if (!isDefault(q)) return ask([scenario(q)]);
    if (!builtDefault) {
      builtDefault = Atlas.getJSON(api + "default.json").then(function (data) {
        return data.rows.map(function (r) {
          var o = {};
          data.columns.forEach(function (c, i) { o[c] = r[i]; });
          return o;
        });
      });
    }
    return builtDefault;
  }

  function describe(q, m, tier, options, kept) {
    var target = (q.min_tokens_per_user !== null
      ? Atlas.t(", at least {n} tokens/s per user", { n: fmt(q.min_tokens_per_user, 1) }) : "") +
      (q.max_ttft_s !== null ? Atlas.t(", first token within {s} s", { s: fmt(q.max_ttft_s, 2) }) : "");
    var counts = { shown: Math.min(current.all ? kept.length : SHOWN, kept.length), n: fmt(kept.length),
                   all: fmt(options.length) };
    var answer = !options.length
      ? (target ? Atlas.t("no rentable machine holds it at that speed, even 64 machines of one offer.")
        : Atlas.t("no rentable machine holds it, even 64 machines of one offer."))
      : kept.length < options.length
        ? (kept.length ? Atlas.t("the {shown} cheapest of the {n} options the filters keep (of {all}).", counts)
          : Atlas.t("none of the {all} options passes the filters.", counts))
        : options.length === 1 ? Atlas.t("the {shown} cheapest of {n} option.", counts)
          : Atlas.t("the {shown} cheapest of {n} options.", counts);
    var users = Number(q.users) === 1 ? Atlas.t("{n} concurrent user", { n: fmt(q.users) })
      : Atlas.t("{n} concurrent users", { n: fmt(q.users) });
    summary.innerHTML = "";
    summary.appendChild(el("strong", {}, m.name));
    summary.appendChild(document.createTextNode(Atlas.t(
      ", serve, {weights} weights, {kv} KV cache, {users}, {input} input and {output} output tokens per request, " +
      "context {context}{target}, {engine}, {tier}: {answer}", {
        weights: weightsLabel(q), kv: q.kv_precision.toUpperCase(),
        users: users,
        input: fmt(q.input_tokens), output: fmt(q.output_tokens), context: fmt(q.context_tokens), target: target,
        engine: word(index.engines[q.engine_family]), tier: tier, answer: answer
      })));
  }

  // the answer to the current question through the filters: summary, headline, chart, table
  function render() {
    var q = current.q, m = currentModel(), options = current.options;
    var tier = q.tier ? Atlas.t("{tier} prices", { tier: word(q.tier) }) : Atlas.t("every pricing tier");
    Answer.offer(options, index.gpu_vendors || {});
    var kept = Answer.keep(options, index.gpu_vendors || {});
    results.innerHTML = "";
    if (q.workload === "serve") {
      describe(q, m, tier, options, kept);
      Answer.headline(q, kept[0], word);
      Answer.chart(kept);
      if (!kept.length) return;
      var scroll = results.appendChild(el("div", { class: "atlas-scroll" }));
      scroll.appendChild(Tables.serveTable(q, kept, current.all, SHOWN, curve));
      if (!current.all && kept.length > SHOWN) {
        var more = el("button", { type: "button", class: "atlas-curve-button", id: "planner-more" },
                      Atlas.t("Show all {n} options", { n: fmt(kept.length) }));
        more.addEventListener("click", function () { current.all = true; render(); });
        results.appendChild(more);
      }
      return;
    }
    summary.innerHTML = "";
    summary.appendChild(el("strong", {}, m.name));
    var answer = !options.length ? Atlas.t("no rentable machine holds it.")
      : kept.length ? Atlas.t("the {n} cheapest options.", { n: kept.length })
        : Atlas.t("none of the {all} options passes the filters.", { all: fmt(options.length) });
    summary.appendChild(document.createTextNode(Atlas.t(", {workload}, {tokens} billion tokens, {tier}: {answer}", {
      workload: word(index.workloads[q.workload]), tokens: fmt(q.tokens / 1e9, 3), tier: tier, answer: answer
    })));
    Answer.headline(q, kept[0], word, current.factor);
    Answer.chart([]);
    if (kept.length) results.appendChild(el("div", { class: "atlas-scroll" })).appendChild(Tables.trainingTable(kept, current.factor));
  }

  // every option shown, for a point whose row the table does not show (the built page: its options loaded first)
  function showAll() {
    var q = question().q;
    var loaded = current ? Promise.resolve() : serveOptions(q).then(function (options) {
      current = { q: q, options: options, all: true };
    });
    return loaded.then(function () { current.all = true; render(); });
  }

  function show(q, problems) {
    errorBox.hidden = !problems.length;
    errorBox.textContent = problems.join(" ");
    if (problems.length) {
      summary.textContent = Atlas.t("Change the highlighted value to see options.");
      results.innerHTML = "";
      Answer.headline(q, null, word);
      Answer.chart([]);
      return;
    }
    writeCli(q);
    if (q.workload === "serve") {
      var t0 = performance.now(), ticket = ++asked;
      busy(true);
      serveOptions(q).then(function (options) {
        if (ticket !== asked) return;  // a newer question was asked meanwhile
        results.dataset.ms = String(performance.now() - t0);
        current = { q: q, options: options, all: false };
        render();
        busy(false);
      }).catch(function (err) {
        if (ticket !== asked) return;
        errorBox.hidden = false;
        errorBox.textContent = Atlas.t("The Planner's data could not be loaded ({error}); the table below is the default question.",
                                       { error: err.message });
        busy(false);
      });
      return;
    }
    var ticket2 = ++asked;
    loadTraining(q.model_id).then(function (data) {
      if (ticket2 !== asked) return;
      var key = q.workload + "|" + (q.tier || "any");
      var rows = (data.scenarios[key] || []).map(function (r) {
        var o = {};
        data.columns.forEach(function (c, i) { o[c] = r[i]; });
        return o;
      });
      var factor = q.tokens / (q.workload === "pretrain" ? (rows.length ? rows[0].job_tokens : q.tokens) : data.tokens);
      current = { q: q, options: rows, all: true, factor: factor };
      render();
    });
  }

  function update(push) {
    syncControls();
    var a = question();
    var note = document.getElementById("planner-default-target");  // the built page's word on the default target
    if (note) note.hidden = a.q.workload !== "serve" || a.q.min_tokens_per_user !== index.defaults.min_tokens_per_user;
    if (push !== false) writeUrl();
    show(a.q, a.problems);
  }

  busy(false);
  Atlas.getJSON(api + "index.json").then(function (loaded) {
    index = loaded;
    fillModels(form.model, index.models);
    fill(form.workload, Object.keys(index.workloads).map(function (k) { return [k, word(index.workloads[k])]; }));
    fill(form.precision, index.precisions.map(function (p) {
      return [p, p === "native" ? Atlas.t("As the checkpoint ships") : p.toUpperCase()];
    }));
    fill(form.kv, index.kv_precisions.map(function (p) { return [p, p.toUpperCase()]; }));
    fill(form.engine, Object.keys(index.engines).map(function (k) { return [k, word(index.engines[k])]; }));
    fill(form.tier, index.tiers.map(function (t) { return [t, t === "any" ? Atlas.t("any tier") : word(t)]; }));
    var d = index.defaults;
    var start = { model: d.model, workload: d.workload, precision: d.precision, kv: d.kv_precision, users: d.users,
                  input: d.input_tokens, output: d.output_tokens, context: d.context, engine: d.engine, tier: d.tier,
                  min_user: d.min_tokens_per_user === null ? "" : d.min_tokens_per_user, max_ttft: "" };
    var params = new URLSearchParams(location.search);
    var ignored = [];
    Object.keys(start).forEach(function (n) {
      var v = params.has(n) ? params.get(n) : start[n];
      if (v === null || v === undefined || !form[n]) return;
      // a link may name a choice that no longer exists (a model renamed, a typo): keep the default, and say so
      if (form[n].tagName === "SELECT" &&
          !Array.prototype.some.call(form[n].options, function (o) { return o.value === String(v); })) {
        ignored.push(n + "=" + v);
        v = start[n];
      }
      form[n].value = String(v);
    });
    if (params.has("tokens")) { form.tokens.value = params.get("tokens"); form.tokens.dataset.touched = "1"; }
    var filters = document.getElementById("planner-filters");
    Answer.names.forEach(function (n) {  // a filter's value from a link, kept until the options are known
      if (!filters || !params.get(n)) return;
      if (!Array.prototype.some.call(filters[n].options, function (o) { return o.value === params.get(n); })) {
        filters[n].appendChild(el("option", { value: params.get(n) }, params.get(n)));
      }
      filters[n].value = params.get(n);
    });
    // a filter applies to the options shown (the built page's own: api/v1/plan/default.json)
    if (filters) {
      filters.addEventListener("change", function () {
        writeUrl();
        if (current) render();
        else update(false);
      });
    }
    Answer.onPick(showAll);
    form.addEventListener("input", function (e) {
      if (e.target.name === "tokens") form.tokens.dataset.touched = "1";
      update();
    });
    // selects report a choice by "change"; number fields already updated on "input" (their "change" on blur
    // would redraw the table under the reader's click)
    form.addEventListener("change", function (e) { if (e.target.tagName === "SELECT") update(); });
    // the page was built with the default question's answer: the engine opens for any other question
    if (Array.prototype.some.call(Object.keys(start).concat(["tokens"], Answer.names), function (n) { return params.has(n); })) {
      update(false);
    } else {
      syncControls();
      writeCli(question().q);
    }
    if (ignored.length) {
      errorBox.hidden = false;
      errorBox.textContent = Atlas.t("Not a choice here, so the default is shown instead: {choices}.",
                                     { choices: ignored.join(", ") });
    }
    document.body.dataset.plannerReady = "1";
  }).catch(function (err) {
    errorBox.hidden = false;
    errorBox.textContent = Atlas.t("The Planner's data could not be loaded ({error}); the table below is the default question.",
                                   { error: err.message });
  });
})();
