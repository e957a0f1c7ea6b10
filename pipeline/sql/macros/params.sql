-- The parameters every formula reads (pipeline/parameters.yml, in core_parameters): param(name) is a number,
-- param_list(name) a list of numbers. Defined first: the other macros use them. The Planner's page defines
-- them with this text too, over the same numbers (api/v1/plan/tables/core_parameters.json).
create or replace macro param(n) as (select value from core_parameters where name = n);
create or replace macro param_list(n) as (select value_list from core_parameters where name = n);
