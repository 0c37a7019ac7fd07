// The timeline of "Many words per call": the text with each word's origin and every target call's
// guesses, verdicts and odds. Mounted once as a Streamlit component; a run of the page hands it
// new data and it redraws its lists in place (its buttons, and their focus, stay). Its words come
// with the data, in the page's language (specviz.figures.decoding.timeline_words: timeline.po).

/** A message with its {name} fields filled from ``values``; a field without a value stays. */
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

const escape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The view's fixed parts in the words ``W``: its headings, legends and buttons. */
function skeleton(W) {
  const w = Object.fromEntries(Object.entries(W).map(([k, v]) => [k, escape(v)]));
  return `<div class="tl">
<h2>${w.text_title} <span>${w.text_note}</span></h2>
<p class="text" role="img"></p>
<div class="legend"><span><span class="w">${w.word}</span> ${fill(w.kept_guess, { D: '<span class="D"></span>' })}</span>
  <span><span class="w o1">◌ ${w.word}</span> ${w.bucket_word}</span>
  <span><span class="w o2">★ ${w.word}</span> ${w.bonus_word}</span></div>
<div class="bar"><h2>${w.calls_title}</h2>
  <button class="play" type="button">${w.replay}</button>
  <button class="all" type="button">${w.show_all}</button></div>
<ol class="calls" tabindex="0" aria-label="${w.calls_label.replace(/"/g, "&quot;")}"></ol>
<div class="legend"><span><span class="chip ok">${w.word} ✓</span> ${w.kept}</span>
  <span><span class="chip bad">${w.word} ✗</span> ${w.rejected}</span>
  <span><span class="chip skip">${w.word} –</span> ${w.skipped}</span>
  <span><span class="chip o1">◌ ${w.word}</span> ${w.from_bucket}</span>
  <span><span class="chip o2">★ ${w.word}</span> ${w.bonus}</span>
  <span><span class="chip ok cut">${w.word} ✓</span> ${w.cut}</span></div>
<div class="sr" aria-live="polite"></div>
</div>`;
}

const ICON = ["", "◌ ", "★ "], MARK = { 1: " ✓", 0: " ✗", "-1": " –" };

function el(tag, cls, text, tip) {
  const e = Object.assign(document.createElement(tag), { className: cls, textContent: text });
  if (tip) e.title = tip;
  return e;
}

class Timeline {
  constructor(root) {
    this.root = root;
    this.box = null;
    this.timer = null;
    this.rows = [];
    this.pills = [];
    // For the tests: what the view shows, as data.
    window.specviz = Object.assign(window.specviz || {}, { timeline: this });
  }

  /** The fixed parts, in the words ``W`` (again only when the page's language changes). */
  build(W) {
    const box = document.createElement("div");
    box.innerHTML = skeleton(W);
    const old = this.box;
    this.box = box.firstElementChild;
    if (old) old.replaceWith(this.box);
    else this.root.append(this.box);
    const $ = (cls) => this.box.querySelector("." + cls);
    Object.assign(this, { text: $("text"), calls: $("calls"), play: $("play"), live: $("sr") });
    this.play.addEventListener("click", () => {
      if (this.timer) return this.stop();
      this.show(true);
      this.play.textContent = this.words.stop;
      this.reveal(0);
    });
    $("all").addEventListener("click", () => this.stop());
  }

  show(hide) {
    [...this.rows, ...this.pills].forEach((r) => r.classList.toggle("hidden", hide));
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.show(false);
    this.play.textContent = this.words.replay;
  }

  reveal(c) {
    if (c >= this.rows.length) return this.stop();
    this.rows[c].classList.remove("hidden");
    this.pills[c].classList.remove("hidden");
    const calls = this.calls;
    calls.scrollTop = this.rows[c].offsetTop - calls.offsetTop - calls.clientHeight / 2;
    this.live.textContent = fill(this.words.call_said, { n: c + 1, row: this.rows[c].textContent });
    const pause = matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 650;
    this.timer = setTimeout(() => this.reveal(c + 1), pause);
  }

  update(S) {
    const { T, D } = S, W = S.words;
    // The page's language: how it writes numbers, and its words.
    useNumbers(S.numbers);
    const said = JSON.stringify(W);
    if (said !== this.said) {
      clearTimeout(this.timer);
      this.timer = null;
      this.words = W;
      this.said = said;
      this.build(W);
    }
    this.data = S;
    if (this.box.style.cssText !== S.css) this.box.style.cssText = S.css;
    this.box.querySelector(".D").textContent = D;
    this.text.setAttribute("aria-label", S.alt);
    this.stop();
    this.pills = [];
    const text = [];
    S.text.forEach((w, i) => {  // one box per call, each word marked by where it came from
      const c = S.call[i], o = S.origin[i];
      if (!this.pills[c]) text.push((this.pills[c] = el("span", "call", "")), " ");
      if (this.pills[c].childNodes.length) this.pills[c].append(" ");
      this.pills[c].append(el("span", "w o" + o, ICON[o] + w));
    });
    this.text.replaceChildren(...text);
    this.rows = S.kept.map((k, c) => {  // the γ guesses and their verdicts, then the last word
      const li = el("li", "", ""), shown = S.shown[c], f = S.final[c], o = S.final_origin[c];
      li.append(el("span", "num", fill(W.call, { n: c + 1 })));
      S.drafts[c].forEach((w, i) => {
        const v = S.verdict[c][i], [p, q, keep] = S.odds[c][i];
        const odds = { word: w, T, D, p: percent(p), q: percent(q), keep: percent(keep) };
        const tip = fill(W[v < 0 ? "guess_skipped" : v ? "guess_kept" : "guess_rejected"], odds);
        li.append(el("span", "chip " + ["bad", "ok", "skip"][v < 0 ? 2 : v] + (v === 1 && i >= shown
          ? " cut" : ""), w + MARK[v], tip));
      });
      const tip = fill(W[o === 1 ? "bucket_tip" : "bonus_tip"], { word: f });
      const words = { shown, words: k + 1 };
      li.append(...(S.gamma > 0 ? ["→"] : []), el("span", "chip o" + o + (k >= shown ? " cut" : ""),
        ICON[o] + f, tip), fill(W[shown <= k ? "fit" : k === 0 ? "one_word" : "many_words"], words));
      return li;
    });
    this.calls.replaceChildren(...this.rows);
  }
}

export default function (component) {
  const { data, parentElement } = component;
  if (!parentElement.specvizTimeline) parentElement.specvizTimeline = new Timeline(parentElement);
  parentElement.specvizTimeline.update(data);
}
