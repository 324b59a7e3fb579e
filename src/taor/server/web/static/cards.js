// The parts of a run's timeline that are more than a line of text: a tool call's row (its
// summary; arguments, diff and output when opened) and a permission request's card (what it
// asks, the diff or the whole command, and the buttons that answer it).

import { diffView, el, pretty } from "./dom.js";

export function toolRow(summary, name, args) {
  const state = el("span", { class: "tool-state running", title: "running" });
  const meta = el("span", { class: "tool-meta" });
  const output = el("pre", { class: "output" });
  const diff = el("div", { class: "tool-section tool-diff", hidden: true }, el("h4", { text: "Changes" }));
  const row = el(
    "details",
    { class: "tool" },
    el("summary", {}, state, el("span", { class: "tool-summary", text: summary || name }), meta),
    el(
      "div",
      { class: "tool-body" },
      el("div", { class: "tool-section" }, el("h4", { text: "Arguments" }), el("pre", { class: "arguments", text: pretty(args) })),
      diff,
      el("div", { class: "tool-section tool-output" }, el("h4", { text: "Output" }), output),
    ),
  );
  return { row, state, meta, output, diff };
}

export function showDiff(tool, text) {
  if (!tool || !text || !tool.diff.hidden) return;
  tool.diff.append(diffView(text));
  tool.diff.hidden = false;
}

const MARKS = { allowed: "✓", denied: "✕", expired: "–" };

export function settle(card, outcome, text) {
  card.classList.remove("open");
  card.classList.add(outcome);
  card.querySelector(".perm-icon").textContent = MARKS[outcome];
  const head = card.querySelector(".perm-head strong");
  head.textContent = head.textContent.replace(/^Allow (.*)\?$/, "Permission for $1");
  for (const button of card.querySelectorAll("button")) button.disabled = true;
  const result = card.querySelector(".perm-result");
  result.textContent = text;
  result.hidden = false;
}

export const DECISIONS = { allow: "Allowed once", allow_always: "Allowed always", deny: "Denied" };

export function permissionCard(event, answer) {
  const command = event.name === "shell" && event.arguments ? event.arguments.command : null;
  let shown;
  if (event.diff) shown = diffView(event.diff);
  else if (typeof command === "string") shown = el("pre", { class: "command", text: `$ ${command}` });
  else shown = el("pre", { class: "arguments", text: pretty(event.arguments) });
  const always = event.rules && event.rules.length ? `Allow always: ${event.rules.join(", ")}` : "Allow always";
  const buttons = [
    el("button", { type: "button", class: "primary", "data-decision": "allow", text: "Allow once" }),
    el("button", { type: "button", "data-decision": "allow_always", title: always, text: "Allow always" }),
    el("button", { type: "button", class: "danger", "data-decision": "deny", text: "Deny" }),
  ];
  const card = el(
    "div",
    { class: "permission open", "data-request": event.request_id },
    el("div", { class: "perm-head" }, el("span", { class: "perm-icon", text: "?" }), el("strong", { text: `Allow ${event.name}?` })),
    el("p", { class: "perm-summary", text: event.summary }),
    event.reason ? el("p", { class: "perm-reason", text: event.reason }) : null,
    shown,
    el("div", { class: "perm-actions" }, buttons),
    el("p", { class: "perm-result", hidden: true }),
    el("p", { class: "error", hidden: true }),
  );
  for (const button of buttons) {
    button.addEventListener("click", async () => {
      const error = card.querySelector(".error");
      for (const b of buttons) b.disabled = true;
      try {
        await answer(event.request_id, button.dataset.decision);
        error.hidden = true;
      } catch (failure) {
        error.textContent = failure.message;
        error.hidden = false;
        if (card.classList.contains("open")) for (const b of buttons) b.disabled = false;
      }
    });
  }
  return card;
}
