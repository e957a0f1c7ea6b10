// The language switch in the header: each edition's link leads to the same page in that edition (the English
// pages sit at the site's root, the Chinese ones under zh/, with the same paths), keeping the address's query
// and anchor (a Planner question stays asked). Without this script the links lead to each edition's home.
(function () {
  const config = document.getElementById("__config");
  const links = document.querySelectorAll("a.md-select__link[hreflang]");
  if (!config || !links.length) return;
  const base = new URL(JSON.parse(config.textContent).base + "/", location.href); // this edition's root
  const here = location.href.slice(base.href.length).split(/[?#]/)[0];
  const inChinese = (document.documentElement.lang || "").startsWith("zh");
  const siteRoot = inChinese ? new URL("../", base) : base;
  for (const link of links) {
    const target = new URL(link.getAttribute("hreflang") === "zh" ? "zh/" : "", siteRoot);
    link.href = target.href + here + location.search + location.hash;
  }
})();
