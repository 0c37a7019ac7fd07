// Streamlit 1.67 disables each tab while a rerun has not yet re-sent it (react-aria then drops its
// tabindex): on a busy machine the page is drawn in that moment and the focused tab loses the
// focus to the page. Give it back once the tab is enabled again, if the focus is still nowhere.
export default function () {
  const lost = (e) => {
    const tab = e.target.closest?.("[data-testid=stTab]");
    if (!tab || e.relatedTarget || tab.hasAttribute("tabindex")) return;
    const back = new MutationObserver(() => {
      if (!tab.hasAttribute("tabindex")) return;
      back.disconnect();
      if (tab.isConnected && document.activeElement === document.body) tab.focus();
    });
    back.observe(tab, { attributeFilter: ["tabindex"] });
  };
  document.addEventListener("focusout", lost);
  return () => document.removeEventListener("focusout", lost);
}
