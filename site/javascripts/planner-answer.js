// The Planner's answer above its table, for a question or filter the page was not built with (the built page
// holds the default question's, pipeline/render/planner/answer.html.j2, drawn with the same geometry): the headline
// sentence, why input costs less than output, the chart of every option with its cost/speed frontier, and the
// filters by GPU, vendor and provider. planner.js calls it. A click on a point marks the option's row and scrolls
// to it (on the built page too).
(function () {
  var Atlas = window.Atlas;
  if (!Atlas || !document.getElementById("planner-form")) return;
  var el = Atlas.el, fixed = Atlas.fixed, money = Atlas.money;
  var NS = "http://www.w3.org/2000/svg";
  var G = { width: 640, height: 260, left: 52, right: 14, top: 14, bottom: 40 };  // answer.py's CHART
  var VENDORS = { nvidia: "NVIDIA", amd: "AMD", intel: "Intel" };
  var FILTERS = ["gpu", "vendor", "provider"];
  var filters = document.getElementById("planner-filters");
  var box = document.getElementById("planner-chart");

  // for each option: no other is at most as costly and at least as fast, and better on one (answer.py's frontier)
  function frontier(options) {
    return options.map(function (a) {
      return !options.some(function (b) {
        return b.usd_per_million_tokens <= a.usd_per_million_tokens &&
          b.expected_tokens_per_s_per_user >= a.expected_tokens_per_s_per_user &&
          (b.usd_per_million_tokens < a.usd_per_million_tokens ||
           b.expected_tokens_per_s_per_user > a.expected_tokens_per_s_per_user);
      });
    });
  }
  function ticks(top) {  // answer.py's nice_ticks: 0 up to top in steps of 1, 2 or 5 times a power of ten
    if (!(top > 0)) return [0];
    var raw = top / 5, power = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * power; }).filter(function (s) { return s >= raw; })[0];
    var out = [];
    for (var i = 0; i * step <= top * (1 + 1e-9); i++) out.push(i * step);
    return out;
  }
  function svgEl(parent, tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }

  // the chart of `options` (plan_options rows, cheapest first) in #planner-chart; nothing for no option
  function chart(options) {
    box.innerHTML = "";
    var rows = options.filter(function (o) {
      return isFinite(o.usd_per_million_tokens) && isFinite(o.expected_tokens_per_s_per_user);
    });
    if (!rows.length) return;
    var best = frontier(rows);
    var xTop = Math.max.apply(null, rows.map(function (o) { return o.usd_per_million_tokens; })) * 1.05;
    var yTop = Math.max.apply(null, rows.map(function (o) { return o.expected_tokens_per_s_per_user; })) * 1.1;
    var x0 = G.left, x1 = G.width - G.right, y0 = G.height - G.bottom, y1 = G.top;
    function X(v) { return (x0 + (x1 - x0) * v / xTop).toFixed(1); }
    function Y(v) { return (y1 + (y0 - y1) * (1 - v / yTop)).toFixed(1); }
    var count = best.filter(Boolean).length;
    box.appendChild(el("p", { class: "atlas-note", id: "planner-chart-caption" }, Atlas.t(
      "Every option: cost per million tokens (blended) against the tokens/s each user gets (expected). The {k} " +
      "filled points are the frontier: no other option is both cheaper and faster. Click a point to find its row.",
      { n: fixed(rows.length), k: fixed(count) })));
    var svg = svgEl(box, "svg", { viewBox: "0 0 " + G.width + " " + G.height, role: "group",
                                  "aria-labelledby": "planner-chart-caption", class: "atlas-plan-svg" });
    svgEl(svg, "line", { class: "atlas-axis", x1: x0, y1: y0, x2: x1, y2: y0 });
    svgEl(svg, "line", { class: "atlas-axis", x1: x0, y1: y0, x2: x0, y2: y1 });
    ticks(xTop).forEach(function (v) { svgEl(svg, "text", { x: X(v), y: y0 + 16, "text-anchor": "middle" }, money(v, 2)); });
    ticks(yTop).forEach(function (v) { svgEl(svg, "text", { x: x0 - 6, y: Number(Y(v)) + 4, "text-anchor": "end" }, fixed(v)); });
    svgEl(svg, "text", { x: x1, y: G.height - 4, "text-anchor": "end" }, Atlas.t("$ per million tokens (blended) →"));
    svgEl(svg, "text", { x: x0 + 6, y: y1 + 4 }, Atlas.t("↑ tokens/s per user"));
    var line = rows.filter(function (o, i) { return best[i]; }).sort(function (a, b) {
      return a.usd_per_million_tokens - b.usd_per_million_tokens ||
        b.expected_tokens_per_s_per_user - a.expected_tokens_per_s_per_user;
    });
    if (line.length) {
      svgEl(svg, "polyline", { class: "atlas-frontier", points: line.map(function (o) {
        return X(o.usd_per_million_tokens) + "," + Y(o.expected_tokens_per_s_per_user);
      }).join(" ") });
    }
    // frontier points last: drawn over the others
    rows.map(function (o, i) { return [o, best[i]]; }).sort(function (a, b) { return a[1] - b[1]; }).forEach(function (p) {
      var o = p[0];
      var a = svgEl(svg, "a", { href: "#planner-option-" + o.rank, "data-rank": o.rank,
                                class: "atlas-point" + (p[1] ? " atlas-best" : "") });
      svgEl(a, "title", {}, Atlas.t("#{rank}: {gpus} × {gpu}, {provider}: {cost} per million tokens, {speed} tokens/s per user", {
        rank: o.rank, gpus: o.gpu_count, gpu: o.gpu_name, provider: o.provider,
        cost: money(o.usd_per_million_tokens, 3), speed: fixed(o.expected_tokens_per_s_per_user, 1) }));
      svgEl(a, "circle", { cx: X(o.usd_per_million_tokens), cy: Y(o.expected_tokens_per_s_per_user), r: 5 });
    });
  }

  // when the price was seen: its date, "no later than" a date (a copy read at a dated commit) or the day an
  // undated copy was read (answer.py's price_date)
  function seen(o) {
    if (o.observed_date_known !== false) return o.observed_on;
    if (o.observed_no_later_than) return Atlas.t("no later than {date}", { date: o.observed_no_later_than });
    return Atlas.t("undated copy, read {date}", { date: o.observed_on });
  }
  // "2 machines of 1 × B200 SXM 180 GB" or "8 × H100 SXM 80 GB"
  function fleet(o) {
    var one = o.instance_gpus + " × " + o.gpu_name;
    return o.machines > 1 ? Atlas.t("{k} machines of {n} × {gpu}", { k: o.machines, n: o.instance_gpus, gpu: o.gpu_name }) : one;
  }
  // the headline: what to rent, from whom, at what hourly price and when that price was seen; then what it gives
  // (serving: each user's speed, first token, $/M input and output; training: the job's hours and cost)
  function headline(q, o, word, factor) {
    var p = document.getElementById("planner-headline");
    var note = document.getElementById("planner-split");
    if (!p) {
      p = el("p", { id: "planner-headline", class: "atlas-headline" });
      document.getElementById("planner-answer").prepend(p);
    }
    p.hidden = !o;
    var err = document.getElementById("planner-accuracy");
    if (err) err.hidden = true;
    if (note) {  // said where input costs less than output, as it does but for the rarest loads
      note.hidden = !o || q.workload !== "serve" || !(o.usd_per_million_input_tokens < o.usd_per_million_output_tokens);
    }
    if (!o) return;
    p.innerHTML = "";
    p.appendChild(el("strong", {}, Atlas.t("Rent {fleet} from {provider} at {price}/hour", {
      fleet: fleet(o), provider: o.provider, price: money(o.usd_per_hour, 2) })));
    p.appendChild(document.createTextNode(" " + Atlas.t("({tier} {kind}, {date}).", {
      tier: word(o.pricing_tier), kind: word(o.price_kind), date: seen(o) }) + " "));
    if (q.workload !== "serve") {
      p.appendChild(document.createTextNode(Atlas.t(
        "Estimated, not measured: {tokens} billion tokens take about {hours} hours on it and cost about {cost}.", {
          tokens: fixed(q.tokens / 1e9, 3), hours: fixed(o.job_hours * factor, 1), cost: money(o.usd_per_job * factor, 0) })));
      return;
    }
    // a replica across machines of a cluster says how many, and the fabric that joins them
    var n = { n: o.replicas, u: fixed(o.users_per_replica), p: o.pipeline_parallel, net: o.cluster_network };
    var split = o.pipeline_parallel > 1
      ? (o.replicas > 1 ? Atlas.t("{n} replicas of {u} users, each across {p} machines joined by {net}", n)
        : Atlas.t("one replica across {p} machines joined by {net}", n))
      : (o.replicas > 1 ? Atlas.t("{n} replicas of {u} users", n) : Atlas.t("one replica"));
    var values = { users: fixed(q.users), speed: fixed(o.expected_tokens_per_s_per_user, 1), ttft: fixed(o.ttft_s, 2),
                   split: split, input: money(o.usd_per_million_input_tokens, 2), output: money(o.usd_per_million_output_tokens, 2) };
    p.appendChild(document.createTextNode(Number(q.users) === 1
      ? Atlas.t("Estimated, not measured: the {users} user gets about {speed} tokens/s, first token in {ttft} s ({split}); " +
                "{input} per million input and {output} per million output tokens.", values)
      : Atlas.t("Estimated, not measured: each of the {users} users gets about {speed} tokens/s, first token in {ttft} s " +
                "({split}); {input} per million input and {output} per million output tokens.", values)));
    errorNote(p, err, o);
    if (note && !note.hidden) {
      note.textContent = Atlas.t(
        "Why input costs less: the machine's hour is split between input and output tokens by the time its steps spend " +
        "on prompts ({share} here) and on answers; a prompt's tokens are computed many at a time, an answer's one step " +
        "each, so here a million input tokens cost {ratio} of a million output tokens. Public APIs also charge less for " +
        "input than for output, but their prices carry margins and discounts for cached prompts, and this atlas holds " +
        "none of them to compare.", { share: Math.round(o.prefill_share * 100) + "%",
          ratio: Math.round(o.usd_per_million_input_tokens / o.usd_per_million_output_tokens * 100) + "%" });
    }
  }

  // how far such expectations were from published figures the calibration did not see (plan_options'
  // expected_*_error, the median held out by publication; answer.html.j2 says the same for the built question)
  function errorNote(headlineP, err, o) {
    var parts = [];
    if (o.expected_throughput_error != null)
      parts.push(Atlas.t("{pct} on output tokens/s per GPU", { pct: Math.round(o.expected_throughput_error * 100) + "%" }));
    if (o.expected_per_user_error != null)
      parts.push(Atlas.t("{pct} on tokens/s per user", { pct: Math.round(o.expected_per_user_error * 100) + "%" }));
    if (o.expected_ttft_error != null)
      parts.push(Atlas.t("{pct} on the first token", { pct: Math.round(o.expected_ttft_error * 100) + "%" }));
    if (!parts.length) return;
    if (!err) {
      err = el("p", { id: "planner-accuracy", class: "atlas-note" });
      headlineP.after(err);
    }
    err.hidden = false;
    err.textContent = Atlas.t("How far off such estimates are: on published figures the calibration did not see, the " +
                              "median error was {parts}. The bounds (100% of peak: hover a speed in the table) are firm.",
                              { parts: parts.join(Atlas.t("; ")) });
  }

  // the filters' values, as set (empty: any)
  function chosen() {
    var f = {};
    FILTERS.forEach(function (n) { f[n] = filters ? filters[n].value : ""; });
    return f;
  }
  function active() {
    var f = chosen();
    return FILTERS.some(function (n) { return f[n] !== ""; });
  }
  // the options the filters keep; `vendors`: each GPU's vendor (index.json)
  function keep(options, vendors) {
    var f = chosen();
    return options.filter(function (o) {
      return (!f.gpu || o.gpu_id === f.gpu) && (!f.vendor || vendors[o.gpu_id] === f.vendor) &&
        (!f.provider || o.provider === f.provider);
    });
  }
  // each filter's choices among `options` (a chosen value not among them is kept, so it can be seen and undone)
  function offer(options, vendors) {
    if (!filters) return;
    var found = { gpu: {}, vendor: {}, provider: {} };
    options.forEach(function (o) {
      found.gpu[o.gpu_id] = o.gpu_name;
      if (vendors[o.gpu_id]) found.vendor[vendors[o.gpu_id]] = VENDORS[vendors[o.gpu_id]] || vendors[o.gpu_id];
      found.provider[o.provider] = o.provider;
    });
    var any = { gpu: Atlas.t("every GPU"), vendor: Atlas.t("every vendor"), provider: Atlas.t("every provider") };
    FILTERS.forEach(function (n) {
      var select = filters[n], current = select.value;
      if (current && !found[n][current]) found[n][current] = current;
      select.innerHTML = "";
      select.appendChild(el("option", { value: "" }, any[n]));
      Object.keys(found[n]).sort(function (a, b) { return found[n][a].localeCompare(found[n][b]); }).forEach(function (v) {
        select.appendChild(el("option", { value: v }, found[n][v]));
      });
      select.value = current;
    });
  }

  // mark an option's point and row and scroll to the row; `missing(rank)`: a promise that adds the row when the
  // table does not show it
  function pick(rank, missing) {
    var row = document.getElementById("planner-option-" + rank);
    if (!row) {
      if (missing) missing(rank).then(function () { pick(rank); });
      return;
    }
    document.querySelectorAll("#planner-results tr.atlas-picked, #planner-chart .atlas-picked").forEach(function (e) {
      e.classList.remove("atlas-picked");
    });
    row.classList.add("atlas-picked");
    box.querySelectorAll('a[data-rank="' + rank + '"]').forEach(function (a) { a.classList.add("atlas-picked"); });
    row.setAttribute("tabindex", "-1");
    row.scrollIntoView({ block: "center" });
    row.focus({ preventScroll: true });
  }
  function onPick(missing) {
    if (!box) return;
    box.addEventListener("click", function (e) {
      var a = e.target.closest("a[data-rank]");
      if (!a) return;
      e.preventDefault();
      pick(a.getAttribute("data-rank"), missing);
    });
  }

  window.AtlasPlannerAnswer = { chart: chart, headline: headline, keep: keep, offer: offer, active: active,
                                names: FILTERS, onPick: onPick, frontier: frontier };
})();
