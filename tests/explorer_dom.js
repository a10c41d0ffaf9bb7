// A small stand-in for the browser's DOM, enough to run the report's explorer script in
// node and drive it like a reader (tests/test_html_scale.py).
//
//   node explorer_dom.js STATE.json DATA.txt explorer.js SCENARIO.js
//
// STATE.json: the explorer section's elements ({elements: {id: {tag, hidden}}}, read from
// the page) and the address's hash the page opens with;
// DATA.txt: the data element's text; SCENARIO.js: the body of a function that gets the
// helpers below and returns what it found (printed as JSON).
"use strict";
const fs = require("fs");
const [stateFile, dataFile, scriptFile, scenarioFile] = process.argv.slice(2);

const byId = {};
class Node {
  constructor(tag) {
    Object.assign(this, { tagName: tag.toUpperCase(), children: [], attributes: {}, listeners: {}, parent: null });
    Object.assign(this, { own: "", hidden: false, value: "", checked: false, className: "" });
  }
  append(...nodes) {
    for (const node of nodes) {
      const child = typeof node === "string" ? Object.assign(new Node("#text"), { own: node }) : node;
      child.parent = this;
      this.children.push(child);
    }
  }
  replaceChildren(...nodes) { this.children = []; this.append(...nodes); }
  set textContent(value) { this.children = []; this.own = String(value); }
  get textContent() { return this.own + this.children.map((child) => child.textContent).join(""); }
  setAttribute(name, value) {
    this.attributes[name] = String(value);
    if (name === "id") byId[value] = this;
    if (name === "value") this.value = String(value);
  }
  getAttribute(name) { return name in this.attributes ? this.attributes[name] : null; }
  addEventListener(type, listener) { (this.listeners[type] = this.listeners[type] || []).push(listener); }
  fire(type, event) { for (const listener of this.listeners[type] || []) listener(event || { target: this }); }
  closest(selector) {  // only what the explorer asks: a[href^="#item="]
    for (let node = this; node; node = node.parent) {
      if (node.tagName === "A" && (node.getAttribute("href") || "").startsWith("#item=")) return node;
    }
    return null;
  }
  all(test) { return [this, ...this.children.flatMap((child) => child.all(test))].filter(test); }
  scrollIntoView() {}
}

const parsed = { count: 0 };
const realParse = JSON.parse;
JSON.parse = (text) => { parsed.count += 1; return realParse(text); };
const state = realParse(fs.readFileSync(stateFile, "utf8"));
for (const [id, { tag, hidden }] of Object.entries(state.elements)) {
  const node = new Node(tag);
  node.setAttribute("id", id);
  node.hidden = hidden;
}
byId["memeval-data"] = Object.assign(new Node("script"), { own: fs.readFileSync(dataFile, "utf8") });
byId.list.tHead = new Node("thead");
byId.list.tBodies = [new Node("tbody")];
const documentNode = new Node("#document");
global.document = Object.assign(documentNode, {
  getElementById: (id) => byId[id] || null,
  createElement: (tag) => new Node(tag),
});
const idle = [];
global.window = Object.assign(new Node("#window"), { requestIdleCallback: (then) => idle.push(then) });
global.location = { hash: state.hash };
global.history = { replaceState: (state, title, url) => { global.location.hash = url; } };

new Function(fs.readFileSync(scriptFile, "utf8"))();

const helpers = {
  byId,
  parsed,
  load() { window.fire("load"); while (idle.length) idle.shift()(); },
  set(id, value) {
    const node = byId[id];
    if (typeof value === "boolean") node.checked = value; else node.value = value;
    node.fire("input");
  },
  click(node) {
    if (node.tagName === "BUTTON") return node.fire("click");
    documentNode.fire("click", { target: node, preventDefault() {} });
  },
  rows() { return byId.list.tBodies[0].children.map((row) => row.children[0].children[0].textContent); },
  links() { return byId.list.tBodies[0].all((node) => node.tagName === "A"); },
  options(id) { return byId[id].children.map((option) => option.value); },
  state() {
    return { hidden: byId.explorer.hidden, count: byId.count.textContent, page: byId.page.textContent,
      prev: !byId.prev.hidden, next: !byId.next.hidden, rows: helpers.rows() };
  },
};
const scenario = new Function("h", fs.readFileSync(scenarioFile, "utf8"));
console.log(JSON.stringify(scenario(helpers)));
