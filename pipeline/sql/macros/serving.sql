-- The serving model, one formula for every caller: the Planner (pipeline/sql/plan/plan_options.sql),
-- the serving measurement bounds and calibration (out_serving_bounds, out_serving_calibration). The Planner's
-- page runs this same file in the browser (DuckDB-WASM, api/v1/plan/sql/).
-- A replica of d GPUs (tensor parallel) serves u concurrent users, each sending its next request as soon
-- as the last is answered (continuous batching). A request prefills input_tokens (compute-bound) and
-- decodes output_tokens, one per step, in steps shared by the u sequences (bandwidth-bound).
-- GB = 10^9 bytes; bandwidth in GB/s; compute in dense TFLOPS; efficiencies are shares of peak (1 = the bound).

-- KV cache of one sequence of `tokens` tokens, GB: full-attention layers keep every token, windowed
-- (sliding or chunked) layers at most their window, linear-attention layers a fixed state (kept at 16 bits
-- whatever the KV format)
create or replace macro serve_kv_gb(full_values, window_values, sliding_window, state_values, kv_bytes, tokens) as
    (kv_bytes * (full_values::double * tokens + window_values::double * least(tokens, coalesce(sliding_window, tokens)))
     + param('bytes_bf16') * coalesce(state_values, 0)::double) / 1e9;

-- sequences an engine batches at most by default where a publication states only 'maximum throughput': vLLM's
-- default max_num_seqs, 1024 on a GPU of 70 GiB (75.2 GB) or more other than an A100, else 256
create or replace macro serve_max_batch(gpu_id, memory_gb) as
    case when memory_gb >= 70 * 1.073741824 and gpu_id not like '%-a100-%' then param('serving_max_batch_large')
         else param('serving_max_batch') end;

-- how much of one sequence's cache a d-way group holds, in copies: KV heads fewer than d are replicated,
-- MLA's single latent on every GPU
create or replace macro serve_kv_replication(mla, kv_heads, d) as
    case when mla then d else ceil(kv_heads / d) * d / kv_heads end;

-- GFLOP the attention of one token takes at a context of c tokens (out_serving_models' coefficients: the full layers
-- attend to every token, or the indexer's top k, the windowed layers to at most their window)
create or replace macro serve_attention_gflop(full_coef, window_coef, sliding_window, topk, c) as
    (full_coef * least(c, coalesce(topk, c)) + coalesce(window_coef, 0) * least(c, coalesce(sliding_window, c))) / 1e9;

-- GFLOP of attention per sequence a step: its decoded token at the mean context (input + output / 2) and its share of
-- the arriving prompts' tokens (input / output of them a step, each at half the prompt on average)
create or replace macro serve_step_attention_gflop(full_coef, prefill_coef, window_coef, sliding_window, topk,
                                                   input_tokens, output_tokens) as
    serve_attention_gflop(full_coef, window_coef, sliding_window, topk, input_tokens + output_tokens / 2)
    + input_tokens / output_tokens * serve_attention_gflop(prefill_coef, window_coef, sliding_window, topk,
                                                           input_tokens / 2);

-- GFLOP of attention in one prompt's prefill (its tokens at half its length on average)
create or replace macro serve_prefill_attention_gflop(prefill_coef, window_coef, sliding_window, topk, input_tokens) as
    input_tokens * serve_attention_gflop(prefill_coef, window_coef, sliding_window, topk, input_tokens / 2);

-- GB the decode attention of one step reads: u caches at the mean context, with the copies tensor parallelism makes
create or replace macro serve_kv_read_gb(u, kv_seq_gb, replication) as u * kv_seq_gb * replication;

-- GB one decode step of u sequences reads: weights but the input embeddings, the distinct routed experts
-- u tokens touch (1 - (1 - k/E)^u of each MoE layer's E experts), and u caches at the mean context
create or replace macro serve_step_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token,
                                           u, kv_seq_gb, replication) as
    dense_read_gb + moe_layers * num_experts * (1 - pow(1 - experts_per_token / num_experts, u)) * expert_gb
    + serve_kv_read_gb(u, kv_seq_gb, replication);

-- dense peak TFLOPS a weight format computes at: FP8 (W8A8) and FP4 (W4A4) on GPUs with those tensor units,
-- 16-bit elsewhere (the weights are dequantised: weight-only); native_compute comes from core_weight_formats.
-- 'mxfp8': FP4 weights against MXFP8 activations (W4A8) on GPUs with FP4 units, at their FP8 rate (the gpt-oss
-- checkpoint's experts as TensorRT-LLM's default MoE backend on Blackwell and vLLM's FlashInfer kernels run them;
-- on Hopper they run against BF16 activations: weight-only)
create or replace macro serve_compute_tflops(native_compute, bf16_tflops, fp8_tflops, fp4_tflops) as
    case when native_compute = 'fp8' and fp8_tflops is not null then fp8_tflops
         when native_compute = 'fp4' and fp4_tflops is not null then fp4_tflops
         when native_compute = 'mxfp8' and fp4_tflops is not null and fp8_tflops is not null then fp8_tflops
         else bf16_tflops end;

-- ... and how it computes, in words
create or replace macro serve_compute_mode(format, native_compute, fp8_tflops, fp4_tflops) as
    case when native_compute = 'fp8' and fp8_tflops is not null then 'fp8 (W8A8)'
         when native_compute = 'fp4' and fp4_tflops is not null then 'fp4 (W4A4)'
         when native_compute = 'mxfp8' and fp4_tflops is not null and fp8_tflops is not null
             then 'fp8 activations, fp4 weights (W4A8)'
         when format = 'bf16' then '16-bit'
         else 'weight-only, 16-bit compute' end;

-- dense peak TFLOPS the attention's QK and AV products compute at: the weights' format does not reach them (FP8 or FP4
-- weights leave the activations and the cache in their own formats), so 16-bit, or FP8 where the cache is FP8 and
-- the GPU has FP8 units (FP8 attention kernels: FlashAttention 3, FlashMLA, TensorRT-LLM's FP8 attention)
create or replace macro serve_attention_tflops(kv_format, bf16_tflops, fp8_tflops) as
    case when kv_format = 'fp8' and fp8_tflops is not null then fp8_tflops else bf16_tflops end;

-- the weights a model's measured level (out_serving_levels) is kept for: the format, FP8 with per-tensor and with
-- 128 x 128 block scales counted as one (the same bytes to 0.002 bits and the same FP8 kernels; publications label
-- DeepSeek's block-scaled checkpoint either way)
create or replace macro serve_weight_class(format) as
    case when format = 'fp8-block' then 'fp8' else format end;

-- seconds of one decode step with no prompt beside it: its reads at e_bw of peak bandwidth or its compute (2 FLOPs
-- per active parameter per sequence) at e_fl of dense peak, whichever is longer (the bound of a user's speed: e = 1)
create or replace macro serve_step_s(read_gb, u, active_params_b, d, bandwidth_gbs, tflops, e_bw, e_fl) as
    greatest(read_gb / (d * bandwidth_gbs * e_bw), u * 2 * active_params_b * 1e9 / (d * tflops * 1e12 * e_fl));

-- seconds of one request's prefill (the time to first token: its prefill, then one step): 2 FLOPs per active
-- parameter per input token and its attention (attention_gflop: the prompt's tokens at half its length on average)
-- at e_fl of dense peak (the attention at attention_tflops: serve_attention_tflops), or, where longer, reading the
-- weights its tokens use once
-- (read_gb: serve_prefill_read_gb; a short prompt of a mixture of experts touches most experts) at e_bw of peak
create or replace macro serve_prefill_s(input_tokens, active_params_b, d, tflops, e_fl, read_gb, bandwidth_gbs, e_bw,
                                        attention_gflop, attention_tflops) as
    greatest(input_tokens * 2 * active_params_b * 1e9 / (d * tflops * 1e12 * e_fl)
                 + attention_gflop * 1e9 / (d * attention_tflops * 1e12 * e_fl),
             read_gb / (d * bandwidth_gbs * e_bw));

-- GB of weights a prefill of n tokens reads: the dense weights and the experts its tokens touch
create or replace macro serve_prefill_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, n) as
    serve_step_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, n, 0, 1);

-- what a step's fixed times are multiplied by: a mixture of experts launches a router, a top-k, a permutation, grouped
-- expert kernels and a combine in each of its layers, for every token, so its overheads grow with its depth (fitted
-- for a model of serving_moe_overhead_layers layers); a dense model's are the step's (scheduling, sampling, a
-- CUDA graph's launch), whatever its depth
create or replace macro serve_overhead_scale(is_moe, layers) as
    case when is_moe then layers / param('serving_moe_overhead_layers') else 1 end;

-- seconds of one step of the expectation. Continuous batching with chunked prefill: every step decodes one token
-- of each of the u sequences and computes, beside them, the prompt tokens of the requests that arrive (on average u x
-- input / output tokens a step: each request brings input tokens per output tokens steps). Kernel by kernel: the
-- linear layers read the weights once for all the step's tokens and compute 2 FLOPs per active parameter per decoded
-- and prompt token, so they take the longer of their reads (e_bw of peak bandwidth) and their compute (e_fl of dense
-- peak); the attention then, in kernels of its own that do not overlap the linear layers, reads every sequence's
-- cache (kv_gb of read_gb) or computes its QK and AV products (attention_gflop per sequence a step: its decoded token
-- at the mean context and its share of the arriving prompts' tokens, serve_attention_gflop, at attention_tflops),
-- whichever is longer. Plus a fixed time per step (scheduling, kernel launches) and per sequence (sampling,
-- routing), times overhead_scale (serve_overhead_scale), and the tensor-parallel all-reduces (comm_s). The bound is
-- the same terms at 100% of peak with every read and FLOP overlapped and no overhead (serve_bound_request_s). A
-- replica then gives u / step output tokens per second, each user 1 / step.
create or replace macro serve_expected_step_s(read_gb, kv_gb, u, input_tokens, output_tokens, active_params_b, d,
                                              bandwidth_gbs, tflops, e_bw, e_fl, step_us, sequence_us, comm_s,
                                              attention_gflop, attention_tflops, overhead_scale) as
    greatest((read_gb - kv_gb) / (d * bandwidth_gbs * e_bw),
             u * (1 + input_tokens / output_tokens) * 2 * active_params_b * 1e9 / (d * tflops * 1e12 * e_fl))
    + greatest(kv_gb / (d * bandwidth_gbs * e_bw), u * attention_gflop * 1e9 / (d * attention_tflops * 1e12 * e_fl))
    + (step_us + u * sequence_us) * overhead_scale / 1e6 + comm_s;

-- the share of a step's time its prompt tokens' compute takes (the rest decodes): how the machine's hour is split
-- between input and output tokens. Where the step is bound by its reads, prompt tokens ride along almost free.
create or replace macro serve_prefill_share(step_s, u, input_tokens, output_tokens, active_params_b, d, tflops, e_fl) as
    least(1.0, u * input_tokens / output_tokens * 2 * active_params_b * 1e9 / (d * tflops * 1e12 * e_fl) / step_s);

-- the bound: GPU seconds one request needs at 100% of peak, however the engine schedules it: the larger of
-- its compute (2 FLOPs per active parameter per input and output token) and its share of the decode reads
-- (each step's reads shared by the u sequences in it, one step per output token)
create or replace macro serve_bound_request_s(input_tokens, output_tokens, u, active_params_b, d, tflops,
                                              bandwidth_gbs, read_gb) as
    greatest((input_tokens + output_tokens) * 2 * active_params_b * 1e9 / (d * tflops * 1e12),
             output_tokens * read_gb / (u * d * bandwidth_gbs));

-- the bound of a replica's output tokens per second per GPU: u sequences of d GPUs, each request taking
-- serve_bound_request_s
create or replace macro serve_bound_throughput(input_tokens, output_tokens, u, active_params_b, d, tflops,
                                               bandwidth_gbs, read_gb) as
    output_tokens / serve_bound_request_s(input_tokens, output_tokens, u, active_params_b, d, tflops, bandwidth_gbs,
                                          read_gb) / d;

-- the links a replica of d GPUs all-reduces over: the GPUs' interconnect (NVLink, Infinity Fabric) where it joins
-- all d of them, else PCIe. A bridge joins two cards (four for a 4-way bridge: link_gpus); tensor parallelism over
-- more of them runs at the pace of the PCIe hops between the bridged groups. link_gpus NULL: the interconnect joins
-- every GPU of a machine (NVSwitch, an Infinity Fabric mesh) or there is none (link_gbs is then PCIe already).
create or replace macro serve_link_joins(d, link_gpus) as d <= coalesce(link_gpus, d);

create or replace macro serve_link_gbs(d, link_gbs, link_gpus, pcie_link_gbs) as
    case when serve_link_joins(d, link_gpus) then link_gbs else pcie_link_gbs end;

create or replace macro serve_allreduce_us(d, allreduce_us, link_gpus) as
    case when serve_link_joins(d, link_gpus) then allreduce_us else param('allreduce_latency_us_pcie') end;

-- seconds of a step's tensor-parallel communication across d GPUs: two all-reduces per layer (after attention and
-- after the MLP or the experts) of the step's activations (tokens x hidden x 2 bytes), each a fixed latency plus a
-- ring's 2 (d - 1) / d of the message over each GPU's links in one direction (half of link_gbs, both directions) at
-- e_comm of their peak (fitted per engine family and model kind: all-reduces of a few MB, as tensor parallelism
-- sends, reach a fraction of what the links carry; an engine that overlaps its exchanges with compute fits near 1).
-- The expectation only (the bound has no communication).
create or replace macro serve_comm_s(d, layers, allreduce_us, tokens, hidden_size, link_gbs, e_comm) as
    case when d > 1 then 2 * layers * (allreduce_us / 1e6
        + 2 * (d - 1) / d * tokens * hidden_size * param('bytes_bf16') / (link_gbs / 2 * 1e9 * e_comm))
    else 0 end;

-- seconds to a request's first token: its prefill (serve_prefill_s), the tensor-parallel all-reduces of its prompt's
-- activations across d GPUs (serve_comm_s of input_tokens tokens at the links' peak: a prompt of thousands of tokens
-- sends messages of tens to hundreds of MB, which stream at the links' rate once their fixed latency is paid; the
-- share fitted on decode steps, whose messages are a few MB, would make a 4,000-token prompt on 8 x A100 2.4 x as
-- slow as published), one step, and the fitted fixed part (overhead_ms: scheduling, tokenisation, the first bytes)
create or replace macro serve_first_token_s(prefill_s, step_s, overhead_ms, d, layers, allreduce_us, input_tokens,
                                            hidden_size, link_gbs) as
    prefill_s + serve_comm_s(d, layers, allreduce_us, input_tokens, hidden_size, link_gbs, 1) + step_s
    + overhead_ms / 1e3;

-- GB per GPU a replica needs: weights and the reserved cache split over d GPUs (cache copies included),
-- plus the runtime overhead (fixed per GPU, and proportional)
create or replace macro serve_per_gpu_gb(weights_gb, kv_reserved_gb, replication, d, fixed_gb, overhead_fraction) as
    fixed_gb + (1 + overhead_fraction) * (weights_gb + kv_reserved_gb * replication) / d;
