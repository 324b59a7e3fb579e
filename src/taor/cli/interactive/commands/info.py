"""``/cost`` and ``/context``: the session's usage and cost, and what fills its context window,
from the same reports the status line reads."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from taor.cli.interactive.commands.command import Command
from taor.cli.interactive.status import cost_text

if TYPE_CHECKING:
    from taor.cli.interactive.app import Repl

BAR = 20  # characters of the context bar


async def cost(repl: Repl, argument: str) -> None:
    report = repl.session.usage_report()
    usage, model = report.usage, repl.session.model
    spent = partial(cost_text, pricing=report.pricing, provider=model.provider)
    lines = [f"cost: {spent(report.cost)} · {_calls(report.responses)} in this run"]
    if report.pricing == "unknown":
        lines.append(
            f"  (taor's model catalog has no prices for {model.provider}:{model.model_id})"
        )
    lines += [
        f"  input {usage.input_tokens:,} tokens, {report.cache_share:.0%} from the cache "
        f"({usage.cache_read_tokens:,} read, {usage.cache_write_tokens:,} written)",
        f"  output {usage.output_tokens:,} tokens ({usage.reasoning_tokens:,} reasoning)",
    ]
    if report.session_model_calls != report.responses:
        lines.append(
            f"  whole session, earlier runs included: {spent(report.session_cost)} · "
            f"{_calls(report.session_model_calls)}"
        )
    context = repl.session.context_report()
    lines.append(
        f"  next request ≈ {context.tokens:,} tokens "
        f"(estimated, calibrated ×{report.token_ratio:.2f})"
    )
    repl.screen.line("\n".join(lines))


async def context(repl: Repl, argument: str) -> None:
    report = repl.session.context_report()
    filled = round(report.fraction * BAR)
    head = Text.assemble(
        ("context ", "bold"),
        ("█" * filled, "cyan"),
        ("░" * (BAR - filled), "dim"),
        f" {report.tokens:,} of {report.window:,} tokens ({report.fraction:.0%})",
    )
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column()
    table.add_column(justify="right")
    table.add_column(justify="right", style="dim")
    for name, tokens in report.parts:
        share = tokens / report.window if report.window else 0.0
        table.add_row(f"  {name}", f"{tokens:,}", f"{share:.1%}")
    note = (
        f"  {report.messages} messages; estimates calibrated ×{report.token_ratio:.2f} "
        "against the provider's counts; /compact frees room"
    )
    repl.screen.print(head, table, Text(note, style="dim"))


def _calls(count: int) -> str:
    return f"{count} model call" + ("" if count == 1 else "s")


COST = Command(name="cost", run=cost, help="usage, cost, cache share and the token estimate")
CONTEXT = Command(name="context", run=context, help="what fills the context window")
