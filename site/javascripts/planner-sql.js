// The SQL engine of the calculator pages: DuckDB compiled to WebAssembly (pipeline/vendor.py) runs the build's own
// SQL files as they are (the Planner: the macros and plan_options.sql, which `gpu-atlas plan` runs, api/v1/plan/;
// Own or rent: the macros and own_answer.sql, api/v1/own/) over the rows of the same public views (tables/*.csv),
// loaded at their types by the statements of the page's "engine" entry (pipeline/render/browser_sql.py). No formula
// is written here: this file loads, asks and reads the answer.
// It is loaded on first use (a question other than the one the page was built with), after the page reads.
(function (root) {
  "use strict";

  function text(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": HTTP " + r.status);
      return r.text();
    });
  }

  // Arrow rows as plain objects: BIGINT as a number, DATE as YYYY-MM-DD (as the command line's JSON prints them), a
  // list as an array
  function plain(table) {
    var fields = table.schema.fields;
    return table.toArray().map(function (row) {
      var o = {};
      fields.forEach(function (f) {
        var v = row[f.name];
        if (typeof v === "bigint") v = Number(v);
        else if (v instanceof Date) v = v.toISOString().slice(0, 10);
        else if (typeof v === "number" && /^Date/.test(String(f.type))) v = new Date(v).toISOString().slice(0, 10);
        else if (v && typeof v.toArray === "function") v = Array.from(v.toArray());  // a list column: its values
        o[f.name] = v === undefined ? null : v;
      });
      return o;
    });
  }

  // the question as the CSV the engine's scenarios statement reads: text quoted, a missing value empty
  function csv(columns, rows) {
    function cell(v) {
      if (v === null || v === undefined || v === "") return "";
      if (typeof v === "number") return isFinite(v) ? String(v) : "";
      return '"' + String(v).replace(/"/g, '""') + '"';
    }
    return [columns.join(",")].concat(rows.map(function (r) {
      return columns.map(function (c) { return cell(r[c]); }).join(",");
    })).join("\n") + "\n";
  }

  // open(api, engineBase, engine): a promise of {plan(scenarios) -> promise of the rows of plan_options.sql}.
  // api: the folder of index.json; engineBase: the folder of the DuckDB-WASM packages; engine: index.json's entry.
  function open(api, engineBase, engine) {
    // absolute: the worker resolves the .wasm file's address against its own
    var wasm = new URL(engineBase + "@duckdb/duckdb-wasm/dist/", location.href).href;
    return import(wasm + "duckdb-browser.mjs").then(function (duckdb) {
      var worker = new Worker(wasm + "duckdb-browser-eh.worker.js");
      var db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
      var names = Object.keys(engine.tables);
      return Promise.all([
        db.instantiate(wasm + "duckdb-eh.wasm"),
        Promise.all(names.map(function (n) { return text(api + "tables/" + n + ".csv"); })),
        Promise.all(engine.macros.map(function (f) { return text(api + "sql/" + f); })),
        text(api + "sql/" + engine.plan)
      ]).then(function (got) {
        var tables = got[1], macros = got[2], planSql = got[3];
        return Promise.all(names.map(function (n, i) { return db.registerFileText(n + ".csv", tables[i]); }))
          .then(function () { return db.connect(); })
          .then(function (con) {
            var steps = names.map(function (n) { return engine.tables[n]; }).concat(macros);
            return steps.reduce(function (p, sql) {
              return p.then(function () { return con.query(sql); });
            }, Promise.resolve()).then(function () { return { db: db, con: con, plan: planSql }; });
          });
      });
    }).then(function (e) {
      var queue = Promise.resolve();
      // one question at a time on the one connection: each replaces plan_scenarios, then asks
      function plan(scenarios) {
        var run = queue.then(function () {
          return e.db.registerFileText("scenarios.csv", csv(engine.scenario_columns, scenarios))
            .then(function () { return e.con.query(engine.scenarios); })
            .then(function () { return e.con.query(e.plan); })
            .then(plain);
        });
        queue = run.catch(function () {});
        return run;
      }
      return { plan: plan };
    });
  }

  root.AtlasSql = { open: open, plain: plain };
})(this);
