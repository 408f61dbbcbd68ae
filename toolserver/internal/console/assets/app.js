// The console's pages, drawn from its JSON API (api/...). Every text from
// the server goes in as text, never as markup.
"use strict";

const app = document.getElementById("app");
let timer = null; // the upstreams page's refresh

// el makes an element with attributes and children (strings are text).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// api asks the console's API; a failure throws the answer's message.
async function api(path, body) {
  const opts = { credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-Metatools-Console"] = "1";
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch("api/" + path, opts);
  if (resp.headers.get("X-Metatools-Signed-In") === "1") document.getElementById("signout").hidden = false;
  if (resp.status === 401) { location.href = "login"; throw new Error("signed out"); }
  const data = await resp.json().catch(() => ({ error: { message: resp.status + " " + resp.statusText } }));
  if (!resp.ok) throw new Error(data.error ? data.error.message : resp.statusText);
  return data;
}

function show(...nodes) { app.replaceChildren(...nodes.flat().filter((n) => n !== null && n !== undefined)); }
function failure(err) { return el("p", { class: "error", role: "alert" }, String(err.message || err)); }

// span says a number of seconds in words.
function span(s) { return s < 60 ? s + "s" : s < 3600 ? Math.round(s / 60) + "m" : Math.round(s / 3600) + "h"; }

// ago says how long before now t was; until, how long after now t is.
function ago(t, now) {
  const s = Math.round((new Date(now) - new Date(t)) / 1000);
  return s < 1 ? "just now" : span(s) + " ago";
}
function until(t, now) {
  const s = Math.round((new Date(t) - new Date(now)) / 1000);
  return s < 1 ? "now" : "in " + span(s);
}

// ---- upstreams ----------------------------------------------------------

async function upstreams() {
  let data;
  try { data = await api("upstreams"); } catch (err) { show(el("h1", {}, "Upstreams"), failure(err)); return; }
  const rows = data.upstreams.map((u) => el("tr", { "data-upstream": u.name },
    el("td", {}, el("strong", {}, u.name), el("div", { class: "muted" }, u.kind)),
    el("td", {}, el("span", { class: "state state-" + u.state }, u.state), el("div", { class: "muted" }, u.since ? "since " + ago(u.since, data.now) : "")),
    el("td", { class: "tools" }, u.state === "up" ? String(u.tools) : "–",
      u.quarantined && u.quarantined.length ? el("div", { class: "muted" }, u.quarantined.length + " quarantined") : null,
      u.skipped && u.skipped.length ? el("div", { class: "muted" }, u.skipped.length + " skipped") : null),
    el("td", {}, String(u.attempts || 0)),
    el("td", {}, u.nextRetry ? until(u.nextRetry, data.now) : "–"),
    el("td", { class: "last-error" }, u.error ? el("pre", {}, u.error) : "–")));
  show(el("h1", {}, "Upstreams"),
    el("table", { id: "upstreams" },
      el("thead", {}, el("tr", {}, ["Upstream", "State", "Tools", "Attempts", "Next retry", "Last error (and standard error's tail)"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)),
    el("p", { class: "muted" }, "Updated every 3 seconds. " + new Date(data.now).toLocaleTimeString()));
}

// ---- catalogue ----------------------------------------------------------

async function tools(params) {
  const q = params.get("q") || "", ns = params.get("namespace") || "", up = params.get("upstream") || "";
  const query = el("input", { type: "search", name: "q", value: q, placeholder: "What do you need a tool for?", "aria-label": "search" });
  const nsSel = el("select", { name: "namespace", "aria-label": "namespace" }, el("option", { value: "" }, "all namespaces"));
  const upSel = el("select", { name: "upstream", "aria-label": "upstream" }, el("option", { value: "" }, "all upstreams"));
  const results = el("div", {});
  const form = el("form", { class: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams();
    if (query.value) p.set("q", query.value);
    if (nsSel.value) p.set("namespace", nsSel.value);
    if (upSel.value) p.set("upstream", upSel.value);
    location.hash = "#/tools?" + p.toString();
  } }, query, nsSel, upSel, el("button", { type: "submit" }, "Search"));
  show(el("h1", {}, "Catalogue"), form, results);
  try {
    const [n, u] = await Promise.all([api("namespaces"), api("upstreams")]);
    for (const name of n.namespaces) nsSel.append(el("option", { value: name, selected: name === ns }, name));
    for (const x of u.upstreams) upSel.append(el("option", { value: x.name, selected: x.name === up }, x.name));
  } catch (err) { results.append(failure(err)); }
  const p = new URLSearchParams({ q, namespace: ns, upstream: up, limit: "25" });
  try {
    const res = await api("search?" + p.toString());
    const items = res.tools.map((t) => el("li", { "data-tool": t.id },
      el("a", { href: "#/tool/" + encodeURIComponent(t.id) }, t.id),
      t.title ? " — " + t.title : "",
      t.score ? el("span", { class: "muted" }, "  score " + t.score.toFixed(2)) : null,
      el("div", { class: "muted" }, t.description || "")));
    results.append(el("p", { class: "muted" }, res.tools.length + (res.nextCursor ? "+ tools" : " tools") + (q ? ", best first" : ", by ID")),
      el("ul", { class: "results", id: "results" }, items));
    if (res.note) results.append(el("p", { class: "muted" }, res.note));
  } catch (err) { results.append(failure(err)); }
}

// ---- one tool -----------------------------------------------------------

async function tool(id) {
  let t;
  try { t = await api("tool?id=" + encodeURIComponent(id)); } catch (err) { show(el("h1", {}, id), failure(err)); return; }
  const d = t.doc;
  const firstArgs = t.examples.length ? t.examples[0].args : {};
  const args = el("textarea", { id: "args", "aria-label": "arguments" }, JSON.stringify(firstArgs, null, 2));
  const out = el("div", { id: "run-result" });
  const run = el("button", { id: "run", type: "submit", disabled: !t.run }, "Run");
  const form = el("form", { onsubmit: async (ev) => {
    ev.preventDefault();
    let parsed;
    try { parsed = JSON.parse(args.value || "{}"); } catch (err) { out.replaceChildren(failure(new Error("the arguments are not JSON: " + err.message))); return; }
    run.disabled = true;
    out.replaceChildren(el("p", { class: "muted" }, "running…"));
    try {
      const r = await api("run", { id: d.id, args: parsed });
      out.replaceChildren(
        el("p", {}, r.toolError ? el("span", { class: "outcome" }, "tool error") : el("span", { class: "outcome outcome-ok" }, "ok"),
          el("span", { class: "muted" }, "  " + r.durationMs + " ms, " + r.attempts + " attempt(s)")),
        el("pre", { class: "result" }, r.toolError || JSON.stringify(r.structured !== undefined ? r.structured : r.content, null, 2)));
    } catch (err) { out.replaceChildren(failure(err)); }
    run.disabled = false;
  } }, args, el("div", { class: "row" }, run,
    t.run ? el("span", { class: "muted" }, "runs through the runner and its policies, as any call") :
      el("span", { class: "muted" }, "running tools from the console is off (server.http.console.run)")), out);
  show(
    el("h1", {}, d.id, d.title ? el("span", { class: "muted" }, " — " + d.title) : null),
    el("div", { class: "card" }, el("p", { id: "summary" }, d.summary || ""),
      d.description && d.description !== d.summary ? el("p", {}, d.description) : null,
      d.tags && d.tags.length ? el("p", { class: "muted" }, "tags: " + d.tags.join(", ")) : null),
    el("h2", {}, "Try it"), form,
    el("h2", {}, "Input schema"), el("pre", { id: "schema" }, JSON.stringify(d.inputSchema || {}, null, 2)),
    d.outputSchema ? [el("h2", {}, "Output schema"), el("pre", {}, JSON.stringify(d.outputSchema, null, 2))] : null,
    el("h2", {}, "Examples"),
    t.examples.length ? t.examples.map((x) => el("div", { class: "card" }, el("strong", {}, x.name), x.description ? " — " + x.description : "",
      el("pre", {}, JSON.stringify(x.args, null, 2)))) : el("p", { class: "muted" }, "none"),
    el("h2", {}, "TypeScript declaration"), el("pre", { id: "declaration" }, t.declaration));
}

// ---- recent calls -------------------------------------------------------

async function calls() {
  let data;
  try { data = await api("calls"); } catch (err) { show(el("h1", {}, "Recent calls"), failure(err)); return; }
  const rows = data.calls.map((c) => el("tr", { "data-tool": c.tool },
    el("td", {}, new Date(c.time).toLocaleTimeString()),
    el("td", {}, (c.caller && c.caller.subject) || el("span", { class: "muted" }, "anonymous")),
    el("td", {}, el("a", { href: "#/tool/" + encodeURIComponent(c.tool) }, c.tool)),
    el("td", {}, el("span", { class: "outcome" + (c.outcome === "ok" ? " outcome-ok" : "") }, c.outcome)),
    el("td", {}, c.durationMs + " ms")));
  show(el("h1", {}, "Recent calls"),
    data.calls.length ? el("table", { id: "calls" },
      el("thead", {}, el("tr", {}, ["Time", "Caller", "Tool", "Outcome", "Duration"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows)) : el("p", { class: "muted" }, "No call yet."));
}

// ---- quarantine ---------------------------------------------------------

async function quarantine() {
  let data;
  try { data = await api("quarantine"); } catch (err) { show(el("h1", {}, "Quarantine"), failure(err)); return; }
  const cards = data.items.map((it) => {
    const status = el("div", {});
    const button = el("button", { type: "button", disabled: !data.approve, "data-approve": it.id, onclick: async () => {
      button.disabled = true;
      try {
        const r = await api("approve", { ids: [it.id] });
        status.replaceChildren(el("p", { class: "approved" }, "Approved " + r.approved.join(", ") + "; the server admits it within " + r.admittedWithin + "."));
      } catch (err) { status.replaceChildren(failure(err)); button.disabled = false; }
    } }, "Approve");
    return el("div", { class: "card", "data-item": it.id },
      el("div", { class: "row" }, el("strong", {}, it.id), el("span", { class: "muted" }, it.kind + " of " + it.upstream + ", first seen " + ago(it.since, new Date())), button),
      el("p", {}, "Why: " + it.reason),
      it.findings && it.findings.length ? el("ul", {}, it.findings.map((f) => el("li", {}, f))) : null,
      el("div", { class: "muted" }, it.changed ? "Changed since the version approved:" : "New: nothing approved before"),
      el("pre", { class: "diff" }, it.diff),
      status);
  });
  show(el("h1", {}, "Quarantine"),
    data.approve ? null : el("p", { class: "muted" }, "Approving from the console is off (server.http.console.approve); `metatools tools approve` does it."),
    cards.length ? cards : el("p", { class: "muted" }, "Nothing waits for review."));
}

// ---- routing ------------------------------------------------------------

function route() {
  clearInterval(timer);
  const hash = location.hash.replace(/^#\/?/, "") || "upstreams";
  const [path, query] = hash.split("?");
  const page = path.split("/")[0];
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("current", a.dataset.page === (page === "tool" ? "tools" : page));
  switch (page) {
  case "tools": return tools(new URLSearchParams(query || ""));
  case "tool": return tool(decodeURIComponent(path.slice("tool/".length)));
  case "calls": return calls();
  case "quarantine": return quarantine();
  default:
    timer = setInterval(upstreams, 3000);
    return upstreams();
  }
}

window.addEventListener("hashchange", route);
route();
