// Renders every Vega-Lite spec embedded in the page with the vendored vega-embed, and re-renders
// when the light/dark palette changes. The Vega bundle (about 0.9 MB) is fetched only by pages that
// hold a chart, asynchronously, when the first chart comes near the screen: it never blocks the first paint.
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

  function draw(specs) {
    loadBundle().then(function () { specs.forEach(embed); }, function (err) {
      document.querySelectorAll(".atlas-chart").forEach(function (t) { t.setAttribute("data-error", String(err)); });
      console.error(String(err));
    });
  }

  // A chart is drawn when it comes near the screen: a page whose charts are below the fold paints and
  // becomes usable without parsing the bundle at all.
  var observer = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      observer.unobserve(entry.target);
      var spec = entry.target.nextElementSibling;
      if (spec && spec.classList.contains("atlas-spec")) draw([spec]);
    });
  }, { rootMargin: "100px 0px" }) : null;

  function render() {
    var specs = Array.prototype.slice.call(document.querySelectorAll("script.atlas-spec"));
    if (!specs.length) return;
    if (!observer) return draw(specs);
    specs.forEach(function (spec) {
      var target = spec.previousElementSibling;
      if (target && target.classList.contains("atlas-chart")) {
        if (target.getAttribute("data-rendered") === "true") draw([spec]);  // palette change: redraw now
        else observer.observe(target);
      } else {
        draw([spec]);
      }
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
