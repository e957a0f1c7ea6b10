// Renders every Vega-Lite spec embedded in the page with the vendored vega-embed, and re-renders
// when the light/dark palette changes. The Vega bundle (about 0.9 MB) is fetched only by pages that
// hold a chart, asynchronously, so it never blocks the first paint.
(function () {
  var script = document.currentScript;
  var bundleUrl = script ? script.src.replace(/charts\.js(\?.*)?$/, "vendor/vega-bundle.js") : "";
  var loading = null;

  function loadBundle() {
    if (window.vegaEmbed) return Promise.resolve();
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var el = document.createElement("script");
        el.src = bundleUrl;
        el.async = true;
        el.onload = function () { resolve(); };
        el.onerror = function () { reject(new Error("could not load " + bundleUrl)); };
        document.head.appendChild(el);
      });
    }
    return loading;
  }

  function dark() {
    return document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  function embed(script) {
    var name = script.getAttribute("data-chart");
    var target = script.previousElementSibling;
    if (!target || !target.classList.contains("atlas-chart")) {
      target = document.querySelector('.atlas-chart[data-chart="' + name + '"]');
    }
    if (!target) return;
    var spec;
    try {
      spec = JSON.parse(script.textContent);
    } catch (err) {
      target.setAttribute("data-error", String(err));
      console.error("chart " + name + ": " + err);
      return;
    }
    target.innerHTML = "";
    window.vegaEmbed(target, spec, {
      actions: false,
      renderer: "svg",
      theme: dark() ? "dark" : undefined,
      config: { background: null }
    }).then(function () {
      target.setAttribute("data-rendered", "true");
    }).catch(function (err) {
      target.setAttribute("data-error", String(err));
      console.error("chart " + name + ": " + err);
    });
  }

  function render() {
    var specs = document.querySelectorAll("script.atlas-spec");
    if (!specs.length) return;
    loadBundle().then(function () { specs.forEach(embed); }, function (err) {
      document.querySelectorAll(".atlas-chart").forEach(function (t) { t.setAttribute("data-error", String(err)); });
      console.error(String(err));
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(render);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
  new MutationObserver(function (changes) {
    if (changes.some(function (c) { return c.attributeName === "data-md-color-scheme"; })) render();
  }).observe(document.body, { attributes: true });
})();
