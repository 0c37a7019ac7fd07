// The Playground's live view: drag the bars of the target and the draft, and every chart, number
// and sentence of the view follows in the browser, frame by frame, with no server round trip.
//
// Python stays the truth: the first part of this file is a line-by-line port of
// specviz.one_token.step_rows, specviz.theory.expected_tokens_per_step and the caption functions
// of specviz.figures.captions, and tests/test_live_math.py holds the two equal under Node
// (to rounding on the numbers, equal strings on the words; numbers.js writes every number). The
// share link follows in the browser; the server hears of the weights only when it needs them (a "weights" trigger): before
// the learner touches anything outside the view (another control, a page link), when the tab is
// left, or once the bars have rested for SYNC_REST_MS. A run per gesture was all a class of 100
// could afford on Community Cloud's 0.078 of a core; dragging now costs the server nothing.

// ------------------------------------------------------------------------------ the math

const SYNC_REST_MS = 5000;

// specviz.limits.ROUNDING, which Python sends with the data: |p(x) - q(x)| up to it is one
// probability written twice.

/** Weights as probabilities (one division each, as numpy does), or null if they sum to 0. */
export function normalize(weights) {
  let total = 0;
  for (const w of weights) total += w;
  return total > 0 ? weights.map((w) => w / total) : null;
}

/** The one-token step of target p and draft q (probability vectors): specviz.one_token.step_rows. */
export function stepOf(p, q, rounding) {
  const n = p.length;
  const accept = [], kept = [], bounced = [], refill = [], residual = [], balance = [];
  let refilled = 0, bouncedTotal = 0, anyKept = false;
  for (let i = 0; i < n; i++) {
    const diff = p[i] - q[i];
    // p(x) = 0 is never rounding: it is a filter, and a proposal of x must always be rejected.
    const same = Math.abs(diff) <= rounding && (p[i] > 0 || q[i] === 0);
    refill.push(same ? 0 : Math.max(diff, 0));
    bounced.push(same ? 0 : Math.max(-diff, 0));
    kept.push(same ? q[i] : Math.min(p[i], q[i]));
    accept.push(q[i] > 0 ? (same ? 1 : Math.min(1, p[i] / q[i])) : 1);
    balance.push(same ? 0 : diff < 0 ? 1 : -1);
    refilled += refill[i];
    bouncedTotal += bounced[i];
    anyKept = anyKept || kept[i] > 0;
  }
  let z = Math.min(1, 0.5 * (refilled + bouncedTotal));
  const alpha = z === 0 ? 1 : anyKept ? 1 - z : 0;
  if (z !== 0 && !anyKept) z = 1;
  for (let i = 0; i < n; i++) residual.push(refilled > 0 ? refill[i] / refilled : 0);
  return { p, q, accept, kept, bounced, refill, residual, balance, alpha, z };
}

/** Expected words per target call, 1 + α + … + α^γ: specviz.theory.expected_tokens_per_step. */
export function wordsPerCall(alpha, gamma) {
  let total = 0;
  for (let k = 0; k <= gamma; k++) total += Math.pow(alpha, k);
  return total;
}

/** Speed against plain decoding, counting the draft's time: words per call / (1 + γc), where a
 * draft guess costs c target calls: specviz.theory.walltime_speedup. */
export function speedUp(alpha, gamma, cost) {
  return wordsPerCall(alpha, gamma) / (gamma * cost + 1);
}

/** How the speed-up reads as it is shown (two decimals): its verdict "faster", "slower" or "even"
 * (the same speed as plain decoding), as specviz.figures.numbers.compare judges it. */
export function pace(speedup) {
  const shown = decimal(speedup, 2);
  const verdict = shown === decimal(1, 2) ? "even" : speedup > 1 ? "faster" : "slower";
  return { shown: `${shown}×`, verdict, slower: verdict === "slower" };
}

/** Home's draft at a quality (0..100, steps of 5): quality% of the target's weights and the rest
 * of its mirror image, in whole numbers: specviz.scenario.home_scenario. */
export function homeDraft(target, quality) {
  const share = Math.floor(quality / 5);
  const mirror = [...target].reverse();
  return target.map((t, i) => Math.floor((share * t + (20 - share) * mirror[i]) / 20));
}

// ----------------------------------------------------------- numbers and words, as Python writes them

// decimal() and percent(), as Python writes numbers, come from numbers.js, put before this file;
// useNumbers() makes them write as the page's language does.
export { decimal, percent, useNumbers };

// The view's words in the page's language, as Python sends them with its data (specviz.figures.live
// .live_words: locale/<lang>/live.po, and the core's own messages where the view says what the
// core says): put in use before any is written.
const WORDS = {};

/** Write in ``words`` (live_words' templates, by name) from now on. */
export function useWords(words) {
  Object.assign(WORDS, words);
}

/** A message with its {name} fields filled from ``values`` ({T} and {D} among them: the models'
 * letters); a field without a value stays as it is. */
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

/** A number as JavaScript writes it ("0.05"), in the page's language ("0,05"). */
const plain = (x) => decimal(x, (String(x).split(".")[1] || "").length);

// A word is cut between the characters a reader sees (a family emoji or an accented letter is
// one), as specviz.links counts them: Unicode's grapheme clusters.
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** ``text`` as the characters a reader sees. */
export function graphemes(text) {
  return Array.from(GRAPHEMES.segment(text), (part) => part.segment);
}

/** The whole ``text`` if it ``fits``, else its longest start (whole characters) ended by "…",
 * else "…" alone. */
export function shorten(text, fits) {
  if (fits(text)) return text;
  const chars = graphemes(text);
  for (let keep = chars.length - 1; keep > 0; keep--) {
    const cut = `${chars.slice(0, keep).join("")}…`;
    if (fits(cut)) return cut;
  }
  return "…";
}

/** The charts' descriptions (their alt text, shown under them): specviz.figures.captions. */
export function captions(labels, s, T, D) {
  const over = [], under = [];
  labels.forEach((w, i) => {
    if (s.balance[i] > 0) over.push(`${w} (${percent(s.q[i])} > ${percent(s.p[i])})`);
    if (s.balance[i] < 0) under.push(`${w} (${percent(s.q[i])} < ${percent(s.p[i])})`);
  });
  const accept = labels.map((w, i) =>
    s.q[i] > 0
      ? fill(WORDS.accept_part,
        { word: w, accept: percent(s.accept[i]), ratio: decimal(s.p[i] / s.q[i], 2), T, D })
      : fill(WORDS.never_proposed, { word: w, T, D }),
  );
  const contents = labels.flatMap((w, i) => (s.residual[i] > 0 ? [`${w} ${percent(s.residual[i])}`] : []));
  const proof = labels.map(
    (w, i) => `${w}: ${percent(s.kept[i])} + ${percent(s.refill[i])} = ${percent(s.p[i])}`,
  );
  // Over- or under-sampled words, or none: a sentence each.
  const sampled = (list, some, none) =>
    fill(WORDS[list.length ? some : none], { words: list.join(", "), T, D });
  return {
    pair: fill(WORDS.pair, {
      words: labels.join(", "), p: s.p.map(percent).join(", "), q: s.q.map(percent).join(", "),
      alpha: percent(s.alpha), T, D,
    }),
    dist: fill(WORDS.dist, {
      over: sampled(over, "dist_over", "dist_over_none"),
      under: sampled(under, "dist_under", "dist_under_none"), T, D,
    }),
    accept: fill(WORDS.accept, { parts: accept.join("; "), T, D }),
    bucket: s.z === 0
      ? fill(WORDS.empty_bucket, { T, D })
      : fill(WORDS.bucket, { z: percent(s.z), parts: contents.join("; "), T, D }),
    proof: fill(WORDS.proof, { parts: proof.join("; "), T, D }),
  };
}

/** What moving word i's bar did, in one sentence: specviz.figures.captions.move_sentence. */
export function announce(labels, s, i, gamma, cost, T, D, say) {
  const word = labels[i], p = percent(s.p[i]), q = percent(s.q[i]);
  const status = s.p[i] === 0 && s.q[i] === 0 ? fill(say.none, { word, T, D })
    : s.balance[i] > 0 ? fill(say.over, { word, p, q, accept: percent(s.accept[i]), T, D })
    : s.balance[i] < 0 ? fill(say.under, { word, p, q, T, D })
    : fill(say.even, { word, q, T, D });
  const speed = pace(speedUp(s.alpha, gamma, cost)).shown;
  return fill(say.move, { status, z: percent(s.z), alpha: percent(s.alpha), gamma, speed, T, D });
}

/** What Home's draft quality does: specviz.figures.captions.quality_sentence. */
export function qualitySaid(s, quality, gamma, T, D, say) {
  const words = decimal(wordsPerCall(s.alpha, gamma), 2);
  return fill(say.quality, { quality, alpha: percent(s.alpha), gamma, words, T, D });
}

/** Everything the view shows for weights (pw, qw), γ and the letters; null fields when a model's
 * weights are all zero (then `problem` says which, in the words of specviz.scenario). */
export function viewOf(labels, pw, qw, gamma, T, D, rounding, cost = 0) {
  const p = normalize(pw), q = normalize(qw);
  if (!p || !q) return { problem: fill(WORDS.no_weights, { problem: WORDS[p ? "no_draft" : "no_target"] }) };
  const step = stepOf(p, q, rounding);
  return {
    step, words: wordsPerCall(step.alpha, gamma), speedup: speedUp(step.alpha, gamma, cost),
    captions: captions(labels, step, T, D),
  };
}

// ------------------------------------------------------------------------------ the view

const SVG = "http://www.w3.org/2000/svg";
const GLIDE_MS = 600;  // a jump the learner did not drag (a preset, Random, a link) glides

function node(tag, attrs = {}, parent = null, ns = SVG) {
  const n = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  if (parent) parent.appendChild(n);
  return n;
}
const html = (tag, attrs, parent) => node(tag, attrs, parent, null);

const PATTERNS = `
  <pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
    <rect width="8" height="8" fill="var(--draft)"/><line x1="0" y1="0" x2="0" y2="8" stroke="rgba(0,0,0,.35)" stroke-width="3"/></pattern>
  <pattern id="cross" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
    <rect width="8" height="8" fill="var(--bad)"/><line x1="0" y1="0" x2="0" y2="8" stroke="rgba(0,0,0,.3)" stroke-width="2"/></pattern>
  <pattern id="dots" width="7" height="7" patternUnits="userSpaceOnUse">
    <rect width="7" height="7" fill="var(--bucket)"/><circle cx="3.5" cy="3.5" r="1.3" fill="rgba(0,0,0,.4)"/></pattern>`;

/** One panel: a heading, an SVG chart and its description. The chart one drags is a group of
 * sliders, not a picture (a picture may not hold controls). */
// A panel's heading: h2 under the Playground's h1, h3 under Home's "Try it" (h2).
function panel(parent, name, title, role = "img", level = "h2") {
  const fig = html("figure", { class: `panel ${name}` }, parent);
  const head = html(level, {}, fig);
  write(head, title);
  const svg = node("svg", { role }, fig);
  const note = html("p", { class: "note" }, fig);
  const caption = html("figcaption", {}, fig);
  return { fig, head, svg, note, caption, parts: null, size: -1 };
}

class LiveView {
  constructor(root, mode) {
    this.root = root;
    this.home = mode === "home";
    this.box = html("div", { class: `live ${mode}` }, root);
    // The fill patterns, defined once for every chart of the view.
    const defs = node("svg", { class: "defs", width: "0", height: "0", "aria-hidden": "true" }, this.box);
    node("defs", {}, defs).innerHTML = PATTERNS;
    this.message = html("p", { class: "problem", role: "alert" }, this.box);
    if (this.home) this.qualityControl();
    // What a move did, said once per gesture (a screen reader hears the word, its place, the
    // bucket, α and the speed-up, not the numbers panel read out whole).
    this.status = html("p", { class: "announce", role: "status" }, this.box);
    const numbers = html("div", { class: "numbers" }, this.box);
    this.numbers = {};
    // Each number's name and formula: the words "<id>" and "<id>_help".
    for (const id of ["alpha", "tv", "z", "words", "speed"]) {
      if (this.home && (id === "tv" || id === "z" || id === "speed")) continue;
      const box = html("div", { class: "number" }, numbers);
      const name = html("span", { class: "name" }, box);
      const value = html("b", { "data-testid": `live-${id}` }, box);
      // The speed-up's verdict in words and an icon, not colour alone.
      const verdict = id === "speed" ? html("span", { class: "verdict" }, box) : null;
      const formula = html("small", {}, box);
      this.numbers[id] = { name, value, verdict, formula };
    }
    const grid = html("div", { class: "grid" }, this.box);
    this.sentence = html("p", { class: "sentence" }, this.box);
    // Home shows the pair only, as a picture; the Playground's pair is a group of sliders.
    this.panels = this.home
      ? { dist: panel(grid, "dist", "", "img", "h3") }
      : {
        dist: panel(grid, "dist", "", "group"),
        flow: panel(grid, "flow", ""),
        accept: panel(grid, "accept", ""),
        bucket: panel(grid, "bucket", ""),
      };
    for (const p of Object.values(this.panels)) {
      p.legend = html("div", { class: "legend" }, p.fig);
      p.fig.insertBefore(p.legend, p.caption);
    }
    if (this.home) {
      // Home's words drawn by Python at every quality: the columns of 0 %, the quality on show
      // and 100 % follow the control in the browser.
      const fig = html("figure", { class: "panel tally" }, grid);
      const head = html("h3", {}, fig), table = html("table", {}, fig);
      this.tally = { head, table, note: html("p", { class: "note" }, fig), shown: "" };
    }
    this.data = null;
    this.local = null;       // the weights on show: {p: [...], q: [...]}
    this.gesture = 0;        // gestures sent to the server
    this.pending = 0;        // the last one, until a run of the page includes it
    this.from = null;        // a glide: probabilities it starts from, and when
    this.started = 0;
    this.top = null;         // the drag chart's scale, frozen while a bar is held
    this.frame = 0;
    this.commitTimer = 0;
    this.unsent = null;      // [event, payload] the server has not heard yet
    this.syncTimer = 0;
    new ResizeObserver(() => this.schedule()).observe(this.box);
    // Before anything outside the view acts (its rerun must carry our weights), and on leaving.
    const outside = (e) => { if (!e.composedPath().includes(this.box)) this.flush(); };
    document.addEventListener("pointerdown", outside, true);
    document.addEventListener("keydown", outside, true);
    // A link to another page waits for the run that takes the weights in: Streamlit drops a
    // trigger of this page when the next run is another page's.
    document.addEventListener("click", (e) => {
      const link = e.target.closest && e.target.closest("a[href]");
      if (!link || !this.pending || e.composedPath().includes(this.box)) return;
      e.preventDefault();
      e.stopPropagation();
      this.heldLink = link;
      setTimeout(() => this.releaseLink(), 3000);  // a server that does not answer: go anyway
    }, true);
    addEventListener("pagehide", () => this.flush());
    document.addEventListener("visibilitychange", () => { if (document.hidden) this.flush(); });
    // For the tests and the benchmark: what the view shows, in numbers.
    window.specviz = Object.assign(window.specviz || {}, { live: this });
  }

  // Home's one control: how good the draft is. It moves the draft in the browser; the server
  // hears of it when the learner lets go (or the keys rest), to keep the link.
  qualityControl() {
    const row = html("div", { class: "quality" }, this.box);
    const label = html("label", { for: "quality" }, row);
    this.qualityName = html("span", {}, label);
    this.qualityValue = html("output", { for: "quality" }, label);
    this.qualityInput = html("input", { id: "quality", type: "range", min: "0", max: "100", step: "5" }, row);
    this.qualityHelp = html("small", {}, row);
    this.qualityInput.addEventListener("input", () => {
      this.quality = Number(this.qualityInput.value);
      this.local = { p: [...this.data.p], q: homeDraft(this.data.p, this.quality) };
      this.from = null;
      this.schedule();
    });
    this.qualityInput.addEventListener("change", () => {
      clearTimeout(this.commitTimer);
      this.commitTimer = setTimeout(() => {
        this.commitTimer = 0;
        this.later("quality", { quality: this.quality });
        const s = stepOf(normalize(this.local.p), normalize(this.local.q), this.data.rounding);
        write(this.status, qualitySaid(s, this.quality, this.data.gamma, this.data.T, this.data.D, this.data.say));
      }, 300);
    });
  }

  /** New data from Python (a run of the page): adopt its weights unless a gesture of ours is
   * newer than the run, and glide to them when they jump. */
  update(data, send) {
    // The page's language: how it writes numbers and its words, before any is written.
    useNumbers(data.numbers);
    useWords(data.words);
    this.send = send;
    const first = !this.data;
    const before = this.local;
    this.data = data;
    if (first) this.gesture = data.gesture || 0;
    if (this.box.style.cssText !== data.css) this.box.style.cssText = data.css;
    this.box.classList.toggle("projector", !!data.projector);
    // Our weights stay while a bar is held or keys are still moving it, and while a gesture of
    // ours is newer than this run.
    const same = before && before.p.length === data.p.length;
    const newer = this.pending && (data.gesture || 0) < this.pending;
    const keep = same && (this.holding || this.commitTimer || this.unsent || newer);
    if (!keep && this.home) {
      this.quality = data.quality;
      set(this.qualityInput, { "aria-valuetext": percent(data.quality / 100) });
      if (this.qualityInput.value !== String(data.quality)) this.qualityInput.value = String(data.quality);
    }
    if (!newer) this.releaseLink();
    if (!keep) {
      const moved = same &&
        (before.p.some((w, i) => w !== data.p[i]) || before.q.some((w, i) => w !== data.q[i]));
      if (moved && !first) this.glideFrom(before);
      this.local = { p: [...data.p], q: [...data.q] };
      this.pending = 0;
    }
    this.schedule();
  }

  glideFrom(before) {
    const p = normalize(before.p), q = normalize(before.q);
    const reduced = matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.from = p && q && !reduced ? { p, q } : null;
    this.started = performance.now();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  /** A gesture ended: the weights on show are for Python, when it needs them. */
  commit() {
    clearTimeout(this.commitTimer);
    this.commitTimer = 0;
    this.later("weights", { p: [...this.local.p], q: [...this.local.q] });
    const d = this.data, view = viewOf(d.labels, this.local.p, this.local.q, d.gamma, d.T, d.D, d.rounding, d.cost);
    // A model with no weight left is said by the alert above the view.
    write(this.status, view.step ? announce(d.labels, view.step, this.moved, d.gamma, d.cost, d.T, d.D, d.say) : "");
  }

  later(event, payload) {
    this.unsent = [event, payload];
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => this.flush(), SYNC_REST_MS);
  }

  releaseLink() {
    const link = this.heldLink;
    this.heldLink = null;
    if (link) { this.pending = 0; link.click(); }
  }

  /** Send what the server has not heard (one trigger; none if nothing moved). */
  flush() {
    if (this.commitTimer) this.commit();  // keys still resting: their gesture ends now
    clearTimeout(this.syncTimer);
    if (!this.unsent || !this.send) return;
    const [event, payload] = this.unsent;
    this.unsent = null;
    this.gesture += 1;
    this.pending = this.gesture;
    this.send(event, { ...payload, gesture: this.gesture });
  }

  render() {
    const d = this.data;
    // The share link follows what is on show (share.js), before the server hears of it.
    const link = this.home ? { quality: this.quality } : { p: this.local.p.join(","), q: this.local.q.join(",") };
    window.dispatchEvent(new CustomEvent("specviz:link", { detail: link }));
    const T = d.T, D = d.D;
    const view = viewOf(d.labels, this.local.p, this.local.q, d.gamma, T, D, d.rounding, d.cost);
    write(this.message, view.problem || "");
    if (this.message.hidden !== !view.problem) this.message.hidden = !view.problem;
    this.box.classList.toggle("empty", !!view.problem);
    this.view = view;
    // The headings that say the same whatever the weights.
    if (this.panels.flow) write(this.panels.flow.head, WORDS.flow_title);
    if (this.tally) write(this.tally.head, WORDS.tally_title);
    // What is drawn: the exact state, or a moment of a glide towards it.
    let shown = view.step;
    if (view.step && this.from) {
      const k = Math.min(1, (performance.now() - this.started) / GLIDE_MS);
      if (k < 1) {
        const e = 1 - Math.pow(1 - k, 3);
        const mix = (a, b) => a.map((x, i) => x + (b[i] - x) * e);
        shown = stepOf(mix(this.from.p, view.step.p), mix(this.from.q, view.step.q), d.rounding);
        this.schedule();
      } else {
        this.from = null;
      }
    }
    this.renderNumbers(view, shown);
    this.renderDrag(view);
    if (view.step && this.home) {
      this.renderQuality();
      this.renderTally();
      this.describe("dist", view.captions.pair);
    } else if (view.step) {
      this.renderFlow(shown);
      this.renderAccept(shown);
      this.renderBucket(shown);
      for (const key of ["dist", "accept", "bucket"]) this.describe(key, view.captions[key]);
      this.describe("flow", view.captions.proof);
    } else {
      this.describe("dist", view.problem);
    }
  }

  renderQuality() {
    const d = this.data;
    write(this.qualityName, `${WORDS.quality} `);
    write(this.qualityValue, percent(this.quality / 100));
    set(this.qualityInput, { "aria-valuetext": percent(this.quality / 100) });
    write(this.qualityHelp, fill(WORDS.quality_help, { T: d.T, D: d.D }));
  }

  renderTally() {
    const t = this.data.tally;
    if (!t) return;
    const drafts = [...new Set([0, this.quality, 100])].sort((a, b) => a - b);
    // The columns' names are Python's, in the page's language.
    const heads = [t.word, t.target, ...drafts.map((k) => t.drafts[k])];
    const rows = t.columns[t.word].map((_, i) => heads.map((h) => t.columns[h][i]));
    const shown = JSON.stringify([heads, rows]);
    write(this.tally.note, t.note);
    if (shown === this.tally.shown) return;
    this.tally.shown = shown;
    const table = this.tally.table;
    table.replaceChildren();
    const cells = (values, tag, parent) => {
      const tr = html("tr", {}, parent);
      for (const v of values) write(html(tag, tag === "th" ? { scope: "col" } : {}, tr), v);
    };
    cells(heads, "th", html("thead", {}, table));
    const body = html("tbody", {}, table);
    for (const row of rows) cells(row, "td", body);
  }

  describe(key, text) {
    const p = this.panels[key];
    write(p.caption, text);
    set(p.svg, { "aria-label": text });
  }

  renderNumbers(view, shown) {
    const d = this.data;
    const s = shown || view.step;
    const values = s
      ? {
        alpha: percent(s.alpha), tv: percent(s.z), z: percent(s.z),
        words: decimal(wordsPerCall(s.alpha, d.gamma), 2),
        speed: pace(speedUp(s.alpha, d.gamma, d.cost)).shown,
      }
      : { alpha: "—", tv: "—", z: "—", words: "—", speed: "—" };
    for (const [id, n] of Object.entries(this.numbers)) {
      write(n.name, WORDS[id]);
      write(n.formula, fill(WORDS[`${id}_help`], { T: d.T, D: d.D, gamma: d.gamma, cost: plain(d.cost) }));
      write(n.value, values[id]);
    }
    const speed = this.numbers.speed;
    if (speed) {
      const verdict = s ? pace(speedUp(s.alpha, d.gamma, d.cost)) : null;
      write(speed.verdict, verdict ? WORDS[`verdict_${verdict.verdict}`] : "");
      set(speed.verdict, { "data-slower": verdict && verdict.slower ? "1" : "0" });
    }
    const speedup = view.step && pace(view.speedup);
    write(this.sentence, view.step && !this.home
      ? fill(WORDS.summary, {
        alpha: percent(view.step.alpha), z: percent(view.step.z), gamma: d.gamma,
        words: decimal(view.words, 2),
        // Counting the draft's time: faster, as fast or slower (a whole sentence each).
        speed: d.cost > 0
          ? fill(WORDS[`speed_${speedup.verdict}`], { cost: plain(d.cost), speedup: speedup.shown })
          : WORDS.speed_free,
      })
      : "");
  }

  // A chart's frame: its size in px (the SVG is drawn at its real size, so text stays readable
  // on a phone and large on a projector), the plot area and the words under it.
  frameOf(p, rows = 2) {
    const font = parseFloat(getComputedStyle(this.box).fontSize);  // the CSS may grow it
    const width = Math.max(200, p.fig.clientWidth || 300);
    const height = Math.round(font * (this.data.projector ? 8.5 : 11));
    const bottom = Math.round(font * 1.35 * rows);
    set(p.svg, { viewBox: `0 0 ${width} ${height}`, width: String(width), height: String(height) });
    const n = this.data.labels.length;
    const left = 4, right = 4;
    const column = (width - left - right) / n;
    return { width, height, font, top: font * 1.4, base: height - bottom, n, column, left };
  }

  // The values over the bars, where they can be read, as drawn: each over its bar where the
  // widest fits ``room`` (clear of its neighbour); else (if ``rows`` allows) in two rows, each
  // in its word's column; else smaller, down to the words' floor (placeAxis); else none.
  // A ``wide`` value counts as drawn, so that a drag does not flip the layout. Returns the rows
  // (0: none), the line height and each value's drawn width.
  fitValues(fr, nodes, room, rows = 2, wide = percent(0.888)) {
    const probe = nodes[0];
    if (probe.wideFor !== fr.font) {
      const before = probe.textContent;
      write(probe, wide);
      probe.wide = probe.getComputedTextLength() / (probe.scale || 1);
      probe.wideFor = probe.wide > 0 ? fr.font : null;  // not drawn yet: measured next time
      write(probe, before);
    }
    const drawn = nodes.map((n) => (n.textContent ? n.getComputedTextLength() / (n.scale || 1) : 0));
    const widest = drawn.some(Boolean) ? Math.max(probe.wide, ...drawn) : 0;
    const rooms = rows === 2 ? [[1, room], [2, fr.column - 2]] : [[1, room]];
    let [used, scale] = [rooms.find(([, r]) => widest <= r)?.[0], 1];
    if (!used) {
      scale = rooms.at(-1)[1] / widest;
      used = scale >= (this.data.projector ? 0.8 : 0.75) / 0.85 ? rooms.at(-1)[0] : 0;
    }
    for (const n of nodes) {
      if (!used) write(n, "");
      if (n.scale !== scale) n.style.fontSize = scale < 1 ? `${0.85 * scale}em` : "";
      n.scale = scale;
    }
    return { rows: used, line: fr.font * 0.85 * scale * 1.35,
      widths: new Map(nodes.map((n, i) => [n, drawn[i] * scale])) };
  }

  // Values at [node, x, y, word], in pairs (a word's target and draft, or two words' one bar
  // each): in two rows, a pair stands over its taller bar, the second (the draft) a row up, each
  // value in its word's column.
  placeValues(fr, fit, pairs) {
    for (const pair of pairs) {
      const y = Math.min(...pair.map((v) => v[2]));
      pair.forEach(([n, x, own, i], k) => {
        if (fit.rows !== 2) return set(n, { x, y: own });
        const lo = fr.left + fr.column * i + fit.widths.get(n) / 2 + 1;
        const hi = lo + fr.column - fit.widths.get(n) - 2;
        set(n, { x: Math.min(Math.max(x, lo), hi), y: y - k * fit.line });
      });
    }
  }

  // Said under a chart whose values found no room (a projector hides the descriptions).
  noRoom(p, fit) {
    write(p.note, fit.rows ? "" : WORDS[this.data.projector ? "no_room_projector" : "no_room"]);
  }

  // Elements of a chart, made once per vocabulary size and reused frame after frame.
  parts(p, make) {
    if (p.size !== this.data.labels.length || p.madeFor !== this.data.key) {
      for (const old of p.svg.querySelectorAll(":scope > g")) old.remove();
      p.parts = make();
      p.size = this.data.labels.length;
      p.madeFor = this.data.key;
    }
    return p.parts;
  }

  // The axis line and the words under it: made once, placed on every frame (the width follows
  // the page).
  axisRow(g, extra = "") {
    const axis = node("line", { class: "axis" }, g);
    const words = this.data.labels.map((w) => {
      const t = node("text", { class: "word", "text-anchor": "middle" }, g);
      write(t, w);
      const sub = node("text", { class: "sub", "text-anchor": "middle" }, g);
      write(sub, extra);
      return { t, sub };
    });
    return { axis, words };
  }

  placeAxis(row, fr) {
    set(row.axis, { x1: 0, x2: fr.width, y1: fr.base, y2: fr.base });
    row.words.forEach(({ t, sub }, i) => {
      const x = fr.left + fr.column * (i + 0.5);
      set(t, { x, y: fr.base + fr.font * 1.15 });
      set(sub, { x, y: fr.base + fr.font * 2.35 });
    });
    // The words fit their columns: measured as drawn, made smaller down to a floor that still
    // reads from the back row, and only then cut (the description under the chart has them all).
    const fitFor = `${fr.column.toFixed(1)}|${this.data.key}`;
    if (row.fitFor === fitFor) return;
    row.fitFor = fitFor;
    const room = fr.column - 6;
    const floor = this.data.projector ? 0.8 : 0.75;
    row.words.forEach(({ t }, i) => { t.style.fontSize = ""; write(t, this.data.labels[i]); });
    const widest = Math.max(...row.words.map(({ t }) => t.getComputedTextLength()));
    const scale = Math.max(floor, Math.min(1, room / widest));
    row.words.forEach(({ t }, i) => {
      if (scale < 1) t.style.fontSize = `${scale}em`;
      write(t, shorten(this.data.labels[i], (text) => {
        write(t, text);
        return t.getComputedTextLength() <= room;
      }));
    });
    // The words under the bars: "▲ under" where it fits, the icon alone where it does not (the
    // heading says what the icons mean).
    const probe = row.words[0].sub;
    const before = probe.textContent;
    write(probe, WORDS.balanced);
    row.shortSubs = probe.getComputedTextLength() > room;
    write(probe, before);
  }

  renderDrag(view) {
    const d = this.data, p = this.panels.dist;
    write(p.head, fill(WORDS[this.home ? "pair_title" : "drag_title"], { T: d.T, D: d.D }));
    const fr = this.frameOf(p);
    const parts = this.parts(p, () => {
      const g = node("g", {}, p.svg);
      const row = this.axisRow(g);
      const bars = [];
      d.labels.forEach((w, i) => {
        for (const model of ["p", "q"]) {
          const handle = this.home ? node("g", {}, g) : node("g", { class: `handle ${model}`,
            role: "slider", tabindex: "0", "aria-valuemin": "0", "aria-valuemax": String(d.max_weight) }, g);
          // Something to grab: the whole column above the bar, and a grip on its top edge.
          const hit = this.home ? null : node("rect", { class: "hit" }, handle);
          const bar = node("rect", { class: `bar ${model === "p" ? "target" : "draft"}` }, handle);
          const grip = this.home ? null : node("rect", { class: "grip" }, handle);
          const of = model === "p" ? "target" : "draft";
          const cap = node("text", { class: `cap of-${of}`, "text-anchor": "middle" }, handle);
          bars.push({ model, of, i, handle, hit, bar, grip, cap });
          if (!this.home) this.wire(handle, model, i);
        }
      });
      return { row, bars };
    });
    this.legend(p, [["target", WORDS.target_key], ["draft", WORDS.draft_key]]);
    const probs = view.step ? { p: view.step.p, q: view.step.q } : {
      p: normalize(this.local.p) || this.local.p.map(() => 0),
      q: normalize(this.local.q) || this.local.q.map(() => 0),
    };
    for (const b of parts.bars) write(b.cap, percent(probs[b.model][b.i]));
    const fit = this.fitValues(fr, parts.bars.map((b) => b.cap), fr.column * 0.42 - 4);
    if (fit.rows === 2) fr.top += fit.line;
    this.noRoom(p, fit);
    const most = Math.max(...probs.p, ...probs.q, 0.05);
    if (!this.holding || !this.top) this.top = Math.min(1, most * 1.18);
    if (most > this.top) this.top = Math.min(1, most * 1.05);
    this.scale = { base: fr.base, span: fr.base - fr.top, top: this.top };
    const width = fr.column * 0.36, gap = fr.column * 0.03;
    const columns = d.labels.map(() => []);
    for (const b of parts.bars) {
      const value = probs[b.model][b.i];
      const weight = this.local[b.model][b.i];
      const x = fr.left + fr.column * (b.i + 0.5) + (b.model === "p" ? -gap - width : gap);
      const h = (value / this.top) * this.scale.span;
      const y = fr.base - h;
      if (b.hit) set(b.hit, { x, y: fr.top - fr.font, width, height: fr.base - fr.top + fr.font });
      set(b.bar, { x, y, width, height: Math.max(0, h) });
      if (b.grip) set(b.grip, { x: x - 2, y: y - 3, width: width + 4, height: 6 });
      columns[b.i].push([b.cap, x + width / 2, y - 8, b.i]);
      const said = { word: d.labels[b.i], share: percent(value), weight, max: d.max_weight, T: d.T, D: d.D };
      if (!this.home) set(b.handle, {
        "aria-label": fill(WORDS[`${b.of}_weight`], said),
        "aria-valuenow": String(weight),
        "aria-valuetext": fill(WORDS[`${b.of}_value`], said),
      });
    }
    this.placeValues(fr, fit, columns);
    this.placeAxis(parts.row, fr);
    parts.row.words.forEach(({ sub }, i) => {
      const b = view.step ? view.step.balance[i] : 0;
      const words = parts.row.shortSubs ? ["▼", "▲", "="] : [WORDS.over, WORDS.under, WORDS.balanced];
      write(sub, !view.step ? "" : b > 0 ? words[0] : b < 0 ? words[1] : words[2]);
      set(sub, { class: `sub ${b > 0 ? "over" : b < 0 ? "under" : "even"}` });
    });
  }

  // A bar's weight follows the pointer: the word gets the probability at the pointer's height
  // (the other words keep their weights, so the whole model is normalised again).
  weightAt(model, i, clientY, svg) {
    const box = svg.getBoundingClientRect();
    const y = clientY - box.top;
    const prob = Math.min(0.999, Math.max(0, ((this.scale.base - y) / this.scale.span) * this.scale.top));
    const rest = this.local[model].reduce((a, w, j) => a + (j === i ? 0 : w), 0);
    const max = this.data.max_weight;
    if (rest === 0) return prob > 0 ? Math.max(1, this.local[model][i]) : 0;
    return Math.max(0, Math.min(max, Math.round((prob * rest) / (1 - prob))));
  }

  setWeight(model, i, weight) {
    this.moved = i;
    if (this.local[model][i] === weight) return;
    this.local[model][i] = weight;
    this.from = null;  // the learner's own hand moves it: no glide
    this.schedule();
  }

  wire(handle, model, i) {
    const svg = this.panels.dist.svg;
    handle.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      handle.focus({ preventScroll: true });
      handle.setPointerCapture(e.pointerId);
      this.holding = true;
      this.setWeight(model, i, this.weightAt(model, i, e.clientY, svg));
    });
    handle.addEventListener("pointermove", (e) => {
      if (this.holding && handle.hasPointerCapture(e.pointerId)) {
        this.setWeight(model, i, this.weightAt(model, i, e.clientY, svg));
      }
    });
    const release = (e) => {
      if (!this.holding) return;
      this.holding = false;
      if (handle.hasPointerCapture(e.pointerId)) handle.releasePointerCapture(e.pointerId);
      this.schedule();
      this.commit();
    };
    handle.addEventListener("pointerup", release);
    handle.addEventListener("pointercancel", release);
    handle.addEventListener("keydown", (e) => {
      const max = this.data.max_weight, now = this.local[model][i];
      const step = { ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1, PageUp: 10, PageDown: -10 }[e.key];
      let next = null;
      if (step !== undefined) next = Math.max(0, Math.min(max, now + step));
      if (e.key === "Home") next = 0;
      if (e.key === "End") next = max;
      if (next === null) return;
      e.preventDefault();
      this.setWeight(model, i, next);
      // A run of key presses is one gesture: sent when the keys rest.
      clearTimeout(this.commitTimer);
      this.commitTimer = setTimeout(() => this.commit(), 250);
    });
    handle.addEventListener("blur", () => { if (this.commitTimer) this.commit(); });
  }

  // A chart's key, redrawn only when the letters or words change.
  legend(p, items) {
    if (p.legend.dataset.key === this.data.key) return;
    p.legend.dataset.key = this.data.key;
    p.legend.replaceChildren();
    for (const [cls, text] of items) {
      const item = html("span", {}, p.legend);
      if (cls) html("span", { class: `key ${cls}` }, item);
      item.append(fill(text, { T: this.data.T, D: this.data.D }));
    }
  }

  renderFlow(s) {
    const d = this.data, p = this.panels.flow;
    const fr = this.frameOf(p);
    const parts = this.parts(p, () => {
      const g = node("g", {}, p.svg);
      const row = this.axisRow(g, `${d.D} ┃ ${d.T}`);
      return { row, bars: d.labels.map(() => ({
        kept1: node("rect", { class: "kept" }, g), bounced: node("rect", { class: "bounced" }, g),
        kept2: node("rect", { class: "kept" }, g), refill: node("rect", { class: "refill" }, g),
        target: node("line", { class: "target" }, g),
        capQ: node("text", { class: "cap of-draft", "text-anchor": "middle" }, g),
        capP: node("text", { class: "cap of-target", "text-anchor": "middle" }, g),
      })) };
    });
    this.placeAxis(parts.row, fr);
    parts.bars.forEach((c, i) => { write(c.capQ, percent(s.q[i])); write(c.capP, percent(s.p[i])); });
    const fit = this.fitValues(fr, parts.bars.flatMap((c) => [c.capQ, c.capP]), fr.column * 0.42 - 4);
    if (fit.rows === 2) fr.top += fit.line;
    this.noRoom(p, fit);
    const top = 1.18 * Math.max(...s.p, ...s.q);
    const h = (x) => (x / top) * (fr.base - fr.top);
    const width = fr.column * 0.36, gap = fr.column * 0.03;
    this.placeValues(fr, fit, parts.bars.map((c, i) => {
      const xl = fr.left + fr.column * (i + 0.5) - gap - width, xr = xl + width + 2 * gap;
      stack([[c.kept1, s.kept[i]], [c.bounced, s.bounced[i]]], xl, width, fr.base, h);
      stack([[c.kept2, s.kept[i]], [c.refill, s.refill[i]]], xr, width, fr.base, h);
      const yp = fr.base - h(s.p[i]);
      set(c.target, { x1: xr - width * 0.15, x2: xr + width * 1.15, y1: yp, y2: yp });
      return [[c.capP, xr + width / 2, yp - 10, i], [c.capQ, xl + width / 2, fr.base - h(s.q[i]) - 8, i]];
    }));
    this.legend(p, [
      ["", WORDS.flow_key], ["kept", WORDS.kept_key], ["bounced", WORDS.bounced_key],
      ["refill", WORDS.refill_key], ["line", WORDS.line_key],
    ]);
  }

  renderAccept(s) {
    const d = this.data, p = this.panels.accept;
    write(p.head, fill(WORDS.accept_title, { T: d.T, D: d.D }));
    const fr = this.frameOf(p, 1);
    const parts = this.parts(p, () => {
      const g = node("g", {}, p.svg);
      const row = this.axisRow(g);
      return { row, bars: d.labels.map(() => ({
        ok: node("rect", { class: "kept" }, g), bad: node("rect", { class: "bounced" }, g),
        okText: node("text", { class: "inside", "text-anchor": "middle" }, g),
        ratio: node("text", { class: "cap", "text-anchor": "middle" }, g),
      })) };
    });
    this.placeAxis(parts.row, fr);
    const ok = s.q.map((q, i) => (q > 0 ? s.accept[i] : 0));
    parts.bars.forEach((c, i) => {
      write(c.ratio, s.q[i] > 0 ? decimal(s.p[i] / s.q[i], 2) : `${d.D} = 0`);
    });
    const ratios = this.fitValues(fr, parts.bars.map((c) => c.ratio), fr.column - 4, 2, decimal(8.88, 2));
    if (ratios.rows === 2) fr.top += ratios.line;
    this.noRoom(p, ratios);  // the share inside a bar is the ratio over it, capped at 1
    const h = (x) => x * (fr.base - fr.top);
    const width = fr.column * 0.6;
    parts.bars.forEach((c, i) => write(c.okText, h(ok[i]) > fr.font * 1.2 ? percent(ok[i]) : ""));
    this.fitValues(fr, parts.bars.map((c) => c.okText), width - 4, 1);
    this.placeValues(fr, ratios, pairsOf(parts.bars.map((c, i) => {
      const x = fr.left + fr.column * (i + 0.5) - width / 2;
      stack([[c.ok, ok[i]], [c.bad, s.q[i] > 0 ? 1 - ok[i] : 0]], x, width, fr.base, h);
      set(c.okText, { x: x + width / 2, y: fr.base - h(ok[i]) / 2 + fr.font * 0.35 });
      return [c.ratio, x + width / 2, fr.top - 6, i];
    })));
  }

  renderBucket(s) {
    const d = this.data, p = this.panels.bucket;
    write(p.head, fill(WORDS.bucket_title, { z: percent(s.z) }));
    const fr = this.frameOf(p, 1);
    const parts = this.parts(p, () => {
      const g = node("g", {}, p.svg);
      const row = this.axisRow(g);
      const empty = node("text", { class: "empty", "text-anchor": "middle" }, g);
      return { row, empty, bars: d.labels.map(() => ({
        r: node("rect", { class: "refill" }, g),
        cap: node("text", { class: "cap", "text-anchor": "middle" }, g),
      })) };
    });
    this.placeAxis(parts.row, fr);
    parts.bars.forEach((c, i) => write(c.cap, s.residual[i] > 0 ? percent(s.residual[i]) : ""));
    const fit = this.fitValues(fr, parts.bars.map((c) => c.cap), fr.column - 4);
    if (fit.rows === 2) fr.top += fit.line;
    this.noRoom(p, fit);
    const top = s.z === 0 ? 1 : 1.18 * Math.max(...s.residual);
    const h = (x) => (x / top) * (fr.base - fr.top);
    const width = fr.column * 0.6;
    this.placeValues(fr, fit, pairsOf(parts.bars.map((c, i) => {
      const x = fr.left + fr.column * (i + 0.5) - width / 2;
      set(c.r, { x, y: fr.base - h(s.residual[i]), width, height: h(s.residual[i]) });
      return [c.cap, x + width / 2, fr.base - h(s.residual[i]) - 8, i];
    })));
    set(parts.empty, { x: fr.width / 2, y: (fr.top + fr.base) / 2 });
    write(parts.empty, s.z === 0 ? fill(WORDS.bucket_empty, { T: d.T, D: d.D }) : "");
  }
}

// Attributes and text are written only when they change: a run of the page that brings the
// weights already on show moves nothing in the page.
function set(n, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    const value = typeof v === "number" ? v.toFixed(2) : String(v);
    if (n.getAttribute(k) !== value) n.setAttribute(k, value);
  }
}

function write(n, text) {
  if (n.textContent !== text) n.textContent = text;
}

// Neighbours two by two: words with one value each share their two rows.
const pairsOf = (values) => values.flatMap((v, i) => (i % 2 ? [] : [values.slice(i, i + 2)]));

// Stacked parts of one bar, from the base up.
function stack(parts, x, width, base, h) {
  let y = base;
  for (const [rect, value] of parts) {
    const height = Math.max(0, h(value));
    y -= height;
    set(rect, { x, y, width, height });
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let view = parentElement.specvizLive;
  if (!view) {
    view = new LiveView(parentElement, data.quality === null ? "playground" : "home");
    parentElement.specvizLive = view;
  }
  view.update(data, setTriggerValue);
}
