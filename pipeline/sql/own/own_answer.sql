-- The Own-or-rent calculator's answer: for each question in own_question (the reader's inputs: gpus, purchase_usd,
-- busy_w, usd_per_kwh, hosting, years, busy_percent, rental_usd_per_gpu_hour), what owning costs and how it compares
-- with renting, by the formulas of pipeline/sql/macros/ownership.sql. The page runs this file in the browser
-- (DuckDB-WASM, api/v1/own/sql/); the build runs it for the page's first answer.
with q as (
    select
        *,
        busy_percent / 100 as u,
        own_amortisation_usd_per_hour(purchase_usd, years) as amortisation_usd_per_hour,
        own_hosting_usd_per_hour(hosting, gpus) as hosting_usd_per_hour,
        own_power_usd_per_hour(own_busy_kw(busy_w / 1000, hosting), usd_per_kwh) as power_usd_per_hour
    from own_question
)

select
    question_id,
    amortisation_usd_per_hour,
    hosting_usd_per_hour,
    power_usd_per_hour,
    own_usd_per_busy_gpu_hour(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour, gpus, u)
        as usd_per_busy_gpu_hour,
    (amortisation_usd_per_hour + hosting_usd_per_hour) / gpus as fixed_usd_per_gpu_hour,
    power_usd_per_hour / gpus as power_usd_per_gpu_hour,
    rental_usd_per_gpu_hour,
    own_breakeven_utilisation(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour,
                              rental_usd_per_gpu_hour, gpus) as breakeven_utilisation,
    own_payback_months(purchase_usd, hosting_usd_per_hour, power_usd_per_hour, rental_usd_per_gpu_hour, gpus, u)
        as payback_months,
    own_usd_per_busy_gpu_hour(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour, gpus, u)
        < rental_usd_per_gpu_hour as owning_cheaper,
    -- the owned cost per busy GPU-hour at 5%, 10%, ... 100% busy: the page's chart
    [own_usd_per_busy_gpu_hour(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour, gpus, p / 100)
     for p in range(5, 101, 5)] as curve_usd_per_busy_gpu_hour
from q
order by question_id
