-- Cost of owning instead of renting: amortised purchase + power + hosting, per hour.
with server as (
    select
        'server' as scope,
        'seed-003 8 x H100 server' as item,
        cast(null as varchar) as gpu_id,
        param('server_price_usd') as purchase_usd,
        param('server_price_usd') / (param('amortisation_years') * param('hours_per_year')) as amortisation_usd_per_hour,
        param('server_power_kw') * param('pue') * param('electricity_usd_per_kwh') as power_usd_per_hour,
        param('rack_usd_per_month') * 12 / param('hours_per_year') / param('servers_per_rack') as hosting_usd_per_hour,
        param('server_gpus') as gpus
),

per_gpu as (
    select
        'gpu' as scope,
        name as item,
        gpu_id,
        launch_price_usd * (1 + param('gpu_host_share')) as purchase_usd,
        launch_price_usd * (1 + param('gpu_host_share'))
            / (param('amortisation_years') * param('hours_per_year')) as amortisation_usd_per_hour,
        tdp_w / 1000 * param('pue') * param('electricity_usd_per_kwh') as power_usd_per_hour,
        param('rack_usd_per_month') * 12 / param('hours_per_year')
            / (param('servers_per_rack') * param('server_gpus')) as hosting_usd_per_hour,
        1 as gpus
    from core_gpus
    where launch_price_usd is not null and tdp_w is not null
),

unioned as (
    select * from server
    union all
    select * from per_gpu
)

select
    u.*,
    amortisation_usd_per_hour + power_usd_per_hour + hosting_usd_per_hour as total_usd_per_hour,
    (amortisation_usd_per_hour + power_usd_per_hour + hosting_usd_per_hour) / gpus as usd_per_gpu_hour,
    c.usd_per_gpu_hour as cheapest_cloud_usd_per_gpu_hour,
    -- share of hours a GPU must be busy for ownership to beat the cheapest on-demand rental
    (amortisation_usd_per_hour + power_usd_per_hour + hosting_usd_per_hour) / gpus
        / c.usd_per_gpu_hour as breakeven_utilisation
from unioned as u
left join core_cheapest_offers as c using (gpu_id)
