-- Owning against renting, one formula for every caller: the ownership_cost view (out_ownership_cost.sql) and the
-- Own-or-rent page's calculator, which runs this same file in the browser (DuckDB-WASM, api/v1/own/sql/) over the
-- reader's inputs (pipeline/sql/own/own_answer.sql).
-- Amortisation (purchase over the years) and hosting (a share of a colocation rack; nothing at home) are paid every
-- hour, power only while busy (idle draw left out). Money in USD, power in kW.

-- USD an hour of owning costs in amortisation: the purchase spread over the years
create or replace macro own_amortisation_usd_per_hour(purchase_usd, years) as
    purchase_usd / (years * param('hours_per_year'));

-- kW drawn from the grid while busy: the hardware's power, times the data centre's PUE in a colocation
create or replace macro own_busy_kw(hardware_kw, hosting) as
    hardware_kw * case hosting when 'home' then 1 else param('pue') end;

-- USD an hour of power while busy
create or replace macro own_power_usd_per_hour(busy_kw, usd_per_kwh) as busy_kw * usd_per_kwh;

-- USD an hour of hosting `gpus` GPUs costs: their share of a rack (servers_per_rack servers of server_gpus GPUs
-- each), nothing at home
create or replace macro own_hosting_usd_per_hour(hosting, gpus) as
    case hosting when 'home' then 0
         else gpus * param('rack_usd_per_month') * 12 / param('hours_per_year')
              / (param('servers_per_rack') * param('server_gpus')) end;

-- USD an owned GPU costs per busy hour at utilisation u (the share of hours it is busy): the hours it idles still
-- pay amortisation and hosting
create or replace macro own_usd_per_busy_gpu_hour(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour,
                                                  gpus, u) as
    ((amortisation_usd_per_hour + hosting_usd_per_hour) / u + power_usd_per_hour) / gpus;

-- the utilisation above which owning costs less than renting the busy hours at rental_usd_per_gpu_hour (NULL when
-- power alone costs more than the rental: owning never wins); above 1, owning loses even at full use
create or replace macro own_breakeven_utilisation(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour,
                                                  rental_usd_per_gpu_hour, gpus) as
    case when rental_usd_per_gpu_hour * gpus > power_usd_per_hour
         then (amortisation_usd_per_hour + hosting_usd_per_hour) / (rental_usd_per_gpu_hour * gpus - power_usd_per_hour)
    end;

-- months until what owning saves against renting the busy hours (the rent avoided less power, less hosting paid
-- every hour) adds up to the purchase, at utilisation u; NULL when owning saves nothing
create or replace macro own_payback_months(purchase_usd, hosting_usd_per_hour, power_usd_per_hour,
                                           rental_usd_per_gpu_hour, gpus, u) as
    case when (rental_usd_per_gpu_hour * gpus - power_usd_per_hour) * u > hosting_usd_per_hour
         then purchase_usd / (((rental_usd_per_gpu_hour * gpus - power_usd_per_hour) * u - hosting_usd_per_hour)
                              * param('hours_per_year') / 12)
    end;
