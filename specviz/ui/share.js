// The share link in the sidebar, with a copy button. Python writes the link at the end of each
// run; a live view (Playground, Home) moves in the browser before the server hears of it, and
// tells this link and the address bar what it shows ("specviz:link" on window), so they change
// in the same frame.
// The live view's words stand only for the names Python lets it move on this page ("follow").
// Python sends the button's words in the page's language ("say"), and the language itself, which
// the document declares (a screen reader reads each language with its own voice).
// A part of a page rerun alone may not write to the sidebar: its link comes from a hidden
// element in the part ("relay"), numbered ("run") so that an older part's link never wins.

function rewrite(link, params, follow) {
  const [base, query] = link.split("?");
  if (!query || !params) return link;
  const parts = query.split("&").map((part) => {
    const name = part.split("=")[0];
    return follow.includes(name) && name in params ? `${name}=${params[name]}` : part;
  });
  return `${base}?${parts.join("&")}`;
}

function show(view) {
  const { link, follow } = view.data;
  const text = rewrite(link, view.params, follow);
  if (view.code.textContent !== text) view.code.textContent = text;
  // The address bar too: the server hears of a drag only when it needs it (live.js).
  const here = rewrite(location.href, view.params, follow);
  if (here !== location.href) history.replaceState(history.state, "", here);
}

export default function ({ data, parentElement }) {
  if (data.relay) {  // a part of the page ran alone: its link, for the sidebar's box
    window.dispatchEvent(new CustomEvent("specviz:share", { detail: data }));
    return;
  }
  let view = parentElement.specvizShare;
  if (!view) {
    const box = document.createElement("div");
    box.className = "share";
    const code = document.createElement("code");
    const copy = document.createElement("button");
    copy.type = "button";
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(code.textContent);
        copy.textContent = view.data.say.copied;
      } catch {
        // No clipboard here (a page served over plain http): select the link for Ctrl+C.
        getSelection().selectAllChildren(code);
        copy.textContent = view.data.say.selected;
      }
      setTimeout(() => { copy.textContent = view.data.say.copy; }, 2000);
    });
    box.append(code, copy);
    parentElement.append(box);
    view = parentElement.specvizShare = { code, copy, params: null };
    view.heard = (e) => { view.params = e.detail; show(view); };
    view.relayed = (e) => adopt(view, e.detail);
  }
  adopt(view, data);
  window.removeEventListener("specviz:link", view.heard);
  window.addEventListener("specviz:link", view.heard);
  window.removeEventListener("specviz:share", view.relayed);
  window.addEventListener("specviz:share", view.relayed);
  return () => {
    window.removeEventListener("specviz:link", view.heard);
    window.removeEventListener("specviz:share", view.relayed);
  };
}

// A whole run's link always (after a replica died, a new session counts from 1 again); a part's
// only if Python wrote it after the link on show.
function adopt(view, data) {
  if (data.relay && data.run < view.data.run) return;
  view.data = data;
  view.copy.textContent = data.say.copy;
  document.documentElement.lang = data.lang;
  if (!data.follow.length) view.params = null;  // a page without a live view
  show(view);
}
