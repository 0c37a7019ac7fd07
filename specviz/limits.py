"""Every threshold and limit of SpecViz, in one place: the core validates against these, the
pages offer controls within them, and learner text quotes them (never a copy of the number)."""

from __future__ import annotations

from specviz.text import Titles, titles

#: "Zero up to rounding": probabilities this close are the same number written twice (a balanced
#: token, nothing to the bucket, a distance of 0). Rounding leaves ~1e-16; no lesson needs less.
ROUNDING = 1e-12

#: How far from 1 a probability vector may sum before it is refused (``normalize`` first).
SUM_TOLERANCE = 1e-6

#: Largest ``n`` for the per-draw sampler (~40 bytes a draw), the count-level samplers (exact in
#: int64) and a rule's literal (per-draw) sampler.
MAX_PER_DRAW = 50_000_000
MAX_COUNT_DRAWS = 10**15
MAX_RULE_DRAWS = 10_000_000
#: Largest draft length the theory functions accept.
MAX_GAMMA = 10_000
#: Largest vocabulary the core accepts (the lessons use 3 to 80 words; the bug zoo takes 0.5 s).
MAX_VOCAB = 20_000
#: Most entries of any array the core takes (512 MB of floats).
MAX_ENTRIES = 64_000_000
#: Longest story of the one-draw player.
MAX_STORY = 2_000
#: Most powers ``alpha**k`` one call of the theory functions sums (alphas x (gamma + 1)).
MAX_POWERS = 4_000_000
#: Most sample sizes one call of the noise band takes (the pages ask for ~60).
MAX_BAND_SIZES = 1_000
#: Most (sample size, word) pairs one noise band computes: 60 sizes at the largest vocabulary.
MAX_BAND_WORK = 60 * MAX_VOCAB
#: Most checkpoints a TV path is observed at.
MAX_CHECKPOINTS = 100_000
#: Largest seed (a share link and a number box need a bound).
MAX_SEED = 2**32 - 1

#: The Monte Carlo page simulates every run up to this ``N``; above, counts come from their law.
PER_DRAW_MAX = 10**6
#: The sample sizes the Monte Carlo page offers: 1, 10, ..., 10**9.
N_CHOICES: tuple[int, ...] = tuple(10**k for k in range(10))
#: Seeds (seed, seed + 1, ...) whose TV paths a convergence chart shows, and points per path.
PATHS = 5
CHECKPOINTS = 60
#: Largest ``N`` of the bug zoo's TV paths.
ZOO_N_MAX = 10**8
#: Share of an exact sampler's runs the noise band holds (central: 2.5 % below, 2.5 % above).
BAND_LEVEL = 0.95

#: Words in the Playground's vocabulary, a weight slider's top, the longest word (characters),
#: and the longest share-link value read.
MIN_TOKENS = 3
MAX_TOKENS = 10
MAX_WEIGHT = 100
MAX_LABEL = 12
MAX_PARAM_CHARS = 1000

#: Most (context, word) entries of a decoding pair's tables (20 MB at most).
MAX_DECODE_ENTRIES = 500_000
#: Most contexts the target reaches for an exact prediction (it squares a dense matrix that size).
MAX_DECODE_CONTEXTS = 150
#: Most drafts per target call the engine runs (real systems use 3 to 8).
MAX_DECODE_GAMMA = 64
#: Most words one decoding run emits.
MAX_DECODE_TOKENS = 100_000
#: Most model steps one run takes, ``n_tokens x (gamma + 1)``: under a second of Python.
MAX_DECODE_WORK = 500_000
#: Most model steps a batch of runs takes, ``runs x n_tokens x (gamma + 1)``: under a second.
MAX_BATCH_WORK = 5_000_000
#: Most multiply-adds of an exact expected number of calls, ``n_tokens x (gamma + 1) x contexts²``.
MAX_CALLS_WORK = 200_000_000
#: Most ``(values of gamma) x contexts³`` one prediction curve takes (about a second).
MAX_CURVE_WORK = 50_000_000

#: The pairs of models the page offers, by their key in links, and their names in menus.
PAIR_TITLES: Titles = titles(
    "limits.pair", ("ngram", "strong", "weak", "hotter", "perfect", "textbook")
)
PAIR_KEYS: tuple[str, ...] = tuple(PAIR_TITLES)
#: The chart's largest gamma; texts and words per text of the check against the prediction; how
#: many of a long text's commonest words the page shows.
CURVE_GAMMA = 12
CHECK_RUNS = 100
CHECK_WORDS = 50
COMMON_WORDS = 12
#: The page's settings: draft step cost c (in target steps), temperature, words to write.
DECODE_COSTS: tuple[float, ...] = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
DECODE_TEMPERATURES: tuple[float, ...] = (0.0, 0.5, 0.7, 1.0, 1.5, 2.0)
DECODE_LENGTHS: tuple[int, ...] = (30, 60, 120, 240)

#: Most draft candidates the multi-candidate rule (SpecInfer) tries per word.
MAX_CANDIDATES = 8
CANDIDATE_CHOICES: tuple[int, ...] = tuple(range(1, MAX_CANDIDATES + 1))
#: Typical acceptance's ε and δ as the Variants lab offers them.
TYPICAL_EPS_CHOICES: tuple[float, ...] = tuple(round(i / 100, 2) for i in range(51))
TYPICAL_DELTA_CHOICES: tuple[float, ...] = tuple(round(i / 20, 2) for i in range(21))
#: Runs of each rule's own procedure behind the Variants lab's Monte Carlo check.
LAB_RUNS = 100_000
#: Most proposals a literal retry loop makes in one call: about n·M (classic), n / alpha (redraw).
MAX_CLASSIC_PROPOSALS = 100_000_000
#: Proposals the page "Is it just rejection sampling?" lets the classic loop make (about 1.5 s).
REJECTION_PROPOSAL_BUDGET = 10_000_000
#: Words the page "Is it just rejection sampling?" emits with both samplers.
REJECTION_RUN_CHOICES: tuple[int, ...] = (100, 1_000, 10_000, 100_000)
#: Runs of the float32 exhibit on the page "Why it's exact": a million to a trillion.
LEAK_RUN_CHOICES: tuple[int, ...] = tuple(10**k for k in range(6, 13))

#: Every verification rule (``rules.RULES``) by key, in display order, and title: written here
#: so that specviz/links.py reads them without importing a lesson module.
RULE_TITLES: Titles = titles(
    "limits.rule",
    (
        "correct",
        "greedy",
        "token_matching",
        "multi_candidate",
        "resample_from_p",
        "inverted_ratio",
        "redraw_from_q",
        "reuse_uniform",
        "topk_mismatch",
        "float32_leq",
        "typical_acceptance",
    ),
)
#: The rules that are mistakes (the bug zoo's exhibits); the others are the Variants lab's.
MISTAKE_KEYS: tuple[str, ...] = (
    "resample_from_p",
    "inverted_ratio",
    "redraw_from_q",
    "reuse_uniform",
    "topk_mismatch",
    "float32_leq",
)
#: Defaults: draft candidates of the multi-candidate rule, typical acceptance's ε and δ (Medusa's).
DEFAULT_CANDIDATES = 2
DEFAULT_TYPICAL_EPS = 0.09
DEFAULT_TYPICAL_DELTA = 0.3
#: The states the page "Why it's exact" shows the proof on (``exactness.CASES``), and titles.
CASE_TITLES: Titles = titles(
    "limits.case", ("filter", "misses", "identical", "disjoint", "one_hot")
)

#: Ask the room: room codes a session may try, answers it may send (a lesson's rounds many times
#: over), and codes opening no room an address may try per window (new tabs are new sessions):
#: 4,800 guesses a day, 1 chance in 600 of one of 300 live rooms among 887 million codes. Only
#: wrong codes count, so a class behind one school address (NAT) is never refused for joining.
JOIN_TRIES = 10
ANSWERS_PER_SESSION = 200
JOIN_MISSES_PER_ADDRESS = 200
JOIN_WINDOW_S = 3600
#: Rooms and their answers are deleted this long after the room was started.
ROOM_LIFETIME_S = 24 * 3600

#: Results the pages keep per process, shared by every session (a few kB each: ~100 MB at most).
PAGE_KEPT_RESULTS = 2048
#: The server's garbage collector thresholds (Python's default: 700, 10, 10); see ui/page.py.
GC_THRESHOLDS: tuple[int, int, int] = (10_000, 10, 10)

#: The most rows a chart's table of numbers shows (a bar per word and model, a rule per row):
#: longer data (a line's points) is said by the chart's description instead.
TABLE_ROWS = 60
