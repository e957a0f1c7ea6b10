-- The training model's formulas, shared by the training estimates (out_training_estimates) and the Planner
-- (plan/plan_options.sql), so that every page, the command line and the MCP server give one training speed.

-- FLOPs per parameter per token: a full update computes the forward pass, the activations' gradients and the
-- weights' gradients (2 + 2 + 2); LoRA and QLoRA freeze the weights (no weight gradients: 2 + 2); full
-- recomputation repeats the forward pass (+2), selective recomputation only attention's cheap part (+0)
create or replace macro train_flops_per_param_token(method, recompute) as
    case method when 'full' then 6 else 4 end + case recompute when 'full' then 2 else 0 end;

-- training tokens per second on n GPUs at a utilisation of their dense 16-bit peak
create or replace macro train_tokens_per_s(n, tflops, utilisation, flops_per_param_token, active_params_b) as
    n * tflops * 1e12 * utilisation / (flops_per_param_token * active_params_b * 1e9);
