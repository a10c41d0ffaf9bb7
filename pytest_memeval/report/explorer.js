"use strict";
// The item explorer of a memeval report. Reads the JSON data element, builds everything with
// textContent (no markup from data), fetches nothing.
(() => {
  const source = document.getElementById("memeval-data");
  const root = document.getElementById("explorer");
  if (!source || !root) return;
  const data = JSON.parse(source.textContent);
  const $ = (id) => document.getElementById(id);
  const PAGE = 50;
  let limit = PAGE;

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
  const byKey = new Map(data.items.map((item) => [keyOf(item), item]));

  function options(select, label, values) {
    select.append(el("option", { value: "", text: label }));
    for (const [value, text] of values) select.append(el("option", { value: String(value), text }));
  }
  const uniq = (values) => [...new Set(values)].sort();
  const suites = uniq(data.items.map((i) => i.suite));
  const many = suites.length > 1;
  const runLabel = (index) => (many ? data.runs[index].suite + ": " : "") + data.runs[index].label;
  options($("f-suite"), "all suites", suites.map((s) => [s, s]));
  options($("f-run"), "all runs", data.runs.map((r, i) => [i, runLabel(i)]));
  options($("f-status"), "any status", ["passed", "failed", "error", "invalid", "scored"].map((s) => [s, s]));
  const records = data.items.flatMap((i) => i.records);
  options($("f-stage"), "any failure stage",
    uniq(records.map((r) => r.stage).filter((s) => s !== "passed")).map((s) => [s, s]));
  const strata = uniq(data.items.flatMap((i) => ["task=" + i.task,
    ...Object.entries(i.strata).map(([k, v]) => k + "=" + v)]));
  options($("f-stratum"), "any stratum", strata.map((s) => [s, s]));

  function matches(item, f) {
    if (f.suite && item.suite !== f.suite) return false;
    if (f.flaky && !item.flaky) return false;
    if (f.stratum) {
      const [k, v] = [f.stratum.slice(0, f.stratum.indexOf("=")), f.stratum.slice(f.stratum.indexOf("=") + 1)];
      if (k === "task" ? item.task !== v : item.strata[k] !== v) return false;
    }
    const chosen = item.records.filter((r) => f.run === "" || r.run === Number(f.run));
    if (!chosen.length) return false;
    if (f.status && !chosen.some((r) => outcome(r) === f.status)) return false;
    if (f.stage && !chosen.some((r) => r.stage === f.stage)) return false;
    if (f.q) {
      const text = [item.id, item.question, ...item.records.map((r) => r.answer || "")].join("\n").toLowerCase();
      if (!text.includes(f.q)) return false;
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
      flaky: $("f-flaky").checked,
    };
    const found = data.items.filter((item) => matches(item, f));
    $("count").textContent = found.length + " of " + data.items.length + " items";
    const head = $("list").tHead, body = $("list").tBodies[0];
    head.replaceChildren(el("tr", {}, ...["item", "suite", "task", "outcome per run", "question"]
      .map((h) => el("th", { text: h }))));
    body.replaceChildren(...found.slice(0, limit).map((item) => {
      const link = el("a", { href: "#item=" + encodeURIComponent(keyOf(item)), class: "item-link", text: item.id });
      return el("tr", {}, el("td", {}, link, item.flaky ? el("span", { class: "badge flaky", text: "flaky" }) : null),
        el("td", { text: item.suite }), el("td", { text: item.task }), badges(item),
        el("td", { class: "question", title: item.question, text: item.question }));
    }));
    $("more").hidden = found.length <= limit;
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
        memories(r),
        r.detail ? el("details", {}, el("summary", { text: "judge detail" }), el("pre", { text: r.detail })) : null,
        r.answer_detail ? el("details", {}, el("summary", { text: "answer detail" }), el("pre", { text: r.answer_detail })) : null));
    }
    return box;
  }

  function open(key) {
    const item = byKey.get(key);
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

  for (const id of ["q", "f-suite", "f-run", "f-status", "f-stage", "f-stratum", "f-flaky"]) {
    $(id).addEventListener("input", () => { limit = PAGE; render(); });
  }
  $("more").addEventListener("click", () => { limit += PAGE; render(); });
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('a[href^="#item="]');
    if (!link) return;
    event.preventDefault();
    try { history.replaceState(null, "", link.getAttribute("href")); } catch (e) { /* a file: URL may refuse */ }
    open(decodeURIComponent(link.getAttribute("href").slice(6)));
  });
  window.addEventListener("hashchange", fromHash);
  root.hidden = false;
  render();
  fromHash();
})();
