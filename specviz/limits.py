"""Every threshold and limit of SpecViz, in one place.

The core validates against these, the pages offer controls within them, and learner text quotes
them (never a copy of the number), so a limit changes in one line.
"""

from __future__ import annotations

# --------------------------------------------------------------------------------- rounding

#: "Zero up to rounding". Two probabilities that differ by at most this are the same number
#: written twice (30/100 and 3/10 summed in another order, say): the token is balanced, adds
#: nothing to the leftover bucket, and a total distance below it is reported as 0. Rounding
#: leaves differences of ~1e-16 per token, far below; no lesson needs a real difference this small.
ROUNDING = 1e-12

#: How far from 1 a probability vector may sum before it is refused (``normalize`` first).
SUM_TOLERANCE = 1e-6

# -------------------------------------------------------------------------------- sizes

#: Largest ``n`` for the per-draw sampler: it holds ~40 bytes per draw in memory.
MAX_PER_DRAW = 50_000_000
#: Largest ``n`` for the count-level samplers: far beyond any demo, still exact in int64.
MAX_COUNT_DRAWS = 10**15
#: Largest ``n`` a rule's literal (per-draw) sampler runs.
MAX_RULE_DRAWS = 10_000_000
#: Largest draft length the theory functions accept.
MAX_GAMMA = 10_000
#: Largest vocabulary the core accepts (a Zipf law over 50,000 words is a fair test; more is
#: memory, not a lesson).
MAX_VOCAB = 1_000_000
#: Longest story of the one-draw player: learners click through tens; hundreds fill the tally.
MAX_STORY = 2_000
#: Most proposals the literal "redraw until accepted" sampler may need (about n / alpha).
MAX_REDRAW_PROPOSALS = 100_000_000
#: Most powers ``alpha**k`` one call of the theory functions sums (alphas x (gamma + 1)).
MAX_POWERS = 4 * MAX_VOCAB
#: Most sample sizes one call of the noise band takes (the pages ask for ~60).
MAX_BAND_SIZES = 100_000
#: Most checkpoints a TV path is observed at.
MAX_CHECKPOINTS = 100_000
#: Largest seed: numpy accepts more, a share link and a number box need a bound.
MAX_SEED = 2**32 - 1

# ----------------------------------------------------------------------------- Monte Carlo

#: The Monte Carlo page simulates every run up to this ``N``; above, counts come from their law.
PER_DRAW_MAX = 10**6
#: The sample sizes the Monte Carlo page offers: 1, 10, ..., 10**9.
N_CHOICES: tuple[int, ...] = tuple(10**k for k in range(10))
#: Seeds (seed, seed + 1, ...) whose TV paths a convergence chart shows.
PATHS = 5
#: Points per TV path (before rounding removes duplicate sample sizes).
CHECKPOINTS = 60
#: Largest ``N`` of the bug zoo's TV paths.
ZOO_N_MAX = 10**8
#: Share of an exact sampler's runs the noise band holds (central: 2.5 % below, 2.5 % above).
BAND_LEVEL = 0.95

# ------------------------------------------------------------------------------ the lesson

#: Words in the Playground's vocabulary.
MIN_TOKENS = 3
MAX_TOKENS = 10
#: A weight slider runs from 0 to this.
MAX_WEIGHT = 100
#: Longest vocabulary word, in characters.
MAX_LABEL = 12
#: Longest share-link value read (longer ones are refused before parsing).
MAX_PARAM_CHARS = 300

# ---------------------------------------------------------------- many words per target call

#: Largest vocabulary of a chain given as a (V, V) matrix: 8 MB of floats at 1,000 words.
MAX_CHAIN_WORDS = 1_000
#: Most contexts the decoding engine tracks for a target and a draft (the contexts the two
#: models tell apart, reachable from the start); the corpus models reach ~2,000.
MAX_CONTEXTS = 50_000
#: Most (context, word) pairs either model can say: the engine stores a few floats for each.
MAX_EDGES = 2_000_000
#: Entries (contexts × words) of the one-token steps a compile computes in one numpy pass.
STEP_BLOCK = 1_000_000
#: Longest prompt (in words) a decoding run may start from.
MAX_PROMPT = 64
#: Most drafts per target call the engine runs (real systems use 3 to 8).
MAX_DECODE_GAMMA = 64
#: Most words one decoding run emits.
MAX_DECODE_TOKENS = 100_000
#: Most model steps one run takes, ``n_tokens x (gamma + 1)``: a few seconds of Python at most.
MAX_DECODE_WORK = 1_000_000
#: Most model steps a batch of runs takes, ``runs x n_tokens x (gamma + 1)`` (numpy, ~10 s).
MAX_BATCH_WORK = 50_000_000
#: Up to this many contexts a long-run law is computed exactly (a dense matrix squared 64
#: times, whatever the mixing); above, it is iterated until it settles.
DENSE_CONTEXTS = 100
#: A long-run law has settled when one more step moves less than this (L1) ...
SETTLE_TOLERANCE = 1e-13
#: ... or after this many steps (reported as not settled) ...
MAX_SETTLE_STEPS = 20_000
#: ... or when the steps would push mass along more than this many (context, word) pairs in all
#: (about ten seconds of numpy).
MAX_SETTLE_WORK = 2_000_000_000

# -------------------------------------------------------- the page "Many words per call"

#: The page's chart against gamma runs from 0 (plain decoding) to this.
CURVE_GAMMA = 12
#: Texts, and words per text, behind the page's check of predicted against measured.
CHECK_RUNS = 200
CHECK_WORDS = 200
#: Length of the text whose words are sorted into easy (kept guesses) and hard ones.
SHARES_WORDS = 5_000
#: How many of its commonest words the page shows.
COMMON_WORDS = 12
#: The page's settings: draft step cost c (in target steps), temperature, words to write.
DECODE_COSTS: tuple[float, ...] = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
DECODE_TEMPERATURES: tuple[float, ...] = (0.0, 0.5, 0.7, 1.0, 1.5, 2.0)
DECODE_LENGTHS: tuple[int, ...] = (30, 60, 120, 240)

# ------------------------------------------------ why it is exact, rejection sampling, variants

#: Most draft candidates the multi-candidate rule (SpecInfer) tries per word, and the choices the
#: Variants lab offers (1 is the standard rule).
MAX_CANDIDATES = 8
CANDIDATE_CHOICES: tuple[int, ...] = tuple(range(1, MAX_CANDIDATES + 1))
#: Typical acceptance's ε and δ as the Variants lab offers them (Medusa's defaults .09 and .3 are
#: among them): ε from 0 to .5 and δ from 0 to 1, in steps of .01 and .05.
TYPICAL_EPS_CHOICES: tuple[float, ...] = tuple(round(i / 100, 2) for i in range(51))
TYPICAL_DELTA_CHOICES: tuple[float, ...] = tuple(round(i / 20, 2) for i in range(21))
#: Runs of each rule's own procedure behind the Variants lab's Monte Carlo check.
LAB_RUNS = 100_000
#: Most proposals the literal classic rejection sampler may make in one call (about n·M).
MAX_CLASSIC_PROPOSALS = 100_000_000
#: Proposals the page "Is it just rejection sampling?" lets the classic loop make (about 1.5 s):
#: with a huge M it runs fewer words than asked and says so.
REJECTION_PROPOSAL_BUDGET = 10_000_000
#: Words the page "Is it just rejection sampling?" emits with both samplers.
REJECTION_RUN_CHOICES: tuple[int, ...] = (100, 1_000, 10_000, 100_000)
#: Runs of the float32 exhibit on the page "Why it's exact": a million to a trillion.
LEAK_RUN_CHOICES: tuple[int, ...] = tuple(10**k for k in range(6, 13))

# --------------------------------------------------------------- what a server process keeps

#: Results and figures the pages keep per process, shared by every session (least recently used
#: dropped first). The decoding page alone asks for ~8 per setting and offers hundreds of
#: settings; a figure is tens of kB, so 2,048 of them stay within ~100 MB.
PAGE_KEPT_RESULTS = 2048
#: Seconds with no page run in progress, and none started or ended, after which a server counts
#: as idle and background work (the decoding page's warm-up) goes on. A class of 100 starts a run
#: every ~30 ms.
IDLE_AFTER = 0.3
#: A run that has not ended after this many seconds no longer counts as in progress (it failed
#: before the end of its page).
IDLE_STALE = 10.0
#: How often waiting background work looks again whether the server is idle, in seconds.
IDLE_POLL = 0.05
#: The server's garbage collector: allocations before a young collection, then young
#: collections per middle one, middle ones per full one (Python's default: 700, 10, 10). See
#: specviz/ui/page.py.
GC_THRESHOLDS: tuple[int, int, int] = (10_000, 10, 10)

# ----------------------------------------- the page "Many words per call": what a process keeps

#: Results of one kind (compiled pairs, predictions, measurements, word shares) the decoding page
#: keeps per process, shared by every session: room for every setting the page offers (6 pairs ×
#: 6 temperatures × 13 values of γ = 468 predictions, the most of any kind; 36 compiled pairs
#: take ~40 MB), so that a class never computes one twice.
DECODE_KEPT_RESULTS = 1024
#: Texts (one per pair, temperature, γ, length and seed, a few kB each) kept per process: every
#: setting of one seed (6 × 6 × 8 × 4 = 1,152) and then some.
DECODE_KEPT_RUNS = 4096
