"""No result depends on a system's name or on the order the systems come in.

Seeded random collections full of exact ties (a run copied under another name, a run whose values are
another's over other topics, values on a coarse grid) are evaluated twice: once as given, once with every
system renamed (names drawn so that their order by name changes) and the runs and rows in another order.
Every field of ``judges`` (:meth:`metrics.judgments.JudgesComparison.as_dict`), of ``compare``
(:func:`metrics.stats.significance.compare_systems`), of ``agreement`` (:mod:`metrics.stats.agreement`) and
the leaderboard's significance groups (:func:`metrics.stats.significance.grouped_leaderboard`, as
:func:`dashboard.data.leaderboard.letter_groups` shows them) must then be the same, once the names are mapped
back: a row of a pair comes with its two systems in either order, and those fields whose meaning turns with
the order (a difference b - a, wins and losses) are turned back by the rule this file states.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metrics.conventions import Conventions
from metrics.judgments import compare_judges, judgment_sets
from metrics.stats.agreement import agreement_matrix, ordering_agreement, swapped_pairs
from metrics.stats.significance import compare_systems, grouped_leaderboard

TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap")
CASES = [(seed, TESTS[seed % len(TESTS)]) for seed in range(20)] + [(20, "tukey")]  # scipy's Tukey takes seconds


def _negated(row: dict) -> float:
    return -row["statistic"]


def _kept(row: dict) -> float:
    return row["statistic"]


def _other_side(row: dict) -> float:  # the sign test counts the wins of b: they become a's
    return row["wins"] + row["losses"] - row["statistic"]


FLIPPED_STATISTIC = {"t": _negated, "permutation": _negated, "bootstrap": _negated, "wilcoxon": _kept,
                     "sign": _other_side, "tukey": _kept}
"""What each test's statistic becomes when its two systems change places."""


def renaming(names, rng) -> dict[str, str]:
    """A new name for each system, drawn so that the order by name is shuffled."""
    letters = list("abcdefghijklmnopqrstuvwxyz")
    rng.shuffle(letters)
    return {name: f"{letters[i]}{name[::-1]}" for i, name in enumerate(names)}


def tied_values(seed: int) -> pd.DataFrame:
    """Per-query values of several systems with exact ties: on a grid of quarters, a copy of a system under
    another name (equal everywhere), and a system with another's values on other topics (equal mean only)."""
    rng = np.random.default_rng(seed)
    topics = [f"q{t}" for t in range(int(rng.integers(8, 16)))]
    values = {f"s{i}": rng.integers(0, 5, size=len(topics)) / 4 for i in range(int(rng.integers(3, 6)))}
    values["copy"] = values["s0"].copy()
    values["shuffled"] = rng.permutation(values["s1"])
    rows = []
    for measure, scale in (("AP", 1.0), ("P@10", 0.5)):
        for system, v in values.items():
            shifted = v if measure == "AP" else np.round(np.sqrt(v) * scale * 4) / 4
            rows += [{"system": system, "query": q, "measure": measure, "value": float(x)}
                     for q, x in zip(topics, shifted)]
    return pd.DataFrame(rows)


def renamed_frame(frame: pd.DataFrame, rng) -> tuple[pd.DataFrame, dict[str, str]]:
    """The frame with every system renamed, the systems in another order, the rows shuffled."""
    names = list(pd.unique(frame["system"]))
    new = renaming(names, rng)
    order = {s: i for i, s in enumerate(rng.permutation(names))}
    out = frame.assign(system=frame["system"].map(new))
    out = out.iloc[np.lexsort((rng.random(len(out)), frame["system"].map(order).to_numpy()))].reset_index(drop=True)
    return out, {v: k for k, v in new.items()}


def same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return (a is None and b is None) or (a is not None and b is not None and (
            (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)))
    return a == b


def assert_same_records(first: dict, second: dict, where: str) -> None:
    assert first.keys() == second.keys(), where
    for key in first:
        assert first[key].keys() == second[key].keys(), (where, key)
        for field in first[key]:
            assert same(first[key][field], second[key][field]), (where, key, field, first[key][field],
                                                                 second[key][field])


def pair_records(frame: pd.DataFrame, back: dict[str, str] | None = None) -> dict:
    """Each tested pair keyed by (measure, the two names in order), its fields as for that order."""
    out = {}
    for row in frame.to_dict("records"):
        if back:
            row["system_a"], row["system_b"] = back[row["system_a"]], back[row["system_b"]]
        if row["system_a"] > row["system_b"]:
            row["statistic"] = FLIPPED_STATISTIC[row["test"]](row)
            row["system_a"], row["system_b"] = row["system_b"], row["system_a"]
            row["mean_a"], row["mean_b"] = row["mean_b"], row["mean_a"]
            row["mean_diff"], row["effect_size"], row["rank_biserial"] = (
                -row["mean_diff"], -row["effect_size"], -row["rank_biserial"])
            row["ci_low"], row["ci_high"] = -row["ci_high"], -row["ci_low"]
            row["wins"], row["losses"] = row["losses"], row["wins"]
        out[(row["measure"], row["system_a"], row["system_b"])] = row
    return out


@pytest.mark.parametrize(("seed", "test"), CASES)
def test_compare_agreement_and_groups_ignore_names_and_order(seed, test):
    rng = np.random.default_rng(1000 + seed)
    frame = tied_values(seed)
    moved, back = renamed_frame(frame, rng)
    settings = dict(test=test, correction="holm" if test != "tukey" else "none", alpha=0.2, n_resamples=2000,
                    wilcoxon_method="asymptotic")  # scipy's exact distribution under ties takes seconds a pair
    first, second = compare_systems(frame, **settings), compare_systems(moved, **settings)
    assert_same_records(pair_records(first.frame), pair_records(second.frame, back), f"compare {test}")
    for measure in ("AP", "P@10"):  # the leaderboard's groups: each system's mean and letters
        one = grouped_leaderboard(first, measure).set_index("system")
        two = grouped_leaderboard(second, measure).assign(system=lambda f: f["system"].map(back)).set_index("system")
        assert_same_records(one.to_dict("index"), two.to_dict("index"), f"groups {measure}")
    # agreement of the two measures' orders, as a matrix and as one pair with its swaps
    for statistic in ("tau", "tau_ap"):
        np.testing.assert_array_equal(agreement_matrix(frame, statistic=statistic).to_numpy(),
                                      agreement_matrix(moved, statistic=statistic).to_numpy())
    means = [frame[frame["measure"] == m].groupby("system")["value"].mean() for m in ("AP", "P@10")]
    moved_means = [moved[moved["measure"] == m].groupby("system")["value"].mean() for m in ("AP", "P@10")]
    one, two = ordering_agreement(*means).iloc[0].to_dict(), ordering_agreement(*moved_means).iloc[0].to_dict()
    assert all(same(one[k], two[k]) for k in one)
    swaps = {frozenset((r.system_a, r.system_b)) for r in swapped_pairs(*means).itertuples()}
    assert swaps == {frozenset((back[r.system_a], back[r.system_b])) for r in swapped_pairs(*moved_means).itertuples()}


def judged_collection(seed: int) -> tuple[dict[str, str], dict[str, str]]:
    """Three judgment sets and runs with exact ties: a copy of a run (tied under every set), runs whose
    scores are a coarse grid, a run that leaves a topic out (scored 0, -c)."""
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in range(1, int(rng.integers(5, 9)))]
    docs = [f"d{d}" for d in range(14)]
    truth = {(t, d): int(rng.integers(0, 3)) for t in topics for d in docs}
    sets = {}
    for s, name in enumerate(("nist", "crowd", "llm")):
        lines = [f"{t} 0 {d} {g if rng.random() < 0.7 else int(rng.integers(0, 3))}\n" for (t, d), g in truth.items()
                 if not (s == 1 and t == topics[-1]) and rng.random() < 0.85]
        sets[name] = "".join(lines)
    runs = {}
    for i in range(int(rng.integers(3, 6))):
        runs[f"r{i}"] = "".join(f"{t} Q0 {d} 0 {int(rng.integers(0, 4))} r{i}\n" for t in topics
                                for d in rng.choice(docs, size=8, replace=False))
    runs["copy"] = runs["r0"].replace(" r0\n", " copy\n")
    runs["short"] = "".join(line for line in runs["r1"].replace(" r1\n", " short\n").splitlines(keepends=True)
                            if not line.startswith(f"{topics[0]} "))
    return sets, runs


def canonical(doc: dict, back: dict[str, str] | None = None) -> dict:
    """The JSON of a comparison with the names mapped back and each list of rows keyed by its systems."""
    def name(s):
        return back.get(s, s) if back else s

    def conclusion(c):
        better, worse = name(c["better"]), name(c["worse"])
        if c.get("reference") == "tied":  # no order: the two in either order
            better, worse = sorted((better, worse))
        return (better, worse), {**c, "better": better, "worse": worse}

    out = {k: doc[k] for k in ("sets", "settings", "labels", "alpha", "disagreement")}
    out["systems"] = {m: {p: {**e, "conclusions": dict(map(conclusion, e["conclusions"]))} for p, e in pairs.items()}
                      for m, pairs in doc["systems"].items()}
    out["orders"] = {m: {s: {name(r["system"]): r for r in rows} for s, rows in by_set.items()}
                     for m, by_set in doc["orders"].items()}
    for m in out["orders"]:
        for s in out["orders"][m]:
            out["orders"][m][s] = {k: {**r, "system": k} for k, r in out["orders"][m][s].items()}
    out["conclusions"] = {m: dict(map(conclusion, rows)) for m, rows in doc["conclusions"].items()}
    for key in ("rank_changes", "unanswered", "judged"):
        out[key] = {(r.get("measure"), r.get("judges"), name(r["system"])): {**r, "system": name(r["system"])}
                    for r in doc.get(key, ())}
    out["ppi"] = {a: {(r["measure"], name(r["system"])): {**r, "system": name(r["system"])} for r in rows}
                  for a, rows in doc["ppi"].items()}
    return out


def assert_same_tree(one, two, where: str = "") -> None:
    if isinstance(one, dict):
        assert isinstance(two, dict) and one.keys() == two.keys(), (where, sorted(map(str, one)), sorted(map(str, two)))
        for k in one:
            assert_same_tree(one[k], two[k], f"{where}/{k}")
    elif isinstance(one, (list, tuple)):
        assert len(one) == len(two), where
        for i, (a, b) in enumerate(zip(one, two)):
            assert_same_tree(a, b, f"{where}[{i}]")
    else:
        assert same(one, two), (where, one, two)


@pytest.mark.parametrize("seed", range(12))
def test_judges_ignores_names_and_order(seed):
    rng = np.random.default_rng(2000 + seed)
    sets, runs = judged_collection(seed)
    new = renaming(list(runs), rng)
    moved = {new[s]: text.replace(f" {s}\n", f" {new[s]}\n") for s, text in runs.items()}
    moved = dict(sorted(moved.items(), key=lambda _: rng.random()))
    judges = judgment_sets(sets)
    settings = {"test": TESTS[seed % len(TESTS)], "alpha": 0.3, "n_resamples": 2000, "wilcoxon_method": "asymptotic"}
    options = dict(conventions=Conventions(complete=True), top_k=int(rng.integers(1, 4)), settings=settings)
    first = compare_judges(judges, runs, ["P@5", "AP"], **options).as_dict()
    second = compare_judges(judges, moved, ["P@5", "AP"], **options).as_dict()
    assert_same_tree(canonical(first), canonical(second, {v: k for k, v in new.items()}))
    assert any(r["system"] == "short" for r in first["unanswered"])


def test_the_letters_of_tied_means_ignore_names_and_order():
    """Two systems of equal mean that differ from different systems: each keeps its letters, however the
    four are named and ordered (ties by mean alone would leave their order to the input)."""
    import itertools

    from metrics.stats.significance._letters import letter_display

    means = {"A": 0.5, "B": 0.5, "C": 0.3, "D": 0.2}
    differs = {frozenset("AD"), frozenset("BC")}
    shown = set()
    for order in itertools.permutations(means):
        for names in ({s: s for s in means}, {"A": "z", "B": "y", "C": "x", "D": "w"}):
            table = np.array([[frozenset((a, b)) in differs for b in order] for a in order])
            display = letter_display([names[s] for s in order], [means[s] for s in order], table)
            back = {v: k for k, v in names.items()}
            shown.add(tuple(sorted((back[s], g) for s, g in zip(display["system"], display["group"]))))
    assert len(shown) == 1
    letters = dict(next(iter(shown)))
    for a, b in itertools.combinations(means, 2):  # a letter in common exactly where they do not differ
        assert bool(set(letters[a]) & set(letters[b])) == (frozenset((a, b)) not in differs)
