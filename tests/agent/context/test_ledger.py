from __future__ import annotations

import json
from pathlib import Path

import pytest

from taor.agent.context.ledger import IMAGE_TOKENS, TokenLedger, UsageLedger, estimate_chars
from taor.llm.catalog import Catalog
from taor.llm.response import Usage
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import ImagePart, Message, ThinkingPart, ToolCallPart, tool_result


def test_estimate_chars_counts_every_part_kind() -> None:
    call = ToolCallPart(id="c1", name="shell", raw_arguments='{"command":"ls"}')
    assistant = Message.assistant(ThinkingPart(text="hmm"), "done", call)
    assert estimate_chars(assistant) == 3 + 4 + len("shell") + len('{"command":"ls"}')
    parsed = Message.assistant(ToolCallPart(id="c2", name="t", arguments={"a": 1}))
    assert estimate_chars(parsed) == 1 + len('{"a": 1}')
    result = Message.tool_results(tool_result("c1", "x" * 40, name="shell"))
    assert estimate_chars(result) == len("shell") + 40
    image = Message.user("look", ImagePart(data=b"png"))
    assert estimate_chars(image) == 4 + IMAGE_TOKENS * 4


def test_estimate_is_chars_over_four_with_system_and_tools() -> None:
    tool = ToolDefinition(name="shell", description="Run a command.")
    schema = json.dumps(tool.parameters)
    ledger = TokenLedger(100_000)
    messages = [Message.user("a" * 400), Message.assistant("b" * 400)]
    tokens = ledger.estimate(messages, system="s" * 80, tools=[tool])
    assert tokens == round((800 + 80 + len("shell") + len("Run a command.") + len(schema)) / 4)


def test_estimate_reuses_the_measured_prefix_and_follows_replacements() -> None:
    ledger = TokenLedger(100_000)
    history = [Message.user("a" * 400)]
    assert ledger.estimate(history) == 100
    history.append(Message.assistant("b" * 800))
    assert ledger.estimate(history) == 300
    compacted = [Message.user("summary" + "c" * 33)]  # replaced history: measured afresh
    assert ledger.estimate(compacted) == 10
    assert ledger.estimate([*compacted, Message.user("d" * 40)]) == 20
    assert ledger.estimate([]) == 0


def test_long_history_estimates_match_a_fresh_count() -> None:
    ledger = TokenLedger(10_000_000)
    history: list[Message] = []
    for turn in range(300):
        history.append(Message.user(f"question {turn} " * (turn % 7 + 1)))
        history.append(Message.assistant(f"answer {turn}"))
        expected = round(sum(estimate_chars(m) for m in history) / 4)
        assert ledger.estimate(history) == expected


def test_calibration_converges_to_the_reported_ratio() -> None:
    ledger = TokenLedger(1_000_000)
    history = [Message.user("x" * 4000)]  # 1000 estimated tokens
    for _ in range(30):
        estimated = ledger.estimate(history)
        ledger.observe(estimated, round(1000 * 1.6))  # the provider counts 1.6x more
    assert ledger.ratio == pytest.approx(1.6, rel=1e-3)
    assert ledger.estimate(history) == 1600


def test_calibration_is_a_moving_average_seeded_by_the_first_observation() -> None:
    ledger = TokenLedger(1_000_000)
    ledger.observe(1000, 2000)
    assert ledger.ratio == pytest.approx(2.0)
    ledger.observe(2000, 1000)  # raw 1000, ratio sample 1.0
    assert ledger.ratio == pytest.approx(2.0 + 0.3 * (1.0 - 2.0))


def test_calibration_is_clamped_and_ignores_missing_usage() -> None:
    ledger = TokenLedger(1_000_000)
    ledger.observe(10, 0)
    ledger.observe(0, 500)
    assert ledger.ratio == 1.0
    ledger.observe(10, 10_000)
    assert ledger.ratio == 4.0
    low = TokenLedger(1_000_000)
    low.observe(10_000, 1)
    assert low.ratio == 0.25


def test_warning_fires_once_per_crossing() -> None:
    ledger = TokenLedger(1000, warn_at=0.8)
    assert [ledger.should_warn(t) for t in (100, 799, 800, 900, 950)] == [
        False,
        False,
        True,
        False,
        False,
    ]
    assert ledger.should_warn(500) is False  # dropped below (after a compaction): re-armed
    assert ledger.should_warn(850) is True
    assert ledger.fraction(850) == 0.85


def _catalog(tmp_path: Path) -> Catalog:
    def entry(model_id: str, input_price: float, output_price: float) -> dict[str, object]:
        return {
            "id": model_id,
            "provider": "anthropic",
            "context_window": 200_000,
            "max_output": 8_000,
            "prices": {"input": input_price, "output": output_price, "cache_read": 0.5},
        }

    path = tmp_path / "models.json"
    path.write_text(json.dumps({"models": [entry("big", 10.0, 50.0), entry("small", 1.0, 5.0)]}))
    return Catalog.from_file(path)


def test_usage_ledger_prices_each_response_and_keeps_totals(tmp_path: Path) -> None:
    ledger = UsageLedger(_catalog(tmp_path), "anthropic", "big")
    first = Usage(input_tokens=1_000_000, cache_read_tokens=400_000, output_tokens=100_000)
    cost, total = ledger.add(first)
    assert cost == pytest.approx(6.0 + 0.2 + 5.0)
    assert total == pytest.approx(11.2)
    cost, total = ledger.add(Usage(input_tokens=100_000, output_tokens=10_000))
    assert cost == pytest.approx(1.0 + 0.5)
    assert total == pytest.approx(12.7)
    assert ledger.total == Usage(
        input_tokens=1_100_000, cache_read_tokens=400_000, output_tokens=110_000
    )
    assert ledger.cost_known is True
    assert ledger.responses == 2


def test_usage_ledger_prices_a_response_at_its_own_model(tmp_path: Path) -> None:
    ledger = UsageLedger(_catalog(tmp_path), "anthropic", "big")
    usage = Usage(input_tokens=1_000_000)
    assert ledger.add(usage, provider="anthropic", model="small") == (1.0, 1.0)
    assert ledger.model == "small"
    cost, total = ledger.add(usage)  # the switch sticks
    assert (cost, total) == (1.0, 2.0)
    cost, total = ledger.add(usage, provider="anthropic", model="big")
    assert (cost, total) == (10.0, 12.0)


def test_unknown_model_has_no_cost(tmp_path: Path) -> None:
    ledger = UsageLedger(_catalog(tmp_path), "anthropic", "big")
    ledger.add(Usage(input_tokens=1_000_000))
    cost, total = ledger.add(Usage(input_tokens=1_000_000), provider="ollama", model="llama9")
    assert cost is None
    assert total is None
    assert ledger.cost_known is False
    assert ledger.total_cost is None
    assert ledger.known_cost == pytest.approx(10.0)  # a lower bound, still there for limits
    cost, total = ledger.add(Usage(input_tokens=1_000_000), provider="anthropic", model="big")
    assert (cost, total) == (10.0, None)
    assert ledger.total.input_tokens == 3_000_000
