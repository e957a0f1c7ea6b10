// What every page script shares (loaded first, by mkdocs.yml): numbers and money as the pages print them, building
// DOM elements with text (never HTML), reading the build's JSON files, and the texts in the page's language.
// Page scripts read it as window.Atlas.
(function (root) {
  // 'zh' in the Chinese edition (<html lang="zh-CN">), 'en' otherwise
  var lang = /^zh/i.test((root.document && root.document.documentElement.lang) || "") ? "zh" : "en";
  // A text shown to a reader, written in English where it is shown: Atlas.t("{n} rows", {n: 12}). The Chinese
  // edition loads javascripts/messages.js first (generated from site/zh.po), which sets window.ATLAS_MESSAGES
  // (English -> Chinese); without it, or for a text it lacks, the English is shown. {name} placeholders are
  // filled from `values` (in one pass: a value is never read for placeholders). The first argument is always a
  // string literal, so that `python -m pipeline.render.i18n update site` finds it.
  function t(text, values) {
    var messages = root.ATLAS_MESSAGES;
    var shown = messages && Object.prototype.hasOwnProperty.call(messages, text) && messages[text] ? messages[text] : text;
    if (!values) return shown;
    return shown.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }
  function missing(n) {
    return n === null || n === undefined || n === "" || !isFinite(Number(n));
  }
  // up to `digits` decimals, thousands separated: 1,234.5 ("–" when missing)
  function fmt(n, digits) {
    if (missing(n)) return "–";
    return Number(n).toLocaleString("en-US", { maximumFractionDigits: digits || 0 });
  }
  // exactly `digits` decimals: 1,234.50
  function fixed(n, digits) {
    if (missing(n)) return "–";
    var d = digits === undefined ? 0 : digits;
    return Number(n).toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  }
  function money(n, digits) {
    return missing(n) ? "–" : "$" + fixed(n, digits);
  }
  function plural(n, one, many) {
    return fixed(n) + " " + (Number(n) === 1 ? one : many);
  }
  // an element with attributes and text content: data never becomes HTML
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  // a JSON file of the build; a missing file is an error that names it
  function getJSON(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": HTTP " + r.status);
      return r.json();
    });
  }
  root.Atlas = { lang: lang, t: t, missing: missing, fmt: fmt, fixed: fixed, money: money, plural: plural, el: el, getJSON: getJSON };
})(window);
