"""SpecViz landing page: what speculative sampling is, one live example, where to go next."""

import streamlit as st

from specviz import acceptance_rate, expected_tokens_per_step
from specviz.figures.landing import pair_chart
from specviz.figures.style import ChartStyle, percent
from specviz.one_token import mixture
from specviz.palette import Notation
from specviz.scenario import DEFAULT_WORDS, PROMPT
from specviz.ui import page, state

page.setup("Home", ":material/bolt:")
page.show_notices()
note = state.notation()

st.title("SpecViz: speculative sampling, seen")
st.markdown(
    note.fill(
        "A large language model writes one word at a time, and each word costs a slow pass of the "
        "big **target** model {T}. **Speculative sampling** lets a small, fast **draft** model {D} "
        "guess the next word, and the target only checks the guess: it keeps it with probability "
        "min(1, {T}(x)/{D}(x)), and on a rejection draws a replacement from the *leftover bucket* "
        "— the words the draft under-proposes. The words that come out follow {T} **exactly**, "
        "so the text is as good as the big model's, only 2–3× faster."
    )
)

st.subheader("Try it: how good is the draft?")
labels = DEFAULT_WORDS[:4]
target = [0.4, 0.3, 0.2, 0.1]
off_target = target[::-1]
left, right = st.columns([2, 3], gap="large")
with left:
    st.markdown(f"Next word after *“{PROMPT}”*")
    quality = st.slider(
        "Draft quality",
        min_value=0,
        max_value=100,
        value=30,
        step=5,
        format="%d%%",
        help=note.fill("0%: the draft has {T}'s preferences backwards. 100%: draft = target."),
    )
    draft = mixture(target, off_target, quality / 100)
    alpha = acceptance_rate(target, draft)
    st.metric(
        "Acceptance rate α",
        percent(alpha),
        help=note.fill("α = Σ min({T}, {D}): the chance a guess is kept."),
    )
    st.metric(
        "Words per call (γ = 4)",
        f"{expected_tokens_per_step(alpha, 4):.2f}",
        help="(1 − α⁵)/(1 − α): with γ = 4 guesses per target call, between 1 and 5 words "
        "come out of each expensive call.",
    )
    st.caption(
        "Whatever the draft, the words that come out follow the target exactly; a better draft "
        "only means fewer rejections, so more words per expensive call."
    )


@st.cache_resource(max_entries=64, show_spinner=False)
def _chart(quality: int, projector: bool, swapped: bool) -> dict:
    """The example chart's Vega-Lite spec at one slider position, shared by every session.

    Built with Altair once; converting an Altair chart costs ~30 ms, so reruns reuse the spec.
    """
    style = ChartStyle(projector=projector, notation=Notation(swapped=swapped))
    draft = mixture(target, off_target, quality / 100)
    return pair_chart(labels, target, draft, style).to_dict()


with right:
    st.vega_lite_chart(_chart(quality, state.current().projector, note.swapped), width="stretch")
    st.caption(
        note.fill(
            f"Bar chart of target {{T}} and draft {{D}} over {', '.join(labels)}. "
            f"Target {{T}}: {', '.join(percent(v) for v in target)}; "
            f"draft {{D}}: {', '.join(percent(v) for v in draft)}. "
            f"They overlap on {percent(alpha)} of their mass: that is the acceptance rate."
        )
    )

st.subheader("Where to go next")
for script, label, icon, blurb in (
    (
        "pages/1_Playground.py",
        "Playground",
        ":material/tune:",
        "Set the target and the draft yourself and watch the acceptance, the leftover bucket and "
        "the picture proof follow.",
    ),
    (
        "pages/2_One_draw.py",
        "One draw at a time",
        ":material/casino:",
        "Step through the procedure: propose, test, accept or refill from the bucket.",
    ),
    (
        "pages/3_Monte_Carlo.py",
        "Monte Carlo",
        ":material/scatter_plot:",
        "Millions of draws converge to the target at the 1/√N rate, with a chi-square check.",
    ),
    (
        "pages/4_Bug_zoo.py",
        "Bug zoo",
        ":material/bug_report:",
        "Real mistakes from public implementations, run against the correct rule: watch the "
        "bias grow out of the noise.",
    ),
):
    if (page.ROOT / script).exists():
        # The link holds only the page's name: a long label is cut to one line with an ellipsis.
        st.page_link(script, label=f"**{label}**", icon=icon)
        st.caption(blurb)

state.sync_url()
