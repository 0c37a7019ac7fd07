// Presenter mode's keys (specviz/ui/presenter.py): the next or previous step, as a click on the
// bar's Next or Previous link. PageDown and PageUp (what a presentation clicker sends) always turn
// the step; the arrows only while no control that uses them has the focus. composedPath: the
// Playground's bars sit in a shadow root, where the window sees only its host.
const GO = { PageDown: "next", ArrowRight: "next", PageUp: "prev", ArrowLeft: "prev" };
const BUSY = "input, textarea, select, [contenteditable], [role=slider], [role=tab]";

export default function () {
  const onKey = (e) => {
    const link = GO[e.key] && document.querySelector(`.st-key-presenter-${GO[e.key]} a`);
    if (!link || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const target = e.composedPath()[0];
    if (e.key.startsWith("Arrow") && target instanceof Element && target.closest(BUSY)) return;
    e.preventDefault();
    e.stopPropagation();
    link.click();
  };
  window.addEventListener("keydown", onKey, true);
  return () => window.removeEventListener("keydown", onKey, true);
}
