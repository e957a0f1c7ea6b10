-- The Data page's queries: the public views as the database describes them.

-- name: view_columns
-- every column of every public view, in the view's order
select table_name as view_name, column_name, data_type
from duckdb_columns()
where table_name in (select view_name from duckdb_views() where not internal)
order by table_name, column_index;
