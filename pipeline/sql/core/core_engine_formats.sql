-- The weight formats a serving engine runs on each GPU architecture: a deployment in a format no engine runs
-- there is not an option. From vLLM's documentation (the engine family the Planner's estimates are fitted on):
-- * GPU requirements: "compute capability 7.0 or higher" (vLLM installation, GPU, NVIDIA CUDA): no Maxwell, Pascal.
-- * "Supported Hardware" table (docs.vllm.ai, features/quantization, v0.15.1): AWQ not on Volta; GPTQ from Volta;
--   Marlin (GPTQ/AWQ/FP8) from Ampere; INT8 (W8A8) from Turing; FP8 (W8A8) on Ada, Hopper and AMD GPUs; AWQ, GPTQ,
--   INT8 and Marlin not on AMD GPUs.
-- * FP8 W8A8 (docs.vllm.ai v0.32.0): "FP8 computation is supported on NVIDIA GPUs with compute capability >= 8.9
--   (Ada Lovelace, Hopper, Blackwell). FP8 models will run on compute capability >= 7.5 (Turing) as weight-only
--   W8A16, utilizing FP8 Marlin."
-- * gpt-oss recipe (vllm-project/recipes OpenAI/GPT-OSS.md): runs "on NVIDIA H100, H200, B200 as well as MI300x,
--   MI325x, MI355x"; "GPT-OSS works on Ampere devices by default, using ... Marlin MXFP4 MoE".
-- * INT4 experts beside BF16 (int4-moe, Kimi K2 Thinking and K2.5's compressed-tensors checkpoint): the Kimi-K2.5
--   recipe (vllm-project/recipes moonshotai/Kimi-K2.5.md @044b7bbc) is "Verified on 8xH200 GPUs" (Hopper), runs
--   "NVIDIA Blackwell (e.g., GB200)" and is "Verified on 8x MI300X/MI355X GPUs" (CDNA 3, CDNA 4); the Kimi-K2-Thinking
--   recipe (moonshotai/Kimi-K2-Think.md @0d218d1e) launches on "8x H200/H20". No engine document read names an older
--   architecture for this checkpoint, so none is listed.
-- * BF16 needs compute capability 8.0: Volta and Turing run 16-bit checkpoints as FP16 (serving_gpus.no_bf16_units).
-- FP4 formats compute as FP4 only with FP4 units (Blackwell, CDNA 4); elsewhere weight-only (serve_compute_mode).
-- Accelerators vLLM serves through a hardware plugin (no SGLang, no TensorRT-LLM):
-- * Cloud TPU: vLLM TPU (tpu-inference; PyPI tpu-inference README, 'Compatible TPU Generations': v7x, v6e and v5e
--   recommended, v5p experimental per docs.vllm.ai/projects/vllm-jax 'Cloud TPU Setup') serves 16-bit checkpoints and
--   INT8 weights (vLLM's `tpu_int8` quantization, Int8TpuConfig: weights INT8, activations BF16/FP16; docs.vllm.ai
--   v0.9.0 API vllm.model_executor.layers.quantization.tpu_int8). No FP8 or 4-bit format is documented for TPU.
-- * AWS Trainium2 (NeuronCore-v3): vLLM on AWS Neuron (NxD Inference) serves BF16 and weights quantized to INT8 or
--   FP8 (aws-neuron-sdk, libraries/nxd-inference/developer_guides/feature-guide.rst 'quantizing model weights to ...
--   INT8 ... FP8'; vllm-user-guide-v1.rst 'INT8/FP8 quantization support'); block-scaled and 4-bit formats are not.
select architecture, format
from (values
    ('Volta', 'bf16'), ('Volta', 'int4'),
    ('Turing', 'bf16'), ('Turing', 'fp8'), ('Turing', 'fp8-block'), ('Turing', 'int8'), ('Turing', 'int4'),
    ('Ampere', 'bf16'), ('Ampere', 'fp8'), ('Ampere', 'fp8-block'), ('Ampere', 'int8'), ('Ampere', 'int4'),
        ('Ampere', 'nvfp4'), ('Ampere', 'mxfp4'), ('Ampere', 'mxfp4-moe'),
    ('Ada Lovelace', 'bf16'), ('Ada Lovelace', 'fp8'), ('Ada Lovelace', 'fp8-block'), ('Ada Lovelace', 'int8'),
        ('Ada Lovelace', 'int4'), ('Ada Lovelace', 'nvfp4'), ('Ada Lovelace', 'mxfp4'), ('Ada Lovelace', 'mxfp4-moe'),
    ('Hopper', 'bf16'), ('Hopper', 'fp8'), ('Hopper', 'fp8-block'), ('Hopper', 'int8'), ('Hopper', 'int4'),
        ('Hopper', 'nvfp4'), ('Hopper', 'mxfp4'), ('Hopper', 'mxfp4-moe'), ('Hopper', 'int4-moe'),
    ('Blackwell', 'bf16'), ('Blackwell', 'fp8'), ('Blackwell', 'fp8-block'), ('Blackwell', 'int8'),
        ('Blackwell', 'int4'), ('Blackwell', 'nvfp4'), ('Blackwell', 'mxfp4'), ('Blackwell', 'mxfp4-moe'),
        ('Blackwell', 'int4-moe'),
    ('CDNA 2', 'bf16'),
    ('CDNA 3', 'bf16'), ('CDNA 3', 'fp8'), ('CDNA 3', 'fp8-block'), ('CDNA 3', 'mxfp4-moe'), ('CDNA 3', 'int4-moe'),
    ('CDNA 4', 'bf16'), ('CDNA 4', 'fp8'), ('CDNA 4', 'fp8-block'), ('CDNA 4', 'mxfp4'), ('CDNA 4', 'mxfp4-moe'), ('CDNA 4', 'int4-moe'),
    ('Gaudi 2', 'bf16'), ('Gaudi 2', 'fp8'),
    ('Gaudi 3', 'bf16'), ('Gaudi 3', 'fp8'),
    ('TPU v5e', 'bf16'), ('TPU v5e', 'int8'), ('TPU v5p', 'bf16'), ('TPU v5p', 'int8'),
    ('TPU v6e', 'bf16'), ('TPU v6e', 'int8'), ('TPU7x', 'bf16'), ('TPU7x', 'int8'),
    ('NeuronCore-v3', 'bf16'), ('NeuronCore-v3', 'int8'), ('NeuronCore-v3', 'fp8')
) as t(architecture, format)
