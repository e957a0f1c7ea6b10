// The Planner's serving model, evaluated in the browser. It is the formula of
// pipeline/sql/macros/serving.sql and pipeline/sql/plan/plan_options.sql, applied to the rows of the same
// public views (serving_models, serving_gpus, rentable_machines, serving_calibration, parameters) that the
// build writes to api/v1/plan/coefficients.json. tests/browser/test_planner_model.py compares the two on
// hundreds of random questions; change one, change the other.
(function (root) {
  "use strict";

  // {columns, rows} -> array of objects
  function objects(table) {
    return table.rows.map(function (r) {
      var o = {};
      table.columns.forEach(function (c, i) { o[c] = r[i]; });
      return o;
    });
  }

  // --- the formulas of pipeline/sql/macros/serving.sql, one function per macro
  // serve_compute_tflops and serve_compute_mode: FP8/FP4 formats compute natively where the GPU has the units
  function computeTflops(nativeCompute, g) {
    if (nativeCompute === "fp8" && g.fp8_compute_tflops !== null) return g.fp8_compute_tflops;
    if (nativeCompute === "fp4" && g.fp4_compute_tflops !== null) return g.fp4_compute_tflops;
    return g.bf16_compute_tflops;
  }

  function computeMode(format, nativeCompute, g) {
    if (nativeCompute === "bf16" && format === "bf16" && g.no_bf16_units) return "16-bit as FP16 (no BF16 units)";
    if (nativeCompute === "fp8" && g.fp8_compute_tflops !== null) return "fp8 (W8A8)";
    if (nativeCompute === "fp4" && g.fp4_compute_tflops !== null) return "fp4 (W4A4)";
    return format === "bf16" ? "16-bit" : "weight-only, 16-bit compute";
  }

  function kvGb(full, window, slidingWindow, state, stateBytes, kvBytes, tokens) {
    var cap = slidingWindow === null || slidingWindow === undefined ? tokens : slidingWindow;
    return (kvBytes * (full * tokens + window * Math.min(tokens, cap)) + stateBytes * (state || 0)) / 1e9;
  }
  function kvReplication(mla, kvHeads, d) {
    return mla ? d : Math.ceil(kvHeads / d) * d / kvHeads;
  }
  function stepReadGb(denseGb, expertGb, moeLayers, numExperts, perToken, u, kvSeqGb, replication) {
    return denseGb + moeLayers * numExperts * (1 - Math.pow(1 - perToken / numExperts, u)) * expertGb
      + u * kvSeqGb * replication;
  }
  function stepS(readGb, u, activeB, d, bandwidth, tflops, eBw, eFl) {
    return Math.max(readGb / (d * bandwidth * eBw), u * 2 * activeB * 1e9 / (d * tflops * 1e12 * eFl));
  }
  function prefillS(inputTokens, activeB, d, tflops, eFl) {
    return inputTokens * 2 * activeB * 1e9 / (d * tflops * 1e12 * eFl);
  }
  function requestsPerS(u, outputTokens, step, prefill) {
    return u / (outputTokens * step + u * prefill);
  }
  function userTokensPerS(u, outputTokens, step, prefill) {
    return outputTokens / (outputTokens * step + Math.max(u - 1, 0) * prefill);
  }
  function boundRequestS(inputTokens, outputTokens, u, activeB, d, tflops, bandwidth, readGb) {
    return Math.max((inputTokens + outputTokens) * 2 * activeB * 1e9 / (d * tflops * 1e12),
                    outputTokens * readGb / (u * d * bandwidth));
  }
  function perGpuGb(weightsGb, kvReservedGb, replication, d, fixedGb, overheadFraction) {
    return fixedGb + (1 + overheadFraction) * (weightsGb + kvReservedGb * replication) / d;
  }

  function Model(coefficients) {
    this.models = objects(coefficients.models);
    this.gpus = {};
    var self = this;
    objects(coefficients.gpus).forEach(function (g) { self.gpus[g.gpu_id] = g; });
    this.machines = objects(coefficients.machines);
    this.calibration = {};
    objects(coefficients.calibration).forEach(function (c) {
      self.calibration[c.engine_family + "|" + c.model_kind] = c;
    });
    this.parameters = coefficients.parameters;
  }

  // One deployment: machine m split into replicas of d GPUs serving q.users; null when it does not fit.
  Model.prototype.evaluate = function (q, mo, m, g, cal, d) {
    var p = this.parameters;
    var replicas = Math.floor(m.instance_gpus / d);
    var u = q.users / replicas;
    var tflops = computeTflops(mo.native_compute, g);
    var kvBytes = q.kv_precision === "fp8" ? p.bytes_fp8 : p.bytes_bf16;
    var repl = kvReplication(mo.mla, mo.kv_heads, d);
    var reserved = Math.max(
      Math.ceil(u) * kvGb(mo.kv_values_per_token_full, mo.kv_values_per_token_window, mo.sliding_window,
          mo.state_values_per_sequence, p.bytes_bf16, kvBytes,
                          q.input_tokens + q.output_tokens),
      kvGb(mo.kv_values_per_token_full, mo.kv_values_per_token_window, mo.sliding_window,
          mo.state_values_per_sequence, p.bytes_bf16, kvBytes, q.context_tokens));
    var kvMean = kvGb(mo.kv_values_per_token_full, mo.kv_values_per_token_window, mo.sliding_window,
          mo.state_values_per_sequence, p.bytes_bf16, kvBytes,
                      q.input_tokens + q.output_tokens / 2);
    var perGpu = perGpuGb(mo.weights_gb, reserved, repl, d, p.runtime_overhead_gb, p.runtime_overhead_fraction);
    if (!(perGpu <= g.usable_gb_per_gpu)) return null;
    var read = stepReadGb(mo.dense_read_gb, mo.expert_gb, mo.moe_layers, mo.num_experts, mo.experts_per_token, u,
                          kvMean, repl);
    var comm = d > 1 ? 2 * mo.layers * g.allreduce_us / 1e6 : 0;
    var eBw = cal.decode_efficiency, eFl = cal.compute_efficiency;
    var step = stepS(read, u, mo.active_params_b, d, g.memory_bandwidth_gbs, tflops, eBw, eFl)
      + u * cal.sequence_overhead_us / 1e6 + comm;
    var prefill = prefillS(q.input_tokens, mo.active_params_b, d, tflops, p.prefill_mfu);
    var boundStep = stepS(read, u, mo.active_params_b, d, g.memory_bandwidth_gbs, tflops, 1, 1);
    var boundPrefill = prefillS(q.input_tokens, mo.active_params_b, d, tflops, 1);
    var boundRequest = boundRequestS(q.input_tokens, q.output_tokens, u, mo.active_params_b, d, tflops,
                                     g.memory_bandwidth_gbs, read);
    var rps = requestsPerS(u, q.output_tokens, step, prefill);
    var bound = replicas * q.output_tokens / boundRequest;
    var throughput = Math.min(replicas * q.output_tokens * rps, bound);
    var perUser = Math.min(userTokensPerS(u, q.output_tokens, step, prefill), 1 / boundStep);
    var prefillShare = Math.min(1.0, rps * prefill);
    var memoryS = read / (d * g.memory_bandwidth_gbs * eBw);
    var computeS = u * 2 * mo.active_params_b * 1e9 / (d * tflops * 1e12 * eFl);
    return {
      gpu_id: m.gpu_id, gpu_name: g.name, gpu_count: m.instance_gpus, instance_gpus: m.instance_gpus,
      tensor_parallel: d, replicas: replicas, users_per_replica: u, machine_id: m.machine_id,
      provider: m.provider, offering: m.offering, pricing_tier: m.pricing_tier, statistic: m.statistic,
      price_kind: m.price_kind, region: m.region, observed_on: m.observed_on,
      observed_date_known: m.observed_date_known, observed_no_later_than: m.observed_no_later_than,
      usd_per_hour: m.usd_per_hour, usd_per_gpu_hour: m.usd_per_gpu_hour,
      compute_mode: computeMode(mo.resolved_format, mo.native_compute, g),
      required_gb: perGpu * m.instance_gpus,
      capacity_gb: g.usable_gb_per_gpu * m.instance_gpus,
      throughput_tokens_per_s_per_gpu: throughput / m.instance_gpus,
      bound_throughput_tokens_per_s_per_gpu: bound / m.instance_gpus,
      expected_tokens_per_s: throughput,
      bound_tokens_per_s: bound,
      expected_tokens_per_s_per_user: perUser,
      bound_tokens_per_s_per_user: 1 / boundStep,
      ttft_s: prefill + step,
      bound_ttft_s: boundPrefill,
      prefill_share: prefillShare,
      usd_per_million_input_tokens:
        m.usd_per_hour * prefillShare / (throughput * q.input_tokens / q.output_tokens * 3600) * 1e6,
      usd_per_million_output_tokens: m.usd_per_hour * (1 - prefillShare) / (throughput * 3600) * 1e6,
      usd_per_million_tokens:
        m.usd_per_hour / (throughput * (q.input_tokens + q.output_tokens) / q.output_tokens * 3600) * 1e6,
      limited_by: prefillShare > 0.5 ? "prefill (compute)"
        : (memoryS >= computeS ? "decode (memory bandwidth)" : "decode (compute)")
    };
  };

  function cmp(a, b) { return a < b ? -1 : (a > b ? 1 : 0); }
  function cmpNullsLast(a, b) {
    if (a === b) return 0;
    if (a === null || a === undefined) return 1;
    if (b === null || b === undefined) return -1;
    return cmp(a, b);
  }

  // Every option for a serving question, ranked as plan_options.sql ranks them.
  // q: {model_id, precision, kv_precision, context_tokens, users, input_tokens, output_tokens, tier (null = any),
  //     engine_family, min_tokens_per_user (or null), max_ttft_s (or null)}
  Model.prototype.plan = function (q) {
    var self = this;
    var mo = this.models.filter(function (r) { return r.model_id === q.model_id && r.format === q.precision; })[0];
    if (!mo) return [];
    var cal = this.calibration[q.engine_family + "|" + (mo.is_moe ? "moe" : "dense")];
    if (!cal) return [];
    var options = [];
    this.machines.forEach(function (m) {
      if (q.tier !== null && m.pricing_tier !== q.tier) return;
      var g = self.gpus[m.gpu_id];
      if (!g) return;
      if (q.engine_family === "tensorrt-llm" && g.vendor !== "nvidia") return;
      if ((g.engine_formats || []).indexOf(mo.resolved_format) < 0) return;  // no engine runs this format here
      var best = null;
      [1, 2, 4, 8].forEach(function (d) {
        if (m.instance_gpus % d !== 0 || mo.attention_heads % d !== 0) return;
        if (Math.floor(m.instance_gpus / d) > q.users) return;
        var o = self.evaluate(q, mo, m, g, cal, d);
        if (!o) return;
        if (q.min_tokens_per_user !== null && !(o.expected_tokens_per_s_per_user >= q.min_tokens_per_user)) return;
        if (q.max_ttft_s !== null && !(o.ttft_s <= q.max_ttft_s)) return;
        if (!best || o.expected_tokens_per_s > best.expected_tokens_per_s) best = o;  // ties: the smaller split
      });
      if (best) options.push(best);
    });
    options.sort(function (a, b) {
      return cmp(a.usd_per_million_tokens, b.usd_per_million_tokens) || cmp(a.usd_per_hour, b.usd_per_hour)
        || cmp(b.capacity_gb - b.required_gb, a.capacity_gb - a.required_gb)
        || cmp(b.observed_on, a.observed_on) || cmp(a.provider, b.provider) || cmp(a.offering, b.offering)
        || cmp(a.pricing_tier, b.pricing_tier) || cmpNullsLast(a.region, b.region) || cmp(a.gpu_id, b.gpu_id)
        || cmp(a.tensor_parallel, b.tensor_parallel);
    });
    var first = options.length ? options[0].usd_per_million_tokens : null;
    options.forEach(function (o, i) {
      o.rank = i + 1;
      o.headroom_gb = o.capacity_gb - o.required_gb;
      o.why = i === 0 ? "lowest $ per million tokens"
        : (o.usd_per_million_tokens <= 1.005 * first ? "ties with #1 (within 0.5%)"
           : Math.round(100 * (o.usd_per_million_tokens / first - 1)) + "% more per million tokens than #1");
    });
    return options;
  };

  // Throughput per GPU against tokens/s per user for one option's machine and split as the users grow.
  Model.prototype.curve = function (q, option) {
    var self = this;
    var mo = this.models.filter(function (r) { return r.model_id === q.model_id && r.format === q.precision; })[0];
    var m = this.machines.filter(function (r) { return r.machine_id === option.machine_id && r.gpu_id === option.gpu_id; })[0];
    var g = this.gpus[option.gpu_id];
    var cal = this.calibration[q.engine_family + "|" + (mo.is_moe ? "moe" : "dense")];
    var points = [];
    for (var users = option.replicas; users <= 4096; users *= 2) {
      var o = self.evaluate(Object.assign({}, q, { users: users }), mo, m, g, cal, option.tensor_parallel);
      if (!o) break;
      points.push({ users: users, per_user: o.expected_tokens_per_s_per_user,
                    per_gpu: o.throughput_tokens_per_s_per_gpu });
    }
    return points;
  };

  var api = { Model: Model, objects: objects };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.AtlasPlannerModel = api;
})(this);
