// clinbridge page: plain JavaScript, no build step, no CDN. Every text goes in through textContent;
// only the server's own SVG charts (escaped server-side) are inserted as markup.
"use strict";
const $ = (id) => document.getElementById(id);
const state = { last: null, editing: null, sources: [], calc: null, prefill: {} };

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

function headers(json = true) {
  const h = {};
  if (json) h["Content-Type"] = "application/json";
  const t = $("token").value || localStorage.getItem("cb-token");
  if (t) h["Authorization"] = "Bearer " + t;
  const u = $("user").value.trim();
  if (u) h["X-Clinbridge-User"] = u;
  return h;
}

async function api(path, body, { text = false } = {}) {
  const opts = body === undefined ? { headers: headers(false) } :
    { method: "POST", headers: headers(), body: JSON.stringify(body) };
  const r = await fetch("/api" + path, opts);
  if (r.status === 401) { $("token-box").hidden = false; throw new Error("this server needs an API token (enter it above)"); }
  const data = text ? await r.text() : await r.json().catch(() => ({}));
  if (!r.ok && !(data && data.answer)) {
    const d = data && data.detail;
    throw new Error(typeof d === "string" ? d : (d ? JSON.stringify(d) : r.status + " " + r.statusText));
  }
  return { ok: r.ok, status: r.status, data };
}

const source = () => $("source").value;
const patient = () => $("patient").value.trim() || null;

function fmt(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") return Number.isInteger(v) ? v.toLocaleString() : v.toPrecision(4).replace(/\.?0+$/, "");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// -- sources and patients ----------------------------------------------------------------------
async function loadSources() {
  try {
    const { data } = await api("/sources");
    state.sources = data;
    $("source").replaceChildren(...data.map((s) => el("option", { value: s.name, text: `${s.name} (${s.adapter}, ${s.dialect})` })));
    await onSource();
  } catch (e) { $("status").textContent = e.message; }
}

async function onSource() {
  const s = state.sources.find((x) => x.name === source());
  if (!s) return;
  $("count-stream").replaceChildren(...s.streams.map((n) => el("option", { value: n, text: n })));
  try {
    const { data } = await api(`/sources/${encodeURIComponent(s.name)}/patients?limit=200`);
    $("patient-list").replaceChildren(...data.map((p) => el("option", { value: p.id, text: [p.sex, p.birth_year && "born " + p.birth_year].filter(Boolean).join(", ") })));
  } catch (e) { /* a source without patients */ }
}

// -- ask ---------------------------------------------------------------------------------------
async function ask(ev) {
  ev && ev.preventDefault();
  const q = $("question").value.trim();
  if (!q) return;
  busy(true, "Reading the question and checking the answer…");
  try {
    const { data } = await api("/ask", { question: q, source: source(), patient_id: patient() });
    show(data);
    $("status").textContent = "";
  } catch (e) { $("status").textContent = "Error: " + e.message; }
  busy(false);
}

function busy(on, msg) { $("ask-btn").disabled = on; if (msg) $("status").textContent = msg; }

function show(p) {
  state.last = p;
  const a = p.answer;
  $("result").hidden = false;
  const amb = a.reason_code === "ambiguous" || /^ambiguous/i.test(a.reason || "") || (p.alternatives && p.alternatives.length > 0 && a.decision !== "accept");
  const dec = $("decision");
  dec.textContent = amb ? "ambiguous" : a.decision === "accept" ? "answered" : "cannot answer";
  dec.className = "badge " + (amb ? "ambiguous" : a.decision);
  $("value").textContent = a.decision === "accept" ? p.summary : "";
  $("reason").textContent = a.reason ? (a.decision === "accept" ? "Note: " : "Why not: ") + a.reason : "";
  $("plan-sentence").textContent = p.plan_sentence ? (amb ? "First reading: " : "Read as: ") + p.plan_sentence : "";
  // alternatives
  const alts = p.alternatives || [];
  $("alternatives-card").hidden = alts.length === 0;
  $("alternatives").replaceChildren(...alts.map((alt, i) => {
    const b = el("button", { class: "choice", "data-testid": "alternative", onclick: () => pick(alt) },
      el("b", { text: `${i + 1}. ` }), alt.description,
      alt.value !== null && alt.value !== undefined ? el("span", { class: "alt-value", text: "→ " + fmt(alt.value) }) : null,
      alt.decision === "abstain" ? el("span", { class: "alt-value", text: "(cannot be answered: " + (alt.reason || "fails its checks") + ")" }) : null);
    if (!alt.plan) b.disabled = true;
    return b;
  }));
  // predicates, checks
  $("predicates").replaceChildren(...(p.predicates.length ? p.predicates : ["(no plan: the question was not understood)"]).map((t) => el("li", { text: t })));
  $("checks").replaceChildren(...(a.checks || []).map((c) => el("li", { class: c.passed ? "pass" : "fail" },
    c.name, c.detail ? el("span", { class: "detail", text: " — " + c.detail }) : null)));
  // plot
  $("plot-card").hidden = !p.plot_svg;
  $("answer-plot").innerHTML = p.plot_svg || "";
  // rows
  const rows = a.rows || [], cols = a.columns || [];
  $("row-count").textContent = rows.length ? `(${rows.length}${a.provenance && a.provenance.truncated ? ", truncated" : ""})` : "";
  const shown = rows.slice(0, 500);
  $("rows").replaceChildren(
    el("thead", {}, el("tr", {}, ...cols.map((c) => el("th", { text: c })))),
    el("tbody", {}, ...shown.map((r) => el("tr", {}, ...r.map((v) => el("td", { class: typeof v === "number" ? "num" : "", text: fmt(v) }))))));
  $("rows-card").hidden = rows.length === 0;
  $("sql").textContent = a.sql || "(no SQL: nothing was run)";
  $("dialect").textContent = a.dialect ? `(${a.dialect})` : "";
  // examples
  const ex = p.examples || [];
  $("examples").replaceChildren(...(ex.length ? ex.map((e) => el("li", {},
    e.question || JSON.stringify(e), el("span", { class: "hint", text: ` (${e.origin || ""}${e.score !== undefined ? ", similarity " + e.score : ""})` })))
    : [el("li", { class: "hint", text: "none in the example bank yet" })]));
  // provenance
  const prov = Object.assign({}, a.provenance || {});
  const t = a.timings || {};
  prov["time (ms)"] = t.total_ms;
  prov["steps (ms)"] = Object.entries(t).filter(([k]) => k !== "total_ms").map(([k, v]) => `${k} ${Math.round(v)}`).join(", ");
  if (a.concept_sets && a.concept_sets.length) prov["concept sets"] = a.concept_sets.map((c) => `${c.label || ""}: ${(c.concepts || []).slice(0, 6).map((x) => `${x.name} [${x.value}]`).join(", ")}${(c.count || 0) > 6 ? " …" : ""}`).join("; ");
  $("provenance").replaceChildren(...Object.entries(prov).filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => el("tr", {}, el("th", { text: k.replace(/_/g, " ") }), el("td", { text: fmt(v) }))));
  // citations
  const cites = p.citations || [];
  $("citations-card").hidden = cites.length === 0;
  $("citations").replaceChildren(...cites.map((c) => el("div", { class: "cite" },
    el("div", { text: c.text || c.chunk || JSON.stringify(c) }),
    el("div", { class: "meta", text: Object.entries(c).filter(([k]) => !["text", "chunk"].includes(k)).map(([k, v]) => `${k}: ${fmt(v)}`).join(" · ") }))));
  $("editor").hidden = true;
  $("feedback").textContent = "";
  $("approve").disabled = !(a.decision === "accept" && (a.plan || a.sql));
}

async function pick(alt) {
  busy(true, "Running the chosen reading…");
  try {
    const q = $("question").value.trim();
    const { data } = await api("/ask/plan", { plan: alt.plan, source: source(), question: q || null });
    show(data);
    $("feedback").textContent = "Showing the reading you picked: " + alt.description;
    $("feedback").className = "feedback ok";
    $("status").textContent = "";
  } catch (e) { $("status").textContent = "Error: " + e.message; }
  busy(false);
}

// -- expert review -------------------------------------------------------------------------------
function feedbackMsg(text, ok) { const f = $("feedback"); f.textContent = text; f.className = "feedback " + (ok ? "ok" : "bad"); }

async function approve() {
  const a = state.last && state.last.answer;
  if (!a) return;
  const q = (a.provenance && a.provenance.question) || $("question").value.trim();
  const body = { question: q, source: source() };
  if (a.plan) body.plan = a.plan; else body.sql = a.sql;
  try {
    const { ok, data } = await api("/feedback/approve", body);
    if (ok) feedbackMsg(`Approved and stored in the example bank as ${data.stored.id} (${data.bank_size} examples).`, true);
    else feedbackMsg(data.detail || "not stored", false);
  } catch (e) { feedbackMsg(e.message, false); }
}

function openEditor(kind) {
  const a = state.last && state.last.answer;
  if (!a) return;
  state.editing = kind;
  $("editor").hidden = false;
  $("edit-text").value = kind === "plan" ? JSON.stringify(a.plan || {}, null, 2) : (a.sql || "SELECT ");
  $("edit-run").textContent = `Re-run edited ${kind} and store if accepted`;
  $("edit-text").focus();
}

async function runEdit() {
  const a = state.last && state.last.answer;
  const q = (a && a.provenance && a.provenance.question) || $("question").value.trim();
  const body = { question: q, source: source() };
  if (state.editing === "plan") {
    try { body.plan = JSON.parse($("edit-text").value); } catch (e) { feedbackMsg("The plan is not valid JSON: " + e.message, false); return; }
  } else body.sql = $("edit-text").value;
  try {
    const { ok, data } = await api("/feedback/edit", body);
    const kind = state.editing;
    show(data);
    if (ok) feedbackMsg(`Edited ${kind} accepted by the guard and validator; stored as ${data.stored.id} (${data.bank_size} examples).`, true);
    else feedbackMsg(data.detail || "not stored", false);
  } catch (e) { feedbackMsg(e.message, false); }
}

// -- plots ---------------------------------------------------------------------------------------
async function svgInto(target, path) {
  $(target).innerHTML = "";
  $(target).append(el("p", { class: "hint", text: "Drawing…" }));
  try { const { data } = await api(path, undefined, { text: true }); $(target).innerHTML = data; }
  catch (e) { $(target).replaceChildren(el("p", { class: "feedback bad", text: e.message })); }
}

async function loadSeries() {
  const pid = patient();
  if (!pid) { $("trajectory").replaceChildren(el("p", { class: "feedback bad", text: "Choose a patient first (top bar)." })); return; }
  const { data } = await api(`/sources/${encodeURIComponent(source())}/patients/${encodeURIComponent(pid)}/series`);
  const opts = data.map((s) => el("option", { value: `${s.stream}|${s.code}`, text: `${s.label} (${s.count}${s.unit ? ", " + s.unit : ""})` }));
  $("series").replaceChildren(...opts);
  $("group-series").replaceChildren(...opts.map((o) => o.cloneNode(true)));
  if (!data.length) $("trajectory").replaceChildren(el("p", { class: "hint", text: "No numeric values recorded for this patient." }));
}

function plotTrajectory() {
  const [stream, code] = ($("series").value || "|").split("|");
  const q = new URLSearchParams({ source: source(), patient_id: patient() || "", stream, code });
  return svgInto("trajectory", "/plot/trajectory?" + q);
}
function plotGroups() {
  const [stream, code] = ($("group-series").value || "|").split("|");
  const q = new URLSearchParams({ source: source(), stream, code, by: $("group-by").value, kind: $("group-kind").value });
  return svgInto("groups", "/plot/groups?" + q);
}
function plotCounts() {
  const q = new URLSearchParams({ source: source(), stream: $("count-stream").value, interval: $("count-interval").value });
  if ($("count-code").value.trim()) q.set("code", $("count-code").value.trim());
  return svgInto("counts", "/plot/counts?" + q);
}

// -- calculators ---------------------------------------------------------------------------------
async function loadCalcs() {
  const { data } = await api("/calc");
  $("calc-select").replaceChildren(...data.map((c) => el("option", { value: String(c.id), text: `${c.name} (${c.id})` })));
  await onCalc();
}

async function onCalc() {
  const { data } = await api("/calc/" + encodeURIComponent($("calc-select").value));
  state.calc = data; state.prefill = {};
  $("calc-desc").textContent = [data.description, data.citation && "Source: " + data.citation].filter(Boolean).join(" ");
  $("calc-result").hidden = true; $("calc-msg").textContent = "";
  const form = $("calc-form");
  form.replaceChildren();
  for (const i of data.inputs) {
    let input;
    const id = "in-" + i.name;
    if (i.type === "boolean") {
      input = el("select", { id, name: i.name }, el("option", { value: "", text: "—" }), el("option", { value: "true", text: "yes" }), el("option", { value: "false", text: "no" }));
    } else if (i.type === "categorical") {
      input = el("select", { id, name: i.name }, el("option", { value: "", text: "—" }), ...i.values.map((v) => el("option", { value: v, text: v })));
    } else if (i.type === "date") {
      input = el("input", { id, name: i.name, type: "date" });
    } else {
      input = el("input", { id, name: i.name, type: "number", step: "any" });
      if (i.range) { input.min = i.range[0]; input.max = i.range[1]; }
    }
    input.addEventListener("input", () => markEntered(i.name));
    const val = el("div", { class: "val" }, input);
    if (i.units && i.units.length) val.append(el("select", { id: "unit-" + i.name }, ...i.units.map((u) => el("option", { value: u, text: u }))));
    form.append(
      el("label", { class: "lbl", for: id }, i.label, i.missing !== "required" ? el("small", { text: ` (${i.missing === "absent" ? "absent if not given" : "optional"})` }) : null),
      val,
      el("div", { class: "src", id: "src-" + i.name, "data-testid": "src-" + i.name, text: "" }));
  }
}

function markEntered(name) {
  const s = $("src-" + name);
  const was = s.className.includes("miss") ? " (" + s.textContent + ")" : "";
  s.textContent = "entered by you" + was; s.className = "src";
  delete state.prefill[name];
}

async function fillCalc() {
  const pid = patient();
  if (!pid) { msg("calc-msg", "Choose a patient first (top bar).", false); return; }
  msg("calc-msg", "Looking in the patient's record…", true);
  try {
    const { data } = await api(`/calc/${encodeURIComponent(state.calc.id)}/from_patient`, { source: source(), patient_id: pid });
    state.prefill = {};
    for (const i of state.calc.inputs) {
      const f = data.prefill[i.name], s = $("src-" + i.name), input = $("in-" + i.name);
      if (f) {
        input.value = typeof f.value === "boolean" ? String(f.value) : f.value;
        const u = $("unit-" + i.name);
        if (u && f.unit && [...u.options].some((o) => o.value === f.unit)) u.value = f.unit;
        s.textContent = "from the record: " + f.source; s.className = "src rec";
        state.prefill[i.name] = f.source;
      } else if (data.missing[i.name] !== undefined) {
        s.textContent = data.missing[i.name]; s.className = "src miss";
      }
    }
    const o = data.outcome;
    msg("calc-msg", `As of ${o.at}: ${Object.keys(data.prefill).length} of ${state.calc.inputs.length} inputs found in the record` +
      (o.decision === "accept" ? ` — score ${fmt(o.answer)}${o.unit ? " " + o.unit : ""}.` : `; ${o.reason}`), o.decision === "accept");
  } catch (e) { msg("calc-msg", e.message, false); }
}

function msg(id, text, ok) { $(id).textContent = text; $(id).className = "feedback " + (ok ? "ok" : "bad"); }

async function computeCalc() {
  const params = {}, sources = {};
  for (const i of state.calc.inputs) {
    const raw = $("in-" + i.name).value;
    if (raw === "") continue;
    let v = raw;
    if (i.type === "boolean") v = raw === "true";
    else if (i.type === "number" || i.type === "integer") v = Number(raw);
    const u = $("unit-" + i.name);
    params[i.name] = u ? [v, u.value] : v;
    sources[i.name] = state.prefill[i.name] || "entered on the page";
  }
  try {
    const { data } = await api(`/calc/${encodeURIComponent(state.calc.id)}/compute`, { params, sources });
    $("calc-result").hidden = false;
    $("calc-result").textContent = data.explanation;
    msg("calc-msg", `${data.calculator}: ${data.answer}${data.unit ? " " + data.unit : ""}`, true);
  } catch (e) { $("calc-result").hidden = true; msg("calc-msg", e.message, false); }
}

// -- audit ---------------------------------------------------------------------------------------
async function loadAudit() {
  const { data } = await api("/audit?limit=200");
  $("audit-total").textContent = `${data.total} requests logged`;
  const cols = ["ts", "user", "action", "source", "question", "patient_id", "decision", "status", "duration_ms"];
  $("audit").replaceChildren(
    el("thead", {}, el("tr", {}, ...cols.map((c) => el("th", { text: c.replace(/_/g, " ") })), el("th", { text: "sql" }))),
    el("tbody", {}, ...data.entries.map((e) => el("tr", {}, ...cols.map((c) => el("td", { class: c === "duration_ms" ? "num" : "", text: fmt(e[c]) })),
      el("td", { title: e.sql || "", text: e.sql ? e.sql.slice(0, 60) + (e.sql.length > 60 ? "…" : "") : "" })))));
}

// -- wiring --------------------------------------------------------------------------------------
function tab(name) {
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.tab === name));
  document.querySelectorAll(".panel").forEach((p) => p.classList.toggle("active", p.id === "tab-" + name));
  if (name === "audit") loadAudit();
  if (name === "calc" && !state.calc) loadCalcs();
}

document.querySelectorAll(".tab").forEach((t) => t.addEventListener("click", () => tab(t.dataset.tab)));
$("ask-form").addEventListener("submit", ask);
$("question").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) ask(e); });
$("source").addEventListener("change", onSource);
$("approve").addEventListener("click", approve);
$("edit-plan-btn").addEventListener("click", () => openEditor("plan"));
$("edit-sql-btn").addEventListener("click", () => openEditor("sql"));
$("edit-cancel").addEventListener("click", () => { $("editor").hidden = true; });
$("edit-run").addEventListener("click", runEdit);
$("load-series").addEventListener("click", loadSeries);
$("plot-trajectory").addEventListener("click", plotTrajectory);
$("plot-groups").addEventListener("click", plotGroups);
$("plot-counts").addEventListener("click", plotCounts);
$("calc-select").addEventListener("change", onCalc);
$("calc-fill").addEventListener("click", fillCalc);
$("calc-compute").addEventListener("click", computeCalc);
$("audit-refresh").addEventListener("click", loadAudit);
$("token").addEventListener("change", () => localStorage.setItem("cb-token", $("token").value));
$("user").value = localStorage.getItem("cb-user") || "";
$("user").addEventListener("change", () => localStorage.setItem("cb-user", $("user").value));
loadSources();
