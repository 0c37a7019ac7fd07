// The timeline of "Many words per call": the text with each word's origin and every target call's
// guesses, verdicts and odds. Mounted once as a Streamlit component; a run of the page hands it
// new data and it redraws its lists in place (its buttons, and their focus, stay).

const SKELETON = `<div class="tl">
<h2>The text <span>— each grey or white box is what one target call wrote</span></h2>
<p class="text" role="img"></p>
<div class="legend"><span><span class="w">word</span> a kept guess of the draft <span class="D"></span></span>
  <span><span class="w o1">◌ word</span> from the leftover bucket, after a rejection</span>
  <span><span class="w o2">★ word</span> bonus word: all guesses kept</span></div>
<div class="bar"><h2>Inside each target call</h2>
  <button class="play" type="button">▶ Replay call by call</button>
  <button class="all" type="button">Show all</button></div>
<ol class="calls" tabindex="0" aria-label="The target calls, one per row"></ol>
<div class="legend"><span><span class="chip ok">word ✓</span> kept</span>
  <span><span class="chip bad">word ✗</span> first rejection</span>
  <span><span class="chip skip">word –</span> never checked</span>
  <span><span class="chip o1">◌ word</span> from the bucket</span>
  <span><span class="chip o2">★ word</span> bonus</span>
  <span><span class="chip ok cut">word ✓</span> grey: past the last word you asked for</span></div>
<div class="sr" aria-live="polite"></div>
</div>`;

const ICON = ["", "◌ ", "★ "], MARK = { 1: " ✓", 0: " ✗", "-1": " –" };
const PLAY = "▶ Replay call by call";

function el(tag, cls, text, tip) {
  const e = Object.assign(document.createElement(tag), { className: cls, textContent: text });
  if (tip) e.title = tip;
  return e;
}

class Timeline {
  constructor(root) {
    const box = document.createElement("div");
    box.innerHTML = SKELETON;
    this.box = box.firstElementChild;
    root.append(this.box);
    this.root = root;
    const $ = (cls) => this.box.querySelector("." + cls);
    Object.assign(this, { text: $("text"), calls: $("calls"), play: $("play"), live: $("sr") });
    this.timer = null;
    this.rows = [];
    this.pills = [];
    this.play.addEventListener("click", () => {
      if (this.timer) return this.stop();
      this.show(true);
      this.play.textContent = "⏸ Stop";
      this.reveal(0);
    });
    $("all").addEventListener("click", () => this.stop());
    // For the tests: what the view shows, as data.
    window.specviz = Object.assign(window.specviz || {}, { timeline: this });
  }

  show(hide) {
    [...this.rows, ...this.pills].forEach((r) => r.classList.toggle("hidden", hide));
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.show(false);
    this.play.textContent = PLAY;
  }

  reveal(c) {
    if (c >= this.rows.length) return this.stop();
    this.rows[c].classList.remove("hidden");
    this.pills[c].classList.remove("hidden");
    const calls = this.calls;
    calls.scrollTop = this.rows[c].offsetTop - calls.offsetTop - calls.clientHeight / 2;
    this.live.textContent = "Call " + (c + 1) + ": " + this.rows[c].textContent;
    const pause = matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : 650;
    this.timer = setTimeout(() => this.reveal(c + 1), pause);
  }

  update(S) {
    const { T, D } = S;
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
      li.append(el("span", "num", "Call " + (c + 1)));
      S.drafts[c].forEach((w, i) => {
        const v = S.verdict[c][i], [p, q, keep] = S.odds[c][i];
        const odds = ` (${T} = ${percent(p)}, ${D} = ${percent(q)}: kept with chance ${percent(keep)})`;
        const tip = v < 0 ? "Guess “" + w + "” never checked: an earlier guess of this call was rejected"
          : "Guess “" + w + (v ? "” kept" : "” rejected") + odds;
        li.append(el("span", "chip " + ["bad", "ok", "skip"][v < 0 ? 2 : v] + (v === 1 && i >= shown
          ? " cut" : ""), w + MARK[v], tip));
      });
      const tip = o === 1 ? "“" + f + "” drawn from the leftover bucket after the rejection"
        : "Bonus word “" + f + "”: every guess was kept, the same call gives one more";
      li.append(...(S.gamma > 0 ? ["→"] : []), el("span", "chip o" + o + (k >= shown ? " cut" : ""),
        ICON[o] + f, tip), shown <= k ? shown + " of its " + (k + 1) + " words fit"
        : "= " + (k + 1) + (k === 0 ? " word" : " words"));
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
