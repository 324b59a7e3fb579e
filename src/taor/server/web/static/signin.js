// The sign-in box: a token is entered once, checked against /me, and kept in this browser.
// ``signIn(ready)`` calls ``ready(me)`` once a token is accepted.

import { api, token } from "./api.js";

const $ = (id) => document.getElementById(id);
let started = false; // the page has been set up once; signing in again reloads it

export function signIn(ready) {
  const form = $("sign-in-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = $("token").value.trim();
    if (!value) return;
    token.set(value);
    $("token").value = "";
    if (!(await check(ready))) showError("That token was not accepted. Check it and try again.");
  });
  $("sign-out").addEventListener("click", () => {
    token.clear();
    location.reload();
  });
  window.addEventListener("taor:signed-out", () => {
    token.clear();
    show(false);
    showError("Your token is no longer accepted. Sign in again.");
  });
  if (token.get()) check(ready);
  else show(false);
}

async function check(ready) {
  let me;
  try {
    me = await api("/me");
  } catch {
    token.clear();
    show(false);
    return false;
  }
  $("who-name").textContent = me.admin ? `${me.name} (admin)` : me.name;
  show(true);
  if (started) {
    location.reload();
  } else {
    started = true;
    ready(me);
  }
  return true;
}

function show(signedIn) {
  $("sign-in").hidden = signedIn;
  $("main").hidden = !signedIn;
  $("who").hidden = !signedIn;
  if (!signedIn) $("token").focus();
  else $("sign-in-error").hidden = true;
}

function showError(text) {
  $("sign-in-error").textContent = text;
  $("sign-in-error").hidden = false;
}
