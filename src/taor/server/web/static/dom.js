// Small helpers shared by the pages: building elements (text always as text), and the way
// times, costs, token counts, statuses and diffs are shown.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const ENDED = new Set(["finished", "failed", "interrupted", "cancelled"]);
export const LIVE = new Set(["running", "awaiting_permission"]);

const STATUS_LABELS = {
  queued: "Queued",
  running: "Running",
  awaiting_permission: "Needs you",
  finished: "Finished",
  failed: "Failed",
  interrupted: "Interrupted",
  cancelled: "Cancelled",
};

export function badge(status) {
  return el("span", { class: `badge status-${status}`, text: STATUS_LABELS[status] || status });
}

export function setBadge(node, status) {
  node.className = `badge status-${status}`;
  node.textContent = STATUS_LABELS[status] || status;
}

// The service's times may come without a zone: they are UTC.
export function parseTime(value) {
  if (!value) return null;
  const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const date = new Date(zoned);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function age(value, now = Date.now()) {
  const date = parseTime(value);
  if (!date) return "–";
  const seconds = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days < 14 ? `${days} d ago` : date.toLocaleDateString();
}

export function money(cost) {
  if (cost === null || cost === undefined) return "–";
  if (cost === 0) return "$0";
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

export function count(n) {
  if (!n) return "0";
  return n < 10000 ? String(n) : `${(n / 1000).toFixed(n < 100000 ? 1 : 0)}k`;
}

export function tokens(usage) {
  if (!usage) return "–";
  const input = (usage.input_tokens || 0) + (usage.cache_read_tokens || 0) + (usage.cache_write_tokens || 0);
  return `${count(input)} in · ${count(usage.output_tokens || 0)} out`;
}

// A unified diff, each line coloured by what it does.
export function diffView(text) {
  const pre = el("pre", { class: "diff" });
  for (const line of String(text).replace(/\n$/, "").split("\n")) {
    let kind = "ctx";
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ")) kind = "file";
    else if (line.startsWith("@@")) kind = "hunk";
    else if (line.startsWith("+")) kind = "add";
    else if (line.startsWith("-")) kind = "del";
    pre.append(el("span", { class: `diff-${kind}`, text: `${line}\n` }));
  }
  return pre;
}

// What an edit would change, from its arguments, when no diff was sent with it.
export function argumentsDiff(name, args) {
  if (!args || typeof args !== "object") return "";
  if (name === "apply_patch" && typeof args.patch === "string") return args.patch;
  if (name === "edit_file" && typeof args.old_string === "string" && typeof args.new_string === "string") {
    const minus = args.old_string.split("\n").map((l) => `-${l}`);
    const plus = args.new_string.split("\n").map((l) => `+${l}`);
    return [`--- ${args.path || ""}`, `+++ ${args.path || ""}`, ...minus, ...plus].join("\n");
  }
  return "";
}

export function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export function clip(text, limit = 200000) {
  const s = String(text ?? "");
  return s.length > limit ? `${s.slice(0, limit)}\n… (${s.length - limit} more characters)` : s;
}
