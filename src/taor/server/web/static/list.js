// The runs page: the runs the token may see (refreshed while the page is open) and the form
// that starts a run.

import { api } from "./api.js";
import { age, badge, el, money } from "./dom.js";
import { signIn } from "./signin.js";

const $ = (id) => document.getElementById(id);
const REFRESH = 3000;

signIn(() => {
  $("new-run").addEventListener("submit", startRun);
  $("kind").addEventListener("change", showKind);
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("new-run").requestSubmit();
    }
  });
  load();
});

async function load() {
  if (document.hidden) {
    setTimeout(load, REFRESH); // nobody is looking: ask again later
    return;
  }
  try {
    const page = await api("/runs?limit=50");
    show(page.runs);
    $("runs-error").hidden = true;
  } catch (error) {
    $("runs-error").textContent = `The runs could not be read: ${error.message}`;
    $("runs-error").hidden = false;
  }
  setTimeout(load, REFRESH);
}

function show(runs) {
  $("runs-empty").hidden = runs.length > 0;
  $("runs").replaceChildren(...runs.map(item));
}

function item(run) {
  return el(
    "li",
    {},
    el(
      "a",
      { class: "run-item", href: `/runs/${encodeURIComponent(run.id)}`, "data-run": run.id },
      badge(run.status),
      el("span", { class: "run-prompt", title: run.prompt, text: run.prompt }),
      el(
        "span",
        { class: "run-meta" },
        el("span", { class: "run-model", text: run.model }),
        el("span", { class: "run-cost", text: money(run.cost) }),
        el("span", { class: "run-age", title: run.created_at, text: age(run.created_at) }),
        el("span", { class: "run-user", text: run.user }),
      ),
    ),
  );
}

// A build takes a brief, interview answers and a plan in place of a prompt.
function showKind() {
  const build = $("kind").value === "build";
  $("build-inputs").hidden = !build;
  $("prompt").hidden = build;
  $("prompt").required = !build;
  for (const id of ["brief", "qna", "plan"]) $(id).required = build;
}

function runBody() {
  const body = { permission_mode: $("mode").value };
  const model = $("model").value.trim();
  if (model) body.model = model;
  if ($("kind").value !== "build") return { ...body, prompt: $("prompt").value.trim() };
  const build = {};
  for (const id of ["brief", "qna", "plan"]) build[id] = $(id).value.trim();
  return { ...body, kind: "build", build };
}

async function startRun(event) {
  event.preventDefault();
  const form = event.target;
  const button = form.querySelector("button[type=submit]");
  const body = runBody();
  const empty = body.build
    ? ["brief", "qna", "plan"].find((id) => !body.build[id])
    : !body.prompt && "prompt";
  if (empty) {
    $(empty).focus();
    return;
  }
  button.disabled = true;
  try {
    const run = await api("/runs", { method: "POST", body });
    location.assign(`/runs/${encodeURIComponent(run.id)}`);
  } catch (error) {
    $("new-run-error").textContent = error.message;
    $("new-run-error").hidden = false;
    button.disabled = false;
  }
}
