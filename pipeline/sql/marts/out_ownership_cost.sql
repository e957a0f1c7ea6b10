-- Owning instead of renting: what an owned GPU or server costs per hour, against renting the same hardware, by the
-- formulas of pipeline/sql/macros/ownership.sql (which the Own-or-rent page's calculator runs too).
-- Amortisation (purchase ÷ years) and hosting (rack rent in a colocation; nothing at home) are paid every hour;
-- power only while busy (idle draw left out). At utilisation u (share of hours busy) an owned GPU costs
-- (amortisation + hosting) ÷ u + power per busy hour; renting costs the rental price per busy hour. Owning wins
-- above the break-even utilisation (amortisation + hosting) ÷ (rental − power), and pays its purchase back after
-- purchase ÷ ((rental − power) × u − hosting) per hour of savings. Seed 003's worked example: a $300,000
-- 8 x H100 server over 3 years ≈ $11.4/h, 10 kW at $0.10/kWh = $1/h, half a $1,500/month rack ≈ $1/h: $13.4/h.
with items as (
    select
        'server' as ownership_scope,
        'seed-003 8 x H100 server' as item,
        'nvidia-h100-sxm-80gb' as gpu_id,
        'colocation' as hosting,
        param('server_price_usd') as purchase_usd,
        param('server_gpus') as gpus,
        own_busy_kw(param('server_power_kw'), 'colocation') as busy_kw,
        own_hosting_usd_per_hour('colocation', param('server_gpus')) as hosting_usd_per_hour
    union all
    select
        'gpu',
        g.name,
        g.gpu_id,
        h.hosting,
        g.launch_price_usd * (1 + param('gpu_host_share')),
        1,
        own_busy_kw(g.tdp_w / 1000, h.hosting),
        own_hosting_usd_per_hour(h.hosting, 1)
    from core_gpus as g
    cross join (values ('home'), ('colocation')) as h(hosting)
    -- a card goes in a PC at home; a data-centre module needs a server in a rack
    where g.launch_price_usd is not null and g.tdp_w is not null
        and (h.hosting = 'colocation' or g.segment in ('consumer', 'workstation'))
),

rental as (
    -- what renting the same hardware costs per GPU-hour: for a server, the cheapest on-demand machine with as
    -- many of its GPUs; for one GPU, the on-demand price pick
    select i.ownership_scope, i.item, i.hosting,
        case when i.ownership_scope = 'server'
             then (select min(m.usd_per_gpu_hour) from out_rentable_machines as m
                   where m.gpu_id = i.gpu_id and m.instance_gpus = i.gpus and m.pricing_tier = 'on-demand')
             else (select c.usd_per_gpu_hour from core_cheapest_offers as c where c.gpu_id = i.gpu_id) end
            as rental_usd_per_gpu_hour
    from items as i
),

costed as (
    select
        i.*,
        own_amortisation_usd_per_hour(i.purchase_usd, param('amortisation_years')) as amortisation_usd_per_hour,
        own_power_usd_per_hour(i.busy_kw, param('electricity_usd_per_kwh')) as power_usd_per_hour,
        r.rental_usd_per_gpu_hour
    from items as i join rental as r using (ownership_scope, item, hosting)
)

select
    ownership_scope, item, gpu_id, hosting, purchase_usd, gpus, busy_kw,
    amortisation_usd_per_hour, power_usd_per_hour, hosting_usd_per_hour,
    amortisation_usd_per_hour + power_usd_per_hour + hosting_usd_per_hour as total_usd_per_hour,
    own_usd_per_busy_gpu_hour(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour, gpus, 1)
        as usd_per_gpu_hour,
    rental_usd_per_gpu_hour,
    own_breakeven_utilisation(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour,
                              rental_usd_per_gpu_hour, gpus) as breakeven_utilisation,
    -- months to earn the purchase back, busy every hour
    own_payback_months(purchase_usd, hosting_usd_per_hour, power_usd_per_hour, rental_usd_per_gpu_hour, gpus, 1)
        as payback_months_full_use
from costed
