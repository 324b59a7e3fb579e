// A small, safe Markdown renderer for the model's narration.
//
// Safety comes first and from one rule: the whole text is HTML-escaped before anything else,
// so every tag in the output is one this file wrote. Links are made only for http(s) URLs
// (already escaped, so they cannot leave their attribute); anything else stays text.
// It knows headings, paragraphs, bold, italic, strike-through, inline code, fenced code,
// block quotes, rules and (nested) lists: what a model's narration uses.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

export function renderMarkdown(source) {
  const lines = escapeHtml(String(source).replace(/\u0000/g, "")).split(/\r\n|\r|\n/);
  return blocks(lines).join("\n");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}&gt;\s?/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;

function blocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) {
      i += 1;
    } else if (FENCE.test(line)) {
      i = fenced(lines, i, out);
    } else if (HEADING.test(line)) {
      const [, hashes, text] = line.match(HEADING);
      out.push(`<h${hashes.length}>${inline(text)}</h${hashes.length}>`);
      i += 1;
    } else if (RULE.test(line)) {
      out.push("<hr>");
      i += 1;
    } else if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && QUOTE.test(lines[i])) quoted.push(lines[i++].replace(QUOTE, ""));
      out.push(`<blockquote>${blocks(quoted).join("\n")}</blockquote>`);
    } else if (ITEM.test(line)) {
      i = list(lines, i, out);
    } else {
      const para = [];
      while (i < lines.length && !/^\s*$/.test(lines[i]) && !startsBlock(lines[i])) {
        para.push(lines[i++].trim());
      }
      out.push(`<p>${para.map(inline).join("<br>")}</p>`);
    }
  }
  return out;
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || QUOTE.test(line) || ITEM.test(line) || RULE.test(line);
}

function fenced(lines, start, out) {
  const [, marks, lang] = lines[start].match(FENCE);
  const body = [];
  let i = start + 1;
  while (i < lines.length && !isClosing(lines[i], marks)) body.push(lines[i++]);
  const cls = lang ? ` class="language-${lang}"` : "";
  out.push(`<pre><code${cls}>${body.join("\n")}</code></pre>`);
  return i + 1; // past the closing fence (or the end: an unclosed fence runs to it)
}

function isClosing(line, marks) {
  const trimmed = line.trim();
  return trimmed.length >= marks.length && trimmed === marks[0].repeat(trimmed.length);
}

// A list: items at the first item's indentation; deeper lines belong to the item above them.
function list(lines, start, out) {
  const [, indent, marker] = lines[start].match(ITEM);
  const ordered = /\d/.test(marker);
  const items = [];
  let i = start;
  while (i < lines.length) {
    const match = lines[i].match(ITEM);
    if (match && match[1].length === indent.length && /\d/.test(match[2]) === ordered) {
      items.push([match[3]]);
      i += 1;
    } else if (items.length && !/^\s*$/.test(lines[i]) && leading(lines[i]) > indent.length) {
      items[items.length - 1].push(lines[i].slice(indent.length + 2));
      i += 1;
    } else {
      break;
    }
  }
  const first = ordered ? parseInt(marker, 10) : 1;
  const open = ordered ? (first !== 1 ? `<ol start="${first}">` : "<ol>") : "<ul>";
  const body = items.map((item) => `<li>${listItem(item)}</li>`).join("");
  out.push(`${open}${body}${ordered ? "</ol>" : "</ul>"}`);
  return i;
}

function listItem(item) {
  if (item.length === 1) return inline(item[0]);
  const [head, ...rest] = item;
  return `${inline(head)}${blocks(rest).join("")}`;
}

function leading(line) {
  return line.length - line.trimStart().length;
}

// Inline markup over escaped text: code spans and links are set aside first, so nothing inside
// them is read as emphasis, then put back.
function inline(text) {
  const kept = [];
  const keep = (html) => `\u0000${kept.push(html) - 1}\u0000`;
  let s = text.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (_, ticks, code) => keep(`<code>${code.trim()}</code>`));
  s = s.replace(/\[([^\]\u0000]+)\]\(([^()\s\u0000]+)\)/g, (whole, label, url) =>
    /^https?:\/\/[^\s]+$/i.test(url)
      ? keep(`<a href="${url}" rel="noopener noreferrer nofollow" target="_blank">${emphasis(label)}</a>`)
      : whole,
  );
  s = emphasis(s);
  return s.replace(/\u0000(\d+)\u0000/g, (_, n) => kept[Number(n)]);
}

function emphasis(s) {
  return s
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>")
    .replace(/(^|[^*\w])\*(?=[^\s*])([^*]*?[^\s*])\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)/g, "$1<em>$2</em>");
}
