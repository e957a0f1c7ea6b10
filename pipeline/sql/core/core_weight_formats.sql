-- Weight formats users pick, with the bits each part of a checkpoint is stored at.
-- Quantisation applies to the linear layers; embeddings, output head, norms, biases and MoE routers
-- stay 16-bit unless the format quantises them too (GGUF quantises embeddings and head, keeps norms
-- in FP32). `value_down_extra_bits` is added on the value and down projections (GGUF Q4_K_M keeps
-- about half of them in Q6_K). `native_compute` is the precision the format computes in where the
-- GPU has the units; elsewhere it is dequantised and computed in 16-bit (weight-only). `used_for`: formats the
-- serving engines (vLLM, SGLang, TensorRT-LLM) load ('serving'), llama.cpp's GGUF formats, or training only.
-- `expert_bits`: the bits of the routed experts, the linear layers' unless the format stores experts apart
-- (gpt-oss ships MXFP4 experts and BF16 attention, embeddings and head; Kimi K2 Thinking and K2.5 INT4 experts in
-- groups of 32 and BF16 elsewhere).
select *, case when format in ('mxfp4-moe', 'gguf-mxfp4-moe') then param('bits_mxfp4')
               when format = 'int4-moe' then param('bits_int4_g32')
               else linear_bits end as expert_bits
from (values
    ('fp32', 'FP32', 32.0, 0.0, 32.0, 32.0, 32.0, 'fp32', 'training', 'Full precision (4 bytes per weight)'),
    ('bf16', 'BF16 / FP16', 16.0, 0.0, 16.0, 16.0, 16.0, 'bf16', 'serving', 'The released 16-bit checkpoint'),
    ('fp8', 'FP8 (W8A8 where the GPU has FP8 units)', param('bits_fp8'), 0.0, 16.0, 16.0, 16.0, 'fp8', 'serving',
        'FP8 linear weights, 16-bit embeddings and head; W8A8 compute only on GPUs with FP8 tensor units'),
    ('fp8-block', 'FP8, 128 x 128 block scales (DeepSeek-style checkpoint)', param('bits_fp8_block'), 0.0, 16.0, 16.0, 16.0,
        'fp8', 'serving', 'FP8 linear weights with an FP32 scale per 128 x 128 block, as DeepSeek V3 and its successors ship; W8A8 compute only on GPUs with FP8 tensor units'),
    ('int8', 'INT8 weight-only', param('bits_int8_weight_only'), 0.0, 16.0, 16.0, 16.0, 'bf16', 'serving',
        'INT8 linear weights with per-channel scales, dequantised to 16-bit for compute'),
    ('int4', 'INT4 AWQ/GPTQ g128', param('bits_int4_g128'), 0.0, 16.0, 16.0, 16.0, 'bf16', 'serving',
        'INT4 linear weights, FP16 scale and 4-bit zero point per group of 128; 16-bit compute'),
    ('nvfp4', 'NVFP4 (W4A4 where the GPU has FP4 units)', param('bits_nvfp4'), 0.0, 16.0, 16.0, 16.0, 'fp4', 'serving',
        'NVFP4 linear weights (FP8 scale per 16 values); FP4 compute only on GPUs with FP4 tensor units, weight-only elsewhere'),
    ('mxfp4', 'MXFP4 (W4A4 where the GPU has FP4 units)', param('bits_mxfp4'), 0.0, 16.0, 16.0, 16.0, 'fp4', 'serving',
        'MXFP4 linear weights (8-bit power-of-two scale per 32 values); FP4 compute only on GPUs with FP4 tensor units, weight-only elsewhere'),
    ('mxfp4-moe', 'MXFP4 experts, BF16 attention (gpt-oss checkpoint)', 16.0, 0.0, 16.0, 16.0, 16.0, 'mxfp8', 'serving',
        'MXFP4 routed experts (8-bit scale per 32 values) with BF16 attention, embeddings and head, as gpt-oss ships; the experts run against MXFP8 activations (W4A8, at the FP8 rate) on GPUs with FP4 tensor units, against BF16 activations elsewhere (weight-only)'),
    ('int4-moe', 'INT4 experts (groups of 32), BF16 elsewhere (Kimi K2 Thinking checkpoint)', 16.0, 0.0, 16.0, 16.0, 16.0, 'bf16',
        'serving', 'INT4 routed experts (symmetric, one BF16 scale per 32 weights) with BF16 attention, shared experts, dense layers, embeddings and head, as Kimi K2 Thinking and Kimi K2.5 ship (compressed-tensors); weight-only, 16-bit compute'),
    ('gguf-mxfp4-moe', 'GGUF MXFP4 MoE (llama.cpp gpt-oss files)', param('bits_gguf_q8_0'), 0.0, param('bits_gguf_q8_0'),
        param('bits_gguf_q8_0'), 32.0, 'bf16', 'llama.cpp',
        'llama.cpp file type MXFP4 MoE, as ggml-org ships gpt-oss: MXFP4 routed experts, Q8_0 attention, embeddings and output; norms, biases, sinks and router FP32'),
    ('q8_0', 'GGUF Q8_0', param('bits_gguf_q8_0'), 0.0, param('bits_gguf_q8_0'), param('bits_gguf_q8_0'), 32.0,
        'bf16', 'llama.cpp', 'llama.cpp Q8_0 on every matrix, embeddings and head included; norms FP32'),
    ('q4_0', 'GGUF Q4_0', param('bits_gguf_q4_0'), 0.0, param('bits_gguf_q4_0'), param('bits_gguf_q6_k'), 32.0,
        'bf16', 'llama.cpp', 'llama.cpp Q4_0 on every matrix and the embeddings, Q6_K output; norms FP32'),
    ('q4_k_m', 'GGUF Q4_K_M', param('bits_gguf_q4_k'),
        param('gguf_q4_k_m_q6_k_share') * (param('bits_gguf_q6_k') - param('bits_gguf_q4_k')),
        param('bits_gguf_q4_k'), param('bits_gguf_q6_k'), 32.0, 'bf16', 'llama.cpp',
        'llama.cpp Q4_K_M mixture: Q4_K matrices and embeddings, Q6_K output and about half the value/down projections; norms FP32'),
    ('nf4', 'NF4 (QLoRA, double quantisation)', param('bits_nf4_double_quant'), 0.0, 16.0, 16.0, 16.0, 'bf16',
        'training', 'bitsandbytes NF4 linear weights with double-quantised block constants; embeddings and head 16-bit')
) as t(format, label, linear_bits, value_down_extra_bits, embedding_bits, head_bits, other_bits,
       native_compute, used_for, description)
