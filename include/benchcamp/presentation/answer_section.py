"""The answer first: what a campaign says of its study's question, in sentences with their numbers.

Every report (text, HTML, the results page) starts with this block, before any table: each
published claim (`scorecard`) reproduced, contradicted or inconclusive with its ratio, interval,
repetitions and p; for an undecided one, the repetitions per cell that would decide it at the
noise measured and whether the study's cap allows them; the cells of an adaptive campaign that
stopped short of their target CI (`repetition_adequacy`); then the study's headline comparisons
(`Study.answers`, e.g. HBase against Cassandra). The numbers are the marts' (the power
calculations are in dbt, `benchcamp.pipeline.power`): nothing is recomputed here.
"""

from __future__ import annotations

from typing import Any

from benchcamp.core.claims import MIN_RUNS_PER_SIDE, Claim, load_claims
from benchcamp.core.spec import SpecError, load_spec
from benchcamp.core.study import study_plugin
from benchcamp.pipeline.campaign.conf import MAX_REPETITIONS
from benchcamp.presentation.blocks import Block, Tables

TITLE = "The answer first: what this campaign says"
KIND = "answer"
CLAIMS_DOC = "docs/statistics/scorecard.md, The answer block"
NOTHING = (
    "This study declares no published claims (claims.yaml) and no headline comparison: "
    "the tables below are its answer."
)
NO_SCORECARD = (
    "The study's claims were not scored for this campaign (the scorecard has no rows: a warehouse "
    "loaded without its claims); `benchcamp import` or a campaign's load writes them."
)


def p_text(value: float | None) -> str:
    """A p-value as the answers print it: three decimals, or `< 0.001`."""
    if value is None:
        return "-"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def count(value: int) -> str:
    """A whole number with thousands separators: 1,234."""
    return f"{value:,}"


def cap_of(study: str) -> int | None:
    """The study's cap on a cell's adaptive repetitions (its spec's `max_repetitions`; None: it
    declares none). A trigger may still ask for up to `MAX_REPETITIONS` repetitions outright."""
    try:
        return load_spec(study).max_repetitions
    except SpecError:
        return None


def undecided(needed: int | None, reason: str | None, cap: int | None, ran: int | None, each: str) -> str:
    """`not decided; about N repetitions <each> would decide it at this noise`, weighed against
    the campaign's own repetitions, the study's adaptive cap and the most a campaign may run; or
    why no number would (`reason`, the mart's)."""
    if needed is None:
        return f"not decided; {reason}" if reason else "not decided"
    text = f"not decided; about {count(needed)} repetitions {each} would decide it at this noise"
    if ran is not None and needed <= ran:
        return text + (
            f" (this campaign ran {ran}: at power 0.8 one campaign in five of that size stays undecided, "
            "as this one did)"
        )
    if needed > MAX_REPETITIONS:
        return text + f", more than the {MAX_REPETITIONS} a campaign may run, so none can at this noise"
    if cap is not None and needed > cap:
        return (
            text
            + f", beyond the adaptive cap of {cap} (max_repetitions): a campaign run with {needed} repetitions a cell could"
        )
    if cap is not None:
        return text + f", within the adaptive cap of {cap} (max_repetitions)"
    return text


def _interval(row: dict[str, Any]) -> str:
    if row.get("ci_low") is None or row.get("ci_high") is None:
        return "no interval"
    return f"95 % CI {row['ci_low']:.3f}–{row['ci_high']:.3f}"


def _ratio(row: dict[str, Any]) -> str:
    return "no ratio" if row.get("estimate") is None else f"{row['estimate']:.3f}"


def _fewest(n_per_side: str | None) -> int | None:
    counts = [int(part) for part in (n_per_side or "").split("/") if part.isdigit()]
    return min(counts) if counts else None


def listing(names: list[str], last: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def _cells_of(claim: Claim | None) -> str:
    """What a campaign must run to judge a claim: its cells, in words."""
    if claim is None:
        return "its cells"
    if claim.kind in ("scaling", "levels"):
        return f"{listing(claim.workloads)} at two or more levels of {claim.axis}"
    if claim.kind == "ratio" and claim.numerator is not None and claim.denominator is not None:
        sides = [
            side.workload or ", ".join(f"{name}={value}" for name, value in side.params.items())
            for side in (claim.numerator, claim.denominator)
        ]
        trend = f" at two or more levels of {claim.trend_axis}" if claim.trend_axis else ""
        return f"{listing(sides)} with the same other axes{trend}"
    if claim.kind == "environments":
        return f"the same cells on {listing(claim.baseline_environments, 'or')} and another environment"
    return "its cells"


def unmeasured_sentence(environment: str, rows: list[dict[str, Any]], claims: dict[str, Claim]) -> str:
    """The claims a campaign ran none of the cells of, in one sentence, with what would judge each."""
    each = [f"{row['claim_id']} ({_cells_of(claims.get(row['claim_id']))})" for row in rows]
    one = len(rows) == 1
    return (
        f"On {environment}, {'one claim is' if one else f'{len(rows)} claims are'} not measured, the "
        f"campaign having run none of {'its' if one else 'their'} cells: {listing(each)}; those cells, "
        f"at least {MIN_RUNS_PER_SIDE} repetitions each, would judge {'it' if one else 'them'}."
    )


def claim_sentence(row: dict[str, Any], cap: int | None) -> str:
    """One judged claim's verdict on one environment, with the deciding comparison's numbers."""
    head = (
        f'On {row["environment"]}, {row["claim_id"]} ("{row["paper"]}", read as: {row["claimed"]}) '
        f"is {row['verdict']}"
    )
    numbers = f"{_interval(row)}, n {row['n_per_side'] or '-'}"
    where = row["deciding_comparison"]
    total = row["comparisons"]
    if row["verdict"] == "reproduced":
        scope = {1: "its one comparison lies", 2: "both comparisons lie"}.get(
            total, f"all {total} comparisons lie"
        )
        which = "" if total == 1 else "the weakest, "
        return (
            f"{head}: {scope} inside at 95 %; {which}{where}, is {_ratio(row)} "
            f"({numbers}, p {p_text(row['p_support'])} that it lies inside)."
        )
    if row["verdict"] == "contradicted":
        corrected = f", Benjamini–Hochberg over {total} comparisons" if total > 1 else ""
        return (
            f"{head}: {where} is {_ratio(row)} ({numbers}, p {p_text(row['p_against_adjusted'])} "
            f"that it lies outside{corrected}), outside the claimed region."
        )
    inside = row["n_reproduced"]
    if inside:
        scope = f"{inside} of {total} comparisons lie inside at 95 %, but"
    else:
        scope = (
            "its one comparison is open:" if total == 1 else f"none of its {total} comparisons is decided;"
        )
    tested = ""
    if row.get("p_support") is not None:
        tested = f"; p {p_text(row['p_support'])} for inside, {p_text(row['p_against_adjusted'])} for outside"
    text = f"{head}: {scope} {where} is {_ratio(row)} ({numbers}{tested}): "
    needed = row.get("repetitions_to_decide")
    text += undecided(needed, row.get("decide_reason"), cap, _fewest(row["n_per_side"]), "per cell")
    other = row.get("power_comparison")
    if other and other != where and needed is not None:
        text += (
            f" ({other} lies outside the claimed region: that many would likely contradict it)"
            if row.get("decide_route") == "contradict"
            else f" ({other} needs the most)"
        )
    return text + "."


def target_sentences(rows: list[dict[str, Any]]) -> list[str]:
    """An adaptive campaign's target CI: reached by every cell, or which stopped short at the cap
    or the budget and how many repetitions the target would need at their measured noise."""
    out = []
    for environment in dict.fromkeys(row["environment"] for row in rows):
        cells = [row for row in rows if row["environment"] == environment]
        first = cells[0]
        target = f"the 95 % CI of each cell's mean within {first['target_ci_pct']:g} % of it"
        short = [row for row in cells if row["stop_reason"] == "max_repetitions"]
        failing = [row for row in cells if row["stop_reason"] == "too_many_failures"]
        cut = [row for row in cells if row["stop_reason"] == "budget"]
        if not short and not failing and not cut:
            out.append(f"On {environment}, every cell reached the target ({target}).")
            continue
        parts = []
        if short:
            needs = "; ".join(
                f"{row['cell_key']} at {row['half_width_pct']:.2f} % needs about "
                f"{count(row['repetitions_for_target']) if row.get('repetitions_for_target') else 'an unknown number'}"
                for row in short
            )
            beyond = [
                row for row in short if (row.get("repetitions_for_target") or 0) > row["max_repetitions"]
            ]
            unreachable = [row for row in short if (row.get("repetitions_for_target") or 0) > MAX_REPETITIONS]
            verdict = (
                "the cap cannot reach the target at this noise"
                if len(beyond) == len(short)
                else f"{len(beyond)} of them need more than the cap"
            )
            if unreachable:
                verdict += (
                    f"; {len(unreachable)} of them need more than the {MAX_REPETITIONS} repetitions "
                    "a campaign may run"
                )
            parts.append(
                f"{len(short)} of {len(cells)} cells stopped at the cap of {first['max_repetitions']} "
                f"repetitions short of the target ({target}): {needs}; {verdict}"
            )
        if cut:
            needs = "; ".join(
                f"{row['cell_key']} at {row['half_width_pct']:.2f} % after {row['n_planned']} needs about "
                f"{count(row['repetitions_for_target']) if row.get('repetitions_for_target') else 'an unknown number'}"
                for row in cut
            )
            parts.append(
                f"{len(cut)} of {len(cells)} cells stopped short of the target ({target}) when the "
                f"campaign's budget could not hold another repetition: {needs}; a larger budget "
                "would decide them"
            )
        if failing:
            parts.append(
                f"{len(failing)} stopped with more failed repetitions than the spec allows "
                f"({', '.join(row['cell_key'] for row in failing)}): fixing the failures, not more "
                "repetitions, would decide them"
            )
        out.append(f"On {environment}, " + "; ".join(parts) + ".")
    return out


def resolution_sentences(rows: list[dict[str, Any]]) -> list[str]:
    """The cells below their target's resolution (`pipeline.noise_floor`): named, with what
    would measure them."""
    out = []
    below = [row for row in rows if row.get("below_resolution")]
    for environment in dict.fromkeys(row["environment"] for row in below):
        cells = [row for row in below if row["environment"] == environment]
        named = "; ".join(
            f"{row['workload']} at {row['data_size_gb']:g} GB ({row['mean_s']:.2f} s < {row['resolution_s']:.3g} s)"
            for row in cells
        )
        out.append(
            f"On {environment}, {count(len(cells))} cell(s) ran below the target's resolution (an empty "
            f"job's σ at preflight × 100 / the σ% threshold): {named}. Their σ% is shown, not judged: "
            "a larger size, or a quieter target, would measure them."
        )
    return out


def answer_blocks(tables: Tables, study: str) -> list[Block]:
    """The answer block: what was decided first (the measured claims, the study's headline
    comparisons), then what was not measured and the adaptive target's sentences, then the
    methods behind their numbers. `make run`'s summary line quotes the first sentence."""
    cap = cap_of(study)
    claims = {claim.id: claim for claim in load_claims(study)}
    scored = tables.get("scorecard", [])
    sentences, unmeasured = [], []
    for environment in dict.fromkeys(row["environment"] for row in scored):
        rows = [row for row in scored if row["environment"] == environment]
        sentences += [claim_sentence(row, cap) for row in rows if row["verdict"] != "not measured"]
        missing = [row for row in rows if row["verdict"] == "not measured"]
        if missing:
            unmeasured.append(unmeasured_sentence(environment, missing, claims))
    notes = []
    if claims and not scored:
        sentences.append(NO_SCORECARD)
    if scored:
        method = next((row["power_method"] for row in scored if row.get("power_method")), None)
        notes.append(
            "Claims: the scorecard's test (ratio of means, 95 % CI by the delta method on the log "
            "scale, Welch–Satterthwaite t; Benjamini–Hochberg over a claim's comparisons)"
            + (f"; {method}" if method else "")
            + f" ({CLAIMS_DOC})."
        )
    for section in study_plugin(study).answers:
        answer = section(tables)
        sentences += answer.sentences
        notes += answer.notes
    sentences += unmeasured
    sentences += target_sentences(tables.get("repetition_adequacy", []))
    sentences += resolution_sentences(tables.get("scaling", []))
    if not sentences:
        sentences.append(NOTHING)
    return [Block(TITLE, items=tuple(sentences), notes=tuple(notes), kind=KIND, items_first=True)]
