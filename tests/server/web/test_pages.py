"""The pages as HTTP answers: HTML that holds no data and needs no token, served with a
Content-Security-Policy that allows no inline script; ``GET /runs/{id}`` is the page for a
browser's navigation and the API for everything else; the static files are what they say."""

from __future__ import annotations

import re

from ..conftest import Served

HTML = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def assert_page_headers(headers: object) -> None:
    csp = headers["content-security-policy"]  # type: ignore[index]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert headers["x-content-type-options"] == "nosniff"  # type: ignore[index]
    assert headers["referrer-policy"] == "no-referrer"  # type: ignore[index]


async def test_the_pages_need_no_token_and_hold_no_inline_script(served: Served) -> None:
    async with served.client() as client:
        for path in ("/", "/runs/run_whatever"):
            answer = await client.get(path, headers=HTML)
            assert answer.status_code == 200, path
            assert answer.headers["content-type"].startswith("text/html")
            assert_page_headers(answer.headers)
            scripts = re.findall(r"<script\b[^>]*>", answer.text)
            assert scripts and all(' src="/static/' in tag for tag in scripts), scripts
            assert re.search(r"<script\b[^>]*>\s*[^<\s]", answer.text) is None  # nothing inline
            assert re.search(r"\son[a-z]+=", answer.text) is None  # no inline handler


async def test_a_run_path_is_the_page_for_a_browser_and_the_api_for_the_rest(
    served: Served,
) -> None:
    async with served.client() as client:
        assert (await client.get("/runs/run_x")).status_code == 401  # curl: the API
        json_please = {"accept": "application/json"}
        assert (await client.get("/runs/run_x", headers=json_please)).status_code == 401
        with_token = {**HTML, "authorization": f"Bearer {served.admin}"}
        assert (await client.get("/runs/run_x", headers=with_token)).status_code == 404
        page = await client.get('/runs/<b id="x">', headers=HTML)
        assert page.status_code == 200
        assert '<b id="x">' not in page.text and "&lt;b id=&#34;x&#34;&gt;" in page.text
        assert (await client.post("/runs/run_x", headers=HTML)).status_code in (401, 405)
        document = (await client.get("/openapi.json")).json()
        assert "/" not in document["paths"]  # the pages are not part of the API


async def test_the_static_files_are_served_with_their_types(served: Served) -> None:
    async with served.client() as client:
        script = await client.get("/static/run.js")
        assert script.status_code == 200
        assert "javascript" in script.headers["content-type"]
        assert script.headers["x-content-type-options"] == "nosniff"
        style = await client.get("/static/style.css")
        assert style.headers["content-type"].startswith("text/css")
        assert (await client.get("/static/nope.js")).status_code == 404
        assert (await client.get("/static/../app.py")).status_code == 404
