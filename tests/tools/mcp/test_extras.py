"""A server's resources attached to a prompt (``@server:uri``) and its prompts, through the
session's servers (``session.mcp``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.errors import ToolError
from taor.testing import ScriptedModel, text
from taor.tools.mcp.extras import list_resources

from .support import demo, mcp_session


async def test_resources_are_attached_and_prompts_give_their_text(tmp_path: Path) -> None:
    model = ScriptedModel([text("read it")])
    async with mcp_session(model, tmp_path, demo()) as session:
        servers = session.mcp
        assert servers is not None
        found = await servers.attach("What is in @demo:notes://today? And @nobody:x stays.")
        assert found.resources == ("demo:notes://today",) and found.problems == ()
        assert '<resource server="demo" uri="notes://today">\nbuy milk\n</resource>' in found.text
        assert found.text.startswith("What is in @demo:notes://today? And @nobody:x stays.")
        missing = await servers.attach("@demo:notes://nothing")
        assert missing.resources == () and "notes://nothing" in missing.problems[0]
        assert [r.uri for r in await list_resources(servers.servers["demo"])] == ["notes://today"]
        assert await servers.prompt("demo", "review", "the parser") == (
            "Please review the parser carefully."
        )
        assert await servers.prompt("demo", "review", "topic=tests") == (
            "Please review tests carefully."
        )
        with pytest.raises(ToolError, match="needs topic"):
            await servers.prompt("demo", "review")
        with pytest.raises(ToolError, match="no prompt 'nope'"):
            await servers.prompt("demo", "nope")
        result = await session.run(found.text)
    assert result.text == "read it"
    assert "buy milk" in model.requests[0].messages[-1].text
