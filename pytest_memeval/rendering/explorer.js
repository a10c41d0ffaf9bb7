"use strict";
// The item explorer of a memeval report. Reads the JSON data element (columns, see
// explorer.py) only when first used or once the browser is idle after the page loaded, so
// the first screen never waits on it; shows one page of rows at a time; builds everything
// with textContent (no markup from data), fetches nothing.
(() => {
  const source = document.getElementById("memeval-data");
  const root = document.getElementById("explorer");
  if (!source || !root) return;
  const $ = (id) => document.getElementById(id);
  const PAGE = 50;
  let page = 0;
  let data = null;

  // one column of n values: ["k", value] | ["d", dictionary, codes] | ["v", values]
  const column = ([kind, a, b], n) => kind === "k" ? Array(n).fill(a) : kind === "d" ? b.map((c) => a[c]) : a;
  function table(columns, n) {
    const out = {};
    for (const [name, encoded] of Object.entries(columns)) out[name] = column(encoded, n);
    return out;
  }
  const memoryColumns = ["memory_texts", "memory_ids", "memory_scores", "memory_cuts"];
  const row = (columns, index, skip) => Object.fromEntries(
    Object.keys(columns).filter((name) => !skip.includes(name)).map((name) => [name, columns[name][index]]));
  function unpack(packed) {
    const counts = packed.counts;
    const items = table(packed.items, counts.items), records = table(packed.records, counts.records);
    let r = 0;
    const rows = [];
    for (let i = 0; i < counts.items; i++) {
      const item = row(items, i, ["n_records"]);
      item.records = [];
      for (const end = r + items.n_records[i]; r < end; r++) {
        const record = row(records, r, memoryColumns);
        const [texts, ids, scores, cuts] = memoryColumns.map((name) => records[name][r]);
        record.memories = texts.map((text, m) => [text, ids[m], scores[m], packed.texts[text].length + cuts[m]]);
        item.records.push(record);
      }
      rows.push(item);
    }
    return { runs: packed.runs, texts: packed.texts, flips: packed.flips, items: rows };
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "text") node.textContent = value;
      else if (name === "class") node.className = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  const outcome = (r) => r.status !== "scored" ? r.status : r.correct === true ? "passed"
    : r.correct === false ? "failed" : "scored";
  const mark = { passed: "\u2713", failed: "\u2717", error: "!", invalid: "?", scored: "\u2022" };
  const keyOf = (item) => item.suite + "/" + item.id;
  let byKey = new Map();

  function options(select, label, values) {
    select.append(el("option", { value: "", text: label }));
    for (const [value, text] of values) select.append(el("option", { value: String(value), text }));
  }
  const uniq = (values) => [...new Set(values)].sort();

  // Reads the data and fills the filters, once; false when the data do not parse (the
  // explorer then stays hidden, as it does without JavaScript).
  function ready() {
    if (data) return true;
    try { data = unpack(JSON.parse(source.textContent)); } catch (error) { return false; }
    byKey = new Map(data.items.map((item) => [keyOf(item), item]));
    const suites = uniq(data.items.map((i) => i.suite));
    const many = suites.length > 1;
    const runLabel = (index) => (many ? data.runs[index].suite + ": " : "") + data.runs[index].label;
    options($("f-suite"), "all suites", suites.map((s) => [s, s]));
    options($("f-run"), "all runs", data.runs.map((r, i) => [i, runLabel(i)]));
    options($("f-status"), "any status", ["passed", "failed", "error", "invalid", "scored"].map((s) => [s, s]));
    options($("f-stage"), "any failure stage", uniq(data.items.flatMap((i) => i.records.map((r) => r.stage))
      .filter((s) => s !== "passed")).map((s) => [s, s]));
    const strata = uniq(data.items.flatMap((i) => ["task=" + i.task,
      ...Object.entries(i.strata).map(([k, v]) => k + "=" + v)]));
    options($("f-stratum"), "any stratum", strata.map((s) => [s, s]));
    root.hidden = false;
    render();
    if (typeof performance !== "undefined" && performance.mark) performance.mark("memeval-explorer-ready");
    return true;
  }

  function matches(item, f) {
    if (f.suite && item.suite !== f.suite) return false;
    if (f.flaky && !item.flaky) return false;
    if (f.disagree && !item.disagree) return false;
    if (f.stratum) {
      const [k, v] = [f.stratum.slice(0, f.stratum.indexOf("=")), f.stratum.slice(f.stratum.indexOf("=") + 1)];
      if (k === "task" ? item.task !== v : item.strata[k] !== v) return false;
    }
    const chosen = item.records.filter((r) => f.run === "" || r.run === Number(f.run));
    if (!chosen.length) return false;
    if (f.status && !chosen.some((r) => outcome(r) === f.status)) return false;
    if (f.stage && !chosen.some((r) => r.stage === f.stage)) return false;
    if (f.q) {
      item.text = item.text || [item.id, item.question, ...item.records.map((r) => r.answer || "")].join("\n").toLowerCase();
      if (!item.text.includes(f.q)) return false;
    }
    return true;
  }

  function badges(item) {
    const cell = el("td");
    const runs = new Map();
    for (const r of item.records) (runs.get(r.run) || runs.set(r.run, []).get(r.run)).push(r);
    for (const [run, list] of runs) {
      const text = data.runs[run].label + " " + list.map((r) => mark[outcome(r)]).join("");
      cell.append(el("span", { class: "badge " + outcome(list[0]), title: list.map((r) => r.stage).join(", "), text }), " ");
    }
    return cell;
  }

  function render() {
    const f = {
      q: $("q").value.trim().toLowerCase(), suite: $("f-suite").value, run: $("f-run").value,
      status: $("f-status").value, stage: $("f-stage").value, stratum: $("f-stratum").value,
      flaky: $("f-flaky").checked, disagree: $("f-disagree").checked,
    };
    const found = data.items.filter((item) => matches(item, f));
    const pages = Math.max(1, Math.ceil(found.length / PAGE));
    page = Math.min(page, pages - 1);
    $("count").textContent = found.length + " of " + data.items.length + " items";
    const head = $("list").tHead, body = $("list").tBodies[0];
    head.replaceChildren(el("tr", {}, ...["item", "suite", "task", "outcome per run", "question"]
      .map((h) => el("th", { text: h }))));
    body.replaceChildren(...found.slice(page * PAGE, (page + 1) * PAGE).map((item) => {
      const link = el("a", { href: "#item=" + encodeURIComponent(keyOf(item)), class: "item-link", text: item.id });
      return el("tr", {}, el("td", {}, link, item.flaky ? el("span", { class: "badge flaky", text: "flaky" }) : null,
        item.disagree ? el("span", { class: "badge flaky", text: "judges disagree" }) : null),
        el("td", { text: item.suite }), el("td", { text: item.task }), badges(item),
        el("td", { class: "question", title: item.question, text: item.question }));
    }));
    $("page").textContent = pages > 1 ? "page " + (page + 1) + " of " + pages : "";
    $("prev").hidden = page === 0;
    $("next").hidden = page >= pages - 1;
  }

  function memories(record) {
    if (!record.memories.length) {
      return el("p", { class: "note", text: record.n_memories ? record.n_memories + " memories returned (not kept: --memeval-record-memories)" : "no memories returned" });
    }
    const list = el("ol", { class: "memories" });
    for (const [text, id, score, length] of record.memories) {
      const full = data.texts[text];
      const meta = [id !== null ? "id " + id : "", score !== null ? "score " + score.toFixed(3) : "",
        length > full.length ? "first " + full.length + " of " + length + " characters" : ""].filter(Boolean).join(" \u00b7 ");
      list.append(el("li", {}, meta ? el("div", { class: "note", text: meta }) : null, el("div", { class: "memory", text: full })));
    }
    const more = record.n_memories - record.memories.length;
    return el("div", {}, el("h5", { text: "Memories returned (" + record.n_memories + ")" }), list,
      more > 0 ? el("p", { class: "note", text: more + " more not kept (--memeval-record-memories)" }) : null);
  }

  // a detail is a JSON value, or its JSON cut short as a string
  const shown = (value) => typeof value === "string" ? value : JSON.stringify(value, null, 1);

  function field(name, value) {
    return value === "" || value === null || value === undefined ? null
      : el("div", { class: "field" }, el("b", { text: name + ": " }), el("span", { text: String(value) }));
  }

  function side(item, run) {
    const box = el("div", { class: "side" }, el("h4", { text: data.runs[run].label }));
    const list = item.records.filter((r) => r.run === run);
    if (!list.length) box.append(el("p", { class: "note", text: "not run on this item" }));
    for (const r of list) {
      const verdict = outcome(r) + (r.stage !== outcome(r) ? " (" + r.stage + ")" : "");
      box.append(el("div", { class: "record" },
        el("div", {}, el("span", { class: "badge " + outcome(r), text: verdict }),
          list.length > 1 ? el("span", { class: "note", text: " repeat " + r.repeat }) : null),
        field("answer", r.answer === null ? "" : r.answer + (r.abstained ? " (abstained)" : "")),
        field("score", r.score), field("judge", r.judge), field("reason", r.reason), field("raw output", r.raw),
        field("judges", r.judges.map(([name, said]) => name + " " + (said === true ? mark.passed
          : said === false ? mark.failed : "?")).join(" \u00b7 ")),
        memories(r),
        r.detail ? el("details", {}, el("summary", { text: "judge detail" }), el("pre", { text: shown(r.detail) })) : null,
        r.answer_detail ? el("details", {}, el("summary", { text: "answer detail" }),
          el("pre", { text: shown(r.answer_detail) })) : null));
    }
    return box;
  }

  function open(key) {
    const item = ready() ? byKey.get(key) : undefined;
    const panel = $("detail");
    if (!item) { panel.hidden = true; return; }
    const runs = [...new Set(item.records.map((r) => r.run))];
    const pick = (id, chosen) => {
      const select = el("select", { id, "aria-label": id });
      for (const run of runs) select.append(el("option", { value: String(run), text: data.runs[run].label }));
      select.value = String(chosen);
      select.addEventListener("change", () => show());
      return select;
    };
    const a = pick("side-a", runs[0]), b = pick("side-b", runs[1] === undefined ? runs[0] : runs[1]);
    const sides = el("div", { class: "sides" });
    const show = () => sides.replaceChildren(side(item, Number(a.value)),
      ...(b.value !== a.value ? [side(item, Number(b.value))] : []));
    const strata = Object.entries(item.strata).map(([k, v]) => k + "=" + v).join(", ");
    // (replaceChildren writes a null child as the text "null": only real nodes go in)
    panel.replaceChildren(...[el("h3", { text: item.id }),
      el("p", { class: "note", text: item.suite + " \u00b7 task " + item.task + (strata ? " \u00b7 " + strata : "") }),
      field("question", item.question), field("expected", item.gold),
      runs.length > 1 ? el("div", { class: "controls" }, el("span", { text: "compare " }), a, el("span", { text: " with " }), b) : null,
      sides].filter((child) => child !== null));
    show();
    panel.hidden = false;
    panel.scrollIntoView({ block: "start" });
  }

  function fromHash() {
    const hash = decodeURIComponent(location.hash.slice(1));
    if (hash.startsWith("item=")) open(hash.slice(5));
  }

  for (const id of ["q", "f-suite", "f-run", "f-status", "f-stage", "f-stratum", "f-flaky", "f-disagree"]) {
    $(id).addEventListener("input", () => { page = 0; if (ready()) render(); });
  }
  $("prev").addEventListener("click", () => { page -= 1; render(); });
  $("next").addEventListener("click", () => { page += 1; render(); });
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('a[href^="#item="]');
    if (!link) return;
    event.preventDefault();
    try { history.replaceState(null, "", link.getAttribute("href")); } catch (e) { /* a file: URL may refuse */ }
    open(decodeURIComponent(link.getAttribute("href").slice(6)));
  });
  window.addEventListener("hashchange", fromHash);
  // an item named in the address opens now; otherwise the data wait until the page is shown
  if (location.hash.startsWith("#item=")) fromHash();
  else {
    const idle = window.requestIdleCallback ? (then) => window.requestIdleCallback(then, { timeout: 2000 })
      : (then) => setTimeout(then, 0);
    window.addEventListener("load", () => idle(() => ready()));
  }
})();
