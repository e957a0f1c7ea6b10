-- The public contract: stable view names over the pipeline's tables.
create or replace view gpus as select * exclude (identity_source_id, best_16bit_tflops, has_derived_dense), identity_source_id as source_id, has_derived_dense from core_gpus;
create or replace view spec_claims as select * from core_spec_claims;
create or replace view sources as select * from core_sources;
create or replace view providers as select * exclude (file) from core_providers;
create or replace view price_history as select * exclude (source_file, source_row) from core_price_history;
create or replace view price_offers as
select * exclude (source_file, source_row, stale), current_date - coalesce(observed_no_later_than, observed_on) as age_days,
    current_date - coalesce(observed_no_later_than, observed_on)
        > (select value from core_parameters where name = 'price_max_age_days') as stale
from core_price_offers;
create or replace view price_picks as select *, current_date - observed_on as age_days from core_price_picks;
create or replace view unmapped_offers as select provider, provider_gpu_name, gpu_memory_gb, count(*) as offers, min(observed_on) as first_seen, max(observed_on) as last_seen, any_value(source_file) as example_file from core_price_history where not mapped group by all;
create or replace view price_changes as select * from out_price_changes;
create or replace view models as select * from core_models;
create or replace view rankings as select * from out_rankings;
create or replace view ranking_weights as select * from core_ranking_weights;
create or replace view cost_per_tflop as select * from out_cost_per_tflop;
create or replace view vram_fit as select * from out_vram_fit_detail;
create or replace view inference_estimates as select * from out_inference_estimates;
create or replace view token_costs as select * from out_token_costs;
create or replace view training_estimates as select * from out_training_estimates;
create or replace view ownership_cost as select * from out_ownership_cost;
create or replace view coverage as select * from out_coverage;
create or replace view parameters as select name, coalesce(value::varchar, value_text, value_list::varchar) as value, unit, description, citation from core_parameters;
create or replace view model_claims as select * from out_model_claims;
create or replace view weight_formats as select * from core_weight_formats;
create or replace view model_weights as select * from out_model_weights;
create or replace view measurements as select * exclude (source_file, source_row) from core_measurements;
create or replace view measured_vs_estimate as select * from out_measurement_bounds;
create or replace view decode_calibration as select * from out_decode_calibration;
create or replace view serving_models as select * from out_serving_models;
create or replace view serving_gpus as select * from out_serving_gpus;
create or replace view engine_formats as select * from core_engine_formats;
create or replace view reference_serving as select * from out_reference_serving;
create or replace view rentable_machines as select * from out_rentable_machines;
create or replace view serving_calibration as select * from out_serving_calibration;
create or replace view serving_measurements as select * exclude (source_file, source_row) from core_serving_measurements;
create or replace view serving_vs_estimate as select * exclude (source_file, source_row) from out_serving_estimates;
create or replace view training_measurements as select * exclude (source_file, source_row) from core_training_measurements;
create or replace view training_calibration as select * from out_training_calibration;
create or replace view training_vs_estimate as select * from out_training_vs_estimate;
