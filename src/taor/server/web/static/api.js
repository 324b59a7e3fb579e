// The API as the pages call it: the token the person entered, kept in this browser
// (localStorage), sent as a bearer header on every request and never put in a URL.

const KEY = "taor.token";

export const token = {
  get: () => localStorage.getItem(KEY) || "",
  set: (value) => localStorage.setItem(KEY, value),
  clear: () => localStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export function authHeaders() {
  return { Authorization: `Bearer ${token.get()}` };
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = { ...authHeaders(), Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  if (answer.status === 401) {
    window.dispatchEvent(new CustomEvent("taor:signed-out"));
  }
  if (!answer.ok) throw new ApiError(answer.status, await detail(answer));
  return answer.status === 204 ? null : answer.json();
}

// The words of an error answer: FastAPI's ``detail`` (a list of fields for a 422).
async function detail(answer) {
  try {
    const data = await answer.json();
    if (typeof data.detail === "string") return data.detail;
    if (Array.isArray(data.detail)) {
      return data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    }
  } catch {
    // not JSON: the status says enough
  }
  return `${answer.status} ${answer.statusText}`;
}
