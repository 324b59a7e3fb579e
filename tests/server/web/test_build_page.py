"""A build started from the page's form and followed live: its phases as headings, its
milestones, its narration in paragraphs with the tool calls folded under it, and its report;
the same after a reload (nothing shown twice), on a desktop and a phone."""

from __future__ import annotations

import pytest

from ...build.scripts import BRIEF, DONE, PLAN, QNA, REPORT, SCAFFOLD, TESTS
from .conftest import PHONE, TO_BOTTOM, Tab, Web

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


async def test_a_build_from_the_form_shows_phases_milestones_and_its_report(
    tab: Tab, web: Web
) -> None:
    web.served.model.push(SCAFFOLD, TESTS, DONE, REPORT)
    page = tab.page
    await tab.sign_in()
    await page.select_option("#kind", "build")
    assert await page.locator("#prompt").is_hidden()
    await page.fill("#brief", BRIEF)
    await page.fill("#qna", QNA)
    await page.fill("#plan", PLAN)
    await page.select_option("#mode", "bypass")
    await tab.screenshot("build-form", full_page=False)
    await page.click("#start")
    await page.wait_for_url("**/runs/run*")
    await page.wait_for_selector(".report.complete")
    await tab.finished()
    await check_build_view(tab)
    await tab.screenshot("build-run-desktop")
    await page.reload()
    await page.wait_for_selector(".report.complete")
    await tab.finished()
    await check_build_view(tab)  # replayed once: nothing twice
    await page.set_viewport_size(PHONE)
    await page.evaluate(TO_BOTTOM)
    await tab.screenshot("build-run-phone")


async def check_build_view(tab: Tab) -> None:
    page = tab.page
    assert await page.locator("h1#prompt").inner_text() == "Tally"
    assert await page.locator("h2.phase").all_inner_texts() == ["Scaffolding", "Tests"]
    milestones = await page.locator(".milestone").all_inner_texts()
    assert len(milestones) == 2 and "tally.py counts words." in milestones[0]
    assert "MILESTONE · SCAFFOLDING" in milestones[0].upper()
    first = page.locator(".narration.build").first
    assert await first.inner_text() == "We start with tally.py, because everything else calls it."
    assert await first.locator("code").inner_text() == "tally.py"
    assert await page.locator(".narration:not(.build)").count() == 0  # no raw text as well
    tools = page.locator("details.tool")
    assert await tools.count() == 2
    assert await tools.first.get_attribute("open") is None  # folded under the narration
    order = await page.locator("#timeline > *").evaluate_all(
        "nodes => nodes.map(n => n.classList.contains('phase') ? 'phase' :"
        " n.classList.contains('milestone') ? 'milestone' : n.classList.contains('tool') ?"
        " 'tool' : n.classList.contains('build') ? 'narration' : '')"
    )
    shown = [kind for kind in order if kind]
    assert shown[:5] == ["phase", "narration", "tool", "milestone", "phase"]
    report = page.locator(".report.complete")
    assert "Build report · complete" in await report.locator("summary").inner_text()
    narrated = " ".join(await page.locator(".narration.build").all_inner_texts())
    assert "A word counter" not in narrated  # the report is shown once, as the report
    notes = await page.locator(".note").all_inner_texts()
    assert any(n.startswith("To the model: The plan is done.") for n in notes)
    assert "tally.py (created)" in await report.inner_text()
